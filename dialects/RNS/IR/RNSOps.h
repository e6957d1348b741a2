//===- RNSOps.h - rns operations ------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_RNS_IR_RNSOPS_H
#define RINGFUSE_DIALECTS_RNS_IR_RNSOPS_H

#include "dialects/RNS/IR/RNSTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/RNS/IR/RNSOps.h.inc"

namespace ringfuse::rns {
/// Whether `op` is residue-by-residue work (add, sub, neg, mul,
/// mul_scalar): rns-to-kernel makes such ops generated kernels.
bool isElementwise(mlir::Operation *op);
} // namespace ringfuse::rns

#endif // RINGFUSE_DIALECTS_RNS_IR_RNSOPS_H
