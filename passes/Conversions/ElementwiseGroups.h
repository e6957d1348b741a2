//===- ElementwiseGroups.h - rns-to-kernel's elementwise trees ---*- C++
//-*-===//
//
// rns-to-kernel lowers each tree of elementwise rns ops (one whose inner
// values have one user) as one kernel at the tree's root. The trees, and
// what a tree that only adds products computes, are found here.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_CONVERSIONS_ELEMENTWISEGROUPS_H
#define RINGFUSE_PASSES_CONVERSIONS_ELEMENTWISEGROUPS_H

#include "mlir/IR/Block.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <utility>

namespace ringfuse {

/// Most ops one generated kernel computes. A larger tree is cut into
/// subtrees, each written to a buffer: the body of a sum of 64 products of a
/// matrix-vector product's giant step, one function of about 700 inputs,
/// took the host compiler most of a minute, and on the GPU a kernel that
/// reads that many buffers gains nothing over a few that read fewer. A tree
/// that only adds products is not cut: it is data for one library kernel
/// (sum_of_products), not a generated body, from kMinSumOfProducts on.
constexpr unsigned kMaxOpsPerKernel = 48;

/// The fewest products a sum lowers to sum_of_products: a tree past
/// kMaxOpsPerKernel has at least 25, and a smaller one is as fast generated
/// (and fuses with its neighbours).
constexpr unsigned kMinSumOfProducts = 16;

/// The trees of a block's elementwise ops: op -> its tree's root.
llvm::DenseMap<mlir::Operation *, mlir::Operation *>
groupElementwise(mlir::Block &body);

/// What a tree that only adds computes: the (factor, factor) pairs of its
/// products (rns.mul of two values from outside the tree, in program
/// order) and the values from outside it that it adds as they are.
struct SumOfProducts {
  llvm::SmallVector<std::pair<mlir::Value, mlir::Value>> products;
  llvm::SmallVector<mlir::Value> addends;
};

/// The sum the tree at `root` computes, or none if it does more than add
/// products and values.
std::optional<SumOfProducts> sumOfProducts(
    mlir::Operation *root,
    const llvm::DenseMap<mlir::Operation *, mlir::Operation *> &rootOf);

} // namespace ringfuse

#endif // RINGFUSE_PASSES_CONVERSIONS_ELEMENTWISEGROUPS_H
