// Every poly op round-trips through the custom and the generic form.
// RUN: ringfuse-opt %s | ringfuse-opt | FileCheck %s
// RUN: ringfuse-opt %s --mlir-print-op-generic | ringfuse-opt | FileCheck %s

// CHECK-DAG: #[[QB:.*]] = #poly.ring<N = 16, moduli = [97, 193, 353]>
// CHECK-DAG: #[[Q:.*]] = #poly.ring<N = 16, moduli = [97, 193]>
// CHECK-DAG: #[[T:.*]] = #poly.ring<N = 16, moduli = [256]>
#q = #poly.ring<N = 16, moduli = [97, 193]>
#qb = #poly.ring<N = 16, moduli = [97, 193, 353]>
#t = #poly.ring<N = 16, moduli = [256]>

// CHECK-LABEL: func.func @ring_arithmetic
// CHECK-SAME: (%[[A:.*]]: !poly.poly<#[[Q]]>, %[[B:.*]]: !poly.poly<#[[Q]]>)
func.func @ring_arithmetic(%a: !poly.poly<#q>, %b: !poly.poly<#q>) -> !poly.poly<#q> {
  // CHECK: %[[S:.*]] = poly.add %[[A]], %[[B]] : !poly.poly<#[[Q]]>
  %s = poly.add %a, %b : !poly.poly<#q>
  // CHECK: %[[D:.*]] = poly.sub %[[S]], %[[B]] : !poly.poly<#[[Q]]>
  %d = poly.sub %s, %b : !poly.poly<#q>
  // CHECK: %[[P:.*]] = poly.mul %[[D]], %[[A]] : !poly.poly<#[[Q]]>
  %p = poly.mul %d, %a : !poly.poly<#q>
  // CHECK: %[[N:.*]] = poly.neg %[[P]] : !poly.poly<#[[Q]]>
  %n = poly.neg %p : !poly.poly<#q>
  // CHECK: %[[K:.*]] = poly.mul_scalar %[[N]], 18720 : !poly.poly<#[[Q]]>
  %k = poly.mul_scalar %n, 18720 : !poly.poly<#q>
  // CHECK: %[[R:.*]] = poly.automorphism %[[K]] by 31 : !poly.poly<#[[Q]]>
  %r = poly.automorphism %k by 31 : !poly.poly<#q>
  return %r : !poly.poly<#q>
}

// BFV's tensor-and-rescale shape: lift into a wider ring, multiply exactly,
// scale by t/Q back into R_Q, and decryption's rescale into R_t.
// CHECK-LABEL: func.func @rescaling
func.func @rescaling(%c: !poly.poly<#q>) -> (!poly.poly<#q>, !poly.poly<#t>) {
  // CHECK: poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[Q]]> -> !poly.poly<#[[QB]]>
  %lifted = poly.scale_round %c by 1 / 1 : !poly.poly<#q> -> !poly.poly<#qb>
  %square = poly.mul %lifted, %lifted : !poly.poly<#qb>
  // CHECK: poly.scale_round %{{.*}} by 256 / 18721 : !poly.poly<#[[QB]]> -> !poly.poly<#[[Q]]>
  %back = poly.scale_round %square by 256 / 18721 : !poly.poly<#qb> -> !poly.poly<#q>
  // CHECK: poly.scale_round %{{.*}} by 256 / 18721 : !poly.poly<#[[Q]]> -> !poly.poly<#[[T]]>
  %decoded = poly.scale_round %c by 256 / 18721 : !poly.poly<#q> -> !poly.poly<#t>
  return %back, %decoded : !poly.poly<#q>, !poly.poly<#t>
}

// Constants wider than 64 bits keep their exact value.
// CHECK-LABEL: func.func @big_constants
func.func @big_constants(%x: !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>>) -> !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>> {
  // CHECK: poly.mul_scalar %{{.*}}, 1329227995784915584673430908568615176
  %0 = poly.mul_scalar %x, 1329227995784915584673430908568615176 : !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>>
  // CHECK: poly.scale_round %{{.*}} by 65537 / 1329227995784915584673430908568615177
  %1 = poly.scale_round %0 by 65537 / 1329227995784915584673430908568615177 : !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>> -> !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>>
  return %1 : !poly.poly<#poly.ring<N = 2, moduli = [1152921504606846883, 1152921504606846819]>>
}

// CHECK-LABEL: func.func @constants_and_key_switching
func.func @constants_and_key_switching(%c: !poly.poly<#q>) -> (!poly.poly<#q>, !poly.poly<#t>) {
  // CHECK: poly.constant dense<{{\[}}7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255]> : tensor<16xi64> : !poly.poly<#[[T]]>
  %m = poly.constant dense<[7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255]> : tensor<16xi64> : !poly.poly<#t>
  // CHECK: %{{.*}}, %{{.*}} = poly.key_switch %{{.*}} {dnum = 2 : i64, galois_element = 0 : i64, special = array<i64: 353>} : !poly.poly<#[[Q]]>
  %k0, %k1 = poly.key_switch %c {galois_element = 0, special = array<i64: 353>, dnum = 2} : !poly.poly<#q>
  // CHECK: poly.key_switch %{{.*}} {dnum = 1 : i64, galois_element = 3 : i64, special = array<i64: 353, 449>}
  %r0, %r1 = poly.key_switch %k0 {galois_element = 3, special = array<i64: 353, 449>, dnum = 1} : !poly.poly<#q>
  %s = poly.add %r0, %k1 : !poly.poly<#q>
  return %s, %m : !poly.poly<#q>, !poly.poly<#t>
}
