//===- BFVOps.h - bfv operations --------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_BFV_IR_BFVOPS_H
#define RINGFUSE_DIALECTS_BFV_IR_BFVOPS_H

#include "dialects/BFV/IR/BFVTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ringfuse::bfv {
/// The type of a sum or difference of two ciphertexts of one parameter set:
/// the one with more components.
mlir::Type sumType(mlir::Type lhs, mlir::Type rhs);
} // namespace ringfuse::bfv

#define GET_OP_CLASSES
#include "dialects/BFV/IR/BFVOps.h.inc"

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVOPS_H
