//===- RNSChooseTransform.cpp - each transform's kernel and shape ---------===//
//
// TransformCostModel prices the configurations; this pass reads the options
// into it, asks it once per rns.ntt / rns.intt and records the answer on the
// op, where rns-to-kernel finds it for the launch.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/CostModels/TransformCostModel.h"

#include "dialects/RNS/IR/RNSOps.h"

namespace ringfuse {
#define GEN_PASS_DEF_RNSCHOOSETRANSFORM
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

struct RNSChooseTransform
    : public impl::RNSChooseTransformBase<RNSChooseTransform> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> transforms;
    getOperation().walk([&](Operation *op) {
      if (isa<rns::NttOp, rns::InttOp>(op))
        transforms.push_back(op);
    });
    if (transforms.empty())
      return;
    // Problems with the options are reported where they first matter.
    std::optional<TransformCostModel> model = buildModel(transforms.front());
    if (!model)
      return signalPassFailure();
    for (Operation *op : transforms) {
      auto type = cast<rns::PolyType>(op->getOperand(0).getType());
      std::optional<TransformCostModel::Choice> choice =
          model->choose(type.getDegree(), type.getBasis().getModuli(),
                        isa<rns::NttOp>(op));
      if (!choice) {
        op->emitOpError() << "no allowed transform runs " << type
                          << " (check the kinds option)";
        return signalPassFailure();
      }
      op->setAttr("transform", choice->shape.toAttr(op->getContext()));
      ++numTransformsChosen;
      ++(choice->fromTable ? numFromTable : numFromModel);
    }
  }

  std::optional<TransformCostModel> buildModel(Operation *first) {
    SmallVector<rns::TransformKind> allowedKinds;
    for (const std::string &name : kinds) {
      std::optional<rns::TransformKind> kind = rns::symbolizeTransformKind(name);
      if (!kind) {
        first->emitError() << "rns-choose-transform: unknown transform kind '"
                           << name << "' (expected ntt or dgt)";
        return std::nullopt;
      }
      allowedKinds.push_back(*kind);
    }
    // The NTT unless asked: it is what every fused kernel runs.
    if (allowedKinds.empty())
      allowedKinds.push_back(rns::TransformKind::ntt);

    llvm::Expected<TransformCostTable> table =
        TransformCostTable::load(costTable);
    if (!table) {
      first->emitError() << "rns-choose-transform: "
                         << llvm::toString(table.takeError());
      return std::nullopt;
    }
    return TransformCostModel(std::move(*table), allowedKinds);
  }
};
} // namespace
} // namespace ringfuse
