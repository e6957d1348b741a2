// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=chps --bfv-to-poly | FileCheck %s
// RUN: ringfuse-opt %s --bfv-choose-variant=candidates=chps --bfv-to-poly --poly-to-rns --cse | FileCheck %s --check-prefix=RNS

// Compact HPS: R has as many primes as Q (two), the left operand is switched
// to R, both are lifted to Q u R, and t/R brings the tensor product back to Q.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!ct3 = !bfv.ciphertext<#p, 3>

// CHECK-DAG: #[[Q:.*]] = #poly.ring<N = 16, moduli = [193, 257]>
// CHECK-DAG: #[[R:.*]] = #poly.ring<N = 16, moduli = [[[R1:[0-9]+]], [[R2:[0-9]+]]]>
// CHECK-DAG: #[[QR:.*]] = #poly.ring<N = 16, moduli = [193, 257, [[R1]], [[R2]]]>
// CHECK-LABEL: func.func @product
func.func @product(%x: !ct, %y: !ct) -> !ct3 {
  // CHECK: %[[X0:.*]] = poly.scale_round %{{.*}} by [[RPRODUCT:[0-9]+]] / 49601 : !poly.poly<#[[Q]]> -> !poly.poly<#[[R]]>
  // CHECK: poly.scale_round %[[X0]] by 1 / 1 : !poly.poly<#[[R]]> -> !poly.poly<#[[QR]]>
  // CHECK: %[[X1:.*]] = poly.scale_round %{{.*}} by [[RPRODUCT]] / 49601 : !poly.poly<#[[Q]]> -> !poly.poly<#[[R]]>
  // CHECK: poly.scale_round %[[X1]] by 1 / 1 : !poly.poly<#[[R]]> -> !poly.poly<#[[QR]]>
  // CHECK-COUNT-2: poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[Q]]> -> !poly.poly<#[[QR]]>
  // CHECK-COUNT-3: poly.scale_round %{{.*}} by 97 / [[RPRODUCT]] : !poly.poly<#[[QR]]> -> !poly.poly<#[[Q]]>
  %0 = bfv.mul %x, %y : !ct -> !ct3
  return %0 : !ct3
}

// round(R x / Q) into R: a modulus switch, one scale-and-round from Q (R's
// primes divide R); the division by R at the end keeps Q, so no conversion
// back follows it.
// RNS-DAG: #[[Q:.*]] = #rns.basis<Q: [193, 257]>
// RNS-DAG: #[[R:.*]] = #rns.basis<B: [{{[0-9]+}}, {{[0-9]+}}]>
// RNS-DAG: #[[QR:.*]] = #rns.basis<QB: [193, 257, {{[0-9]+}}, {{[0-9]+}}]>
// RNS: %[[S:.*]] = rns.scale_round %{{.*}} by {{[0-9]+}} over #[[Q]] : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[R]], coeff>
// RNS: rns.convert %[[S]] exact : !rns.poly<16, #[[R]], coeff> -> !rns.poly<16, #[[QR]], coeff>
// RNS-COUNT-3: rns.scale_round %{{.*}} by 97 over #[[R]] : !rns.poly<16, #[[QR]], coeff> -> !rns.poly<16, #[[Q]], coeff>
// RNS-NOT: rns.convert
