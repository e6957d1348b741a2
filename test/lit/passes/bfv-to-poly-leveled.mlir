// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s

// Leveled products (bfv-choose-levels) on the first two of Q's three primes.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257, 449], P = [353], dnum = 3>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// CHECK-DAG: #[[Q:.*]] = #poly.ring<N = 16, moduli = [193, 257, 449]>
// CHECK-DAG: #[[Q2:.*]] = #poly.ring<N = 16, moduli = [193, 257]>
// CHECK-DAG: #[[Q2B:.*]] = #poly.ring<N = 16, moduli = [193, 257, {{[0-9]+}}]>

// The operands are rounded to Q_2 (by 1 / 449), lifted to Q_2 B_2 and
// multiplied there; t/Q_2 brings the tensor back to Q_2. Relinearization
// switches keys at Q_2 with the key of Q's three primes; only then is the
// result scaled up by Q / Q_2 = 449.
// CHECK-LABEL: func.func @relinearized
func.func @relinearized(%x: !ct, %y: !ct) -> !ct {
  // CHECK-COUNT-2: poly.scale_round %{{.*}} by 1 / 449 : !poly.poly<#[[Q]]> -> !poly.poly<#[[Q2]]>
  // CHECK: poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[Q2]]> -> !poly.poly<#[[Q2B]]>
  // CHECK: poly.mul
  // CHECK-COUNT-3: poly.scale_round %{{.*}} by 97 / 49601 : !poly.poly<#[[Q2B]]> -> !poly.poly<#[[Q2]]>
  // CHECK: %[[K0:.*]], %[[K1:.*]] = poly.key_switch %{{.*}} {dnum = 3 : i64, galois_element = 0 : i64, key_primes = 3 : i64, special = array<i64: 353>} : !poly.poly<#[[Q2]]>
  // CHECK: %[[C0:.*]] = poly.add %{{.*}}, %[[K0]] : !poly.poly<#[[Q2]]>
  // CHECK: %[[C1:.*]] = poly.add %{{.*}}, %[[K1]] : !poly.poly<#[[Q2]]>
  // CHECK: poly.scale_round %[[C0]] by 449 / 1 : !poly.poly<#[[Q2]]> -> !poly.poly<#[[Q]]>
  // CHECK: poly.scale_round %[[C1]] by 449 / 1 : !poly.poly<#[[Q2]]> -> !poly.poly<#[[Q]]>
  // CHECK-NEXT: return
  %0 = bfv.mul %x, %y {level = 2} : !ct -> !ct3
  %1 = bfv.relinearize %0 : !ct3 -> !ct
  return %1 : !ct
}

// A product used as it is comes back to Q right away, all three components.
// CHECK-LABEL: func.func @returned
func.func @returned(%x: !ct, %y: !ct) -> !ct3 {
  // CHECK-COUNT-3: poly.scale_round %{{.*}} by 97 / 49601 : !poly.poly<#[[Q2B]]> -> !poly.poly<#[[Q2]]>
  // CHECK-COUNT-3: poly.scale_round %{{.*}} by 449 / 1 : !poly.poly<#[[Q2]]> -> !poly.poly<#[[Q]]>
  // CHECK-NOT: poly.key_switch
  %0 = bfv.mul %x, %y {level = 2} : !ct -> !ct3
  return %0 : !ct3
}
