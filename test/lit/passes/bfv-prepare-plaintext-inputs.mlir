// RUN: ringfuse-opt %s --split-input-file --bfv-prepare-plaintext-inputs | FileCheck %s
// Through the lowering: the input over Q, in evaluation form, no lift, no
// transform, no rotation of it in the program.
// RUN: ringfuse-opt %s --split-input-file --bfv-prepare-plaintext-inputs --bfv-to-poly --poly-to-rns --cse --rns-assign-domains --cse | FileCheck %s --check-prefix=RNS

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>

// w is only multiplied (steps 0); v only after one rotation by -3, which the
// runtime does (X -> X^g, g = 3^29 mod 128 = 19, for -3 = 29 mod 32); u is
// added, so it stays a plaintext of R_t.
// CHECK-LABEL: func.func @inputs
// CHECK-SAME: %{{.*}}: !bfv.plaintext<#{{.*}}> {bfv.prepared = 0 : i64}
// CHECK-SAME: %{{.*}}: !bfv.plaintext<#{{.*}}> {bfv.prepared = -3 : i64}
// CHECK-SAME: %[[U:[^:]*]]: !bfv.plaintext<#{{[^>]*}}>)
// CHECK-NOT: bfv.rotate_plain
// CHECK: bfv.add_plain %{{.*}}, %[[U]]
// RNS-LABEL: func.func @inputs
// RNS-SAME: %[[W:[^:]*]]: !rns.poly<64, #Q, eval>
// RNS-SAME: %[[V:[^:]*]]: !rns.poly<64, #Q, eval>
// RNS-SAME: %{{[^:]*}}: !rns.poly<64, #T, coeff>
// RNS-SAME: ringfuse.input_galois = array<i64: 0, 0, 19, 0>
// RNS-SAME: ringfuse.inputs = array<i64: 2, 1, 1, 0>
// RNS-NOT: rns.automorphism
// RNS-NOT: rns.ntt %[[W]]
// RNS-NOT: rns.ntt %[[V]]
// RNS-DAG: rns.mul %{{.*}}, %[[W]]
// RNS-DAG: rns.mul %{{.*}}, %[[V]]
func.func @inputs(%x: !ct, %w: !pt, %v: !pt, %u: !pt) -> !ct {
  %0 = bfv.mul_plain %x, %w : !ct, !pt
  %r = bfv.rotate_plain %v by -3 : !pt
  %1 = bfv.mul_plain %x, %r : !ct, !pt
  %2 = bfv.add %0, %1 : !ct
  %3 = bfv.add_plain %2, %u : !ct, !pt
  %4 = bfv.mul_plain %3, %w : !ct, !pt
  return %4 : !ct
}

// -----

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>

// A rotated plaintext that is also used unrotated, or rotated twice, stays.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: bfv.prepared
// CHECK-COUNT-2: bfv.rotate_plain
func.func @kept(%x: !ct, %w: !pt) -> !ct {
  %r = bfv.rotate_plain %w by 1 : !pt
  %s = bfv.rotate_plain %w by 2 : !pt
  %0 = bfv.mul_plain %x, %r : !ct, !pt
  %1 = bfv.mul_plain %x, %s : !ct, !pt
  %2 = bfv.add %0, %1 : !ct
  return %2 : !ct
}
