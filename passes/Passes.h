//===- Passes.h - ringfuse's passes -----------------------------*- C++ -*-===//
#ifndef RINGFUSE_PASSES_PASSES_H
#define RINGFUSE_PASSES_PASSES_H

#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Poly/IR/PolyDialect.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace ringfuse {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

} // namespace ringfuse

#endif // RINGFUSE_PASSES_PASSES_H
