// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --rns-hoist-rotations --cse --rns-assign-domains --cse | FileCheck %s
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly --poly-to-rns --cse --rns-assign-domains --cse | FileCheck %s --check-prefix=BEFORE

// Twelve rotations of one ciphertext (dnum = 2: two digits, each one prime
// of Q). Before, each rotation decomposes its own c1(X^g): 24 conversions
// to QP and 24 forward transforms.
// BEFORE-LABEL: func.func @twelve
// BEFORE-COUNT-24: rns.convert
// BEFORE-NOT: rns.convert
// After: one decomposition of c1, its two digits extended and transformed
// once, then permuted in the evaluation domain for each rotation.
// CHECK-LABEL: func.func @twelve
// CHECK: %[[D0:.*]] = rns.extract %{{.*}} limbs 0 to 1
// CHECK: %[[E0:.*]] = rns.convert %[[D0]] : !rns.poly<64, #D0, coeff> -> !rns.poly<64, #QP, coeff>
// CHECK: %[[T0:.*]] = rns.ntt %[[E0]] : !rns.poly<64, #QP, coeff> -> !rns.poly<64, #QP, eval>
// CHECK: rns.automorphism %[[T0]] by 3 : !rns.poly<64, #QP, eval>
// CHECK: %[[E1:.*]] = rns.convert %{{.*}} : !rns.poly<64, #D1, coeff> -> !rns.poly<64, #QP, coeff>
// CHECK: %[[T1:.*]] = rns.ntt %[[E1]]
// CHECK: rns.automorphism %[[T1]] by 3 : !rns.poly<64, #QP, eval>
// CHECK-NOT: rns.convert
// CHECK-NOT: rns.ntt %{{.*}} : !rns.poly<64, #QP, coeff>
// CHECK-COUNT-11: rns.automorphism %[[T0]] by
// CHECK: return
#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
func.func @twelve(%x: !ct) -> !ct {
  %r1 = bfv.rotate %x by 1 : !ct
  %s1 = bfv.add %x, %r1 : !ct
  %r2 = bfv.rotate %x by 2 : !ct
  %s2 = bfv.add %s1, %r2 : !ct
  %r3 = bfv.rotate %x by 3 : !ct
  %s3 = bfv.add %s2, %r3 : !ct
  %r4 = bfv.rotate %x by 4 : !ct
  %s4 = bfv.add %s3, %r4 : !ct
  %r5 = bfv.rotate %x by 5 : !ct
  %s5 = bfv.add %s4, %r5 : !ct
  %r6 = bfv.rotate %x by 6 : !ct
  %s6 = bfv.add %s5, %r6 : !ct
  %r7 = bfv.rotate %x by 7 : !ct
  %s7 = bfv.add %s6, %r7 : !ct
  %r8 = bfv.rotate %x by 8 : !ct
  %s8 = bfv.add %s7, %r8 : !ct
  %r9 = bfv.rotate %x by 9 : !ct
  %s9 = bfv.add %s8, %r9 : !ct
  %r10 = bfv.rotate %x by 10 : !ct
  %s10 = bfv.add %s9, %r10 : !ct
  %r11 = bfv.rotate %x by 11 : !ct
  %s11 = bfv.add %s10, %r11 : !ct
  %r12 = bfv.rotate %x by 12 : !ct
  %s12 = bfv.add %s11, %r12 : !ct
  return %s12 : !ct
}

// -----

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>

// A lone rotation keeps its own digits (of c1(X^g), in coefficient form):
// hoisting would save nothing and keep their transforms from fusing with
// the inner product.
// CHECK-LABEL: func.func @one
// CHECK: %[[R:.*]] = rns.automorphism %arg1 by 3 : !rns.poly<64, #Q, coeff>
// CHECK: rns.extract %[[R]] limbs 0 to 1
// CHECK-NOT: rns.automorphism %{{.*}} : !rns.poly<64, #QP, eval>
// BEFORE-LABEL: func.func @one
func.func @one(%x: !ct) -> !ct {
  %r = bfv.rotate %x by 1 : !ct
  return %r : !ct
}
