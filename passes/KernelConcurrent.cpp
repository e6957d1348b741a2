//===- KernelConcurrent.cpp - independent launches into concurrent groups -===//
//
// A straight-line kernel program launches one small kernel after another;
// at small N each fills a fraction of the GPU. Launches that touch disjoint
// buffers may run at the same time: this pass gathers each run of them into
// a `kernel.concurrent`, which the CUDA driver forks onto side streams. It
// runs before kernel-plan-slots, so only true dependencies (a buffer one op
// writes and another reads or writes) order the launches.
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace ringfuse {
#define GEN_PASS_DEF_KERNELCONCURRENT
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// Enough to fill the side streams the CUDA driver keeps twice over; a
/// longer look-ahead rarely finds more.
constexpr size_t kMaxMembers = 16, kLookAhead = 64;

/// A group in the making: launches that run together where the group is
/// placed, and the ops they may have to move above (allocations and views of
/// buffers a hoisted launch uses).
struct Group {
  SmallVector<Operation *> members;
  SmallVector<Operation *> passed; // ops after the group's place, in order
  llvm::SmallPtrSet<Operation *, 8> lifted; // of `passed`: move above it
};

bool dependsOnAny(ArrayRef<Operation *> earlier, Operation *op) {
  return llvm::any_of(earlier, [&](Operation *first) {
    return kernel::dependsOnBuffers(first, op);
  });
}

/// Whether `value` can be made available above the passed ops: defined
/// before them, or by an allocation, constant or view (of such a buffer)
/// among them, which is then lifted too.
bool liftable(Value value, Group &group, llvm::SmallPtrSet<Operation *, 8> &lift) {
  Operation *def = value.getDefiningOp();
  if (!def || !llvm::is_contained(group.passed, def))
    return true;
  if (isa<kernel::AllocOp, kernel::ConstantOp>(def)) {
    lift.insert(def);
    return true;
  }
  if (auto view = dyn_cast<kernel::ViewOp>(def)) {
    lift.insert(def);
    return liftable(view.getSource(), group, lift);
  }
  return false;
}

/// From `first` on: later launches join while every op between touches none
/// of the members' buffers (the members sink past it); after the first op
/// that does, the group stays above it and later launches join by moving up
/// (hoisting), if they depend on none of the ops they pass.
Group groupFrom(Operation *first) {
  Group group;
  group.members.push_back(first);
  size_t scanned = 0;
  for (Operation *op = first->getNextNode();
       op && !op->hasTrait<OpTrait::IsTerminator>() &&
       group.members.size() < kMaxMembers && scanned < kLookAhead;
       op = op->getNextNode(), ++scanned) {
    const bool onMembers = dependsOnAny(group.members, op);
    if (group.passed.empty() && !onMembers) {
      if (isa<kernel::LaunchOp>(op))
        group.members.push_back(op);
      continue;
    }
    llvm::SmallPtrSet<Operation *, 8> lift;
    const bool hoistable =
        isa<kernel::LaunchOp>(op) && !onMembers && !dependsOnAny(group.passed, op) &&
        llvm::all_of(op->getOperands(), [&](Value v) { return liftable(v, group, lift); });
    if (hoistable) {
      group.members.push_back(op);
      group.lifted.insert(lift.begin(), lift.end());
    } else {
      group.passed.push_back(op);
    }
  }
  return group;
}

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
        Group group = groupFrom(op);
        if (group.members.size() < 2)
          continue;
        // The group's place: above the first passed op, or where its last
        // sunk member was.
        Operation *anchor = group.passed.empty() ? group.members.back()->getNextNode()
                                                 : group.passed.front();
        for (Operation *passed : group.passed)
          if (group.lifted.contains(passed))
            passed->moveBefore(anchor);
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
