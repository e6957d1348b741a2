//===- BFVTypes.h - bfv types -----------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_BFV_IR_BFVTYPES_H
#define RINGFUSE_DIALECTS_BFV_IR_BFVTYPES_H

#include "dialects/BFV/IR/BFVAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/BFV/IR/BFVTypes.h.inc"

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVTYPES_H
