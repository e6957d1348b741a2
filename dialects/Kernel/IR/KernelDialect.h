//===- KernelDialect.h - the kernel dialect ---------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_KERNEL_IR_KERNELDIALECT_H
#define RINGFUSE_DIALECTS_KERNEL_IR_KERNELDIALECT_H

#include "dialects/RNS/IR/RNSDialect.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Kernel/IR/KernelDialect.h.inc"

#endif // RINGFUSE_DIALECTS_KERNEL_IR_KERNELDIALECT_H
