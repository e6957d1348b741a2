#ifndef RINGFUSE_BFV_OPS_TD
#define RINGFUSE_BFV_OPS_TD

include "dialects/BFV/IR/BFVDialect.td"
include "dialects/BFV/IR/BFVTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class BFV_Op<string mnemonic, list<Trait> traits = []>
    : Op<BFV_Dialect, mnemonic, !listconcat(traits, [Pure])> {
  let hasVerifier = 1;
}

// Additions and subtractions. Their operands share parameters but may differ
// in component count (a 3-component product plus a 2-component ciphertext,
// which bfv-lazy-relinearize makes): the result has the larger count. The
// textual form names the type once when both operands share it, else both
// (`: !bfv.ciphertext<#p, 3>, !bfv.ciphertext<#p, 2>`); the verifier explains
// any mismatch in words rather than as a bare type inequality.
class BFV_CiphertextBinaryOp<string mnemonic, list<Trait> traits = []>
    : BFV_Op<mnemonic, traits> {
  let arguments = (ins BFV_Ciphertext:$lhs, BFV_Ciphertext:$rhs);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SumTypes>(type($lhs), type($rhs), type($output))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, sumType(lhs.getType(), rhs.getType()), lhs, rhs);
    }]>
  ];
}

class BFV_CiphertextUnaryOp<string mnemonic, list<Trait> traits = []>
    : BFV_Op<mnemonic, traits> {
  let arguments = (ins BFV_Ciphertext:$input);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = [{
    $input attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

class BFV_PlainOperandOp<string mnemonic, list<Trait> traits = []>
    : BFV_Op<mnemonic, traits> {
  let arguments = (ins BFV_Ciphertext:$ciphertext, BFV_Plaintext:$plaintext);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = [{
    $ciphertext `,` $plaintext attr-dict `:`
      custom<SameTypes>(type($ciphertext), type($output)) `,` qualified(type($plaintext))
  }];
}

def BFV_AddOp : BFV_CiphertextBinaryOp<"add", [Commutative]> {
  let summary = "Ciphertext addition";
  let description = [{
    Decrypts to m_lhs + m_rhs (mod t), slot by slot. Componentwise addition
    in R_Q; both operands have the same parameters. With different component
    counts the shorter operand's missing components count as 0.
  }];
}

def BFV_SubOp : BFV_CiphertextBinaryOp<"sub"> {
  let summary = "Ciphertext subtraction";
  let description = [{
    Decrypts to m_lhs - m_rhs (mod t). Componentwise subtraction in R_Q,
    missing components counting as 0.
  }];
}

def BFV_NegateOp : BFV_CiphertextUnaryOp<"negate"> {
  let summary = "Ciphertext negation";
  let description = [{
    Decrypts to -m (mod t). Componentwise negation in R_Q.
  }];
}

def BFV_MulOp : BFV_Op<"mul", [Commutative]> {
  let summary = "Ciphertext multiplication (tensor product, 3 components)";
  let description = [{
    Decrypts to m_lhs * m_rhs (mod t) slot by slot (the negacyclic product in
    R_t without batching). With lhs = (a0, a1), rhs = (b0, b1), the result is
    c_k = [round(t/Q * sum_{i+j=k} a_i b_j)]_Q for k = 0, 1, 2, the products
    taken exactly in Z[X]/(X^N + 1) on centered representatives. Operands
    have 2 components, the result 3: `bfv.relinearize` brings it back to 2.

    `level = l` (leveled HPS, set by bfv-choose-levels) computes it on the
    first l primes of Q: both operands are rounded to Q_l = q_1 ... q_l, the
    scaled tensor product is taken mod Q_l, and the result is multiplied by
    Q / Q_l. The roundings add noise, which bfv-choose-levels keeps below the
    operands' estimated noise (a few bits of budget at the lowest levels).
    Without it the product is taken at the full Q.
  }];
  let arguments = (ins BFV_Ciphertext:$lhs, BFV_Ciphertext:$rhs,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>]>>:$level);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<SameTypes>(type($lhs), type($rhs)) `->` qualified(type($output))
  }];
}

def BFV_RelinearizeOp : BFV_Op<"relinearize"> {
  let summary = "Key switching of the s^2 component back to 2 components";
  let description = [{
    (c0, c1, c2) -> (c0, c1) + KeySwitch_{s^2 -> s}(c2): decrypts to the same
    m. Uses the relinearization key (hybrid key switching over P). Input has
    3 components, the result 2.
  }];
  let arguments = (ins BFV_Ciphertext:$input);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = "$input attr-dict `:` qualified(type($input)) `->` qualified(type($output))";
}

