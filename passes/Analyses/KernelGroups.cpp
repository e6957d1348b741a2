//===- KernelGroups.cpp - gathering independent kernel ops ----------------===//
#include "passes/Analyses/KernelGroups.h"

#include "dialects/Kernel/IR/KernelOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ringfuse {
using namespace mlir;

namespace {
bool dependsOnAny(ArrayRef<Operation *> earlier, Operation *op) {
  return llvm::any_of(earlier, [&](Operation *first) {
    return kernel::dependsOnBuffers(first, op);
  });
}

/// Whether `value` can be made available above the passed ops: defined
/// before them, or by an allocation, constant or view (of such a buffer)
/// among them, which is then lifted too.
bool liftable(Value value, const KernelGroup &group,
              llvm::SmallPtrSet<Operation *, 8> &lift) {
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

/// The group that starts at `first`: the later ops for which `joins` holds
/// and that the rules of KernelGroups.h let in.
KernelGroup groupFrom(Operation *first, function_ref<bool(Operation *)> joins,
                      size_t maxMembers, size_t lookAhead) {
  KernelGroup group;
  group.members.push_back(first);
  size_t scanned = 0;
  for (Operation *op = first->getNextNode();
       op && !op->hasTrait<OpTrait::IsTerminator>() &&
       group.members.size() < maxMembers && scanned < lookAhead;
       op = op->getNextNode(), ++scanned) {
    const bool onMembers = dependsOnAny(group.members, op);
    if (group.passed.empty() && !onMembers) {
      if (joins(op))
        group.members.push_back(op);
      continue;
    }
    llvm::SmallPtrSet<Operation *, 8> lift;
    const bool hoistable =
        joins(op) && !onMembers && !dependsOnAny(group.passed, op) &&
        llvm::all_of(op->getOperands(),
                     [&](Value v) { return liftable(v, group, lift); });
    if (hoistable) {
      group.members.push_back(op);
      group.lifted.insert(lift.begin(), lift.end());
    } else {
      group.passed.push_back(op);
    }
  }
  return group;
}

/// Moves the ops the group lifts above its place and returns that place.
Operation *placeGroup(const KernelGroup &group) {
  // Above the first passed op, or where the last sunk member was.
  Operation *anchor = group.passed.empty() ? group.members.back()->getNextNode()
                                           : group.passed.front();
  for (Operation *passed : group.passed)
    if (group.lifted.contains(passed))
      passed->moveBefore(anchor);
  return anchor;
}

} // namespace

void rewriteGroups(ModuleOp module, JoinsGroup joins, size_t maxMembers,
                   size_t lookAhead, RewriteGroup rewrite) {
  module.walk([&](func::FuncOp function) {
    if (function.isExternal())
      return;
    Block &body = function.getBody().front();
    for (Operation *op = &body.front(); op; op = op->getNextNode()) {
      if (!joins(op, op))
        continue;
      KernelGroup group = groupFrom(
          op, [&](Operation *other) { return joins(op, other); }, maxMembers,
          lookAhead);
      if (group.members.size() >= 2)
        op = rewrite(group, placeGroup(group));
    }
  });
}

} // namespace ringfuse
