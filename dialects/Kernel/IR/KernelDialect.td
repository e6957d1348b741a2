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

    `kernel.slots = K` on a function (kernel-plan-slots sets it) marks a
    planned program, ready to emit: its allocations' slots lie in [0, K),
    K is at most the number of allocations, and, where the function carries
    its circuit's `ringfuse.params`, every buffer holds limbs of that ring
    (degree N; a constant may have degree 1) over moduli the runtime can
    use: t, or primes = 1 mod 2N below 2^61. The dialect checks the program
    as a whole once (verifyOperationAttribute), not once per op.
  }];
  let cppNamespace = "::ringfuse::kernel";
  let useDefaultTypePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let extraClassDeclaration = [{
    void registerTypes();
    /// The name of a planned program's slot count.
    static constexpr ::llvm::StringLiteral kSlotsAttrName = "kernel.slots";
  }];
}

#endif // RINGFUSE_KERNEL_DIALECT_TD
