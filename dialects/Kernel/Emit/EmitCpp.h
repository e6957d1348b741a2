//===- EmitCpp.h - the kernel program as C++ --------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H
#define RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace ringfuse {

/// Prints the module's kernel-level circuit as C++ against
/// runtime/program_abi.h: a static manifest and `ringfuse_run`, the host
/// schedule, with every generated kernel's body a `__host__ __device__`
/// function (RF_HOST_DEVICE) that the CPU schedule loops over.
mlir::LogicalResult emitCpp(mlir::ModuleOp module, llvm::raw_ostream &os);

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H
