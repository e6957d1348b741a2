//===- EmitCpp.h - the kernel program as C++ --------------------*- C++ -*-===//
#ifndef RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H
#define RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace ringfuse {

enum class EmitTarget { Cpu, Cuda };

/// Prints the module's kernel-level circuit against runtime/program_abi.h: a
/// static manifest and `ringfuse_run`, the host schedule. Every generated
/// kernel's body is one `__host__ __device__` function (RF_HOST_DEVICE) per
/// residue: the CPU target loops over it, the CUDA target wraps it in a
/// `__global__` kernel (one thread per residue) launched on the driver's
/// stream.
mlir::LogicalResult emitProgram(mlir::ModuleOp module, llvm::raw_ostream &os,
                                EmitTarget target);

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_KERNEL_EMIT_EMITCPP_H
