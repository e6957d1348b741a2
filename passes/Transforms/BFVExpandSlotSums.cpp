//===- BFVExpandSlotSums.cpp - bfv.sum_slots to rotations and adds --------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace ringfuse {
#define GEN_PASS_DEF_BFVEXPANDSLOTSUMS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

struct BFVExpandSlotSums
    : public impl::BFVExpandSlotSumsBase<BFVExpandSlotSums> {
  void runOnOperation() override {
    SmallVector<bfv::SumSlotsOp> sums;
    getOperation()->walk([&](bfv::SumSlotsOp op) { sums.push_back(op); });
    for (bfv::SumSlotsOp sum : sums)
      if (failed(expand(sum)))
        return signalPassFailure();
  }

  LogicalResult expand(bfv::SumSlotsOp sum) {
    auto type = sum.getInput().getType();
    bfv::ParamsAttr params = type.getParams();
    if (!params.hasRingDegree())
      return sum.emitOpError()
             << "cannot be expanded before the ring degree N is chosen";

    OpBuilder builder(sum);
    Location loc = sum.getLoc();
    Value acc = sum.getInput();
    int64_t rowLength = params.getRingDegree() / 2;
    // Doubling shifts: after the step with shift s every slot holds the sum
    // of 2s consecutive slots of its row.
    for (int64_t shift = 1; shift < rowLength; shift *= 2) {
      Value rotated = bfv::RotateOp::create(builder, loc, type, acc, shift);
      acc = bfv::AddOp::create(builder, loc, acc, rotated);
      ++numRotationsInserted;
    }
    Value swapped = bfv::SwapRowsOp::create(builder, loc, type, acc);
    acc = bfv::AddOp::create(builder, loc, acc, swapped);
    ++numRotationsInserted;

    sum.replaceAllUsesWith(acc);
    sum.erase();
    ++numSumsExpanded;
    return success();
  }
};
} // namespace
} // namespace ringfuse
