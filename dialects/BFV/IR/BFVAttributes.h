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
} // namespace mlir

namespace ringfuse::bfv {

/// The variant a module is lowered with: its `bfv.variant`, else HPS.
Variant variantOf(mlir::ModuleOp module);
/// Records `variant` as the module's `bfv.variant`.
void setVariant(mlir::ModuleOp module, Variant variant);
/// "hps, lhps, chps or behz": every variant, for messages.
std::string variantNames();

} // namespace ringfuse::bfv

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H
