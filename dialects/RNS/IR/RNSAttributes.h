//===- RNSAttributes.h - rns attributes -----------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_RNS_IR_RNSATTRIBUTES_H
#define RINGFUSE_DIALECTS_RNS_IR_RNSATTRIBUTES_H

#include "dialects/RNS/IR/RNSDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "ringfuse/runtime/ntt_shape.h"

#include <string>

#include "dialects/RNS/IR/RNSEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/RNS/IR/RNSAttributes.h.inc"

#endif // RINGFUSE_DIALECTS_RNS_IR_RNSATTRIBUTES_H
