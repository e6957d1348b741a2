//===- PolyDialect.h - the poly dialect -------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_POLY_IR_POLYDIALECT_H
#define RINGFUSE_DIALECTS_POLY_IR_POLYDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/Poly/IR/PolyDialect.h.inc"

#endif // RINGFUSE_DIALECTS_POLY_IR_POLYDIALECT_H
