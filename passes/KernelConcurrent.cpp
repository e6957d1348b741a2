//===- KernelConcurrent.cpp - independent launches into concurrent groups -===//
//
// A straight-line kernel program launches one small kernel after another;
// at small N each fills a fraction of the GPU. Launches that touch disjoint
// buffers may run at the same time: this pass gathers each run of them into
// a `kernel.concurrent`, which the CUDA driver forks onto side streams
// (gathered as KernelGroups.h says).
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/KernelGroups.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ringfuse {
#define GEN_PASS_DEF_KERNELCONCURRENT
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// Enough to fill the side streams the CUDA driver keeps twice over; a
/// longer look-ahead rarely finds more.
constexpr size_t kMaxMembers = 16, kLookAhead = 64;

struct KernelConcurrent : public impl::KernelConcurrentBase<KernelConcurrent> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      Block &body = function.getBody().front();
      for (Operation *op = &body.front(); op; op = op->getNextNode()) {
        if (!isa<kernel::LaunchOp>(op))
          continue;
        KernelGroup group = groupFrom(
            op, [](Operation *other) { return isa<kernel::LaunchOp>(other); },
            kMaxMembers, kLookAhead);
        if (group.members.size() < 2)
          continue;
        Operation *anchor = placeGroup(group);
        OpBuilder builder(anchor);
        auto concurrent = kernel::ConcurrentOp::create(builder, anchor->getLoc());
        Block *inside = builder.createBlock(&concurrent.getBody());
        for (Operation *member : group.members)
          member->moveBefore(inside, inside->end());
        ++numGroups;
        numGrouped += group.members.size();
        op = concurrent;
      }
    });
  }
};
} // namespace
} // namespace ringfuse
