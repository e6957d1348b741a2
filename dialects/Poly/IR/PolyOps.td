#ifndef RINGFUSE_POLY_OPS_TD
#define RINGFUSE_POLY_OPS_TD

include "dialects/Poly/IR/PolyDialect.td"
include "dialects/Poly/IR/PolyTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Poly_Op<string mnemonic, list<Trait> traits = []>
    : Op<Poly_Dialect, mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

class Poly_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Poly_Op<mnemonic, traits> {
  let arguments = (ins Poly_Polynomial:$lhs, Poly_Polynomial:$rhs);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SameTypes>(type($lhs), type($rhs), type($output))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, lhs.getType(), lhs, rhs);
    }]>
  ];
}

def Poly_AddOp : Poly_BinaryOp<"add", [Commutative]> {
  let summary = "Coefficientwise addition in R_M";
  let description = [{
    output_i = (lhs_i + rhs_i) mod M for i in [0, N).
  }];
}

def Poly_SubOp : Poly_BinaryOp<"sub"> {
  let summary = "Coefficientwise subtraction in R_M";
  let description = [{
    output_i = (lhs_i - rhs_i) mod M, the result in [0, M).
  }];
}

def Poly_MulOp : Poly_BinaryOp<"mul", [Commutative]> {
  let summary = "Negacyclic product in R_M";
  let description = [{
    output = lhs * rhs mod (X^N + 1, M):
    output_k = (sum_{i+j=k} lhs_i rhs_j - sum_{i+j=k+N} lhs_i rhs_j) mod M.
  }];
}

def Poly_NegOp : Poly_Op<"neg"> {
  let summary = "Coefficientwise negation in R_M";
  let description = [{
    output_i = (M - input_i) mod M.
  }];
  let arguments = (ins Poly_Polynomial:$input);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

def Poly_MulScalarOp : Poly_Op<"mul_scalar"> {
  let summary = "Multiplication by an integer constant in R_M";
  let description = [{
    `poly.mul_scalar %x, c`: output_i = (c * input_i) mod M, where c is an
    unsigned integer constant of any size, already reduced: 0 <= c < M (for
    example Delta = floor(Q/t), which has hundreds of bits).
  }];
  let arguments = (ins Poly_Polynomial:$input, APIntAttr:$scalar);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = [{
    $input `,` custom<BigInteger>($scalar) attr-dict `:`
      custom<SameTypes>(type($input), type($output))
  }];
}

def Poly_ScaleRoundOp : Poly_Op<"scale_round"> {
  let summary = "Scale by a rational factor and round, into another ring";
  let description = [{
    `poly.scale_round %x by a / b` from R_M to R_M' (same N):
    output_i = floor((a * x_i) / b + 1/2) mod M', with x_i the centered
    representative of input_i in (-M/2, M/2] and the division exact over the
    rationals (ties round up). a >= 1 and b >= 1 are integer constants of any
    size. With a = t, b = Q this is BFV's t/Q rescaling; a = b = 1 moves a
    polynomial exactly into a ring of larger modulus.
  }];
  let arguments = (ins Poly_Polynomial:$input, APIntAttr:$numerator,
                       APIntAttr:$denominator);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = [{
    $input `by` custom<Ratio>($numerator, $denominator) attr-dict `:` qualified(type($input)) `->` qualified(type($output))
  }];
  // Folds a / a within one ring to its input; canonicalizes a scale of an
  // exact integer scale (b = 1, the product held by its ring) into one op.
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Poly_AutomorphismOp : Poly_Op<"automorphism"> {
  let summary = "The ring automorphism X -> X^k";
  let description = [{
    `poly.automorphism %x by k`, for odd k in [1, 2N): output(X) = input(X^k)
    mod (X^N + 1), i.e. coefficient i moves to position i*k mod 2N, negated
    when i*k mod 2N >= N (since X^N = -1).
  }];
  let arguments = (ins Poly_Polynomial:$input, I64Attr:$galoisElement);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = [{
    $input `by` $galoisElement attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

def Poly_ConstantOp : Poly_Op<"constant", [ConstantLike]> {
  let summary = "A constant polynomial";
  let description = [{
    `poly.constant dense<[c_0, ..., c_(N-1)]> : tensor<Nxi64>`: the polynomial
    sum c_i X^i of R_M, each c_i in [0, M) (an encoded plaintext constant,
    for instance).
  }];
  let arguments = (ins I64ElementsAttr:$coefficients);
  let results = (outs Poly_Polynomial:$output);
  let assemblyFormat = "$coefficients attr-dict `:` qualified(type($output))";
  let hasFolder = 1;
}

def Poly_KeySwitchOp : Poly_Op<"key_switch"> {
  let summary = "Hybrid key switching of one polynomial, as ring algebra";
  let description = [{
    `%k0, %k1 = poly.key_switch %c {galois_element = g, special = [p_0, ...],
    dnum = d}` over R_Q: (k0, k1) with k0 + k1 s = c s' + e (mod Q), e small,
    where s' is s^2 for g = 0 (relinearization) and s(X^g) otherwise (a Galois
    automorphism). The key is an encryption of P s' under s over QP, in d
    digits of Q's primes (the special primes P = p_0 ...); the result is the
    digit products summed over QP and divided by P with rounding.

    `key_primes = L` says the key was made for a Q of L primes of which the
    ring's are the first l (a product at a lower level): its digits keep
    their width, ceil(L / dnum) primes, and the first ceil(l / width) of them,
    cut at l, are used. It defaults to the ring's prime count.
  }];
  let arguments = (ins Poly_Polynomial:$input, I64Attr:$galois_element,
                       DenseI64ArrayAttr:$special, I64Attr:$dnum,
                       OptionalAttr<I64Attr>:$key_primes);
  let results = (outs Poly_Polynomial:$k0, Poly_Polynomial:$k1);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SameTypes>(type($input), type($k0), type($k1))
  }];
  let extraClassDeclaration = [{
    /// The primes of the Q the key was made for (key_primes, else the ring's).
    int64_t getKeyPrimeCount();
  }];
}

#endif // RINGFUSE_POLY_OPS_TD
