#ifndef RINGFUSE_POLY_ATTRIBUTES_TD
#define RINGFUSE_POLY_ATTRIBUTES_TD

include "dialects/Poly/IR/PolyDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Poly_RingAttr : AttrDef<Poly_Dialect, "Ring"> {
  let mnemonic = "ring";
  let summary = "The ring Z_M[X]/(X^N + 1), M given by its coprime factors";
  let description = [{
    `#poly.ring<N = 8192, moduli = [q0, q1, ...]>` is R_M with
    M = q0 * q1 * ...: N a power of two in [2, 2^17], each modulus >= 2 and
    below 2^64, the moduli pairwise coprime (RNS primes, or a single
    plaintext modulus such as t = 256).
  }];
  let parameters = (ins "unsigned":$degree, ArrayRefParameter<"uint64_t">:$moduli);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// M, the product of the moduli, exactly.
    ::llvm::APInt getModulusProduct() const;
  }];
}

#endif // RINGFUSE_POLY_ATTRIBUTES_TD
