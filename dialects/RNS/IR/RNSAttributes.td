#ifndef RINGFUSE_RNS_ATTRIBUTES_TD
#define RINGFUSE_RNS_ATTRIBUTES_TD

include "dialects/RNS/IR/RNSDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

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
    /// Whether some modulus of `other` is one of ours.
    bool sharesModulusWith(BasisAttr other) const;
  }];
}

def RNS_TransformKind : I32EnumAttr<"TransformKind",
    "the transform that takes limbs to the evaluation domain", [
      I32EnumAttrCase<"ntt", 0>,
      I32EnumAttrCase<"dgt", 1>
    ]> {
  let cppNamespace = "::ringfuse::rns";
  let genSpecializedAttr = 0;
}

def RNS_ConversionMethod : I32EnumAttr<"ConversionMethod",
    "how a base conversion treats the multiple of the input's modulus", [
      I32EnumAttrCase<"fast", 0>,
      I32EnumAttrCase<"exact", 1>,
      I32EnumAttrCase<"montgomery", 2>,
      I32EnumAttrCase<"shenoy_kumaresan", 3>
    ]> {
  let cppNamespace = "::ringfuse::rns";
}

def RNS_TransformAttr : AttrDef<RNS_Dialect, "Transform"> {
  let mnemonic = "transform";
  let summary = "How the GPU decomposes one rns.ntt / rns.intt";
  let description = [{
    `#rns.transform<ntt, logN1 = 6, radix = 4, ot = 2>`: the kernel a
    transform runs with, on 64-bit words, and its split. For `ntt`
    (runtime/gpu/ntt*.cu): N = N1 x N2 with log N1 = `logN1` (0: one block
    per limb, the row step alone), `radix` words held
    per thread (4, 8 or 16) and `ot` last stages twiddled on the fly. The
    rules are ringfuse/runtime/ntt_shape.h's (the ones the CUDA driver checks): logN1
    is 0 or in [4, 8] (48 KiB of shared memory),
    and a column-step block of 16 * 2^logN1 / radix threads fits 1024; with a
    ring degree N = 2^logN also logN - logN1 in [4, 11] (at most 11 when
    logN1 = 0) and ot <= logN - logN1.

    For `dgt` (runtime/dgt.h, the hierarchical DGT): the N/2 Gaussian
    integers form a fixed R x C matrix with C = 2^ceil(log2(N/2) / 2), so
    `logN1` is log2 R = floor((logN - 1) / 2) and nothing else is tunable:
    `radix` and `ot` are 0.

    Either kind needs every modulus below 2^62 (lazy values up to 4q fit the
    word). Checked against the ring degree and basis by the ops that carry
    it.
  }];
  let parameters = (ins EnumParameter<RNS_TransformKind>:$kind,
                        "unsigned":$logN1, "unsigned":$radix,
                        "unsigned":$ot);
  let assemblyFormat = [{
    `<` $kind `,` `logN1` `=` $logN1 `,` `radix` `=` $radix `,` `ot` `=`
      $ot `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The runtime's description of this decomposition (ntt_shape.h).
    ::ringfuse::runtime::NttShape nttShape() const {
      return {getLogN1(), getRadix(), getOt()};
    }
    /// Why this transform cannot run on limbs of `degree` words over
    /// `moduli`; empty if it can.
    std::string problemFor(unsigned degree, ::llvm::ArrayRef<uint64_t> moduli) const {
      return transformProblem(getKind(), getLogN1(), getRadix(), getOt(),
                              degree, moduli);
    }
    /// The rules without a degree (degree 0) or with one.
    static std::string transformProblem(TransformKind kind, unsigned logN1,
                                        unsigned radix, unsigned ot,
                                        unsigned degree,
                                        ::llvm::ArrayRef<uint64_t> moduli);
  }];
}

#endif // RINGFUSE_RNS_ATTRIBUTES_TD
