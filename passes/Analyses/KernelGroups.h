//===- KernelGroups.h - gathering independent kernel ops -------*- C++ -*-===//
//
// kernel-concurrent and kernel-fuse-elementwise both gather ops of a
// straight-line kernel program that do not depend on each other: one runs
// them at the same time, the other as one generated kernel. The gathering is
// the same; they differ in which ops may join.
//
// From the first op on, later ops that may join do so while every op between
// touches none of the members' buffers (the members sink past it); after the
// first op that does, the group stays above it, and later ops join by moving
// up (hoisting) if they depend on none of the ops they pass. Their
// allocations, constants and views move up with them. Only true dependencies
// (a buffer one op writes and another reads or writes) order the ops, so this
// runs before kernel-plan-slots.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_ANALYSES_KERNELGROUPS_H
#define RINGFUSE_PASSES_ANALYSES_KERNELGROUPS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"

namespace ringfuse {

/// Independent ops that may run together where the group is placed.
struct KernelGroup {
  llvm::SmallVector<mlir::Operation *> members;
  llvm::SmallVector<mlir::Operation *> passed; // ops after the group's place, in order
  llvm::SmallPtrSet<mlir::Operation *, 8> lifted; // of `passed`: to move above it
};

/// Whether `op` may join the group that starts at `first` (and, for
/// joins(op, op), whether a group may start at `op`).
using JoinsGroup = llvm::function_ref<bool(mlir::Operation *first, mlir::Operation *op)>;

/// Replaces a group of two or more, whose members are still in place, by
/// whatever runs them together before `anchor` (the ops it lifts are moved
/// there already); returns the op after which the search goes on.
using RewriteGroup =
    llvm::function_ref<mlir::Operation *(const KernelGroup &group, mlir::Operation *anchor)>;

/// In each function of `module`, from each op a group may start at, in
/// order: gathers the group (at most `maxMembers`, looking `lookAhead` ops
/// ahead) and, if it has two members or more, rewrites it.
void rewriteGroups(mlir::ModuleOp module, JoinsGroup joins, size_t maxMembers,
                   size_t lookAhead, RewriteGroup rewrite);

} // namespace ringfuse

#endif // RINGFUSE_PASSES_ANALYSES_KERNELGROUPS_H
