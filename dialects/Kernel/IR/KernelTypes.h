//===- KernelTypes.h - kernel types -----------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_KERNEL_IR_KERNELTYPES_H
#define RINGFUSE_DIALECTS_KERNEL_IR_KERNELTYPES_H

#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/RNS/IR/RNSAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/Kernel/IR/KernelTypes.h.inc"

#endif // RINGFUSE_DIALECTS_KERNEL_IR_KERNELTYPES_H
