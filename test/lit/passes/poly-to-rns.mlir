// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --cse | FileCheck %s
// The product x * y of issue 4's acceptance: before fusion, the RNS level
// shows every step of HPS multiplication and hybrid relinearization.

#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>

// CHECK-DAG: #[[Q:.*]] = #rns.basis<Q: [193, 257]>
// CHECK-DAG: #[[QB:.*]] = #rns.basis<QB: [193, 257, {{[0-9]+}}]>
// CHECK-DAG: #[[QP:.*]] = #rns.basis<QP: [193, 257, 353]>
// CHECK-DAG: #[[P:.*]] = #rns.basis<P: [353]>
// CHECK-LABEL: func.func @product
// CHECK-SAME: !rns.poly<16, #[[Q]], coeff>
func.func @product(%x: !bfv.ciphertext<#p, 2>, %y: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  // Exact base extension of the four components to Q u B.
  // CHECK-COUNT-4: rns.convert %{{.*}} exact : !rns.poly<16, #[[Q]], coeff> -> !rns.poly<16, #[[QB]], coeff>
  // The tensor product in the evaluation domain: one NTT per component
  // (after CSE), four products, back to coefficients.
  // CHECK: rns.ntt {{.*}} #[[QB]]
  // CHECK: rns.ntt {{.*}} #[[QB]]
  // CHECK: rns.mul
  // CHECK: rns.intt
  // CHECK: rns.ntt {{.*}} #[[QB]]
  // CHECK: rns.mul
  // CHECK: rns.intt
  // CHECK: rns.ntt {{.*}} #[[QB]]
  // CHECK: rns.mul
  // CHECK: rns.intt
  // CHECK: rns.add
  // CHECK: rns.mul
  // CHECK: rns.intt
  // CHECK-NOT: rns.ntt {{.*}} #[[QB]]
  // HPS: round(t x / Q) into B, then exactly back to Q, per component.
  // CHECK: rns.scale_round %{{.*}} by 97 over #[[Q]] : !rns.poly<16, #[[QB]], coeff> -> !rns.poly<16, #[[B:.*]], coeff>
  // CHECK: rns.convert %{{.*}} exact : !rns.poly<16, #[[B]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  // Hybrid key switching of c2: two digits, fast conversion to QP, NTT.
  // CHECK: rns.extract %{{.*}} limbs 0 to 1
  // CHECK: rns.convert %{{.*}} : !rns.poly<16, #D0, coeff> -> !rns.poly<16, #[[QP]], coeff>
  // CHECK: rns.ntt
  // CHECK: rns.extract %{{.*}} limbs 1 to 2
  // CHECK: rns.convert %{{.*}} : !rns.poly<16, #D1, coeff> -> !rns.poly<16, #[[QP]], coeff>
  // CHECK: rns.ntt
  // CHECK: %[[K0:.*]], %[[K1:.*]] = rns.key_switch_inner_product %{{.*}}, %{{.*}} {key = 0 : i64}
  // CHECK: rns.intt %[[K0]]
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[P]] : !rns.poly<16, #[[QP]], coeff> -> !rns.poly<16, #[[Q]], coeff>
  // CHECK: rns.intt %[[K1]]
  // CHECK: rns.scale_round %{{.*}} by 1 over #[[P]]
  // CHECK-COUNT-2: rns.add
  // CHECK-NEXT: return
  %0 = bfv.mul %x, %y : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// CHECK-LABEL: func.func @plaintexts
func.func @plaintexts(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  // CHECK: rns.scale_up %{{.*}} : !rns.poly<16, #T, coeff> -> !rns.poly<16, #[[Q]], coeff>
  %0 = bfv.add_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // CHECK: rns.convert %{{.*}} exact : !rns.poly<16, #T, coeff> -> !rns.poly<16, #[[Q]], coeff>
  %1 = bfv.mul_plain %0, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  // CHECK: rns.automorphism %{{.*}} by 3
  %2 = bfv.rotate %1 by 1 : !bfv.ciphertext<#p, 2>
  // CHECK: rns.constant dense<[5, 0, {{.*}}]> : tensor<16xi64> : !rns.poly<16, #T, coeff>
  %c = bfv.encode 5 : i64 -> !bfv.plaintext<#p>
  %3 = bfv.add_plain %2, %c : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  return %3 : !bfv.ciphertext<#p, 2>
}
