// Hand-written rns IR: the transform counts of the input (BNTT and BINTT,
// printed back unchanged) and after the pass (NTT and INTT).
// RUN: ringfuse-opt %s --split-input-file | FileCheck %s --check-prefixes=ALL,BNTT
// RUN: ringfuse-opt %s --split-input-file | FileCheck %s --check-prefixes=ALL,BINTT
// RUN: ringfuse-opt %s --split-input-file --rns-assign-domains | FileCheck %s --check-prefixes=ALL,NTT
// RUN: ringfuse-opt %s --split-input-file --rns-assign-domains | FileCheck %s --check-prefixes=ALL,INTT
// RUN: ringfuse-opt %s --split-input-file --rns-assign-domains | FileCheck %s --check-prefixes=ALL,AFTER

// The input's transforms are only domain edges: intt(ntt(x)) is x, and two
// NTTs of x are one. 5 before, 2 after.
#Q = #rns.basis<Q: [193, 257]>
// ALL-LABEL: func.func @redundant_transforms
// BNTT-COUNT-3: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-2: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-1: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-1: rns.intt
// INTT-NOT: rns.intt
// AFTER: %[[X:.*]] = rns.ntt %arg0
// AFTER-NEXT: %[[M:.*]] = rns.mul %[[X]], %[[X]]
// AFTER-NEXT: %[[R:.*]] = rns.intt %[[M]]
// AFTER-NEXT: return %[[R]]
func.func @redundant_transforms(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.intt %a : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  %c = rns.ntt %b : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %d = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %c, %d : !rns.poly<16, #Q, eval>
  %r = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  return %r : !rns.poly<16, #Q, coeff>
}

// -----

// A transform costs its limbs: one limb of a three-limb product goes back to
// coefficients, after the extraction (1 limb), not before it (3 limbs). One
// inverse NTT either way.
#QB = #rns.basis<QB: [193, 257, 449]>
#D = #rns.basis<D: [193]>
#DP = #rns.basis<DP: [193, 353]>
// ALL-LABEL: func.func @extract_one_limb
// BNTT-COUNT-1: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-1: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-1: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-1: rns.intt
// INTT-NOT: rns.intt
// AFTER: %[[E:.*]] = rns.extract %{{.*}} limbs 0 to 1 : !rns.poly<16, #QB, eval> -> !rns.poly<16, #D, eval>
// AFTER-NEXT: rns.intt %[[E]] : !rns.poly<16, #D, eval> -> !rns.poly<16, #D, coeff>
func.func @extract_one_limb(%x: !rns.poly<16, #QB, coeff>) -> !rns.poly<16, #DP, coeff> {
  %a = rns.ntt %x : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #QB, eval>
  %m = rns.mul %a, %a : !rns.poly<16, #QB, eval>
  %c = rns.intt %m : !rns.poly<16, #QB, eval> -> !rns.poly<16, #QB, coeff>
  %e = rns.extract %c limbs 0 to 1 : !rns.poly<16, #QB, coeff> -> !rns.poly<16, #D, coeff>
  %r = rns.convert %e : !rns.poly<16, #D, coeff> -> !rns.poly<16, #DP, coeff>
  return %r : !rns.poly<16, #DP, coeff>
}

// -----

// A constant multiplied in evaluation form is transformed at compile time:
// 3 before, 2 after. Its evaluation form at position j is
// c(psi^(2 bitrev(j) + 1)); for the constant polynomial 5 every position is 5.
#Q = #rns.basis<Q: [193, 257]>
// ALL-LABEL: func.func @constant_factor
// BNTT-COUNT-2: rns.ntt
// BNTT-NOT: rns.ntt
// BINTT-COUNT-1: rns.intt
// BINTT-NOT: rns.intt
// NTT-COUNT-1: rns.ntt
// NTT-NOT: rns.ntt
// INTT-COUNT-1: rns.intt
// INTT-NOT: rns.intt
// AFTER: rns.constant dense<5> : tensor<32xi64> : !rns.poly<16, #Q, eval>
func.func @constant_factor(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %c = rns.constant dense<[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<32xi64> : !rns.poly<16, #Q, coeff>
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %b = rns.ntt %c : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  %r = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  return %r : !rns.poly<16, #Q, coeff>
}

// -----

// A constant X (coefficient 1 at X^1) in evaluation form: position j holds
// psi^(2 bitrev(j) + 1) mod q, psi = 8 the smallest primitive 32nd root of
// unity mod 193 (bitrev(1) = 8 over 4 bits: position 1 holds 8^17 = 185).
#Q = #rns.basis<Q: [193]>
// ALL-LABEL: func.func @constant_monomial
// AFTER: rns.constant dense<[8, 185, {{.*}}]> : tensor<16xi64> : !rns.poly<16, #Q, eval>
// BNTT-COUNT-2: rns.ntt
// BNTT-NOT: rns.ntt
// NTT-COUNT-1: rns.ntt
// NTT-NOT: rns.ntt
func.func @constant_monomial(%x: !rns.poly<16, #Q, coeff>) -> !rns.poly<16, #Q, coeff> {
  %c = rns.constant dense<[0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<16xi64> : !rns.poly<16, #Q, coeff>
  %b = rns.ntt %c : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %a = rns.ntt %x : !rns.poly<16, #Q, coeff> -> !rns.poly<16, #Q, eval>
  %m = rns.mul %a, %b : !rns.poly<16, #Q, eval>
  %r = rns.intt %m : !rns.poly<16, #Q, eval> -> !rns.poly<16, #Q, coeff>
  return %r : !rns.poly<16, #Q, coeff>
}
