#ifndef RINGFUSE_RNS_TYPES_TD
#define RINGFUSE_RNS_TYPES_TD

include "dialects/RNS/IR/RNSAttributes.td"
include "mlir/IR/AttrTypeBase.td"

def RNS_Poly : TypeDef<RNS_Dialect, "Poly"> {
  let mnemonic = "poly";
  let summary = "A polynomial as limbs over a basis, in one domain";
  let description = [{
    `!rns.poly<4096, #Q, coeff>` or `!rns.poly<4096, #Q, eval>`. The
    evaluation domain needs every modulus to be a prime = 1 mod 2N.
  }];
  let parameters = (ins "unsigned":$degree,
                        "::ringfuse::rns::BasisAttr":$basis,
                        "bool":$evaluation);
  let assemblyFormat = "`<` $degree `,` qualified($basis) `,` custom<Domain>($evaluation) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The same polynomial type in the other domain or over another basis.
    PolyType withDomain(bool evaluation) const {
      return PolyType::get(getContext(), getDegree(), getBasis(), evaluation);
    }
    PolyType withBasis(BasisAttr basis) const {
      return PolyType::get(getContext(), getDegree(), basis, getEvaluation());
    }
    /// Whether this degree and basis have an evaluation domain: every modulus
    /// an NTT-friendly prime (1 mod 2N, below 2^62).
    bool supportsEvaluation() const {
      return hasEvaluationDomain(getDegree(), getBasis());
    }
    static bool hasEvaluationDomain(unsigned degree, BasisAttr basis);
  }];
}

#endif // RINGFUSE_RNS_TYPES_TD
