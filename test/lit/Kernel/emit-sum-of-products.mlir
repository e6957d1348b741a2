// RUN: ringfuse-opt %s --bfv-prepare-plaintext-inputs --bfv-to-poly --poly-to-rns --cse --rns-assign-domains --cse --rns-to-kernel --kernel-fuse-elementwise --kernel-plan-slots > %t.mlir
// RUN: ringfuse-translate --emit-cpp %t.mlir | FileCheck %s
// RUN: ringfuse-translate --emit-cpp %t.mlir > %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.cpp
// RUN: ringfuse-translate --emit-cuda %t.mlir > %t.cu
// RUN: nvcc -std=c++17 -arch=sm_90 -I %ringfuse_runtime_include -c %t.cu -o %t.o

// A sum of 17 plaintext-times-ciphertext products (prepared plaintexts, in
// evaluation form): both components' sums are one sum_of_products launch,
// each diagonal w_i a factor once, its pointers placed from static tables.
// CHECK: static const BufferPlace factor_places[] = {{[{][{]}}0, 0}, {34, 0}, {2, 0}, {35, 0},
// CHECK-NEXT: static const BufferPlace sum_places[] = {{[{][{]}}[[S0:[0-9]+]], 0}, {[[S1:[0-9]+]], 0}};
// CHECK-NEXT: static const int products[] = {0, 0, 1, 0, 2, 3,
// CHECK-SAME: 0, 32, 33, 1, 34, 1, 1, 35, 3,
// CHECK-NEXT: const uint64_t *factors[51];
// CHECK-NEXT: uint64_t *sums[2];
// CHECK-NEXT: place(factors, b, factor_places);
// CHECK-NEXT: place(sums, b, sum_places);
// CHECK-NEXT: k->sum_of_products(rt, 0, factors, 51, products, 34, sums, 2, 0);
// CHECK: k->ntt_inverse(rt, 0, b{{\[}}[[S0]]], 0, 0, 0);
// CHECK-NEXT: k->ntt_inverse(rt, 0, b{{\[}}[[S1]]], 0, 0, 0);
#p = #bfv.params<t = 257, N = 64, Q = [641, 769], P = [1153], dnum = 2>
!ct = !bfv.ciphertext<#p, 2>
!pt = !bfv.plaintext<#p>
func.func @dot(%x0: !ct, %x1: !ct, %x2: !ct, %x3: !ct, %x4: !ct, %x5: !ct, %x6: !ct, %x7: !ct, %x8: !ct, %x9: !ct, %x10: !ct, %x11: !ct, %x12: !ct, %x13: !ct, %x14: !ct, %x15: !ct, %x16: !ct, %w0: !pt, %w1: !pt, %w2: !pt, %w3: !pt, %w4: !pt, %w5: !pt, %w6: !pt, %w7: !pt, %w8: !pt, %w9: !pt, %w10: !pt, %w11: !pt, %w12: !pt, %w13: !pt, %w14: !pt, %w15: !pt, %w16: !pt) -> !ct {
  %p0 = bfv.mul_plain %x0, %w0 : !ct, !pt
  %p1 = bfv.mul_plain %x1, %w1 : !ct, !pt
  %p2 = bfv.mul_plain %x2, %w2 : !ct, !pt
  %p3 = bfv.mul_plain %x3, %w3 : !ct, !pt
  %p4 = bfv.mul_plain %x4, %w4 : !ct, !pt
  %p5 = bfv.mul_plain %x5, %w5 : !ct, !pt
  %p6 = bfv.mul_plain %x6, %w6 : !ct, !pt
  %p7 = bfv.mul_plain %x7, %w7 : !ct, !pt
  %p8 = bfv.mul_plain %x8, %w8 : !ct, !pt
  %p9 = bfv.mul_plain %x9, %w9 : !ct, !pt
  %p10 = bfv.mul_plain %x10, %w10 : !ct, !pt
  %p11 = bfv.mul_plain %x11, %w11 : !ct, !pt
  %p12 = bfv.mul_plain %x12, %w12 : !ct, !pt
  %p13 = bfv.mul_plain %x13, %w13 : !ct, !pt
  %p14 = bfv.mul_plain %x14, %w14 : !ct, !pt
  %p15 = bfv.mul_plain %x15, %w15 : !ct, !pt
  %p16 = bfv.mul_plain %x16, %w16 : !ct, !pt
  %s1 = bfv.add %p0, %p1 : !ct
  %s2 = bfv.add %s1, %p2 : !ct
  %s3 = bfv.add %s2, %p3 : !ct
  %s4 = bfv.add %s3, %p4 : !ct
  %s5 = bfv.add %s4, %p5 : !ct
  %s6 = bfv.add %s5, %p6 : !ct
  %s7 = bfv.add %s6, %p7 : !ct
  %s8 = bfv.add %s7, %p8 : !ct
  %s9 = bfv.add %s8, %p9 : !ct
  %s10 = bfv.add %s9, %p10 : !ct
  %s11 = bfv.add %s10, %p11 : !ct
  %s12 = bfv.add %s11, %p12 : !ct
  %s13 = bfv.add %s12, %p13 : !ct
  %s14 = bfv.add %s13, %p14 : !ct
  %s15 = bfv.add %s14, %p15 : !ct
  %s16 = bfv.add %s15, %p16 : !ct
  return %s16 : !ct
}
