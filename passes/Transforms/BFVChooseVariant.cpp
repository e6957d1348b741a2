//===- BFVChooseVariant.cpp - variant=auto, by the cost model -------------===//
//
// Each candidate lowers a copy of the module, nested in it while it is
// priced (a pass may only run pipelines on its own operation or below).
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "passes/Passes.h"
#include "passes/Pipelines/Pipeline.h"
#include "passes/CostModels/VariantCostModel.h"

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
    SmallVector<bfv::Variant> variants;
    for (const std::string &name : candidates) {
      std::optional<bfv::Variant> variant = bfv::symbolizeVariant(name);
      if (!variant) {
        module.emitError() << "bfv-choose-variant: unknown variant '" << name
                           << "' (" << bfv::variantNames() << ")";
        return signalPassFailure();
      }
      variants.push_back(*variant);
    }
    if (variants.empty())
      for (uint32_t value = 0; value <= bfv::getMaxEnumValForVariant(); ++value)
        variants.push_back(*bfv::symbolizeVariant(value));
    // One candidate is the choice: nothing to price.
    if (variants.size() == 1)
      return choose(variants.front());
    if (!findParameters(module))
      return signalPassFailure();

    llvm::Expected<TransformCostTable> table = TransformCostTable::load(costTable);
    if (!table) {
      module.emitError() << "bfv-choose-variant: " << llvm::toString(table.takeError());
      return signalPassFailure();
    }
    TransformCostModel transforms(std::move(*table), {rns::TransformKind::ntt});
    CircuitCostModel model(transforms);

    SmallVector<NamedAttribute> costs;
    std::optional<bfv::Variant> best;
    double bestCost = 0;
    for (bfv::Variant variant : variants) {
      FailureOr<double> cost = priceOf(variant, model);
      if (failed(cost))
        return signalPassFailure();
      costs.emplace_back(
          StringAttr::get(&getContext(), bfv::stringifyVariant(variant)),
          FloatAttr::get(Float64Type::get(&getContext()), *cost));
      if (!best || *cost < bestCost)
        best = variant, bestCost = *cost;
    }
    module->setAttr(bfv::BFVDialect::kVariantCostsAttrName,
                    DictionaryAttr::get(&getContext(), costs));
    choose(*best);
  }

  /// Records the choice; leveled HPS's products get their levels here, as
  /// the pipeline's lowering of lhps expects them.
  void choose(bfv::Variant variant) {
    ModuleOp module = getOperation();
    bfv::setVariant(module, variant);
    if (variant != bfv::Variant::lhps)
      return;
    OpPassManager levels(ModuleOp::getOperationName());
    addLevelChoice(levels, reserveDepth);
    if (failed(runPipeline(levels, module)))
      signalPassFailure();
  }

  /// The cost model's microseconds for the module lowered with `variant`.
  FailureOr<double> priceOf(bfv::Variant variant, const CircuitCostModel &model) {
    ModuleOp module = getOperation();
    SmallVector<Operation *> originals;
    for (Operation &op : *module.getBody())
      originals.push_back(&op);
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto copy = ModuleOp::create(builder, module.getLoc());
    for (Operation *op : originals)
      copy.getBody()->push_back(op->clone());
    bfv::setVariant(copy, variant);
    OpPassManager lowering(ModuleOp::getOperationName());
    if (variant == bfv::Variant::lhps)
      addLevelChoice(lowering, reserveDepth);
    addLowering(lowering, optimize);
    if (failed(runPipeline(lowering, copy))) {
      copy.erase();
      return module.emitError() << "bfv-choose-variant: the circuit does not lower with "
                                << bfv::stringifyVariant(variant);
    }
    double cost = model.microseconds(copy);
    copy.erase();
    return cost;
  }
};
} // namespace
} // namespace ringfuse
