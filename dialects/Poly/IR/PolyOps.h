//===- PolyOps.h - poly operations ------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_POLY_IR_POLYOPS_H
#define RINGFUSE_DIALECTS_POLY_IR_POLYOPS_H

#include "dialects/Poly/IR/PolyTypes.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/Poly/IR/PolyOps.h.inc"

#endif // RINGFUSE_DIALECTS_POLY_IR_POLYOPS_H
