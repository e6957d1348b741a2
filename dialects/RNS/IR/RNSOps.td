#ifndef RINGFUSE_RNS_OPS_TD
#define RINGFUSE_RNS_OPS_TD

include "dialects/RNS/IR/RNSDialect.td"
include "dialects/RNS/IR/RNSTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class RNS_Op<string mnemonic, list<Trait> traits = []>
    : Op<RNS_Dialect, mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

// Elementwise ops: every operand and the result share one type.
class RNS_ElementwiseBinaryOp<string mnemonic, list<Trait> traits = []>
    : RNS_Op<mnemonic, traits> {
  let arguments = (ins RNS_Poly:$lhs, RNS_Poly:$rhs);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SameTypes>(type($lhs), type($rhs), type($output))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, lhs.getType(), lhs, rhs);
    }]>
  ];
}

def RNS_AddOp : RNS_ElementwiseBinaryOp<"add", [Commutative]> {
  let summary = "Limbwise addition";
  let description = [{
    out[i][j] = (lhs[i][j] + rhs[i][j]) mod m_i, in either domain.
    Canonicalization: add(intt a, intt b) = intt(add(a, b)) (the transform is
    linear), one inverse transform fewer.
  }];
  let hasCanonicalizer = 1;
}

def RNS_SubOp : RNS_ElementwiseBinaryOp<"sub"> {
  let summary = "Limbwise subtraction";
  let description = [{
    out[i][j] = (lhs[i][j] - rhs[i][j]) mod m_i, in either domain.
    Canonicalization: sub(intt a, intt b) = intt(sub(a, b)).
  }];
  let hasCanonicalizer = 1;
}

def RNS_MulOp : RNS_ElementwiseBinaryOp<"mul", [Commutative]> {
  let summary = "Pointwise product in the evaluation domain";
  let description = [{
    out[i][j] = lhs[i][j] * rhs[i][j] mod m_i: in the evaluation domain, the
    negacyclic product of the polynomials. (In coefficient form this would not
    be a ring product, so the verifier refuses it.)
  }];
}

def RNS_NegOp : RNS_Op<"neg"> {
  let summary = "Limbwise negation";
  let description = [{ out[i][j] = (m_i - in[i][j]) mod m_i. }];
  let arguments = (ins RNS_Poly:$input);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

def RNS_MulScalarOp : RNS_Op<"mul_scalar"> {
  let summary = "Multiplication by an integer constant";
  let description = [{
    `rns.mul_scalar %x, c`: out[i][j] = in[i][j] * (c mod m_i) mod m_i, for a
    non-negative integer c of any size; either domain.
  }];
  let arguments = (ins RNS_Poly:$input, APIntAttr:$scalar);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input `,` custom<BigInteger>($scalar) attr-dict `:`
      custom<SameTypes>(type($input), type($output))
  }];
}

def RNS_NttOp : RNS_Op<"ntt"> {
  let summary = "Forward negacyclic NTT of every limb";
  let description = [{
    Coefficient form to evaluation form, limb by limb (runtime/ntt.h's
    forward transform: natural order in, bit-reversed evaluation order out).
    The optional `transform` (rns-choose-transform) says how the GPU
    decomposes it; it must suit the ring degree and the basis. Every
    decomposition computes the same words.
  }];
  let arguments = (ins RNS_Poly:$input,
                       OptionalAttr<RNS_TransformAttr>:$transform);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($output))";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input), [{
      build($_builder, $_state,
            ::mlir::cast<PolyType>(input.getType()).withDomain(true), input);
    }]>
  ];
}

def RNS_InttOp : RNS_Op<"intt"> {
  let summary = "Inverse negacyclic NTT of every limb";
  let description = [{
    Evaluation form back to coefficient form, limb by limb; `transform` as
    for rns.ntt.
  }];
  let arguments = (ins RNS_Poly:$input,
                       OptionalAttr<RNS_TransformAttr>:$transform);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($output))";
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input), [{
      build($_builder, $_state,
            ::mlir::cast<PolyType>(input.getType()).withDomain(false), input);
    }]>
  ];
}

