// RUN: ringfuse-opt %s --split-input-file --bfv-baby-step-giant-step | FileCheck %s
// Key switches, counted at the ring level, before and after:
// RUN: ringfuse-opt %s --split-input-file --bfv-to-poly | FileCheck %s --check-prefix=BEFORE
// RUN: ringfuse-opt %s --split-input-file --bfv-baby-step-giant-step --bfv-to-poly | FileCheck %s --check-prefix=AFTER

// N = 64: rows of 32 slots; t = 257 and the primes are 1 mod 128.
#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>

// A 32-term diagonal matrix-vector product, sum_k w_k rot_k(x) (k = 0..31),
// 31 rotations: with 8 baby steps (rotations by 1..7 of x, the plaintexts
// rotated by -8 g at run time, no key) and giant steps 8, 16, 24, 10 key
// switches (rotating a plaintext by -24 is rotating it by 8).
// CHECK-LABEL: func.func @matvec32
// CHECK-COUNT-7: bfv.rotate %arg0 by {{[1-7]}} :
// CHECK-NOT: bfv.rotate %arg0
// CHECK-COUNT-8: bfv.rotate_plain %{{.*}} by -8
// CHECK-COUNT-8: bfv.rotate_plain %{{.*}} by 16
// CHECK-COUNT-8: bfv.rotate_plain %{{.*}} by 8
// CHECK: bfv.rotate %{{.*}} by 8
// CHECK: bfv.rotate %{{.*}} by 16
// CHECK: bfv.rotate %{{.*}} by -8
// CHECK-NOT: bfv.rotate %
// CHECK: return
// BEFORE-LABEL: func.func @matvec32
// BEFORE-COUNT-31: poly.key_switch
// BEFORE-NOT: poly.key_switch
// AFTER-LABEL: func.func @matvec32
// AFTER-COUNT-10: poly.key_switch
// AFTER-NOT: poly.key_switch
func.func @matvec32(%x: !ct, %w0: !pt, %w1: !pt, %w2: !pt, %w3: !pt, %w4: !pt, %w5: !pt, %w6: !pt, %w7: !pt, %w8: !pt, %w9: !pt, %w10: !pt, %w11: !pt, %w12: !pt, %w13: !pt, %w14: !pt, %w15: !pt, %w16: !pt, %w17: !pt, %w18: !pt, %w19: !pt, %w20: !pt, %w21: !pt, %w22: !pt, %w23: !pt, %w24: !pt, %w25: !pt, %w26: !pt, %w27: !pt, %w28: !pt, %w29: !pt, %w30: !pt, %w31: !pt) -> !ct {
  %t0 = bfv.mul_plain %x, %w0 : !ct, !pt
  %r1 = bfv.rotate %x by 1 : !ct
  %t1 = bfv.mul_plain %r1, %w1 : !ct, !pt
  %s1 = bfv.add %t0, %t1 : !ct
  %r2 = bfv.rotate %x by 2 : !ct
  %t2 = bfv.mul_plain %r2, %w2 : !ct, !pt
  %s2 = bfv.add %s1, %t2 : !ct
  %r3 = bfv.rotate %x by 3 : !ct
  %t3 = bfv.mul_plain %r3, %w3 : !ct, !pt
  %s3 = bfv.add %s2, %t3 : !ct
  %r4 = bfv.rotate %x by 4 : !ct
  %t4 = bfv.mul_plain %r4, %w4 : !ct, !pt
  %s4 = bfv.add %s3, %t4 : !ct
  %r5 = bfv.rotate %x by 5 : !ct
  %t5 = bfv.mul_plain %r5, %w5 : !ct, !pt
  %s5 = bfv.add %s4, %t5 : !ct
  %r6 = bfv.rotate %x by 6 : !ct
  %t6 = bfv.mul_plain %r6, %w6 : !ct, !pt
  %s6 = bfv.add %s5, %t6 : !ct
  %r7 = bfv.rotate %x by 7 : !ct
  %t7 = bfv.mul_plain %r7, %w7 : !ct, !pt
  %s7 = bfv.add %s6, %t7 : !ct
  %r8 = bfv.rotate %x by 8 : !ct
  %t8 = bfv.mul_plain %r8, %w8 : !ct, !pt
  %s8 = bfv.add %s7, %t8 : !ct
  %r9 = bfv.rotate %x by 9 : !ct
  %t9 = bfv.mul_plain %r9, %w9 : !ct, !pt
  %s9 = bfv.add %s8, %t9 : !ct
  %r10 = bfv.rotate %x by 10 : !ct
  %t10 = bfv.mul_plain %r10, %w10 : !ct, !pt
  %s10 = bfv.add %s9, %t10 : !ct
  %r11 = bfv.rotate %x by 11 : !ct
  %t11 = bfv.mul_plain %r11, %w11 : !ct, !pt
  %s11 = bfv.add %s10, %t11 : !ct
  %r12 = bfv.rotate %x by 12 : !ct
  %t12 = bfv.mul_plain %r12, %w12 : !ct, !pt
  %s12 = bfv.add %s11, %t12 : !ct
  %r13 = bfv.rotate %x by 13 : !ct
  %t13 = bfv.mul_plain %r13, %w13 : !ct, !pt
  %s13 = bfv.add %s12, %t13 : !ct
  %r14 = bfv.rotate %x by 14 : !ct
  %t14 = bfv.mul_plain %r14, %w14 : !ct, !pt
  %s14 = bfv.add %s13, %t14 : !ct
  %r15 = bfv.rotate %x by 15 : !ct
  %t15 = bfv.mul_plain %r15, %w15 : !ct, !pt
  %s15 = bfv.add %s14, %t15 : !ct
  %r16 = bfv.rotate %x by 16 : !ct
  %t16 = bfv.mul_plain %r16, %w16 : !ct, !pt
  %s16 = bfv.add %s15, %t16 : !ct
  %r17 = bfv.rotate %x by 17 : !ct
  %t17 = bfv.mul_plain %r17, %w17 : !ct, !pt
  %s17 = bfv.add %s16, %t17 : !ct
  %r18 = bfv.rotate %x by 18 : !ct
  %t18 = bfv.mul_plain %r18, %w18 : !ct, !pt
  %s18 = bfv.add %s17, %t18 : !ct
  %r19 = bfv.rotate %x by 19 : !ct
  %t19 = bfv.mul_plain %r19, %w19 : !ct, !pt
  %s19 = bfv.add %s18, %t19 : !ct
  %r20 = bfv.rotate %x by 20 : !ct
  %t20 = bfv.mul_plain %r20, %w20 : !ct, !pt
  %s20 = bfv.add %s19, %t20 : !ct
  %r21 = bfv.rotate %x by 21 : !ct
  %t21 = bfv.mul_plain %r21, %w21 : !ct, !pt
  %s21 = bfv.add %s20, %t21 : !ct
  %r22 = bfv.rotate %x by 22 : !ct
  %t22 = bfv.mul_plain %r22, %w22 : !ct, !pt
  %s22 = bfv.add %s21, %t22 : !ct
  %r23 = bfv.rotate %x by 23 : !ct
  %t23 = bfv.mul_plain %r23, %w23 : !ct, !pt
  %s23 = bfv.add %s22, %t23 : !ct
  %r24 = bfv.rotate %x by 24 : !ct
  %t24 = bfv.mul_plain %r24, %w24 : !ct, !pt
  %s24 = bfv.add %s23, %t24 : !ct
  %r25 = bfv.rotate %x by 25 : !ct
  %t25 = bfv.mul_plain %r25, %w25 : !ct, !pt
  %s25 = bfv.add %s24, %t25 : !ct
  %r26 = bfv.rotate %x by 26 : !ct
  %t26 = bfv.mul_plain %r26, %w26 : !ct, !pt
  %s26 = bfv.add %s25, %t26 : !ct
  %r27 = bfv.rotate %x by 27 : !ct
  %t27 = bfv.mul_plain %r27, %w27 : !ct, !pt
  %s27 = bfv.add %s26, %t27 : !ct
  %r28 = bfv.rotate %x by 28 : !ct
  %t28 = bfv.mul_plain %r28, %w28 : !ct, !pt
  %s28 = bfv.add %s27, %t28 : !ct
  %r29 = bfv.rotate %x by 29 : !ct
  %t29 = bfv.mul_plain %r29, %w29 : !ct, !pt
  %s29 = bfv.add %s28, %t29 : !ct
  %r30 = bfv.rotate %x by 30 : !ct
  %t30 = bfv.mul_plain %r30, %w30 : !ct, !pt
  %s30 = bfv.add %s29, %t30 : !ct
  %r31 = bfv.rotate %x by 31 : !ct
  %t31 = bfv.mul_plain %r31, %w31 : !ct, !pt
  %s31 = bfv.add %s30, %t31 : !ct
  return %s31 : !ct
}

