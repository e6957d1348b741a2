//===- KernelTypes.cpp - kernel types -------------------------------------===//
#include "dialects/Kernel/IR/KernelTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ringfuse::kernel;

#define GET_TYPEDEF_CLASSES
#include "dialects/Kernel/IR/KernelTypes.cpp.inc"

void KernelDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Kernel/IR/KernelTypes.cpp.inc"
      >();
}
