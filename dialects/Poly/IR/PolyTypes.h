//===- PolyTypes.h - poly types ---------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_POLY_IR_POLYTYPES_H
#define RINGFUSE_DIALECTS_POLY_IR_POLYTYPES_H

#include "dialects/Poly/IR/PolyAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/Poly/IR/PolyTypes.h.inc"

#endif // RINGFUSE_DIALECTS_POLY_IR_POLYTYPES_H
