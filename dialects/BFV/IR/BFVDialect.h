//===- BFVDialect.h - the bfv dialect ---------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_BFV_IR_BFVDIALECT_H
#define RINGFUSE_DIALECTS_BFV_IR_BFVDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/BFV/IR/BFVDialect.h.inc"

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVDIALECT_H
