//===- BigIntegerDirective.h - `custom<BigInteger>` for ODS ------*- C++ -*-===//
//
// A non-negative integer of any size, printed in decimal without a type
// (`poly.mul_scalar %x, 1329227995784915872903807060280344577`): constants
// such as Delta = floor(Q/t) have hundreds of bits.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_DIALECTS_COMMON_BIGINTEGERDIRECTIVE_H
#define RINGFUSE_DIALECTS_COMMON_BIGINTEGERDIRECTIVE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"

namespace ringfuse {

inline std::string decimal(const llvm::APInt &value) {
  return llvm::toString(value, /*Radix=*/10, /*Signed=*/false);
}

/// An integer attribute holding `value`, one width per magnitude class so
/// that equal constants are uniqued together.
inline mlir::IntegerAttr bigIntegerAttr(mlir::Builder &builder,
                                        const llvm::APInt &value) {
  unsigned width =
      std::max(64u, unsigned(llvm::alignTo(value.getActiveBits() + 1, 64)));
  return builder.getIntegerAttr(builder.getIntegerType(width),
                                value.zextOrTrunc(width));
}

inline mlir::ParseResult parseBigInteger(mlir::OpAsmParser &parser,
                                         mlir::IntegerAttr &attr) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::APInt value;
  mlir::OptionalParseResult parsed = parser.parseOptionalInteger(value);
  if (!parsed.has_value())
    return parser.emitError(loc, "expected a non-negative integer");
  if (mlir::failed(*parsed))
    return mlir::failure();
  if (value.isNegative())
    return parser.emitError(loc, "expected a non-negative integer");
  attr = bigIntegerAttr(parser.getBuilder(), value);
  return mlir::success();
}

inline void printBigInteger(mlir::OpAsmPrinter &printer, mlir::Operation *,
                            mlir::IntegerAttr attr) {
  printer << decimal(attr.getValue());
}

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_COMMON_BIGINTEGERDIRECTIVE_H
