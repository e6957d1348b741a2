#ifndef RINGFUSE_PASSES_TD
#define RINGFUSE_PASSES_TD

include "mlir/Pass/PassBase.td"

def BFVExpandSlotSums : Pass<"bfv-expand-slot-sums", "::mlir::ModuleOp"> {
  let summary = "Expand bfv.sum_slots into its rotate-and-add tree";
  let description = [{
    `bfv.sum_slots %x` becomes, for a row length of N/2 slots,

      acc = x; for s = 1, 2, 4, ..., N/4: acc = acc + rotate(acc, s);
      acc = acc + swap_rows(acc)

    after which every slot holds the sum of all N slots: log2(N/2) rotations
    and one row swap, each a Galois automorphism with its key switch. The tree
    depends on N, so a traced circuit keeps `bfv.sum_slots` until parameters
    are chosen; expanding one whose N is not known yet is an error.
  }];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numSumsExpanded", "sums-expanded",
              "Number of bfv.sum_slots ops expanded">,
    Statistic<"numRotationsInserted", "rotations-inserted",
              "Number of bfv.rotate and bfv.swap_rows ops inserted">
  ];
}

def BFVBabyStepGiantStep : Pass<"bfv-baby-step-giant-step", "::mlir::ModuleOp"> {
  let summary = "Sums of plaintext-times-rotation terms in about 2 sqrt(n) rotations";
  let description = [{
    A sum (a tree of bfv.add whose inner nodes have one use) of terms
    `mul_plain(rotate(x, k), p_k)` (and `mul_plain(x, p_0)`) over n distinct
    rotations of one ciphertext x is rewritten, with a baby-step count n1,
    k = g + b (g a multiple of n1, 0 <= b < n1, steps taken mod N/2), as

      sum_g rotate(sum_b mul_plain(rotate(x, b), rotate_plain(p_k, -g)), g)

    since a rotation is an automorphism: rotate(p c, g) = rotate(p, g)
    rotate(c, g). The baby steps rotate one ciphertext (rns-hoist-rotations
    then shares their decomposition); the plaintexts are rotated instead of
    ciphertexts, at compile time for constants (`bfv.encode`, whose slot
    vector is rotated here) and at run time otherwise (`bfv.rotate_plain`, no
    key). n1 minimises the distinct nonzero baby and giant steps, which are
    the key switches left; the sum is rewritten only when those, with the
    rotations that other values use (they stay), are fewer than its
    rotations. Needs N (run after bfv-select-parameters).
  }];
  let options = [
    Option<"minimumTerms", "minimum-terms", "unsigned", /*default=*/"4",
           "Rotations of one ciphertext a sum needs before it is rewritten">
  ];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numSumsRewritten", "sums-rewritten",
              "Sums rewritten as baby steps and giant steps">,
    Statistic<"numRotationsSaved", "rotations-saved",
              "Ciphertext rotations (key switches) removed">
  ];
}

def BFVPreparePlaintextInputs : Pass<"bfv-prepare-plaintext-inputs", "::mlir::ModuleOp"> {
  let summary = "Plaintext inputs only multiplied into ciphertexts arrive ready to multiply";
  let description = [{
    A plaintext argument whose every use is the plaintext of a bfv.mul_plain,
    or whose one use is a bfv.rotate_plain by k whose every use is, gets
    `bfv.prepared = k` (0 without the rotation, which is removed): the
    runtime binds it rotated by k, lifted to centered residues mod each
    prime of Q and transformed (the evaluation form of the program's NTT),
    so the program neither lifts, transforms nor rotates it. bfv-to-poly
    gives such an argument the ring R_Q (`ringfuse.inputs` 1, its Galois
    element in `ringfuse.input_galois`), rns-assign-domains the evaluation
    form, and the manifest marks the input prepared (program ABI 18).
  }];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numInputsPrepared", "inputs-prepared", "Plaintext inputs prepared">
  ];
}

