//===- RNSTypes.h - rns types ---------------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_RNS_IR_RNSTYPES_H
#define RINGFUSE_DIALECTS_RNS_IR_RNSTYPES_H

#include "dialects/RNS/IR/RNSAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#define GET_TYPEDEF_CLASSES
#include "dialects/RNS/IR/RNSTypes.h.inc"

#endif // RINGFUSE_DIALECTS_RNS_IR_RNSTYPES_H
