#ifndef RINGFUSE_KERNEL_TYPES_TD
#define RINGFUSE_KERNEL_TYPES_TD

include "dialects/Kernel/IR/KernelDialect.td"
include "dialects/RNS/IR/RNSAttributes.td"
include "mlir/IR/AttrTypeBase.td"

def Kernel_Buffer : TypeDef<Kernel_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "A buffer of limbs";
  let description = [{
    `!kernel.buffer<N, #basis>`: |basis| limbs of N words, limb-major; limb i
    holds residues mod the basis' i-th modulus.
  }];
  let parameters = (ins "unsigned":$degree, "::ringfuse::rns::BasisAttr":$basis);
  let assemblyFormat = "`<` $degree `,` qualified($basis) `>`";
  let extraClassDeclaration = [{
    size_t words() const { return size_t(getDegree()) * getBasis().size(); }
  }];
}

#endif // RINGFUSE_KERNEL_TYPES_TD
