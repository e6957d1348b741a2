//===- PolyAttributes.h - poly attributes -----------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_POLY_IR_POLYATTRIBUTES_H
#define RINGFUSE_DIALECTS_POLY_IR_POLYATTRIBUTES_H

#include "dialects/Poly/IR/PolyDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/Poly/IR/PolyAttributes.h.inc"

#endif // RINGFUSE_DIALECTS_POLY_IR_POLYATTRIBUTES_H
