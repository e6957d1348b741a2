//===- BFVAttributes.h - bfv attributes -------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H
#define RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H

#include "dialects/BFV/IR/BFVDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "dialects/BFV/IR/BFVEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/BFV/IR/BFVAttributes.h.inc"

namespace mlir {
class ModuleOp;
class Operation;
} // namespace mlir

namespace ringfuse::bfv {

/// The variant a module is lowered with: its `bfv.variant`, else HPS.
Variant variantOf(mlir::ModuleOp module);
/// Records `variant` as the module's `bfv.variant`.
void setVariant(mlir::ModuleOp module, Variant variant);
/// A module's word size: its `bfv.word_bits`, else 64.
unsigned wordBitsOf(mlir::ModuleOp module);
/// The word size of the program `op` is part of: its module's (or, for a
/// module, its own) wordBitsOf; 64 outside any module.
unsigned wordBitsAt(mlir::Operation *op);
/// Records `bits` (32 or 64) as the module's `bfv.word_bits`.
void setWordBits(mlir::ModuleOp module, unsigned bits);
/// The widest primes a program of `wordBits`-bit words may have: 30 bits for
/// 32-bit words (lazy values stay below 4q < 2^32), 60 for 64-bit words.
unsigned widestPrimeBits(unsigned wordBits);
/// The first of `params`' moduli (t, Q, P) that a program of 32-bit words
/// cannot have (2^30 or more); 0 if none.
uint64_t modulusTooWideFor32BitWords(ParamsAttr params);
/// "hps, lhps, chps or behz": every variant, for messages.
std::string variantNames();

} // namespace ringfuse::bfv

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H
