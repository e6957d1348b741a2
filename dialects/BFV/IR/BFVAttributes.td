#ifndef RINGFUSE_BFV_ATTRIBUTES_TD
#define RINGFUSE_BFV_ATTRIBUTES_TD

include "dialects/BFV/IR/BFVDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

// The one list of the BFV multiplication variants: the passes read the
// module's `bfv.variant`, the emitter writes its name into the program's
// manifest, and the Python package asks `ringfuse-opt --list-variants`.
def BFV_Variant : I32EnumAttr<"Variant",
    "how BFV multiplies ciphertexts", [
      I32EnumAttrCase<"hps", 0>,
      I32EnumAttrCase<"lhps", 1>,
      I32EnumAttrCase<"chps", 2>,
      I32EnumAttrCase<"behz", 3>
    ]> {
  let cppNamespace = "::ringfuse::bfv";
  let genSpecializedAttr = 0;
}

def BFV_VariantAttr : EnumAttr<BFV_Dialect, BFV_Variant, "variant"> {
  let summary = "The BFV multiplication variant a circuit is lowered with";
  let description = [{
    `#bfv.variant<chps>`: `hps` (Halevi-Polyakov-Shoup: the tensor product
    in R_{QB}, every product at the full Q), `lhps` (leveled HPS: each
    product on the first primes of Q that bfv-choose-levels allows), `chps`
    (compact HPS: one operand switched to R ~ Q first) or `behz`
    (Bajard-Eynard-Hasan-Zucca: fast conversions corrected through redundant
    moduli). A module records its variant as `bfv.variant`
    (bfv-choose-variant sets it); bfv-to-poly and poly-to-rns read it.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def BFV_ParamsAttr : AttrDef<BFV_Dialect, "Params"> {
  let mnemonic = "params";
  let summary = "A BFV parameter set, possibly not yet fully chosen";
  let description = [{
    `#bfv.params<t = 65537, N = 8192, Q = [q0, q1, ...], P = [p0, ...], dnum = 2>`

    - `t`: the plaintext modulus, an integer >= 2 (below 2^63).
    - `N`: the ring degree of R = Z[X]/(X^N + 1), a power of two in
      [2, 2^17]. Absent while the compiler has not chosen it yet.
    - `Q`: the ciphertext modulus as its RNS primes q_i; Q = prod q_i.
      Each is a prime below 2^61 (kMaxRnsPrimeBits) with q_i = 1 (mod 2N), none
      divides t, all distinct. Needs `N`.
    - `P`: the special primes of hybrid key switching, with the same rules,
      distinct from those of Q. Needs `Q`.
    - `dnum`: the number of key-switching digits (Q's primes in dnum groups);
      absent means ceil(|Q| / |P|). Needs `P`.

    A traced circuit carries only `t` (and `N` if the user fixed it); parameter
    selection fills in the rest. Security bounds are checked where parameters
    are chosen, not here: tests use small insecure sets on purpose.
  }];
  let parameters = (ins
    "uint64_t":$plaintextModulus,
    OptionalParameter<"unsigned">:$ringDegree,
    OptionalArrayRefParameter<"uint64_t">:$ciphertextModulus,
    OptionalArrayRefParameter<"uint64_t">:$specialModulus,
    OptionalParameter<"unsigned">:$dnum
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// N is known (0 means "not chosen yet").
    bool hasRingDegree() const { return getRingDegree() != 0; }
    /// N is known and t is a prime = 1 (mod 2N): slots exist.
    bool supportsBatching() const;
    /// dnum, or its default ceil(|Q| / |P|) (0 without P).
    unsigned getDigitCount() const;
    /// Why slot operations are impossible, for diagnostics ("" if they are not).
    std::string batchingObstacle() const;
  }];
}

#endif // RINGFUSE_BFV_ATTRIBUTES_TD
