//===- SumTrees.h - sums as trees of additions, and cleaning up -*- C++ -*-===//
//
// The whole-circuit rewrites (baby-step giant-step, one division by P per
// sum) see a sum as the leaves of a tree of additions whose inner nodes have
// one use, regroup the leaves, and build the sum again; the old tree is left
// without users. These helpers are shared by the bfv and rns passes.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_TRANSFORMS_SUMTREES_H
#define RINGFUSE_PASSES_TRANSFORMS_SUMTREES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ringfuse {

/// The summands of the tree of `AddOp`s rooted at `value`: an operand made
/// by an addition with no other use is a subtree, anything else a leaf.
template <typename AddOp>
void collectSummands(mlir::Value value,
                     llvm::SmallVectorImpl<mlir::Value> &leaves,
                     bool isRoot = true) {
  auto add = value.getDefiningOp<AddOp>();
  if (!add || (!isRoot && !value.hasOneUse())) {
    leaves.push_back(value);
    return;
  }
  collectSummands<AddOp>(add.getLhs(), leaves, false);
  collectSummands<AddOp>(add.getRhs(), leaves, false);
}

/// The roots of `function`'s sum trees: additions not summed further by a
/// one-use addition.
template <typename AddOp>
llvm::SmallVector<AddOp> sumRoots(mlir::func::FuncOp function) {
  llvm::SmallVector<AddOp> roots;
  function.walk([&](AddOp add) {
    mlir::Value sum = add.getResult();
    if (!sum.hasOneUse() || !mlir::isa<AddOp>(*sum.user_begin()))
      roots.push_back(add);
  });
  return roots;
}

/// A balanced tree of additions of `values` (non-empty): depth log2 n, so
/// noise and dependent launches grow as little as they can.
template <typename AddOp>
mlir::Value balancedSum(mlir::OpBuilder &builder, mlir::Location loc,
                        llvm::ArrayRef<mlir::Value> values) {
  if (values.size() == 1)
    return values.front();
  size_t half = values.size() / 2;
  return AddOp::create(
      builder, loc, balancedSum<AddOp>(builder, loc, values.take_front(half)),
      balancedSum<AddOp>(builder, loc, values.drop_front(half)));
}

/// Erases the pure ops a rewrite left without users, last first so that
/// whole chains go in one pass.
inline void eraseUnusedPureOps(mlir::func::FuncOp function) {
  if (function.isExternal())
    return;
  for (mlir::Operation &op :
       llvm::make_early_inc_range(llvm::reverse(function.getBody().front())))
    if (op.use_empty() && mlir::isPure(&op) &&
        !op.hasTrait<mlir::OpTrait::IsTerminator>())
      op.erase();
}

} // namespace ringfuse

#endif // RINGFUSE_PASSES_TRANSFORMS_SUMTREES_H