def BFV_AddPlainOp : BFV_PlainOperandOp<"add_plain"> {
  let summary = "Ciphertext-plaintext addition";
  let description = [{
    Decrypts to m_ct + m_pt (mod t): c0 += [Delta * m_pt]_Q with
    Delta = floor(Q / t), other components unchanged.
  }];
}

def BFV_SubPlainOp : BFV_PlainOperandOp<"sub_plain"> {
  let summary = "Ciphertext-plaintext subtraction";
  let description = [{
    Decrypts to m_ct - m_pt (mod t): c0 -= [Delta * m_pt]_Q.
  }];
}

def BFV_MulPlainOp : BFV_PlainOperandOp<"mul_plain", []> {
  let summary = "Ciphertext-plaintext multiplication";
  let description = [{
    Decrypts to m_ct * m_pt (mod t): every component c_i is multiplied in R_Q
    by the plaintext polynomial lifted to centered representatives of Z_t.
    The component count is unchanged.
  }];
}

def BFV_RotateOp : BFV_Op<"rotate"> {
  let summary = "Rotate both slot rows (a Galois automorphism)";
  let description = [{
    `bfv.rotate %x by k`: every row of N/2 slots rotates left by k
    (right for negative k): slot i of a row receives slot (i + k) mod N/2.
    Realised as the automorphism X -> X^g with g = 3^k mod 2N followed by key
    switching with the Galois key for g. Needs batching, a 2-component
    input, k != 0 and, once N is known, |k| < N/2.
  }];
  let arguments = (ins BFV_Ciphertext:$input, I64Attr:$steps);
  let results = (outs BFV_Ciphertext:$output);
  let assemblyFormat = [{
    $input `by` $steps attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
}

def BFV_RotatePlainOp : BFV_Op<"rotate_plain"> {
  let summary = "Rotate a plaintext's slot rows (no key needed)";
  let description = [{
    `bfv.rotate_plain %p by k`: the plaintext whose slot i of each row is
    slot (i + k) mod N/2 of p's, as `bfv.rotate` does to a ciphertext: the
    automorphism X -> X^(3^k mod 2N) of R_t, a permutation of p's
    coefficients with signs, which needs no key. Baby-step giant-step
    rotates plaintexts instead of ciphertexts with it. Needs batching,
    k != 0 and, once N is known, |k| < N/2.
  }];
  let arguments = (ins BFV_Plaintext:$input, I64Attr:$steps);
  let results = (outs BFV_Plaintext:$output);
  let assemblyFormat = [{
    $input `by` $steps attr-dict `:` custom<SameTypes>(type($input), type($output))
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "int64_t":$steps), [{
      build($_builder, $_state, input.getType(), input, steps);
    }]>
  ];
}

def BFV_SwapRowsOp : BFV_CiphertextUnaryOp<"swap_rows"> {
  let summary = "Exchange the two slot rows (a Galois automorphism)";
  let description = [{
    Slot i of row 0 and slot i of row 1 trade places. Realised as the
    automorphism X -> X^(2N-1) and key switching with its Galois key. Needs
    batching and a 2-component input.
  }];
}

def BFV_SumSlotsOp : BFV_CiphertextUnaryOp<"sum_slots"> {
  let summary = "Every slot receives the sum of all N slots (mod t)";
  let description = [{
    Decrypts to the vector whose every slot is sum_i m_i (mod t). Stands for
    the rotate-and-add tree (log2(N/2) rotations by powers of two, then a row
    swap) until N is chosen; `bfv-expand-slot-sums` expands it. Needs
    batching and a 2-component input.
  }];
}

def BFV_EncodeOp : BFV_Op<"encode"> {
  let summary = "A constant plaintext";
  let description = [{
    `bfv.encode 7 : i64` broadcasts the scalar to every slot (the constant
    polynomial 7 of R_t; needs no batching). `bfv.encode dense<[1, 2]> :
    tensor<2xi64>` puts the values into slots 0, 1, ... and zeros in the rest
    (needs batching). Values lie in [0, t); a vector has 1 to N entries.
  }];
  let arguments = (ins AnyAttrOf<[I64Attr, I64ElementsAttr]>:$value);
  let results = (outs BFV_Plaintext:$output);
  let assemblyFormat = "$value attr-dict `->` qualified(type($output))";
}

#endif // RINGFUSE_BFV_OPS_TD
