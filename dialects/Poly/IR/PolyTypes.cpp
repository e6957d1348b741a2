//===- PolyTypes.cpp - poly types -----------------------------------------===//
#include "dialects/Poly/IR/PolyTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ringfuse::poly;

#define GET_TYPEDEF_CLASSES
#include "dialects/Poly/IR/PolyTypes.cpp.inc"

void PolyDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/Poly/IR/PolyTypes.cpp.inc"
      >();
}