def BFVLazyRelinearize : Pass<"bfv-lazy-relinearize", "::mlir::ModuleOp"> {
  let summary = "Relinearize where two components are needed: once per sum of products";
  let description = [{
    Relinearization is linear, so relin(a) + relin(b) = relin(a + b) up to
    the key switch's noise. Products whose single-use chains of additions,
    subtractions, negations and plaintext operations meet in a sum stay
    3-component along them, and the sum is relinearized once where its chain
    ends: before a rotation, a row swap, a further product, an output, or a
    value with several users. A sum of k products then switches keys once.
    Relinearizations whose chain meets no other stay where they are, so the
    pass never adds a key switch or makes a plaintext product wider for
    nothing.
  }];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numRelinearizationsSaved", "relinearizations-saved",
              "Relinearizations removed">
  ];
}

def BFVLimitGaloisKeys : Pass<"bfv-limit-galois-keys", "::mlir::ModuleOp"> {
  let summary = "Rotations from fewer Galois keys: power-of-two steps";
  let description = [{
    Every distinct rotation step (and the row swap) needs its own Galois key,
    of dnum (|Q| + |P|) N words each. When a circuit's distinct steps exceed
    `max-keys`, or their keys' bytes exceed `max-bytes`, rotations become
    chains of rotations by powers of two (the binary digits of k mod N/2,
    each a key switch), so at most log2(N/2) rotation keys are needed: key
    memory traded for key switches. The budget left after the powers of two
    keeps the circuit's most used steps direct; chains from one ciphertext
    share their prefixes. Refuses a budget below what the power-of-two keys
    (and the row swap's) take. Needs chosen parameters.
  }];
  let options = [
    Option<"maxKeys", "max-keys", "unsigned", /*default=*/"0",
           "Most Galois keys the program may need (0: no limit)">,
    Option<"maxBytes", "max-bytes", "uint64_t", /*default=*/"0",
           "Most bytes the program's Galois keys may take (0: no limit)">
  ];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
}

def BFVSelectParameters : Pass<"bfv-select-parameters", "::mlir::ModuleOp"> {
  let summary = "Choose N, Q, P and dnum for the circuit at 128-bit security";
  let description = [{
    A traced circuit carries only t (and N if the user fixed it). This pass
    estimates the noise every output accumulates (CircuitNoiseAnalysis: fresh
    encryption, multiplications, plaintext products, additions, key
    switches, in bits) and picks the smallest ring degree N, and for it the
    widest primes (60 bits down to 25) of which there are enough at N, whose
    Q holds that noise plus a margin
    while log2(QP) stays within the 2024 security bound for N. A circuit
    computes on slot vectors, so N is restricted to batching degrees (t a
    prime = 1 mod 2N), and a t that batches at no allowed N (a power of two,
    say) is refused, given parameters included: its products would silently
    be polynomial products. Every bfv type is rewritten
    to the chosen `#bfv.params<t, N, Q, P, dnum>`. If Q is already given it is
    kept; an estimate beyond it is reported as a warning. With
    `reserve-depth`, Q also leaves room at the outputs for that many further
    products by fresh ciphertexts, each relinearized (for a caller that will
    multiply the outputs again).
  }];
  let options = [
    Option<"marginBits", "margin-bits", "unsigned", /*default=*/"10",
           "Noise budget (bits) left at the outputs beyond the estimate">,
    Option<"reserveDepth", "reserve-depth", "unsigned", /*default=*/"0",
           "Further products by fresh ciphertexts the outputs must allow">
  ];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
}

def BFVChooseVariant : Pass<"bfv-choose-variant", "::mlir::ModuleOp"> {
  let summary = "The BFV multiplication variant: the one named, or the cost model's";
  let description = [{
    Records the module's variant as `bfv.variant` (a #bfv.variant), which
    bfv-to-poly and poly-to-rns read; the pipeline resolves its `variant`
    option here, once. With one candidate that is the choice. With several
    (every variant by default: variant=auto), it lowers a copy of the circuit
    with each through the pipeline's lowering (bfv-to-poly, poly-to-rns,
    canonicalize, cse, rns-assign-domains, rns-fuse), prices each with CircuitCostModel (transforms from the
    autotuner's table, base conversions and scale-and-round from their
    measured fit, elementwise work from its bytes; independent library
    kernels overlapping their launches, as kernel-concurrent runs them) and
    keeps the cheapest; a tie goes to the earlier candidate. Every estimate
    goes to `bfv.variant_costs` (us). For lhps it also sets the products'
    levels, as bfv-choose-levels does (with its `reserve-depth`). Pricing
    needs chosen parameters.
  }];
  let options = [
    ListOption<"candidates", "candidates", "std::string",
               "The variants to compare (#bfv.variant names), in order of "
               "preference on a tie; none: every variant">,
    Option<"costTable", "cost-table", "std::string", /*default=*/"\"\"",
           "The autotuner's transform table (default: the one built in)">,
    Option<"optimize", "optimize", "bool", /*default=*/"true",
           "Lower each candidate with the whole-circuit optimizations "
           "(rns-hoist-rotations, rns-sum-before-division), as the pipeline "
           "will">,
    Option<"reserveDepth", "reserve-depth", "unsigned", /*default=*/"0",
           "Further products by fresh ciphertexts the outputs must allow "
           "(bfv-choose-levels)">
  ];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect",
                           "::ringfuse::poly::PolyDialect",
                           "::ringfuse::rns::RNSDialect"];
}

