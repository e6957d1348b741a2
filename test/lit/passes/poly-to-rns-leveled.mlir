// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --cse | FileCheck %s
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp | FileCheck %s --check-prefix=EMIT

// A leveled product (level 2 of Q's three primes), relinearized at its level.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257, 449], P = [353], dnum = 3>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// CHECK-DAG: #[[Q:.*]] = #rns.basis<Q: [193, 257, 449]>
// CHECK-DAG: #[[Q2:.*]] = #rns.basis<Q2: [193, 257]>
// CHECK-DAG: #[[HI:.*]] = #rns.basis<Q2hi: [449]>
// CHECK-DAG: #[[Q2B:.*]] = #rns.basis<Q2B: [193, 257, {{[0-9]+}}]>
// CHECK-DAG: #[[Q2P:.*]] = #rns.basis<Q2P: [193, 257, 353]>
// CHECK-LABEL: func.func @relinearized
func.func @relinearized(%x: !ct, %y: !ct) -> !ct {
  // Rounding to Q_2 divides by the dropped prime (HPS's scale-and-round),
  // then each operand is lifted exactly to Q_2 B_2.
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[HI]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[Q2]], coeff>
  // CHECK-NEXT: rns.convert %{{.*}} exact : !rns.poly<16, #[[Q2]], coeff> -> !rns.poly<16, #[[Q2B]], coeff>
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[HI]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[Q2]], coeff>
  // CHECK-NEXT: rns.convert %{{.*}} exact : !rns.poly<16, #[[Q2]], coeff> -> !rns.poly<16, #[[Q2B]], coeff>
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[HI]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[Q2]], coeff>
  // CHECK-NEXT: rns.convert %{{.*}} exact : !rns.poly<16, #[[Q2]], coeff> -> !rns.poly<16, #[[Q2B]], coeff>
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[HI]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[Q2]], coeff>
  // CHECK-NEXT: rns.convert %{{.*}} exact : !rns.poly<16, #[[Q2]], coeff> -> !rns.poly<16, #[[Q2B]], coeff>
  // CHECK: rns.scale_round %{{.*}} by 97 over #[[Q2]] : !rns.poly<16, #[[Q2B]], coeff>
  // Key switching keeps the key's digits of one prime: two of them at Q_2.
  // CHECK: rns.extract %{{.*}} limbs 0 to 1 : !rns.poly<16, #[[Q2]], coeff>
  // CHECK: rns.extract %{{.*}} limbs 1 to 2 : !rns.poly<16, #[[Q2]], coeff>
  // CHECK-NOT: rns.extract
  // CHECK: rns.key_switch_inner_product %{{.*}}, %{{.*}} {key = 0 : i64} : !rns.poly<16, #[[Q2P]], eval>, !rns.poly<16, #[[Q2P]], eval>
  // The scale-up by 449: the exact lift to Q, times 449.
  // CHECK: %[[UP:.*]] = rns.convert %{{.*}} exact : !rns.poly<16, #[[Q2]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  // CHECK: rns.mul_scalar %[[UP]], 449 : !rns.poly<16, #[[Q]], coeff>
  %0 = bfv.mul %x, %y {level = 2} : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  return %1 : !ct
}

// The runtime gets the basis and the digit count, and picks the key's limbs.
// EMIT: const uint64_t basis[[B:[0-9]+]][] = {193, 257, 353}; // Q2P
// EMIT: k->ntt_key_switch(rt, 0, [[B]], source_bases, sources, scratch, 2,
