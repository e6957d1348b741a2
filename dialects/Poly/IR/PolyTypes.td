#ifndef RINGFUSE_POLY_TYPES_TD
#define RINGFUSE_POLY_TYPES_TD

include "dialects/Poly/IR/PolyAttributes.td"
include "mlir/IR/AttrTypeBase.td"

def Poly_Polynomial : TypeDef<Poly_Dialect, "Polynomial"> {
  let mnemonic = "poly";
  let summary = "One polynomial of a ring R_M";
  let description = [{
    `!poly.poly<#ring>`: N coefficients, each a residue modulo M.
  }];
  let parameters = (ins "::ringfuse::poly::RingAttr":$ring);
  let assemblyFormat = "`<` qualified($ring) `>`";
}

#endif // RINGFUSE_POLY_TYPES_TD
