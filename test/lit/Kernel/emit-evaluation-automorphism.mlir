// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp | FileCheck %s
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cpp > %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.cpp
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --rns-to-kernel --kernel-plan-slots | ringfuse-translate --emit-cuda > %t.cu
// RUN: FileCheck %s < %t.cu
// RUN: nvcc -std=c++17 -arch=sm_90 -I %ringfuse_runtime_include -c %t.cu -o %t.o

// A plaintext product, rotated: rns-assign-domains keeps both products in
// evaluation form through their automorphisms (the inverse NTTs move after
// them), so the rotation's automorphisms run on evaluation form and the
// kernels say so.
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
func.func @scaled_rotated(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
  %0 = bfv.mul_plain %x, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
  %1 = bfv.rotate %0 by 1 : !bfv.ciphertext<#p, 2>
  return %1 : !bfv.ciphertext<#p, 2>
}

// CHECK: extern "C" void ringfuse_run(RfRuntime *rt, const RfKernels *k) {
// CHECK-COUNT-2: k->automorphism_evaluation(rt, {{[0-9]+}}, 3ull, b[{{[0-9]+}}], b[{{[0-9]+}}]);
// CHECK-NOT: k->automorphism(
// CHECK: k->ntt_key_switch(rt, 0, {{[0-9]+}}, source_bases, sources, scratch, 2,
