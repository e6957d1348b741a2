// RUN: ringfuse-translate --emit-cuda %s | FileCheck %s
// RUN: ringfuse-translate --emit-cuda %s > %t.cu
// RUN: nvcc -std=c++17 -arch=sm_90 -I %ringfuse_runtime_include -c %t.cu -o %t.o
// RUN: ringfuse-translate --emit-cpp %s | FileCheck %s --check-prefix=CPU

// A kernel program written by hand: 3 * (x + y) per limb, with the per-limb
// residues of 3 as a constant table, transformed and rotated (X -> X^3) in
// evaluation form, then back with a chosen decomposition.
#Q = #rns.basis<Q: [97, 193]>
module {
  func.func @scaled_sum(%x: !kernel.buffer<16, #Q>, %y: !kernel.buffer<16, #Q>) -> !kernel.buffer<16, #Q>
      attributes {kernel.slots = 2, ringfuse.inputs = array<i64: 0, 0>, ringfuse.outputs = array<i64: 0>,
                  ringfuse.params = #bfv.params<t = 17, N = 16, Q = [97, 193], P = [353]>} {
    %out = kernel.alloc {slot = 0} : !kernel.buffer<16, #Q>
    kernel.elementwise ins(%x, %y : !kernel.buffer<16, #Q>, !kernel.buffer<16, #Q>) outs(%out : !kernel.buffer<16, #Q>) {
    ^bb0(%a: i64, %b: i64):
      %0 = kernel.addmod %a, %b
      %1 = kernel.mulconst %0 by [3, 3]
      kernel.yield %1
    }
    kernel.launch "ntt_forward" outs(%out : !kernel.buffer<16, #Q>)
    %rotated = kernel.alloc {slot = 1} : !kernel.buffer<16, #Q>
    kernel.launch "automorphism_evaluation" ins(%out : !kernel.buffer<16, #Q>) outs(%rotated : !kernel.buffer<16, #Q>) {galois_element = 3}
    kernel.launch "ntt_inverse" outs(%rotated : !kernel.buffer<16, #Q>) {transform = #rns.transform<ntt, logN1 = 0, radix = 8, ot = 2>}
    return %rotated : !kernel.buffer<16, #Q>
  }
}

// CHECK: #include <cuda_runtime.h>
// CHECK: __constant__ uint64_t elementwise_0_constant0[] = {3, 3};
// CHECK: RF_HOST_DEVICE inline void elementwise_0(const Modulus &q, size_t limb, size_t i, const uint64_t *in0, const uint64_t *in1, uint64_t *out0, const uint64_t *constant0) {
// CHECK: ringfuse::runtime::mulMod(v2, constant0[limb], q)
// CHECK: __global__ void elementwise_0_kernel(const RfModulus *moduli, size_t stride, const uint64_t *in0, const uint64_t *in1, uint64_t *out0) {
// CHECK-NEXT: const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
// CHECK-NEXT: if (i >= 32) return;
// Grid z is the instance, its buffers `stride` words after the last's.
// CHECK: const size_t at = size_t(blockIdx.z) * stride;
// The driver's moduli carry their Barrett constants: no division per thread.
// CHECK: const Modulus q(moduli[limb]);
// CHECK-NEXT: elementwise_0(q, limb, i, in0 + at, in1 + at, out0 + at, elementwise_0_constant0);
// CHECK: cudaStream_t stream = static_cast<cudaStream_t>(k->stream(rt));
// CHECK-NEXT: const RfInstances instances = k->instances(rt);
// CHECK: elementwise_0_kernel<<<dim3(1, 1, instances.count), 256, 0, stream>>>(k->moduli(rt, 0), instances.stride, b[0], b[1], b[2]);
// CHECK-NEXT: k->check_launch(rt, "elementwise_0", static_cast<int>(cudaGetLastError()));
// No transform: 0, 0, 0 leaves the shape to the driver.
// CHECK: k->ntt_forward(rt, 0, b[2], 0, 0, 0);
// CHECK-NEXT: k->automorphism_evaluation(rt, 0, 3ull, b[2], b[3]);
// CHECK-NEXT: k->ntt_inverse(rt, 0, b[3], 0, 8, 2);

// The CPU target loops over the same body.
// CPU: const uint64_t elementwise_0_constant0[] = {3, 3};
// CPU-NOT: __global__
// CPU: const RfModulus *moduli = k->moduli(rt, 0);
// CPU: const Modulus q(moduli[limb]);
// CPU-NEXT: for (size_t j = 0; j < N; ++j)
// CPU-NEXT: elementwise_0(q, limb, limb * N + j, b[0], b[1], b[2], elementwise_0_constant0);
// CPU: k->automorphism_evaluation(rt, 0, 3ull, b[2], b[3]);