def BFVChooseLevels : Pass<"bfv-choose-levels", "::mlir::ModuleOp"> {
  let summary = "Leveled HPS: the level of every ciphertext multiplication";
  let description = [{
    Sets `level = l` on each `bfv.mul` that can be computed on the first l
    primes of Q (leveled HPS). Rounding an operand from Q to Q_l adds noise of
    about log2 t + log2(N)/2 + 1 bits (CircuitNoiseAnalysis::roundingNoise-
    Bits) at Q_l's scale, that is the dropped primes' bits more at Q's; the
    operands' own noise is unchanged at Q's scale. Every output must keep
    `output-margin-bits` of noise budget (bfv-select-parameters' margin),
    and room for `reserve-depth` further products by fresh ciphertexts, each
    relinearized. Walking back from the outputs, the pass gives each product
    an allowance, the most noise its result may carry
    (CircuitNoiseAnalysis::allowanceBits); then, in program order, it drops
    the most trailing primes whose rounding noise, added to the operands'
    noise as the earlier products' levels left it, keeps the product within
    its allowance. Products early in a circuit whose outputs have budget to
    spare thus run on fewer primes, and every later one too. A product may
    always drop the primes whose bits leave its noisier operand's noise
    `margin-bits` above the rounding noise (its noise grows by a small
    fraction of a bit), also when no budget is to spare. A product that
    cannot drop a prime keeps no level. Needs chosen parameters (run
    bfv-select-parameters first).
  }];
  let options = [
    Option<"marginBits", "margin-bits", "unsigned", /*default=*/"16",
           "Bits the scaled operand noise must keep above the rounding noise "
           "to drop primes that the outputs' budget does not pay for">,
    Option<"outputMarginBits", "output-margin-bits", "unsigned",
           /*default=*/"10",
           "Noise budget (bits) every output keeps beyond the estimate">,
    Option<"reserveDepth", "reserve-depth", "unsigned", /*default=*/"0",
           "Further products by fresh ciphertexts the outputs must allow">
  ];
  let dependentDialects = ["::ringfuse::bfv::BFVDialect"];
  let statistics = [
    Statistic<"numLeveled", "products-leveled",
              "Number of bfv.mul ops given a level below Q's">
  ];
}

def BFVToPoly : Pass<"bfv-to-poly", "::mlir::ModuleOp"> {
  let summary = "Scheme operations to ring operations";
  let description = [{
    A ciphertext becomes its components, polynomials of R_Q; a plaintext a
    polynomial of R_t. Multiplication lifts the components exactly into
    R_{QB} (B an auxiliary base with B > t N Q), takes the tensor product there
    and scales by t/Q back into R_Q; relinearization and rotations are
    automorphisms and `poly.key_switch`. A product with `level = l` (see
    bfv-choose-levels) rounds its operands to R_{Q_l}, multiplies in
    R_{Q_l B_l}, scales by t/Q_l into R_{Q_l} and by Q/Q_l back into R_Q; a
    relinearization of it switches keys at R_{Q_l} before that scale-up.
    add_plain adds round(Q m / t);
    mul_plain multiplies by the centered lift of m. Constants are encoded at
    compile time (slots through the NTT mod t). The function records its
    inputs and outputs (component counts, 0 for a plaintext) in
    `ringfuse.inputs` / `ringfuse.outputs`, and its parameter set in
    `ringfuse.params`. Needs chosen parameters and no
    `bfv.sum_slots` (run bfv-expand-slot-sums first).

    The module's `bfv.variant` (bfv-choose-variant; HPS where it has none)
    says how products lower. Compact HPS (`chps`) lowers the products without
    a level differently: the left operand is switched to R (round(R/Q x), R
    of as many primes as Q), both are lifted to R_{QR}, and the tensor
    product is scaled by t/R straight into R_Q. hps and lhps lower the same
    way (lhps's levels are attributes of the products). `behz` takes the
    product in R_{Q Bsk} (Bsk = B and one more prime, m_sk); poly-to-rns
    gives its lift and scaling BEHZ's kernels.

    With `sum-before-rounding` (the pipeline's `optimize`), products at the
    full level whose one user is an addition or subtraction are added there
    before their scale by t/Q (t/R for compact HPS): one rounding per
    component for the sum, not one per product. The sum must stay exact in
    the product's ring: B grows by log2 of the most such products one tree
    of additions sums (HPS, BEHZ), while compact HPS's wrap-around mod QR is
    a multiple of QR that the scale by t/R turns into a multiple of Q.
  }];
  let options = [
    Option<"sumBeforeRounding", "sum-before-rounding", "bool",
           /*default=*/"false",
           "Add products' tensors before their one scale-and-round">
  ];
  let dependentDialects = ["::ringfuse::poly::PolyDialect"];
}

def PolyToRNS : Pass<"poly-to-rns", "::mlir::ModuleOp"> {
  let summary = "Ring operations to RNS limb operations (HPS or BEHZ)";
  let description = [{
    Every polynomial becomes limbs over a named basis in coefficient form.
    Products go through the NTT; exact extensions become exact base
    conversions; scale-and-round by t/Q becomes HPS's rns.scale_round into the
    auxiliary base and an exact conversion back; round(Q m / t) becomes
    rns.scale_up; key switching becomes hybrid key switching: dnum digits of
    Q's limbs, fast conversion of each to QP, NTT, the key inner product,
    inverse NTT and division by P (rns.scale_round over P). The other
    variants' ring algebra lowers with the same steps: a leveled product's
    rounding to Q_l is a scale-and-round over the dropped primes and its
    scale-up an exact conversion times Q/Q_l; key switching at Q_l keeps the
    key's digit width (key_primes); compact HPS's round(R x / Q) into R is a
    modulus-switching rns.scale_round from Q.

    A module whose `bfv.variant` is `behz` lowers a product's steps with
    BEHZ's kernels instead: the
    lift of a ciphertext into Q u Bsk is a `montgomery` conversion (SmMRq),
    and t/Q from Q u Bsk into Q a fast floor into Bsk (`rns.scale_round ...
    floor`) followed by a `shenoy_kumaresan` conversion back to Q (Bsk's last
    prime is m_sk). Plaintext lifts and key switching stay as above.
  }];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
}

def RNSHoistRotations : Pass<"rns-hoist-rotations", "::mlir::ModuleOp"> {
  let summary = "Rotations of one ciphertext share one key-switching decomposition";
  let description = [{
    Key switching a rotated c1 decomposes c1(X^g): digits extracted,
    extended to QP (fast conversion), transformed. The automorphism acts on
    each coefficient alone (a permutation with signs), so it commutes with
    extracting limbs, and with the fast conversion up to a multiple of the
    digit's modulus in its extension, which the division by P removes as it
    removes the conversion's own overflow: digits of c1(X^g) may be taken as
    the automorphism of c1's digits. Where every digit of a
    `key_switch_inner_product` is `ntt(convert(extract(automorphism(c, g))))`
    the pass rewrites them as `ntt(automorphism(convert(extract(c)), g))`,
    where c has two or more distinct such rotations (a lone rotation keeps its
    digits, whose transforms fuse with its inner product); cse then shares
    the conversions of c among all its rotations, and rns-assign-domains,
    seeing one polynomial used by many automorphisms, transforms it once and
    permutes it in the evaluation domain.
  }];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let statistics = [
    Statistic<"numKeySwitchesHoisted", "key-switches-hoisted",
              "Key switches whose digits now come from the unrotated input">
  ];
}

def RNSSumBeforeDivision : Pass<"rns-sum-before-division", "::mlir::ModuleOp"> {
  let summary = "One division by P per sum of key-switched values";
  let description = [{
    Key switching ends each component with a rounded division by P
    (`rns.scale_round (rns.intt %k) by 1 over #P`). Where a tree of rns.add
    (inner nodes of one use) sums several such roundings of one basis, their
    inputs are added over QP first and divided once: round(sum k_i / P)
    differs from sum round(k_i / P) by less than the number of terms, noise
    below the key switches' own. The sums of k_i stay in the evaluation
    domain for rns-assign-domains to keep there, so a sum of r rotations
    pays one inverse transform and one division per component, not r.
  }];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let statistics = [
    Statistic<"numDivisionsSaved", "divisions-saved",
              "Divisions by P removed">
  ];
}

def RNSAssignDomains : Pass<"rns-assign-domains", "::mlir::ModuleOp"> {
  let summary = "Choose coefficient or evaluation form per value; fewest transforms";
  let description = [{
    Keeps data in the evaluation domain across ops where that saves transforms
    (the "state machine" of the HDGT paper, Section 3). The input's ntt/intt
    are treated as domain edges and stripped; every other value is a
    polynomial whose domain is fixed by its producer (rns.mul and
    rns.key_switch_inner_product: evaluation; rns.convert, rns.scale_round,
    rns.scale_up and function arguments: coefficient) or free (add, sub, neg,
    mul_scalar, extract, automorphism: either domain, operands in the
    result's). Users fix what they need the same way; function results are
    coefficient form (the program ABI). A polynomial used in the other domain
    pays one transform, weighted by its limb count; the cheapest assignment is
    an exact minimum s-t cut (DomainAssignment), never costlier than the
    input's. Then exactly one rns.ntt / rns.intt is made per polynomial and
    needed domain, before its first user; constants are transformed at
    compile time. Rejects functions it cannot reason about: arguments or
    results in evaluation form, ops of other dialects, several blocks.
  }];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let statistics = [
    Statistic<"numTransformsBefore", "transforms-before",
              "Number of rns.ntt and rns.intt ops in the input">,
    Statistic<"numTransformsAfter", "transforms-after",
              "Number of rns.ntt and rns.intt ops in the output">,
    Statistic<"numTransformLimbsAfter", "transform-limbs-after",
              "Limbs transformed at run time after the pass">,
    Statistic<"numConstantsTransformed", "constants-transformed",
              "Number of constants transformed at compile time">
  ];
}

def RNSFuse : Pass<"rns-fuse", "::mlir::ModuleOp"> {
  let summary = "Fuse RNS steps that one kernel can do together";
  let description = [{
    Patterns, each a rewrite a reader can check by hand:
    - scale-and-round then exact conversion (HPS's t/Q rounding of a tensor
      term into B, then B -> Q): `rns.convert (rns.scale_round %x by a over
      #D) exact` becomes `rns.scale_round %x by a over #D via #B`, one kernel
      that keeps the rounded words of a tile of coefficients in shared
      memory and converts them there. Fires when the rounding (not a fast
      floor, not already fused) has no other user and the conversion does
      more than copy (its target is not inside the rounding's basis). The
      words are the same.
    - a sum after a rounding (relinearization's c + round(x / P)):
      `rns.add %c, (rns.scale_round %x ...)` becomes `rns.scale_round %x ...
      plus %c`, the addend added to each output word in the rounding's
      kernel, one launch and one pass over the words fewer. Fires when the
      rounding (not one fused with a conversion) has no other user.
    - relinearization's kept terms in the key switch: where key switching's
      sums k_i end as `rns.scale_round (rns.intt %k_i) by a over #P plus
      (rns.scale_round (rns.intt %d_i) by b over #B)` (both i, K first in
      both inputs), d_i's B limbs alone are transformed back and rounded
      (the part of the rounding they decide), and its K limbs, in the
      evaluation domain, join the key switch's sums scaled by
      [b B^-1]_k / [a P^-1]_k (`rns.key_switch_inner_product ... plus`),
      whose P-rounding's kept term then carries them. |K| inverse-NTT limbs
      fewer per component; the words are the same.
  }];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let statistics = [
    Statistic<"numScaleRoundsFused", "scale-rounds-fused",
              "Scale-and-rounds fused with the exact conversion after them">,
    Statistic<"numSumsFused", "sums-fused",
              "Sums folded into the scale-and-round of one of their terms">,
    Statistic<"numKeptTermsInKeySwitch", "kept-terms-in-key-switch",
              "Key switches that took the kept terms of the roundings after them">
  ];
}

def RNSChooseTransform : Pass<"rns-choose-transform", "::mlir::ModuleOp"> {
  let summary = "Choose each transform's kernel and decomposition";
  let description = [{
    Sets `transform = #rns.transform<...>` on every rns.ntt and rns.intt:
    the kind (ntt, dgt), log N1, per-thread radix and
    on-the-fly stages that cost least for its ring degree N = 2^logN, limb
    count L and direction (TransformCostModel).

    Costs come from the autotuner's table (bench/tune_transforms.py; the
    `cost-table` file, or passes/CostModels/data/transform-costs.json as compiled into
    the binary): if it has entries for this logN and direction among the
    allowed kinds, the cheapest of those, each scaled linearly to
    the op's limbs, median_us * L / limbs (one launch covers all limbs, and
    at tuned sizes the GPU is full). Otherwise the analytic roofline model
    picks among every supported shape:

      time = max(bytes / 4.25 TB/s, butterflies / rate) + steps * 2 us

    with rate 7.95e11 butterflies/s (the H200's ceiling for 64-bit words);
    for the NTT, steps = 2 if logN1 > 0 else 1, bytes =
    L (steps * 16 N + 16 T) with T the twiddles
    read, N - 1, or 2^(logN - k) - 1 + k 2^logN1 + N2 / 2 with k on-the-fly
    stages; butterflies = L N / 2 (logN + k) (an on-the-fly twiddle is two
    products). The DGT: 2 steps, T = 2 N, L (N / 2 (logN - 1) + 3 N)
    products. Programs run the DGT (dgt_forward / dgt_inverse) and one more
    pass, its Gaussian pairs to the NTT's words, so
    that every other kernel reads the NTT's words: the table's DGT times,
    which lack it, and the model both add its read and write of the data and
    its launch. Ties keep the smaller logN1, radix, ot (and the NTT over the
    DGT).

    An op that no allowed kind can run is an error.
  }];
  let options = [
    Option<"costTable", "cost-table", "std::string", /*default=*/"\"\"",
           "The autotuner's JSON cost table (empty: the one built in)">,
    ListOption<"kinds", "kinds", "std::string",
               "Transforms the target runs: ntt, dgt (default: ntt)">
  ];
  let dependentDialects = ["::ringfuse::rns::RNSDialect"];
  let statistics = [
    Statistic<"numTransformsChosen", "transforms-chosen",
              "Number of rns.ntt and rns.intt ops given a transform">,
    Statistic<"numFromTable", "from-table",
              "Number of choices made from the measured cost table">,
    Statistic<"numFromModel", "from-model",
              "Number of choices made by the analytic model">
  ];
}

def RNSToKernel : Pass<"rns-to-kernel", "::mlir::ModuleOp"> {
  let summary = "RNS operations to kernels on buffers, fused and planned";
  let description = [{
    Every rns value gets a buffer. Trees of elementwise rns ops (add, sub,
    neg, mul, mul_scalar) whose intermediate values have a single use fuse
    into one generated `kernel.elementwise`; everything else becomes a
    library-kernel launch (NTTs in place when their input is dead after
    them, base conversion, scale-and-round, automorphism (marked `evaluation`
    in that domain), the key-switch inner product); limb ranges become views.
    Every buffer is its own `kernel.alloc` (kernel-plan-slots places them).
    Forward NTTs fuse with what alone reads them: a one-prime conversion
    (`ntt_forward` with an input), key switching's inner product
    (`ntt_key_switch`), and, from N = 2^products-from-log-n on, sums of their
    products (`ntt_products`, a ciphertext product's tensor terms). Below
    that the transformed factors stay in L2 and four NTTs side by side beat
    one launch that transforms each row's factors in turn (H200, HMult at
    (14, 300, 60): 1.9% slower fused; 0.7 to 2.1% faster at logN 15 and 16).
    A tree that only adds 16 or more products of values from outside it (a
    matrix-vector product's giant step) is a `sum_of_products` launch, data
    for one library kernel instead of a generated body, in several launches
    (the later accumulating) past the kernel's bounds; other trees are cut at
    48 ops.
  }];
  let options = [
    Option<"productsFromLogN", "products-from-log-n", "unsigned", "15",
           "The smallest log N whose tensor products fuse with their NTTs">
  ];
  let dependentDialects = ["::ringfuse::kernel::KernelDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Number of kernels launched">,
    Statistic<"numFused", "ops-fused", "Number of rns ops fused into elementwise kernels">
  ];
}

def KernelPlanSlots : Pass<"kernel-plan-slots", "::mlir::ModuleOp"> {
  let summary = "Place buffers: allocations whose lifetimes do not overlap share a slot";
  let description = [{
    Each `kernel.alloc` gets a `slot`; allocations of one size share a slot
    when one is dead (no use, through views) before the next is allocated.
    The launches of a `kernel.concurrent` count as one step: a buffer any of
    them touches is live until the group's end. The emitter needs every
    allocation placed.
  }];
  let dependentDialects = ["::ringfuse::kernel::KernelDialect"];
}

def KernelFuseElementwise : Pass<"kernel-fuse-elementwise", "::mlir::ModuleOp"> {
  let summary = "Merge independent generated kernels of one shape into one";
  let description = [{
    The fusion's batching of independent operations, for generated kernels.
    rns-to-kernel gives each tree of elementwise ops a `kernel.elementwise`;
    trees that share no value (the three products of a ciphertext tensor, the
    two sums that finish a relinearization) would launch one after another.
    Independent `kernel.elementwise` ops over one degree and basis are
    gathered as kernel-concurrent gathers launches (the ops between either
    touch none of their buffers or are passed by hoisting; at most 8 ops,
    looking 64 ahead) and become one op: its inputs are theirs without
    repeats, its outputs theirs in order, and its body computes all of them.
    Independent `sum_of_products` launches of one buffer type (both
    accumulating or neither) are gathered the same way and become one launch
    with each shared factor once, as many as fit the kernel's bounds: a giant
    step's two components read each plaintext diagonal once.
    Runs after rns-to-kernel and before kernel-plan-slots.
  }];
  let dependentDialects = ["::ringfuse::kernel::KernelDialect"];
  let statistics = [
    Statistic<"numMerged", "merged-kernels", "Number of generated kernels and sums of products made by merging">,
    Statistic<"numFused", "kernels-fused", "Number of generated kernels merged into them">
  ];
}

def KernelConcurrent : Pass<"kernel-concurrent", "::mlir::ModuleOp"> {
  let summary = "Group independent library launches to run at the same time";
  let description = [{
    The fusion's batching of independent operations, at the kernel level.
    From each library launch on, later launches join its group while the ops
    between touch none of the members' buffers (the members sink past them);
    after the first op that does, the group stays above it and later launches
    join by moving up, if they depend on none of the ops they pass (their
    allocations and views move up with them). Each group of two or more (at
    most 16, looking 64 ops ahead) becomes one `kernel.concurrent`, its
    launches ordered by the longest chain of dependent kernel ops that starts
    at each (longest first, program order among equals): the CUDA driver
    starts launches in that order and overlaps them with whatever they do not
    depend on, so the critical path gets the GPU first. Runs before
    kernel-plan-slots: only true dependencies, a buffer one op writes and
    another reads or writes, order the launches.
  }];
  let dependentDialects = ["::ringfuse::kernel::KernelDialect"];
  let statistics = [
    Statistic<"numGroups", "groups", "Number of concurrent groups">,
    Statistic<"numGrouped", "launches-grouped", "Number of launches in them">
  ];
}

#endif // RINGFUSE_PASSES_TD
