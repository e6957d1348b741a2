//===- KernelDialect.cpp - the kernel dialect -----------------------------===//
#include "dialects/Kernel/IR/KernelDialect.h"

#include "dialects/Kernel/IR/KernelOps.h"

using namespace mlir;
using namespace ringfuse::kernel;

#include "dialects/Kernel/IR/KernelDialect.cpp.inc"

void KernelDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Kernel/IR/KernelOps.cpp.inc"
      >();
}
