//===- SameTypesDirective.h - `custom<SameTypes>` for ODS formats *- C++ -*-===//
//
// Ops whose operands and result share one type name it once in their textual
// form (`bfv.add %a, %b : !bfv.ciphertext<#params, 2>`). Mismatches can only be
// written in the generic form, where the op's verifier explains them in words
// (a bare type-equality trait would only say "types differ").
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_DIALECTS_COMMON_SAMETYPESDIRECTIVE_H
#define RINGFUSE_DIALECTS_COMMON_SAMETYPESDIRECTIVE_H

#include "mlir/IR/OpImplementation.h"

namespace ringfuse {

template <typename... Rest>
mlir::ParseResult parseSameTypes(mlir::OpAsmParser &parser, mlir::Type &first,
                                 Rest &...rest) {
  if (parser.parseType(first))
    return mlir::failure();
  ((rest = first), ...);
  return mlir::success();
}

template <typename... Rest>
void printSameTypes(mlir::OpAsmPrinter &printer, mlir::Operation *,
                    mlir::Type first, Rest...) {
  printer << first;
}

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_COMMON_SAMETYPESDIRECTIVE_H
