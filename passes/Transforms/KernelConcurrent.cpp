//===- KernelConcurrent.cpp - independent launches into concurrent groups -===//
//
// A straight-line kernel program launches one small kernel after another;
// at small N each fills a fraction of the GPU. Launches that touch disjoint
// buffers may run at the same time: this pass gathers each run of them into
// a `kernel.concurrent` (gathered as KernelGroups.h says), which the CPU
// driver runs in order. The CUDA driver finds the same independence itself
// (it schedules every launch by dataflow) but starts launches in program
// order, so a group's launches go longest chain first: the critical path
// gets the GPU first.
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/Analyses/KernelGroups.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

namespace ringfuse {
#define GEN_PASS_DEF_KERNELCONCURRENT
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// As many as the CUDA driver's side streams; a longer look-ahead rarely
/// finds more.
constexpr size_t kMaxMembers = 16, kLookAhead = 64;

/// How far after a kernel op its dependents are looked for: chains that
/// continue past it are still found link by link.
constexpr size_t kChainHorizon = 64;

/// Per kernel op (launch or generated kernel) of the module: the number of
/// kernel ops on the longest chain of dependent ones that starts at it,
/// itself included.
llvm::DenseMap<Operation *, unsigned> chainLengths(ModuleOp module) {
  llvm::DenseMap<Operation *, unsigned> length;
  module.walk([&](func::FuncOp function) {
    if (function.isExternal())
      return;
    SmallVector<Operation *> kernels;
    for (Operation &op : function.getBody().front())
      if (isa<kernel::LaunchOp, kernel::ElementwiseOp>(op))
        kernels.push_back(&op);
    for (size_t i = kernels.size(); i-- > 0;) {
      unsigned longest = 0;
      for (size_t j = i + 1; j < kernels.size() && j <= i + kChainHorizon; ++j)
        if (kernel::dependsOnBuffers(kernels[i], kernels[j]))
          longest = std::max(longest, length[kernels[j]]);
      length[kernels[i]] = longest + 1;
    }
  });
  return length;
}

struct KernelConcurrent : public impl::KernelConcurrentBase<KernelConcurrent> {
  using Base::Base;

  void runOnOperation() override {
    const llvm::DenseMap<Operation *, unsigned> length = chainLengths(getOperation());
    auto isLaunch = [](Operation *, Operation *op) { return isa<kernel::LaunchOp>(op); };
    rewriteGroups(getOperation(), isLaunch, kMaxMembers, kLookAhead,
                  [&](const KernelGroup &group, Operation *anchor) -> Operation * {
                    OpBuilder builder(anchor);
                    auto concurrent = kernel::ConcurrentOp::create(builder, anchor->getLoc());
                    Block *inside = builder.createBlock(&concurrent.getBody());
                    SmallVector<Operation *> members(group.members);
                    llvm::stable_sort(members, [&](Operation *a, Operation *b) {
                      return length.lookup(a) > length.lookup(b);
                    });
                    for (Operation *member : members)
                      member->moveBefore(inside, inside->end());
                    ++numGroups;
                    numGrouped += group.members.size();
                    return concurrent;
                  });
  }
};
} // namespace
} // namespace ringfuse
