//===- kernels.cu - the CUDA driver's library kernels ---------------------===//
//
// One thread per coefficient (base conversion, scale-and-round, scale-up) or
// per word (automorphism, key switching's inner product); the NTT is ntt.cu's. Every formula is the CPU reference's, on the same helpers.
//
//===----------------------------------------------------------------------===//
#include "kernels.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"

#include <algorithm>
#include <string>

namespace ringfuse::runtime::cuda {

namespace {

constexpr unsigned kThreads = 256;

dim3 gridFor(size_t threads, unsigned rows = 1) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads), rows);
}

// Base conversion, scale-and-round, scale-up ----------------------------------

/// rns.cpp's BaseConverter::convert for the missing moduli, plus the copied
/// limbs, for coefficient c. The scaled residues [x_i (A/a_i)^{-1}]_{a_i} are
/// recomputed per output modulus instead of kept in a per-thread array (which
/// would live in local memory and bound the basis size).
__global__ void convertKernel(ConvertPlan plan, const uint64_t *in,
                              uint64_t *out, size_t n) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= n)
    return;
  for (int j = 0; j < plan.toSize; ++j) {
    const int from = plan.copyFrom[j];
    if (from >= 0)
      out[size_t(j) * n + c] = in[size_t(from) * n + c];
  }
  if (plan.missingSize == 0)
    return;
  uint128_t multiple = 0;
  if (plan.exact) {
    FractionSum overflow;
    for (int i = 0; i < plan.fromSize; ++i) {
      const uint64_t scaled = mulShoup(
          in[size_t(i) * n + c], plan.puncturedInverse[i], plan.fromModuli[i]);
      overflow.add(scaled, plan.inverseOfFrom[i].high,
                   plan.inverseOfFrom[i].low);
    }
    multiple = overflow.roundHalfUp();
  }
  for (int j = 0; j < plan.missingSize; ++j) {
    const Modulus target = plan.missingModuli[j];
    uint64_t sum = 0;
    for (int i = 0; i < plan.fromSize; ++i) {
      const uint64_t scaled = mulShoup(
          in[size_t(i) * n + c], plan.puncturedInverse[i], plan.fromModuli[i]);
      sum = addMod(sum,
                   mulMod(scaled,
                          plan.puncturedModTo[size_t(i) * plan.missingSize + j],
                          target),
                   target.value);
    }
    if (plan.exact)
      sum = subMod(
          sum,
          mulMod(reduce128(multiple, target), plan.productModTo[j], target),
          target.value);
    out[size_t(plan.missingLimbs[j]) * n + c] = sum;
  }
}

/// rns.cpp's ScaleRoundPlan::apply for coefficient c, reading the divisor
/// and kept limbs where they sit in the input basis.
__global__ void scaleRoundKernel(ScaleRoundPlanView plan, const uint64_t *in,
                                 uint64_t *out, size_t n) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= n)
    return;
  FractionSum fractional;
  for (int i = 0; i < plan.divisorSize; ++i)
    fractional.add(in[size_t(plan.divisorLimbs[i]) * n + c], plan.theta[i].high,
                   plan.theta[i].low);
  const uint128_t rounded = fractional.roundHalfUp();
  for (int o = 0; o < plan.outputSize; ++o) {
    const Modulus m = plan.outputs[o];
    uint64_t sum = reduce128(rounded, m);
    for (int i = 0; i < plan.divisorSize; ++i)
      sum = addMod(sum,
                   mulMod(in[size_t(plan.divisorLimbs[i]) * n + c],
                          plan.omega[size_t(i) * plan.outputSize + o], m),
                   m.value);
    if (plan.hasLambda)
      sum = addMod(
          sum, mulMod(in[size_t(plan.keptLimbs[o]) * n + c], plan.lambda[o], m),
          m.value);
    out[size_t(o) * n + c] = sum;
  }
}

/// program.cpp's scaleUpKernel for coefficient j: floor(Q/t) m +
/// floor((2 (Q mod t) m + t) / 2t) mod each output prime.
__global__ void scaleUpKernel(ScaleUpPlanView plan, const uint64_t *in,
                              uint64_t *out, size_t n) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const uint64_t m = in[j];
  const uint64_t correction = static_cast<uint64_t>(
      (2 * static_cast<uint128_t>(plan.qModT) * m + plan.t) /
      (2 * static_cast<uint128_t>(plan.t)));
  for (int i = 0; i < plan.limbs; ++i) {
    const Modulus q = plan.outputs[i];
    out[size_t(i) * n + j] = addMod(mulMod(plan.deltaModOutput[i], m, q),
                                    reduce(correction, q), q.value);
  }
}

