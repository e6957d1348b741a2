// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=behz --bfv-to-poly | FileCheck %s --check-prefix=RING
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=behz --bfv-to-poly --poly-to-rns --cse | FileCheck %s
// BEHZ: the product is taken in Q u Bsk (HPS's B and one more prime, m_sk);
// the lift is SmMRq, the scaling a fast floor into Bsk and a
// Shenoy-Kumaresan conversion back to Q. Plaintext lifts and key switching
// are HPS's.

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>

// The lift goes to Q and two more primes (B has one here).
// RING-DAG: #[[RQ:.*]] = #poly.ring<N = 16, moduli = [193, 257]>
// RING-DAG: #[[RQBSK:.*]] = #poly.ring<N = 16, moduli = [193, 257, {{[0-9]+}}, {{[0-9]+}}]>
// RING-LABEL: func.func @product
// RING-COUNT-4: poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[RQ]]> -> !poly.poly<#[[RQBSK]]>

// CHECK-DAG: #[[Q:.*]] = #rns.basis<Q: [193, 257]>
// CHECK-DAG: #[[QB:.*]] = #rns.basis<QB: [193, 257, [[B1:[0-9]+]], [[MSK:[0-9]+]]]>
// CHECK-DAG: #[[B:.*]] = #rns.basis<B: [[[B1]], [[MSK]]]>
// CHECK-LABEL: func.func @product
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // CHECK-COUNT-4: rns.convert %{{.*}} montgomery : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  // CHECK-NOT: exact
  // CHECK: rns.scale_round %{{.*}} by 97 over #[[Q]] floor : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[B]], coeff>
  // CHECK-NEXT: rns.convert %{{.*}} shenoy_kumaresan : !rns.poly<16, #[[B]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  // CHECK: rns.scale_round %{{.*}} by 97 over #[[Q]] floor
  // CHECK-NEXT: rns.convert %{{.*}} shenoy_kumaresan
  // CHECK: rns.scale_round %{{.*}} by 97 over #[[Q]] floor
  // CHECK-NEXT: rns.convert %{{.*}} shenoy_kumaresan
  // Key switching divides by P with HPS's rounding.
  // CHECK: rns.key_switch_inner_product
  // CHECK: rns.scale_round %{{.*}} by 1 over #P : !rns.poly<16, #QP, coeff> -> !rns.poly<16, #[[Q]], coeff>
  // CHECK-NOT: floor
  // CHECK: return
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// The centered lift of a plaintext stays exact.
// CHECK-LABEL: func.func @plaintext_product
func.func @plaintext_product(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  // CHECK: rns.convert %{{.*}} exact : !rns.poly<16, #T, coeff> -> !rns.poly<16, #[[Q]], coeff>
  // CHECK-NOT: montgomery
  %0 = bfv.mul_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %0 : !bfv.ciphertext<#p, 2>
}
