#ifndef RINGFUSE_KERNEL_DIALECT_TD
#define RINGFUSE_KERNEL_DIALECT_TD

include "mlir/IR/OpBase.td"

def Kernel_Dialect : Dialect {
  let name = "kernel";
  let summary = "Buffers and the kernels that run on them";
  let description = [{
    The kernel level of ringfuse: what the emitter prints as a host schedule.
    Values are device buffers (`!kernel.buffer<N, #basis>`: one limb of N
    64-bit words per modulus of the basis). Operations write buffers in
    place, in program order: library-kernel launches with compile-time
    parameters (NTT, base conversion, scale-and-round, ...) and generated
    elementwise kernels whose bodies are regions over one residue per
    operand. `kernel.alloc` carries the buffer slot the planner gave it.
  }];
  let cppNamespace = "::ringfuse::kernel";
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
  }];
}

#endif // RINGFUSE_KERNEL_DIALECT_TD