// Automorphism, key switching -------------------------------------------------

/// ntt.cpp's applyAutomorphism for word (limb, i): coefficient i moves to
/// i g mod 2N, negated past N (i g < 2^35 for N <= 2^17, no overflow).
__global__ void automorphismKernel(const uint64_t *moduli, uint64_t galois,
                                   const uint64_t *in, uint64_t *out,
                                   size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const size_t limb = blockIdx.y;
  const uint64_t position = (static_cast<uint64_t>(i) * galois) % (2 * n);
  const uint64_t value = in[limb * n + i];
  if (position < n)
    out[limb * n + position] = value;
  else
    out[limb * n + (position - n)] = negateMod(value, moduli[limb]);
}

/// ntt.cpp's applyEvaluationAutomorphism for word (limb, j): a gather
/// through the index map the CPU reference uses.
__global__ void evaluationAutomorphismKernel(uint64_t galois,
                                             const uint64_t *in, uint64_t *out,
                                             size_t n, unsigned logN) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const size_t limb = blockIdx.y;
  out[limb * n + j] =
      in[limb * n + evaluationAutomorphismSource(j, logN, galois)];
}

/// program.cpp's keySwitchInnerProductKernel for one word of QP: both sums
/// in digit order. A digit may be an output's buffer: its word is read
/// before the outputs' word is written, by this thread alone.
__global__ void keySwitchKernel(KeySwitchPlan plan, uint64_t *out0,
                                uint64_t *out1, size_t n) {
  const size_t words = size_t(plan.limbs) * n;
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = plan.moduli[w / n];
  uint64_t sum0 = 0, sum1 = 0;
  for (int j = 0; j < plan.dnum; ++j) {
    const uint64_t d = plan.digits[j][w];
    const uint64_t *b = plan.key + size_t(2 * j) * words;
    const uint64_t *a = b + words;
    sum0 = addMod(sum0, mulMod(d, b[w], m), m.value);
    sum1 = addMod(sum1, mulMod(d, a[w], m), m.value);
  }
  out0[w] = sum0;
  out1[w] = sum1;
}

} // namespace

void checkLaunch(const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    throw Error(std::string("CUDA kernel ") + kernel +
                " failed to launch: " + cudaGetErrorName(error) + " (" +
                cudaGetErrorString(error) + ")");
}

// Launchers -------------------------------------------------------------------

void launchConvert(const ConvertPlan &plan, size_t n, const uint64_t *in,
                   uint64_t *out, cudaStream_t stream) {
  convertKernel<<<gridFor(n), kThreads, 0, stream>>>(plan, in, out, n);
  checkLaunch("convertKernel");
}

void launchScaleRound(const ScaleRoundPlanView &plan, size_t n,
                      const uint64_t *in, uint64_t *out, cudaStream_t stream) {
  scaleRoundKernel<<<gridFor(n), kThreads, 0, stream>>>(plan, in, out, n);
  checkLaunch("scaleRoundKernel");
}

void launchScaleUp(const ScaleUpPlanView &plan, size_t n, const uint64_t *in,
                   uint64_t *out, cudaStream_t stream) {
  scaleUpKernel<<<gridFor(n), kThreads, 0, stream>>>(plan, in, out, n);
  checkLaunch("scaleUpKernel");
}

void launchAutomorphism(const uint64_t *moduli, int limbs, size_t n,
                        uint64_t galoisElement, const uint64_t *in,
                        uint64_t *out, cudaStream_t stream) {
  automorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs)), kThreads, 0,
                       stream>>>(moduli, galoisElement, in, out, n);
  checkLaunch("automorphismKernel");
}

void launchEvaluationAutomorphism(int limbs, size_t n, uint64_t galoisElement,
                                  const uint64_t *in, uint64_t *out,
                                  cudaStream_t stream) {
  const unsigned logN = static_cast<unsigned>(__builtin_ctzll(n));
  evaluationAutomorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs)),
                                 kThreads, 0, stream>>>(galoisElement, in, out,
                                                        n, logN);
  checkLaunch("evaluationAutomorphismKernel");
}

void launchKeySwitchInnerProduct(const KeySwitchPlan &plan, size_t n,
                                 uint64_t *out0, uint64_t *out1,
                                 cudaStream_t stream) {
  keySwitchKernel<<<gridFor(size_t(plan.limbs) * n), kThreads, 0, stream>>>(
      plan, out0, out1, n);
  checkLaunch("keySwitchKernel");
}

} // namespace ringfuse::runtime::cuda
