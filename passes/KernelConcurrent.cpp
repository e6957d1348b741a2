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
    auto isLaunch = [](Operation *, Operation *op) { return isa<kernel::LaunchOp>(op); };
    rewriteGroups(getOperation(), isLaunch, kMaxMembers, kLookAhead,
                  [&](const KernelGroup &group, Operation *anchor) -> Operation * {
                    OpBuilder builder(anchor);
                    auto concurrent = kernel::ConcurrentOp::create(builder, anchor->getLoc());
                    Block *inside = builder.createBlock(&concurrent.getBody());
                    for (Operation *member : group.members)
                      member->moveBefore(inside, inside->end());
                    ++numGroups;
                    numGrouped += group.members.size();
                    return concurrent;
                  });
  }
};
} // namespace
} // namespace ringfuse
