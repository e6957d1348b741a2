//===- automorphism.cu - automorphisms on the GPU ===//
//
// X -> X^g in coefficient form (ntt.cpp's applyAutomorphism) and in
// evaluation form, a permutation of the NTT's order
// (applyEvaluationAutomorphism): one thread per word.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/gpu/resources.cuh"

#include "ringfuse/runtime/ntt.h"

namespace ringfuse::runtime::cuda {
namespace {

constexpr unsigned kThreads = 256;

dim3 gridFor(size_t threads, unsigned rows, Instances instances) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads), rows,
              instances.count);
}

/// ntt.cpp's applyAutomorphism for word (limb, i): coefficient i moves to
/// i g mod 2N, negated past N (i g < 2^35 for N <= 2^17, no overflow).
__global__ void automorphismKernel(const Modulus *moduli, uint64_t galois,
                                   const uint64_t *in, uint64_t *out, size_t n,
                                   size_t stride) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  const size_t limb = blockIdx.y;
  const uint64_t position = (static_cast<uint64_t>(i) * galois) % (2 * n);
  const uint64_t value = in[limb * n + i];
  if (position < n)
    out[limb * n + position] = value;
  else
    out[limb * n + (position - n)] = negateMod(value, moduli[limb].value);
}

/// ntt.cpp's applyEvaluationAutomorphism for word (limb, j): a gather
/// through the index map the CPU reference uses.
__global__ void evaluationAutomorphismKernel(uint64_t galois,
                                             const uint64_t *in, uint64_t *out,
                                             size_t n, unsigned logN,
                                             size_t stride) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  const size_t limb = blockIdx.y;
  out[limb * n + j] =
      in[limb * n + evaluationAutomorphismSource(j, logN, galois)];
}

} // namespace

void launchAutomorphism(const Modulus *moduli, int limbs, size_t n,
                        uint64_t galoisElement, const uint64_t *in,
                        uint64_t *out, cudaStream_t stream,
                        Instances instances) {
  automorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs), instances),
                       kThreads, 0, stream>>>(moduli, galoisElement, in, out, n,
                                              instances.stride);
  checkLaunch("automorphismKernel");
}

void launchEvaluationAutomorphism(int limbs, size_t n, uint64_t galoisElement,
                                  const uint64_t *in, uint64_t *out,
                                  cudaStream_t stream, Instances instances) {
  const unsigned logN = static_cast<unsigned>(__builtin_ctzll(n));
  evaluationAutomorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs),
                                         instances),
                                 kThreads, 0, stream>>>(
      galoisElement, in, out, n, logN, instances.stride);
  checkLaunch("evaluationAutomorphismKernel");
}

} // namespace ringfuse::runtime::cuda
