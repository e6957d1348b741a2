// RUN: ringfuse-opt %s --bfv-to-poly | FileCheck %s

// t = 97 = 1 mod 32 allows slots at N = 16.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>

// A ciphertext becomes two polynomials of R_Q, a plaintext one of R_t.
// CHECK-DAG: #[[Q:.*]] = #poly.ring<N = 16, moduli = [193, 257]>
// CHECK-DAG: #[[QB:.*]] = #poly.ring<N = 16, moduli = [193, 257, {{[0-9]+}}]>
// CHECK-DAG: #[[T:.*]] = #poly.ring<N = 16, moduli = [97]>
// CHECK-LABEL: func.func @product
// CHECK-SAME: (%[[X0:.*]]: !poly.poly<#[[Q]]>, %[[X1:.*]]: !poly.poly<#[[Q]]>, %[[Y0:.*]]: !poly.poly<#[[Q]]>, %[[Y1:.*]]: !poly.poly<#[[Q]]>)
// CHECK-SAME: attributes {ringfuse.inputs = array<i64: 2, 2>, ringfuse.outputs = array<i64: 2>, ringfuse.params = #params}
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // Exact lifts into R_QB, the tensor product there, t/Q back into R_Q.
  // CHECK-COUNT-4: poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[Q]]> -> !poly.poly<#[[QB]]>
  // CHECK: poly.mul
  // CHECK: poly.mul
  // CHECK: poly.mul
  // CHECK: poly.add
  // CHECK: poly.mul
  // CHECK-COUNT-3: poly.scale_round %{{.*}} by 97 / 49601 : !poly.poly<#[[QB]]> -> !poly.poly<#[[Q]]>
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  // Relinearization switches c2 from s^2 to s.
  // CHECK: %[[K0:.*]], %[[K1:.*]] = poly.key_switch %{{.*}} {dnum = 2 : i64, galois_element = 0 : i64, special = array<i64: 353>}
  // CHECK: poly.add %{{.*}}, %[[K0]]
  // CHECK: poly.add %{{.*}}, %[[K1]]
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// CHECK-LABEL: func.func @slots
func.func @slots(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // Rotation by 2: g = 3^2 = 9; right by 1: g = 3^7 mod 32 = 11.
  // CHECK: poly.automorphism %{{.*}} by 9
  // CHECK: poly.automorphism %{{.*}} by 9
  // CHECK: poly.key_switch %{{.*}} {dnum = 2 : i64, galois_element = 9 : i64
  %0 = bfv.rotate %x by 2 : !bfv.ciphertext<#p, 2>
  // CHECK: poly.automorphism %{{.*}} by 11
  %1 = bfv.rotate %0 by -1 : !bfv.ciphertext<#p, 2>
  // The row swap is g = 2N - 1 = 31.
  // CHECK: poly.automorphism %{{.*}} by 31
  // CHECK: galois_element = 31
  %2 = bfv.swap_rows %1 : !bfv.ciphertext<#p, 2>
  return %2 : !bfv.ciphertext<#p, 2>
}

// CHECK-LABEL: func.func @plaintexts
// CHECK-SAME: %{{.*}}: !poly.poly<#[[T]]>
// CHECK-SAME: ringfuse.inputs = array<i64: 2, 0>
func.func @plaintexts(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  // add_plain adds round(Q m / t) to c0.
  // CHECK: %[[S:.*]] = poly.scale_round %{{.*}} by 49601 / 97 : !poly.poly<#[[T]]> -> !poly.poly<#[[Q]]>
  // CHECK: poly.add %{{.*}}, %[[S]]
  %0 = bfv.add_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // mul_plain multiplies both components by the centered lift of m.
  // CHECK: %[[L:.*]] = poly.scale_round %{{.*}} by 1 / 1 : !poly.poly<#[[T]]> -> !poly.poly<#[[Q]]>
  // CHECK: poly.mul %{{.*}}, %[[L]]
  // CHECK: poly.mul %{{.*}}, %[[L]]
  %1 = bfv.mul_plain %0, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // A scalar constant is the constant polynomial.
  // CHECK: poly.constant dense<[5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<16xi64> : !poly.poly<#[[T]]>
  %c = bfv.encode 5 : i64 -> !bfv.plaintext<#p>
  // CHECK: poly.sub
  %2 = bfv.sub_plain %1, %c : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // A slot vector of ones in every slot is the constant polynomial 1.
  // CHECK: poly.constant dense<[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]>
  %v = bfv.encode dense<[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]> : tensor<16xi64> -> !bfv.plaintext<#p>
  %3 = bfv.mul_plain %2, %v : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // CHECK: poly.neg
  // CHECK: poly.neg
  %4 = bfv.negate %3 : !bfv.ciphertext<#p, 2>
  return %4 : !bfv.ciphertext<#p, 2>
}
