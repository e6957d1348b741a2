//===- BFVTypes.cpp - bfv types -------------------------------------------===//
#include "dialects/BFV/IR/BFVTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ringfuse::bfv;

#define GET_TYPEDEF_CLASSES
#include "dialects/BFV/IR/BFVTypes.cpp.inc"

void BFVDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/BFV/IR/BFVTypes.cpp.inc"
      >();
}

LogicalResult
CiphertextType::verify(function_ref<InFlightDiagnostic()> emitError,
                       ParamsAttr params, unsigned size) {
  // 2 components fresh, 3 after bfv.mul; nothing in the scheme makes more.
  if (size != 2 && size != 3)
    return emitError() << "a ciphertext has 2 or 3 components, got " << size;
  return success();
}
