#ifndef RINGFUSE_POLY_DIALECT_TD
#define RINGFUSE_POLY_DIALECT_TD

include "mlir/IR/OpBase.td"

def Poly_Dialect : Dialect {
  let name = "poly";
  let summary = "Polynomials of Z_M[X]/(X^N + 1) with exact big-integer meaning";
  let description = [{
    The ring level of ringfuse. A value is one polynomial of the ring
    R_M = Z_M[X]/(X^N + 1) named by its `#poly.ring`, where M is the product of
    the ring's pairwise coprime moduli. Every op is defined on the integers:
    a polynomial's coefficients are residues mod M, and where an op leaves the
    ring (scale_round) it works on centered representatives in (-M/2, M/2].
    No RNS limb, transform domain or word size appears at this level.
  }];
  let cppNamespace = "::ringfuse::poly";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
    void registerTypes();
  }];
}

#endif // RINGFUSE_POLY_DIALECT_TD
