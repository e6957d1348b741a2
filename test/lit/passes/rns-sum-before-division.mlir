// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --rns-hoist-rotations --cse --rns-sum-before-division --rns-assign-domains --cse | FileCheck %s
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --rns-hoist-rotations --cse --rns-assign-domains --cse | FileCheck %s --check-prefix=BEFORE

// A sum of twelve rotations: each key switch ends with an inverse transform
// and a division by P of both its sums (24 of each) ...
// BEFORE-COUNT-24: rns.scale_round %{{.*}} by 1 over #P
// BEFORE-NOT: rns.scale_round
// ... which the sum takes once per component: the key switches' sums are
// added over QP in the evaluation domain.
// CHECK-LABEL: func.func @twelve
// CHECK-COUNT-12: rns.key_switch_inner_product
// CHECK: %[[K0:.*]] = rns.intt %{{.*}} : !rns.poly<64, #QP, eval> -> !rns.poly<64, #QP, coeff>
// CHECK: rns.scale_round %[[K0]] by 1 over #P : !rns.poly<64, #QP, coeff> -> !rns.poly<64, #Q, coeff>
// CHECK: %[[K1:.*]] = rns.intt %{{.*}} : !rns.poly<64, #QP, eval> -> !rns.poly<64, #QP, coeff>
// CHECK: rns.scale_round %[[K1]] by 1 over #P : !rns.poly<64, #QP, coeff> -> !rns.poly<64, #Q, coeff>
// CHECK-NOT: rns.scale_round
// CHECK-NOT: rns.intt
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
