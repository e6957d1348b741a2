//===- device_steps.h - hand-written programs' steps as CUDA kernels -*- CUDA
//-*-===//
//
// The CUDA driver's steps of the hand-written programs of test/cpp
// (handwritten_programs.h): elementwise steps as __global__ kernels of one
// thread per residue of each instance the run computes (RfInstances), around
// the same RF_HOST_DEVICE bodies, the shape ringfuse-translate --emit-cuda
// produces. Included by the CUDA tests (compiled by nvcc).
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_TEST_GPU_DEVICE_STEPS_H
#define RINGFUSE_TEST_GPU_DEVICE_STEPS_H

#include "handwritten_programs.h"
#include "ringfuse/gpu/ntt.cuh"

#include <cuda_runtime.h>

namespace ringfuse::runtime::handwritten {

// Elementwise steps as kernels ------------------------------------------------

/// One thread per residue i of limbs * N words of each instance (grid z,
/// `stride` words apart: RfInstances), as emitted CUDA does.
template <typename Body, typename... Buffers>
__global__ void elementwiseKernel(Body body, const RfModulus *moduli,
                                  size_t words, size_t stride,
                                  Buffers... buffers) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= words)
    return;
  const size_t limb = i / kN;
  const Modulus q(moduli[limb]);
  body(q, i, cuda::ofInstance(buffers, stride)...);
}

static __global__ void copyKernel(const uint64_t *from, size_t words,
                                  uint64_t *to, size_t stride) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < words)
    cuda::ofInstance(to, stride)[i] = cuda::ofInstance(from, stride)[i];
}

static __global__ void fillKernel(uint64_t *to, size_t words, uint64_t value,
                                  size_t stride = 0) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < words)
    cuda::ofInstance(to, stride)[i] = value;
}

// Device lambdas would need --extended-lambda; functors of the shared bodies.
struct AddBody {
  __device__ void operator()(const Modulus &q, size_t i, const uint64_t *a,
                             const uint64_t *b, uint64_t *out) const {
    addBody(q, i, a, b, out);
  }
};
struct MultiplyBody {
  __device__ void operator()(const Modulus &q, size_t i, const uint64_t *a,
                             const uint64_t *b, uint64_t *out) const {
    multiplyBody(q, i, a, b, out);
  }
};
struct TensorBody {
  __device__ void operator()(const Modulus &q, size_t i, const uint64_t *x0,
                             const uint64_t *x1, const uint64_t *y0,
                             const uint64_t *y1, uint64_t *t0, uint64_t *t1,
                             uint64_t *t2) const {
    tensorBody(q, i, x0, x1, y0, y1, t0, t1, t2);
  }
};

/// Blocks of 256 threads over `words` words of each instance the run
/// computes.
inline dim3 blocksFor(size_t words, const RfInstances &instances) {
  return dim3(static_cast<unsigned>((words + 255) / 256), 1, instances.count);
}

inline cudaStream_t streamOf(RfRuntime *rt, const RfKernels *k) {
  return static_cast<cudaStream_t>(k->stream(rt));
}

/// The CUDA driver's steps: a kernel per step on the program's stream, each
/// launch checked through the driver as emitted code does.
struct DeviceSteps {
  template <typename Body, typename... Buffers>
  static void elementwise(RfRuntime *rt, const RfKernels *k, const char *name,
                          int basis, int limbs, Buffers... buffers) {
    const size_t words = size_t(limbs) * kN;
    const RfInstances instances = k->instances(rt);
    elementwiseKernel<<<blocksFor(words, instances), 256, 0, streamOf(rt, k)>>>(
        Body{}, k->moduli(rt, basis), words, instances.stride, buffers...);
    k->check_launch(rt, name, static_cast<int>(cudaGetLastError()));
  }

  static void add(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                  const uint64_t *a, const uint64_t *b, uint64_t *out) {
    elementwise<AddBody>(rt, k, "add", basis, limbs, a, b, out);
  }

  static void multiply(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                       const uint64_t *a, const uint64_t *b, uint64_t *out) {
    elementwise<MultiplyBody>(rt, k, "multiply", basis, limbs, a, b, out);
  }

  static void tensor(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                     const uint64_t *x0, const uint64_t *x1, const uint64_t *y0,
                     const uint64_t *y1, uint64_t *t0, uint64_t *t1,
                     uint64_t *t2) {
    elementwise<TensorBody>(rt, k, "tensor", basis, limbs, x0, x1, y0, y1, t0,
                            t1, t2);
  }

  static void copy(RfRuntime *rt, const RfKernels *k, const uint64_t *from,
                   size_t words, uint64_t *to) {
    const RfInstances instances = k->instances(rt);
    copyKernel<<<blocksFor(words, instances), 256, 0, streamOf(rt, k)>>>(
        from, words, to, instances.stride);
    k->check_launch(rt, "copy", static_cast<int>(cudaGetLastError()));
  }

  static void fill(RfRuntime *rt, const RfKernels *k, uint64_t *to,
                   size_t words, uint64_t value) {
    const RfInstances instances = k->instances(rt);
    fillKernel<<<blocksFor(words, instances), 256, 0, streamOf(rt, k)>>>(
        to, words, value, instances.stride);
    k->check_launch(rt, "fill", static_cast<int>(cudaGetLastError()));
  }
};

} // namespace ringfuse::runtime::handwritten

#endif // RINGFUSE_TEST_GPU_DEVICE_STEPS_H
