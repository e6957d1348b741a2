#ifndef RINGFUSE_KERNEL_OPS_TD
#define RINGFUSE_KERNEL_OPS_TD

include "dialects/Kernel/IR/KernelDialect.td"
include "dialects/Kernel/IR/KernelTypes.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, traits>;

def Kernel_AllocOp : Kernel_Op<"alloc"> {
  let summary = "A buffer";
  let description = [{
    `%b = kernel.alloc {slot = 3} : !kernel.buffer<...>`: a buffer of the
    program; allocations with the same slot share memory (their lifetimes do
    not overlap). All memory is allocated once, when the program is loaded.
    A slot is nonnegative and below its function's `kernel.slots` (the
    dialect's description), which a slot needs.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$slot);
  let results = (outs Kernel_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Kernel_ConstantOp : Kernel_Op<"constant", [Pure]> {
  let summary = "A buffer filled when the program is loaded";
  let description = [{
    The residues of every limb, limb-major (an encoded plaintext constant),
    each below its limb's modulus.
  }];
  let arguments = (ins I64ElementsAttr:$residues);
  let results = (outs Kernel_Buffer:$buffer);
  let assemblyFormat = "$residues attr-dict `:` qualified(type($buffer))";
  let hasVerifier = 1;
}

def Kernel_ViewOp : Kernel_Op<"view", [Pure]> {
  let summary = "Limbs [first, last) of a buffer, without a copy";
  let arguments = (ins Kernel_Buffer:$source, I64Attr:$first, I64Attr:$last);
  let results = (outs Kernel_Buffer:$view);
  let assemblyFormat = [{
    $source `limbs` $first `to` $last attr-dict `:` qualified(type($source)) `->` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def Kernel_LaunchOp : Kernel_Op<"launch", [AttrSizedOperandSegments]> {
  let summary = "A library kernel with compile-time parameters";
  let description = [{
    `kernel.launch "name" ins(...) outs(...) {parameters}` runs a library
    kernel of the runtime: `name` is an entry of kernel_catalog.def
    (runtime/include/ringfuse/runtime), which says, for each, what it
    computes, how many ins and outs it takes and which parameters it must
    and may have; the verifier checks those from the catalog, and the
    kernel-specific rules below.
    - `ntt_forward` / `ntt_inverse` {transform?}: outs(b), in place, every
      limb; `transform` (an #rns.transform from rns-choose-transform) is the
      GPU decomposition, passed to the runtime (absent: the driver's
      default). It must be an ntt that suits b's degree and basis.
    - `dgt_forward` / `dgt_inverse` {transform?}: outs(b), in place: the
      same words by the hierarchical DGT (where rns-choose-transform chose
      it); `transform`, if present, a dgt that suits b.
    - `ntt_forward_from` {transform?}: ins(a) outs(b): every limb of b
      transformed from a's one limb (a fast conversion from one prime, not
      written out).
    - `convert` {method?}: ins(a) outs(b): base conversion from a's basis to
      b's (shared moduli copied; rns.convert's semantics). `method` is
      rns.convert's, as the ABI numbers it (RF_CONVERT_*: 1 exact, 2
      montgomery, 3 shenoy_kumaresan); absent, fast.
    - `scale_round` {numerator, divisor, floor?, via?}: ins(a) outs(b):
      round(numerator x / D) over b's basis, or BEHZ's fast floor
      (rns.scale_round); with `via` (not with floor), rounded over via and
      converted exactly to b's basis in the same kernel.
    - `scale_round_add` {numerator, divisor, floor?}: ins(a, c) outs(b):
      scale_round plus c (of b's basis) on every word (rns.scale_round's
      `plus`).
    - `scale_up`: ins(m) outs(b): round(Q m / t) (rns.scale_up).
    - `automorphism` / `automorphism_evaluation` {galois_element}: ins(a)
      outs(b), a and b distinct buffers of one type, g odd and below 2N:
      X -> X^g (rns.automorphism's semantics) on coefficient form, or on
      evaluation form (the NTT's order), where it permutes words.
    - `key_switch_inner_product` {key, addend?}: ins(d_0, ..., d_{dnum-1})
      outs(k0, k1), evaluation form over QP; `key` is 0 (relinearization)
      or the Galois element of a rotation's key, odd and below 2N. With
      `addend`, the last three ins are e0, e1 (over the first primes of QP)
      and their scales (a buffer of degree 1 over e0's basis):
      rns.key_switch_inner_product's `plus`.
    - `ntt_key_switch` {key, transform?, addend?}: ins(d_0, ...) outs(s_0,
      ..., k0, k1): key_switch_inner_product of the digits' forward NTTs,
      which are never written out; d_j is over the key's basis or one limb
      (as ntt_forward_from's input), s_j a buffer its transform may
      overwrite (d_j itself, or a scratch buffer). `addend` as
      key_switch_inner_product's (its three ins have no scratch buffers).
    - `ntt_products` {products, transform?}: ins(f_0, ...) outs(s_0, ...,
      o_0, ...): sums of products of the factors' forward NTTs (a
      ciphertext product's tensor terms), which are never written out;
      `products` lists (sum, factor, factor) triples grouped by sum, and o_k
      is the sum over k's triples of NTT(f_a) * NTT(f_b). f_j and s_j as
      ntt_key_switch's d_j and s_j.
    - `sum_of_products` {products, accumulate?}: ins(f_0, ...) outs(o_0,
      ...): o_k = the sum over k's (sum, factor, factor) triples of
      f_a * f_b, word by word (evaluation form), with `accumulate` plus o_k's
      own words; every buffer of one type, the sums distinct and none a
      factor. A sum of many products (a matrix-vector product's giant step)
      as data for one library kernel rather than a generated body.
  }];
  let arguments = (ins StrAttr:$kernel, Variadic<Kernel_Buffer>:$ins,
                       Variadic<Kernel_Buffer>:$outs,
                       OptionalAttr<RNS_ConversionMethod>:$method, UnitAttr:$floor,
                       OptionalAttr<APIntAttr>:$numerator,
                       OptionalAttr<RNS_BasisAttr>:$divisor,
                       OptionalAttr<RNS_BasisAttr>:$via,
                       OptionalAttr<I64Attr>:$galois_element,
                       OptionalAttr<I64Attr>:$key,
                       OptionalAttr<RNS_TransformAttr>:$transform,
                       OptionalAttr<DenseI32ArrayAttr>:$products,
                       UnitAttr:$addend, UnitAttr:$accumulate);
  let assemblyFormat = [{
    $kernel (`ins` `(` $ins^ `:` qualified(type($ins)) `)`)?
      `outs` `(` $outs `:` qualified(type($outs)) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The buffers the kernel reads (an in-place NTT and an accumulating
    /// sum read their outs) and writes.
    ::llvm::SmallVector<::mlir::Value> readBuffers();
    ::mlir::OperandRange writtenBuffers() { return getOuts(); }
    /// The ins before key switching's addend (all ins without one): the
    /// digits of a key switch, the sources of a fused NTT.
    ::mlir::OperandRange mainIns() {
      return getIns().drop_back(getAddend() ? 3 : 0);
    }
  }];
}

def Kernel_ConcurrentOp : Kernel_Op<"concurrent", [NoTerminator, SingleBlock]> {
  let summary = "Library launches that may run at the same time";
  let description = [{
    `kernel.concurrent { kernel.launch ... kernel.launch ... }`: two or more
    library launches, none writing a buffer another reads or writes (buffers
    alias when they are views of one buffer or allocations of one slot). The
    CPU driver runs them in order; the CUDA driver on streams forked from the
    program's stream and joined after them, so that small kernels fill the
    GPU together (and a captured graph keeps them as parallel branches).
  }];
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$body attr-dict";
  let hasVerifier = 1;
}

def Kernel_ElementwiseOp : Kernel_Op<"elementwise",
    [AttrSizedOperandSegments, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A generated kernel: one body per residue";
  let description = [{
    Every operand is a buffer over one basis and degree. For each limb i and
    coefficient j, the body receives the residues ins[k][i][j] as i64 block
    arguments and yields outs[k][i][j]; its modular ops work mod the basis'
    i-th modulus. The emitter prints the body once as a `__host__ __device__`
    function, which the CPU driver loops over and the GPU runs per thread.
  }];
  let arguments = (ins Variadic<Kernel_Buffer>:$ins, Variadic<Kernel_Buffer>:$outs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $ins^ `:` qualified(type($ins)) `)`)?
      `outs` `(` $outs `:` qualified(type($outs)) `)` $body attr-dict
  }];
  let hasVerifier = 1;
}

class Kernel_ModularOp<string mnemonic>
    : Kernel_Op<mnemonic, [Pure, HasParent<"ElementwiseOp">]> {
  let results = (outs I64:$output);
}

def Kernel_AddModOp : Kernel_ModularOp<"addmod"> {
  let summary = "(a + b) mod q_i";
  let arguments = (ins I64:$lhs, I64:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Kernel_SubModOp : Kernel_ModularOp<"submod"> {
  let summary = "(a - b) mod q_i";
  let arguments = (ins I64:$lhs, I64:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Kernel_MulModOp : Kernel_ModularOp<"mulmod"> {
  let summary = "a * b mod q_i";
  let arguments = (ins I64:$lhs, I64:$rhs);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def Kernel_NegModOp : Kernel_ModularOp<"negmod"> {
  let summary = "-a mod q_i";
  let arguments = (ins I64:$input);
  let assemblyFormat = "$input attr-dict";
}

def Kernel_MulConstOp : Kernel_ModularOp<"mulconst"> {
  let summary = "a * c_i mod q_i, one constant residue per limb";
  let description = [{
    One residue per limb of the kernel's basis, each below its modulus: the
    emitter prints them as a table the generated body indexes by limb.
  }];
  let arguments = (ins I64:$input, DenseI64ArrayAttr:$residues);
  let assemblyFormat = "$input `by` $residues attr-dict";
  let hasVerifier = 1;
}

def Kernel_YieldOp : Kernel_Op<"yield", [Pure, Terminator, HasParent<"ElementwiseOp">]> {
  let summary = "The residues of the outputs";
  let arguments = (ins Variadic<I64>:$values);
  let assemblyFormat = "($values^)? attr-dict";
  let builders = [OpBuilder<(ins), [{ (void)$_state; }]>];
}

#endif // RINGFUSE_KERNEL_OPS_TD
