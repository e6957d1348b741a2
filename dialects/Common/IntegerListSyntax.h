//===- IntegerListSyntax.h - `[a, b, ...]` in attribute syntax --*- C++ -*-===//
//
// RNS bases are written as bracketed integer lists. The empty list parses too,
// so that the verifier, not the parser, says what is wrong with it.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_DIALECTS_COMMON_INTEGERLISTSYNTAX_H
#define RINGFUSE_DIALECTS_COMMON_INTEGERLISTSYNTAX_H

#include "mlir/IR/OpImplementation.h"

namespace ringfuse {

inline mlir::ParseResult
parseIntegerList(mlir::AsmParser &parser,
                 llvm::SmallVectorImpl<uint64_t> &values) {
  return parser.parseCommaSeparatedList(
      mlir::AsmParser::Delimiter::Square, [&]() -> mlir::ParseResult {
        uint64_t value;
        if (parser.parseInteger(value))
          return mlir::failure();
        values.push_back(value);
        return mlir::success();
      });
}

inline void printIntegerList(mlir::AsmPrinter &printer,
                             llvm::ArrayRef<uint64_t> values) {
  printer << "[";
  llvm::interleaveComma(values, printer);
  printer << "]";
}

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_COMMON_INTEGERLISTSYNTAX_H
