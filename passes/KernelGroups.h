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
#ifndef RINGFUSE_PASSES_KERNELGROUPS_H
#define RINGFUSE_PASSES_KERNELGROUPS_H

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

/// The group that starts at `first`: later ops for which `joins` holds, at
/// most `maxMembers` in all, looking `lookAhead` ops ahead.
KernelGroup groupFrom(mlir::Operation *first,
                      llvm::function_ref<bool(mlir::Operation *)> joins,
                      size_t maxMembers, size_t lookAhead);

/// Moves the ops the group lifts above its place and returns that place: the
/// op before which the group's members (or what replaces them) belong.
mlir::Operation *placeGroup(const KernelGroup &group);

} // namespace ringfuse

#endif // RINGFUSE_PASSES_KERNELGROUPS_H
