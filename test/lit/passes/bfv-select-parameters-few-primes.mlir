// RUN: ringfuse-opt %s --bfv-select-parameters | FileCheck %s

// 45 squarings and 24 doublings at t = 786433: at N = 2^16 the widest primes
// whose Q (and one more for P) stays within the security bound are 26 bits
// wide, 67 of them, but only 22 primes of 26 bits are 1 mod 2^17. That
// width, and every narrower one, is passed over (it once gave 21 primes and
// dnum = 66): N = 2^17 with 60-bit primes.
// CHECK: #params = #bfv.params<t = 786433, N = 131072, Q = [{{[0-9, ]+}}], P = [{{[0-9]+}}], dnum = 29>
#p = #bfv.params<t = 786433>
func.func @f(%x: !bfv.ciphertext<#p, 2>) -> !bfv.ciphertext<#p, 2> {
  %m0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r0 = bfv.relinearize %m0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m1 = bfv.mul %r0, %r0 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r1 = bfv.relinearize %m1 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m2 = bfv.mul %r1, %r1 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r2 = bfv.relinearize %m2 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m3 = bfv.mul %r2, %r2 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r3 = bfv.relinearize %m3 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m4 = bfv.mul %r3, %r3 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r4 = bfv.relinearize %m4 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m5 = bfv.mul %r4, %r4 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r5 = bfv.relinearize %m5 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m6 = bfv.mul %r5, %r5 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r6 = bfv.relinearize %m6 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m7 = bfv.mul %r6, %r6 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r7 = bfv.relinearize %m7 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m8 = bfv.mul %r7, %r7 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r8 = bfv.relinearize %m8 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m9 = bfv.mul %r8, %r8 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r9 = bfv.relinearize %m9 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m10 = bfv.mul %r9, %r9 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r10 = bfv.relinearize %m10 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m11 = bfv.mul %r10, %r10 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r11 = bfv.relinearize %m11 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m12 = bfv.mul %r11, %r11 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r12 = bfv.relinearize %m12 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m13 = bfv.mul %r12, %r12 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r13 = bfv.relinearize %m13 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m14 = bfv.mul %r13, %r13 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r14 = bfv.relinearize %m14 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m15 = bfv.mul %r14, %r14 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r15 = bfv.relinearize %m15 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m16 = bfv.mul %r15, %r15 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r16 = bfv.relinearize %m16 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m17 = bfv.mul %r16, %r16 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r17 = bfv.relinearize %m17 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m18 = bfv.mul %r17, %r17 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r18 = bfv.relinearize %m18 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m19 = bfv.mul %r18, %r18 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r19 = bfv.relinearize %m19 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m20 = bfv.mul %r19, %r19 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r20 = bfv.relinearize %m20 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m21 = bfv.mul %r20, %r20 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r21 = bfv.relinearize %m21 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m22 = bfv.mul %r21, %r21 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r22 = bfv.relinearize %m22 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m23 = bfv.mul %r22, %r22 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r23 = bfv.relinearize %m23 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m24 = bfv.mul %r23, %r23 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r24 = bfv.relinearize %m24 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m25 = bfv.mul %r24, %r24 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r25 = bfv.relinearize %m25 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m26 = bfv.mul %r25, %r25 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r26 = bfv.relinearize %m26 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m27 = bfv.mul %r26, %r26 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r27 = bfv.relinearize %m27 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m28 = bfv.mul %r27, %r27 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r28 = bfv.relinearize %m28 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m29 = bfv.mul %r28, %r28 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r29 = bfv.relinearize %m29 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m30 = bfv.mul %r29, %r29 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r30 = bfv.relinearize %m30 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m31 = bfv.mul %r30, %r30 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r31 = bfv.relinearize %m31 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m32 = bfv.mul %r31, %r31 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r32 = bfv.relinearize %m32 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m33 = bfv.mul %r32, %r32 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r33 = bfv.relinearize %m33 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m34 = bfv.mul %r33, %r33 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r34 = bfv.relinearize %m34 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m35 = bfv.mul %r34, %r34 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r35 = bfv.relinearize %m35 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m36 = bfv.mul %r35, %r35 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r36 = bfv.relinearize %m36 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m37 = bfv.mul %r36, %r36 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r37 = bfv.relinearize %m37 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m38 = bfv.mul %r37, %r37 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r38 = bfv.relinearize %m38 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m39 = bfv.mul %r38, %r38 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r39 = bfv.relinearize %m39 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m40 = bfv.mul %r39, %r39 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r40 = bfv.relinearize %m40 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m41 = bfv.mul %r40, %r40 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r41 = bfv.relinearize %m41 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m42 = bfv.mul %r41, %r41 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r42 = bfv.relinearize %m42 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m43 = bfv.mul %r42, %r42 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r43 = bfv.relinearize %m43 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %m44 = bfv.mul %r43, %r43 : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
  %r44 = bfv.relinearize %m44 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
  %a0 = bfv.add %r44, %r44 : !bfv.ciphertext<#p, 2>
  %a1 = bfv.add %a0, %a0 : !bfv.ciphertext<#p, 2>
  %a2 = bfv.add %a1, %a1 : !bfv.ciphertext<#p, 2>
  %a3 = bfv.add %a2, %a2 : !bfv.ciphertext<#p, 2>
  %a4 = bfv.add %a3, %a3 : !bfv.ciphertext<#p, 2>
  %a5 = bfv.add %a4, %a4 : !bfv.ciphertext<#p, 2>
  %a6 = bfv.add %a5, %a5 : !bfv.ciphertext<#p, 2>
  %a7 = bfv.add %a6, %a6 : !bfv.ciphertext<#p, 2>
  %a8 = bfv.add %a7, %a7 : !bfv.ciphertext<#p, 2>
  %a9 = bfv.add %a8, %a8 : !bfv.ciphertext<#p, 2>
  %a10 = bfv.add %a9, %a9 : !bfv.ciphertext<#p, 2>
  %a11 = bfv.add %a10, %a10 : !bfv.ciphertext<#p, 2>
  %a12 = bfv.add %a11, %a11 : !bfv.ciphertext<#p, 2>
  %a13 = bfv.add %a12, %a12 : !bfv.ciphertext<#p, 2>
  %a14 = bfv.add %a13, %a13 : !bfv.ciphertext<#p, 2>
  %a15 = bfv.add %a14, %a14 : !bfv.ciphertext<#p, 2>
  %a16 = bfv.add %a15, %a15 : !bfv.ciphertext<#p, 2>
  %a17 = bfv.add %a16, %a16 : !bfv.ciphertext<#p, 2>
  %a18 = bfv.add %a17, %a17 : !bfv.ciphertext<#p, 2>
  %a19 = bfv.add %a18, %a18 : !bfv.ciphertext<#p, 2>
  %a20 = bfv.add %a19, %a19 : !bfv.ciphertext<#p, 2>
  %a21 = bfv.add %a20, %a20 : !bfv.ciphertext<#p, 2>
  %a22 = bfv.add %a21, %a21 : !bfv.ciphertext<#p, 2>
  %a23 = bfv.add %a22, %a22 : !bfv.ciphertext<#p, 2>
  return %a23 : !bfv.ciphertext<#p, 2>
}
