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
template <typename Word>
__global__ void automorphismKernel(const Modulus *moduli, uint64_t galois,
                                   const Word *in, Word *out, size_t n,
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
    out[limb * n + (position - n)] =
        static_cast<Word>(negateMod(value, moduli[limb].value));
}

/// ntt.cpp's applyEvaluationAutomorphism for word (limb, j): a gather
/// through the index map the CPU reference uses.
template <typename Word>
__global__ void evaluationAutomorphismKernel(uint64_t galois, const Word *in,
                                             Word *out, size_t n, unsigned logN,
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

template <typename Word>
void launchAutomorphism(const Modulus *moduli, int limbs, size_t n,
                        uint64_t galoisElement, const Word *in, Word *out,
                        cudaStream_t stream, Instances instances) {
  automorphismKernel<Word>
      <<<gridFor(n, static_cast<unsigned>(limbs), instances), kThreads, 0,
         stream>>>(moduli, galoisElement, in, out, n, instances.stride);
  checkLaunch("automorphismKernel");
}

template <typename Word>
void launchEvaluationAutomorphism(int limbs, size_t n, uint64_t galoisElement,
                                  const Word *in, Word *out,
                                  cudaStream_t stream, Instances instances) {
  const unsigned logN = static_cast<unsigned>(__builtin_ctzll(n));
  evaluationAutomorphismKernel<Word>
      <<<gridFor(n, static_cast<unsigned>(limbs), instances), kThreads, 0,
         stream>>>(galoisElement, in, out, n, logN, instances.stride);
  checkLaunch("evaluationAutomorphismKernel");
}

#define RF_AUTOMORPHISM_LAUNCHERS(Word)                                        \
  template void launchAutomorphism(const Modulus *, int, size_t, uint64_t,     \
                                   const Word *, Word *, cudaStream_t,         \
                                   Instances);                                 \
  template void launchEvaluationAutomorphism(                                  \
      int, size_t, uint64_t, const Word *, Word *, cudaStream_t, Instances);
RF_AUTOMORPHISM_LAUNCHERS(uint64_t)
RF_AUTOMORPHISM_LAUNCHERS(uint32_t)
#undef RF_AUTOMORPHISM_LAUNCHERS

} // namespace ringfuse::runtime::cuda