// -----

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>

// Constant plaintexts are rotated at compile time: each row of their slot
// vector, so no bfv.rotate_plain. Here terms at steps -2..5 (8 rotations
// of x): baby steps -2, -1, 0, 1 from the offset -2, giant step 4.
// BEFORE-LABEL: func.func @constants
// AFTER-LABEL: func.func @constants
// CHECK-LABEL: func.func @constants
// CHECK-NOT: bfv.rotate_plain
// CHECK-DAG: bfv.rotate %arg0 by -2
// CHECK-DAG: bfv.rotate %arg0 by -1
// CHECK-DAG: bfv.rotate %arg0 by 1
// CHECK-DAG: bfv.encode dense<[0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 0, {{.*}}]> : tensor<64xi64>
// CHECK-DAG: bfv.rotate %{{.*}} by 4
// CHECK-NOT: bfv.rotate_plain
// CHECK: return
func.func @constants(%x: !ct) -> !ct {
  %c0 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r0 = bfv.rotate %x by -2 : !ct
  %t0 = bfv.mul_plain %r0, %c0 : !ct, !bfv.plaintext<#p>
  %c1 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r1 = bfv.rotate %x by -1 : !ct
  %t1 = bfv.mul_plain %r1, %c1 : !ct, !bfv.plaintext<#p>
  %s1 = bfv.add %t0, %t1 : !ct
  %c2 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %t2 = bfv.mul_plain %x, %c2 : !ct, !bfv.plaintext<#p>
  %s2 = bfv.add %s1, %t2 : !ct
  %c3 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r3 = bfv.rotate %x by 1 : !ct
  %t3 = bfv.mul_plain %r3, %c3 : !ct, !bfv.plaintext<#p>
  %s3 = bfv.add %s2, %t3 : !ct
  %c4 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r4 = bfv.rotate %x by 2 : !ct
  %t4 = bfv.mul_plain %r4, %c4 : !ct, !bfv.plaintext<#p>
  %s4 = bfv.add %s3, %t4 : !ct
  %c5 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r5 = bfv.rotate %x by 3 : !ct
  %t5 = bfv.mul_plain %r5, %c5 : !ct, !bfv.plaintext<#p>
  %s5 = bfv.add %s4, %t5 : !ct
  %c6 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r6 = bfv.rotate %x by 4 : !ct
  %t6 = bfv.mul_plain %r6, %c6 : !ct, !bfv.plaintext<#p>
  %s6 = bfv.add %s5, %t6 : !ct
  %c7 = bfv.encode dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64> -> !bfv.plaintext<#p>
  %r7 = bfv.rotate %x by 5 : !ct
  %t7 = bfv.mul_plain %r7, %c7 : !ct, !bfv.plaintext<#p>
  %s7 = bfv.add %s6, %t7 : !ct
  return %s7 : !ct
}

