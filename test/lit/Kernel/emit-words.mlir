// A program of 32-bit words (bfv.word_bits = 32): its buffers are RfWord =
// uint32_t, its schedule ringfuse_run32 over RfKernels32, its transforms
// 32-bit ones, and its manifest says 32; generated bodies compute on 64-bit
// values and store the program's words. It compiles as C++ and as CUDA.
// RUN: ringfuse-opt %s --bfv-to-poly --poly-to-rns --canonicalize --cse --rns-assign-domains --rns-fuse --rns-choose-transform --rns-to-kernel --kernel-plan-slots > %t.mlir
// RUN: ringfuse-translate --emit-cpp %t.mlir | FileCheck %s
// RUN: ringfuse-translate --emit-cpp %t.mlir > %t.cpp
// RUN: c++ -std=c++17 -fsyntax-only -Wall -Werror -I %ringfuse_runtime_include %t.cpp
// RUN: ringfuse-translate --emit-cuda %t.mlir > %t.cu
// RUN: nvcc -std=c++17 -arch=sm_90 -I %ringfuse_runtime_include -c %t.cu -o %t.o
// RUN: FileCheck %s --check-prefix=CUDA < %t.cu

// CHECK: using RfWord = uint32_t;
// CHECK-NEXT: using RfTable = RfKernels32;
// CHECK-NEXT: using RfAddend = RfKeySwitchAddend32;
// CHECK: inline void elementwise_{{[0-9]+}}({{.*}}const RfWord *in0{{.*}}RfWord *out0
// CHECK: out0[i] = static_cast<RfWord>(
// CHECK: keys, 2, "hps", 32};
// CHECK: extern "C" void ringfuse_run32(RfRuntime *rt, const RfTable *k) {
// CHECK-NEXT: RfWord *b[
// CHECK: k->ntt_forward(rt, {{[0-9]+}}, b[{{[0-9]+}}], 0, 4, 2);
// CUDA: __global__ void elementwise_{{[0-9]+}}_kernel(const RfModulus *moduli, size_t stride, const RfWord *in0
#p = #bfv.params<t = 97, N = 16, Q = [193, 257], P = [353], dnum = 2>
module attributes {bfv.word_bits = 32 : i64} {
  func.func @square_rotated(%x: !bfv.ciphertext<#p, 2>, %w: !bfv.plaintext<#p>) -> !bfv.ciphertext<#p, 2> {
    %0 = bfv.mul %x, %x : !bfv.ciphertext<#p, 2> -> !bfv.ciphertext<#p, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#p, 3> -> !bfv.ciphertext<#p, 2>
    %2 = bfv.rotate %1 by 1 : !bfv.ciphertext<#p, 2>
    %3 = bfv.add_plain %2, %w : !bfv.ciphertext<#p, 2>, !bfv.plaintext<#p>
    return %3 : !bfv.ciphertext<#p, 2>
  }
}
