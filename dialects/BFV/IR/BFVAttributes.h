//===- BFVAttributes.h - bfv attributes -------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H
#define RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H

#include "dialects/BFV/IR/BFVDialect.h"
#include "mlir/IR/BuiltinAttributes.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/BFV/IR/BFVAttributes.h.inc"

#endif // RINGFUSE_DIALECTS_BFV_IR_BFVATTRIBUTES_H