// -----

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>

// Three rotations are too few to gain: the sum is left as it is.
// CHECK-LABEL: func.func @few_terms
// CHECK-COUNT-3: bfv.rotate %arg0
// CHECK-NOT: bfv.rotate_plain
func.func @few_terms(%x: !ct, %w: !pt) -> !ct {
  %r1 = bfv.rotate %x by 1 : !ct
  %t1 = bfv.mul_plain %r1, %w : !ct, !pt
  %r2 = bfv.rotate %x by 2 : !ct
  %t2 = bfv.mul_plain %r2, %w : !ct, !pt
  %r3 = bfv.rotate %x by 3 : !ct
  %t3 = bfv.mul_plain %r3, %w : !ct, !pt
  %s1 = bfv.add %t1, %t2 : !ct
  %s2 = bfv.add %s1, %t3 : !ct
  return %s2 : !ct
}

// -----

#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>

// Rotations that other values use stay, so a rewrite would only add its own
// baby and giant steps to them: two sums sharing x's rotations by 1..5 (and
// one of those returned) are left as they are.
// CHECK-LABEL: func.func @shared_rotations
// CHECK-COUNT-5: bfv.rotate %arg0
// CHECK-NOT: bfv.rotate
func.func @shared_rotations(%x: !ct, %w: !pt, %v: !pt) -> (!ct, !ct, !ct) {
  %r1 = bfv.rotate %x by 1 : !ct
  %r2 = bfv.rotate %x by 2 : !ct
  %r3 = bfv.rotate %x by 3 : !ct
  %r4 = bfv.rotate %x by 4 : !ct
  %r5 = bfv.rotate %x by 5 : !ct
  %a1 = bfv.mul_plain %r1, %w : !ct, !pt
  %a2 = bfv.mul_plain %r2, %w : !ct, !pt
  %a3 = bfv.mul_plain %r3, %w : !ct, !pt
  %a4 = bfv.mul_plain %r4, %w : !ct, !pt
  %a5 = bfv.mul_plain %r5, %w : !ct, !pt
  %s1 = bfv.add %a1, %a2 : !ct
  %s2 = bfv.add %s1, %a3 : !ct
  %s3 = bfv.add %s2, %a4 : !ct
  %s4 = bfv.add %s3, %a5 : !ct
  %b1 = bfv.mul_plain %r1, %v : !ct, !pt
  %b2 = bfv.mul_plain %r2, %v : !ct, !pt
  %b3 = bfv.mul_plain %r3, %v : !ct, !pt
  %b4 = bfv.mul_plain %r4, %v : !ct, !pt
  %b5 = bfv.mul_plain %r5, %v : !ct, !pt
  %t1 = bfv.add %b1, %b2 : !ct
  %t2 = bfv.add %t1, %b3 : !ct
  %t3 = bfv.add %t2, %b4 : !ct
  %t4 = bfv.add %t3, %b5 : !ct
  return %s4, %t4, %r5 : !ct, !ct, !ct
}