def RNS_ConvertOp : RNS_Op<"convert"> {
  let summary = "Base conversion (fast, HPS-exact, or BEHZ's two)";
  let description = [{
    From basis A to basis T (coefficient form). Moduli of T that are in A keep
    their limbs; every other modulus t_k receives, by method:
    - `fast` (the default, not printed):
        sum_i (x_i (A/a_i)^-1 mod a_i) (A/a_i mod t_k)  (mod t_k),
      the residue of x + u A for some 0 <= u < |A|;
    - `exact`: the residue of the centered representative of x in
      (-A/2, A/2] (HPS's rounding correction);
    - `montgomery`: BEHZ's small Montgomery reduction (SmMRq, m~ = 2^32):
      some y = x (mod A) with |y| <= A (1/2 + |A| / 2^32), the lift of a
      ciphertext to Bsk before a BEHZ product;
    - `shenoy_kumaresan`: A's last modulus m_sk is redundant (not converted
      from): x itself for |x| < (A / m_sk) / 2, the conversion that ends a
      BEHZ product (Bsk -> Q).
  }];
  let arguments = (ins RNS_Poly:$input,
                       DefaultValuedAttr<RNS_ConversionMethod,
                                         "::ringfuse::rns::ConversionMethod::fast">:$method);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input ($method^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def RNS_ExtractOp : RNS_Op<"extract"> {
  let summary = "A contiguous range of limbs";
  let description = [{
    `rns.extract %x limbs 2 to 4`: limbs [2, 4) of x, as a polynomial over
    the basis of those moduli (the same residues; either domain).
  }];
  let arguments = (ins RNS_Poly:$input, I64Attr:$first, I64Attr:$last);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input `limbs` $first `to` $last attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
}

def RNS_ScaleRoundOp : RNS_Op<"scale_round", [
    OptionalTypesMatchWith<"the addend has the result's type", "output",
                           "addend", "$_self">]> {
  let summary = "Scale-and-round (HPS) or fast floor (BEHZ) by a sub-basis";
  let description = [{
    `rns.scale_round %x by a over #D`: x over a basis made of the moduli of D
    and of the result's basis K (coefficient form), taken in [0, D K); the
    result over K is round(a * x / D) mod each k (half up). Or x over D
    itself, K sharing no modulus with it: x over D u K given by its D limbs
    alone, and the result is the part of that rounding they decide,
    round(a * x / D) - [a D^-1]_k x_k mod each k (rns-fuse adds the kept
    limbs' term, which is linear, in the evaluation domain). Where every k
    divides a that term vanishes: a modulus switch (compact HPS's
    round(R x / Q) into R). a is a positive
    integer of any size. The kernel uses 128-bit fixed-point fractions
    (runtime/rns.h, ScaleRoundPlan).
    With `floor` (not with x over D alone): BEHZ's fast floor,
    floor(a * x / D) - u mod each k for some 0 <= u < |D|, with no
    fractions (runtime/behz.h, FastFloorPlan).
    With `via #B` (rns-fuse's HPS scale-and-round or modulus switch, then
    exact conversion): the rounding is taken over B in place of the result's
    basis, and its centered representative (as `rns.convert ... exact`) is
    the result over a basis with moduli outside B; the result's moduli in B
    are the rounded words themselves. One kernel does both.
    With `plus %a` (rns-fuse's sum after a rounding, as relinearization
    ends: c + round(x / P)), a, of the result's type, is added to the result
    in the same kernel. Not with `via`.
  }];
  let arguments = (ins RNS_Poly:$input, APIntAttr:$numerator, RNS_BasisAttr:$divisor,
                       UnitAttr:$floor, OptionalAttr<RNS_BasisAttr>:$via,
                       Optional<RNS_Poly>:$addend);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input `by` custom<BigInteger>($numerator) `over` $divisor (`floor` $floor^)? (`via` $via^)? (`plus` $addend^)? attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
  let extraClassDeclaration = [{
    /// The basis the rounding is taken over: `via`, or the result's.
    BasisAttr getRoundingBasis();
  }];
}

def RNS_ScaleUpOp : RNS_Op<"scale_up"> {
  let summary = "A plaintext scaled into the ciphertext modulus";
  let description = [{
    m over the single modulus t, the result over Q (coefficient form):
    round(Q * m / t) mod q_i = floor(Q/t) m + floor((2 (Q mod t) m + t) / 2t),
    for m in [0, t): BFV's scaling of a plaintext for add_plain.
  }];
  let arguments = (ins RNS_Poly:$input);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($output))";
}

def RNS_AutomorphismOp : RNS_Op<"automorphism"> {
  let summary = "X -> X^g on every limb";
  let description = [{
    g is odd and below 2N; the result has the input's type.
    Coefficient form: coefficient j of each limb moves to j*g mod 2N, negated
    when that lands at or past N.
    Evaluation form (the forward NTT's bit-reversed order, position j holding
    a(psi^(2 bitrev(j) + 1))): a permutation without negations, since
    a(X^g) at psi^e is a at psi^(e g): out[j] = in[k] where
    2 bitrev(k) + 1 = (2 bitrev(j) + 1) g mod 2N, bitrev over log2 N bits.
  }];
  let arguments = (ins RNS_Poly:$input, I64Attr:$galoisElement);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = [{
    $input `by` $galoisElement attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

def RNS_KeySwitchInnerProductOp : RNS_Op<"key_switch_inner_product", [
    AttrSizedOperandSegments,
    OptionalTypesMatchWith<"both addends have one type", "addend0", "addend1",
                           "$_self">]> {
  let summary = "Hybrid key switching's digit-by-key inner product";
  let description = [{
    Digits d_0, ..., d_{dnum-1} extended to QP, in evaluation form; the key
    with Galois element `key` (0: the relinearization key) has pairs (b_j, a_j)
    over QP in evaluation form: k0 = sum_j d_j b_j, k1 = sum_j d_j a_j
    (pointwise, mod each prime).
    With `plus (%e0, %e1 : type) scaled [s_0, ...]` (rns-fuse's
    relinearization),
    e0 and e1 are over the first primes of the digits' basis (those of Q),
    in evaluation form, and limb i of k0 and k1 also gets s_i e0 and s_i e1
    (s_i below that limb's prime).
  }];
  let arguments = (ins Variadic<RNS_Poly>:$digits, Optional<RNS_Poly>:$addend0,
                       Optional<RNS_Poly>:$addend1, I64Attr:$key,
                       OptionalAttr<DenseI64ArrayAttr>:$addend_scales);
  let results = (outs RNS_Poly:$k0, RNS_Poly:$k1);
  let assemblyFormat = [{
    $digits (`plus` `(` $addend0^ `,` $addend1 `:` qualified(type($addend0))
      `)` `scaled` $addend_scales)? attr-dict `:`
      type($digits) `->` qualified(type($k0)) `,` qualified(type($k1))
  }];
  let extraClassDeclaration = [{
    /// Both addends and their scales, or none, as the description says.
    ::mlir::LogicalResult verifyAddend();
  }];
}

def RNS_ConstantOp : RNS_Op<"constant", [ConstantLike]> {
  let summary = "A constant polynomial, limb by limb";
  let description = [{
    `rns.constant dense<[...]> : tensor<LNxi64>`: the residues of every limb,
    limb-major, each below its modulus.
  }];
  let arguments = (ins I64ElementsAttr:$residues);
  let results = (outs RNS_Poly:$output);
  let assemblyFormat = "$residues attr-dict `:` qualified(type($output))";
  let hasFolder = 1;
}

#endif // RINGFUSE_RNS_OPS_TD
