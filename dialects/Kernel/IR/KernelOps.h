//===- KernelOps.h - kernel operations --------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_KERNEL_IR_KERNELOPS_H
#define RINGFUSE_DIALECTS_KERNEL_IR_KERNELOPS_H

#include "dialects/Kernel/IR/KernelTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/Kernel/IR/KernelOps.h.inc"

namespace ringfuse::kernel {

/// Whether two buffers may share memory: views of one buffer, or
/// allocations planned into one slot (rns-to-kernel's slots).
bool mayAlias(mlir::Value a, mlir::Value b);

/// Whether `first` must run before `second` when both are written as here:
/// one writes a buffer the other reads or writes. Ops other than launches
/// and generated kernels touch no buffer.
bool dependsOnBuffers(mlir::Operation *first, mlir::Operation *second);

} // namespace ringfuse::kernel

#endif // RINGFUSE_DIALECTS_KERNEL_IR_KERNELOPS_H
