#ifndef RINGFUSE_RNS_DIALECT_TD
#define RINGFUSE_RNS_DIALECT_TD

include "mlir/IR/OpBase.td"

def RNS_Dialect : Dialect {
  let name = "rns";
  let summary = "Limb vectors over named RNS bases, in coefficient or evaluation form";
  let description = [{
    The RNS level of ringfuse. A value of `!rns.poly<N, #basis, domain>` is a
    polynomial of R_M (M the product of the basis' moduli) held as one limb of
    N residues per modulus, limb-major. In `coeff` form limb i holds the
    coefficients mod m_i; in `eval` form it holds the negacyclic NTT of that
    limb (bit-reversed evaluation order at odd powers of a primitive 2N-th
    root, as the runtime's NTT). Every op states its semantics per limb.
  }];
  let cppNamespace = "::ringfuse::rns";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // RINGFUSE_RNS_DIALECT_TD
