//===- ParameterRewriting.h - swap a module's BFV parameters ----*- C++ -*-===//
#ifndef RINGFUSE_PASSES_TRANSFORMS_PARAMETERREWRITING_H
#define RINGFUSE_PASSES_TRANSFORMS_PARAMETERREWRITING_H

#include "dialects/BFV/IR/BFVAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

namespace ringfuse {

/// Every bfv type in the module (values, function signatures) now carries
/// `params` instead of its old parameter set.
void replaceParameters(mlir::ModuleOp module, bfv::ParamsAttr params);

/// The one parameter set a traced module uses; null (with an error) if it has
/// none or several.
bfv::ParamsAttr findParameters(mlir::ModuleOp module);

} // namespace ringfuse

#endif // RINGFUSE_PASSES_TRANSFORMS_PARAMETERREWRITING_H
