//===- BFVChooseVariant.cpp - variant=auto, by the cost model -------------===//
//
// Each candidate lowers a copy of the module, nested in it while it is
// priced (a pass may only run pipelines on its own operation or below).
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/ParameterRewriting.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"
#include "passes/VariantCostModel.h"

#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"

namespace ringfuse {
#define GEN_PASS_DEF_BFVCHOOSEVARIANT
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

struct BFVChooseVariant : public impl::BFVChooseVariantBase<BFVChooseVariant> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::string> names(candidates.begin(), candidates.end());
    if (names.empty())
      names.assign(std::begin(kBuiltVariants), std::end(kBuiltVariants));
    for (const std::string &name : names)
      if (!isBuiltVariant(name)) {
        module.emitError() << "bfv-choose-variant: unknown candidate '" << name
                           << "' (hps, lhps, chps or behz)";
        return signalPassFailure();
      }
    if (!findParameters(module))
      return signalPassFailure();

    llvm::Expected<TransformCostTable> table = TransformCostTable::load(costTable);
    if (!table) {
      module.emitError() << "bfv-choose-variant: " << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    TransformCostModel transforms(std::move(*table), {rns::TransformKind::ntt}, {64});
    CircuitCostModel model(transforms);

    SmallVector<NamedAttribute> costs;
    std::string best;
    double bestCost = 0;
    for (const std::string &name : names) {
      FailureOr<double> cost = priceOf(name, model);
      if (failed(cost))
        return signalPassFailure();
      costs.emplace_back(StringAttr::get(&getContext(), name),
                         FloatAttr::get(Float64Type::get(&getContext()), *cost));
      if (best.empty() || *cost < bestCost)
        best = name, bestCost = *cost;
    }
    module->setAttr("ringfuse.variant", StringAttr::get(&getContext(), best));
    module->setAttr("ringfuse.variant_costs", DictionaryAttr::get(&getContext(), costs));
    if (best == "lhps") {
      OpPassManager levels(ModuleOp::getOperationName());
      addLevelChoice(levels, reserveDepth);
      if (failed(runPipeline(levels, module)))
        signalPassFailure();
    }
  }

  /// The cost model's microseconds for the module lowered with `variant`.
  FailureOr<double> priceOf(StringRef variant, const CircuitCostModel &model) {
    ModuleOp module = getOperation();
    SmallVector<Operation *> originals;
    for (Operation &op : *module.getBody())
      originals.push_back(&op);
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto copy = ModuleOp::create(builder, module.getLoc());
    for (Operation *op : originals)
      copy.getBody()->push_back(op->clone());
    OpPassManager lowering(ModuleOp::getOperationName());
    addVariantLowering(lowering, variant, reserveDepth);
    if (failed(runPipeline(lowering, copy))) {
      copy.erase();
      return module.emitError() << "bfv-choose-variant: the circuit does not lower with "
                                << variant;
    }
    double cost = model.microseconds(copy);
    copy.erase();
    return cost;
  }
};
} // namespace
} // namespace ringfuse
