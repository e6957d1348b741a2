#ifndef RINGFUSE_RNS_ATTRIBUTES_TD
#define RINGFUSE_RNS_ATTRIBUTES_TD

include "dialects/RNS/IR/RNSDialect.td"
include "mlir/IR/AttrTypeBase.td"

def RNS_BasisAttr : AttrDef<RNS_Dialect, "Basis"> {
  let mnemonic = "basis";
  let summary = "A named RNS basis";
  let description = [{
    `#rns.basis<QB: [q0, q1, b0]>`: pairwise coprime moduli in [2, 2^63), in
    limb order, with a name for people (Q, P, B, QB, QP, T, D0, ...). Printed
    IR names each basis once (`#QB = #rns.basis<QB: [...]>`).
  }];
  let parameters = (ins StringRefParameter<"the basis' name">:$name,
                        ArrayRefParameter<"uint64_t">:$moduli);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    size_t size() const { return getModuli().size(); }
    /// Whether every modulus of `other` is one of ours.
    bool contains(BasisAttr other) const;
  }];
}

#endif // RINGFUSE_RNS_ATTRIBUTES_TD
