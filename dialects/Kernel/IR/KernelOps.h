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

#endif // RINGFUSE_DIALECTS_KERNEL_IR_KERNELOPS_H
