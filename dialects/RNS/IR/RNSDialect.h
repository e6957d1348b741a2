//===- RNSDialect.h - the rns dialect -------------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_RNS_IR_RNSDIALECT_H
#define RINGFUSE_DIALECTS_RNS_IR_RNSDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/RNS/IR/RNSDialect.h.inc"

#endif // RINGFUSE_DIALECTS_RNS_IR_RNSDIALECT_H
