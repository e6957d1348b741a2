//===- kernels.cu - the CUDA driver's library kernels ---------------------===//
//
// One thread per butterfly (NTT), per coefficient (base conversion,
// scale-and-round, scale-up) or per word (automorphism, key switching's inner
// product). Every formula is the CPU reference's, on the same helpers.
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

/// Throws if the launch just made failed (bad configuration, no kernel image
/// for this GPU, an earlier sticky fault).
void checkLaunch(const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    throw Error(std::string("CUDA kernel ") + kernel +
                " failed to launch: " + cudaGetErrorName(error) + " (" +
                cudaGetErrorString(error) + ")");
}

unsigned log2Exact(size_t value) {
  unsigned bits = 0;
  while ((size_t(1) << bits) < value)
    ++bits;
  return bits;
}

dim3 gridFor(size_t threads, unsigned rows = 1) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads), rows);
}

// The NTT -----------------------------------------------------------------
//
// ntt.cpp's loops, reorganized: stage by stage, butterfly t of a stage with
// half-distance gap = 2^logGap lies in group g = t / gap at offset j = t % gap
// and pairs x = 2 g gap + j with y = x + gap, with twiddle [groups + g]. The
// lazy bounds are ntt.cpp's (forward: below 4q; inverse: below 2q), and the
// final reduction gives the canonical residues in [0, q), so the outputs are
// the CPU's whatever the grouping of the work.

__device__ inline void forwardButterfly(uint64_t &x, uint64_t &y,
                                        ShoupConstant w, uint64_t q) {
  const uint64_t twoQ = 2 * q;
  uint64_t u = x >= twoQ ? x - twoQ : x;
  uint64_t v = mulShoupLazy(y, w, q);
  x = u + v;
  y = u - v + twoQ;
}

__device__ inline uint64_t forwardFinal(uint64_t a, uint64_t q) {
  const uint64_t twoQ = 2 * q;
  uint64_t v = a >= twoQ ? a - twoQ : a;
  return v >= q ? v - q : v;
}

__device__ inline void inverseButterfly(uint64_t &x, uint64_t &y,
                                        ShoupConstant w, uint64_t q) {
  const uint64_t twoQ = 2 * q;
  uint64_t u = x, v = y;
  uint64_t sum = u + v;
  x = sum >= twoQ ? sum - twoQ : sum;
  y = mulShoupLazy(u - v + twoQ, w, q);
}

/// One forward stage over every limb (blockIdx.y), in global memory: the
/// stages whose pairs are more than a chunk apart.
__global__ void nttForwardStage(NttPlan plan, uint64_t *data, size_t n,
                                size_t groups, unsigned logGap) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n / 2)
    return;
  const NttLimb limb = plan.limbs[blockIdx.y];
  const size_t gap = size_t(1) << logGap;
  const size_t g = t >> logGap, j = t & (gap - 1);
  uint64_t *x = data + size_t(blockIdx.y) * n + 2 * g * gap + j;
  uint64_t a = x[0], b = x[gap];
  forwardButterfly(a, b, limb.rootPowers[groups + g], limb.q);
  x[0] = a;
  x[gap] = b;
}

struct ForwardButterfly {
  __device__ void operator()(uint64_t &a, uint64_t &b, const ShoupConstant &w,
                             uint64_t q) const {
    forwardButterfly(a, b, w, q);
  }
};
struct InverseButterfly {
  __device__ void operator()(uint64_t &a, uint64_t &b, const ShoupConstant &w,
                             uint64_t q) const {
    inverseButterfly(a, b, w, q);
  }
};

/// One stage (gap 2^logGap) of the butterflies of this block's chunk of a
/// limb, in shared memory: the stage's butterflies with both words in the
/// chunk, each with the twiddle of its group in the whole limb.
template <typename Butterfly>
__device__ void chunkStage(uint64_t *chunkWords, size_t chunk, size_t n,
                           unsigned logGap, const ShoupConstant *powers,
                           uint64_t q, Butterfly butterfly) {
  const size_t gap = size_t(1) << logGap, groups = n >> (logGap + 1);
  const size_t chunkStart = size_t(blockIdx.x) * chunk;
  const size_t firstButterfly = chunkStart / 2;
  for (size_t t = threadIdx.x; t < chunk / 2; t += blockDim.x) {
    const size_t global = firstButterfly + t;
    const size_t g = global >> logGap, j = global & (gap - 1);
    const size_t x = 2 * g * gap + j - chunkStart;
    uint64_t a = chunkWords[x], b = chunkWords[x + gap];
    butterfly(a, b, powers[groups + g], q);
    chunkWords[x] = a;
    chunkWords[x + gap] = b;
  }
}

/// The remaining forward stages (gap from firstGap down to 1) of one chunk
/// (blockIdx.x) of one limb (blockIdx.y) in shared memory, then the final
/// reduction to [0, q).
__global__ void nttForwardChunk(NttPlan plan, uint64_t *data, size_t n,
                                unsigned logChunk, unsigned logFirstGap) {
  extern __shared__ uint64_t chunkWords[];
  const size_t chunk = size_t(1) << logChunk;
  const NttLimb limb = plan.limbs[blockIdx.y];
  uint64_t *words = data + size_t(blockIdx.y) * n + size_t(blockIdx.x) * chunk;
  for (size_t e = threadIdx.x; e < chunk; e += blockDim.x)
    chunkWords[e] = words[e];
  __syncthreads();
  for (int logGap = static_cast<int>(logFirstGap); logGap >= 0; --logGap) {
    chunkStage(chunkWords, chunk, n, static_cast<unsigned>(logGap),
               limb.rootPowers, limb.q, ForwardButterfly{});
    __syncthreads();
  }
  for (size_t e = threadIdx.x; e < chunk; e += blockDim.x)
    words[e] = forwardFinal(chunkWords[e], limb.q);
}

/// The first inverse stages (gap from 1 up to lastGap) of one chunk of one
/// limb in shared memory; with `scale` (the whole limb was one chunk), the
/// final multiplication by N^{-1}.
__global__ void nttInverseChunk(NttPlan plan, uint64_t *data, size_t n,
                                unsigned logChunk, unsigned logLastGap,
                                int scale) {
  extern __shared__ uint64_t chunkWords[];
  const size_t chunk = size_t(1) << logChunk;
  const NttLimb limb = plan.limbs[blockIdx.y];
  uint64_t *words = data + size_t(blockIdx.y) * n + size_t(blockIdx.x) * chunk;
  for (size_t e = threadIdx.x; e < chunk; e += blockDim.x)
    chunkWords[e] = words[e];
  __syncthreads();
  for (unsigned logGap = 0; logGap <= logLastGap; ++logGap) {
    chunkStage(chunkWords, chunk, n, logGap, limb.inverseRootPowers, limb.q,
               InverseButterfly{});
    __syncthreads();
  }
  for (size_t e = threadIdx.x; e < chunk; e += blockDim.x)
    words[e] = scale ? mulShoup(chunkWords[e], limb.inverseDegree, limb.q)
                     : chunkWords[e];
}

/// One inverse stage over every limb in global memory; the last one (gap =
/// N/2, which touches every word once) also multiplies by N^{-1}.
__global__ void nttInverseStage(NttPlan plan, uint64_t *data, size_t n,
                                size_t groups, unsigned logGap, int scale) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n / 2)
    return;
  const NttLimb limb = plan.limbs[blockIdx.y];
  const size_t gap = size_t(1) << logGap;
  const size_t g = t >> logGap, j = t & (gap - 1);
  uint64_t *x = data + size_t(blockIdx.y) * n + 2 * g * gap + j;
  uint64_t a = x[0], b = x[gap];
  inverseButterfly(a, b, limb.inverseRootPowers[groups + g], limb.q);
  if (scale) {
    a = mulShoup(a, limb.inverseDegree, limb.q);
    b = mulShoup(b, limb.inverseDegree, limb.q);
  }
  x[0] = a;
  x[gap] = b;
}

unsigned chunkThreads(size_t chunk) {
  return static_cast<unsigned>(std::min<size_t>(chunk / 2, 512));
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

// Launchers -------------------------------------------------------------------

void launchNttForward(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream) {
  const size_t chunk = std::min(n, kNttChunk);
  const unsigned logN = log2Exact(n), logChunk = log2Exact(chunk);
  // Stages whose pairs lie more than a chunk apart: gap = N/2 down to chunk.
  unsigned logGap = logN - 1;
  for (size_t groups = 1; logGap + 1 > logChunk; groups <<= 1, --logGap) {
    nttForwardStage<<<gridFor(n / 2, plan.limbCount), kThreads, 0, stream>>>(
        plan, data, n, groups, logGap);
    checkLaunch("nttForwardStage");
  }
  nttForwardChunk<<<dim3(static_cast<unsigned>(n / chunk), plan.limbCount),
                    chunkThreads(chunk), chunk * sizeof(uint64_t), stream>>>(
      plan, data, n, logChunk, logGap);
  checkLaunch("nttForwardChunk");
}

void launchNttInverse(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream) {
  const size_t chunk = std::min(n, kNttChunk);
  const unsigned logN = log2Exact(n), logChunk = log2Exact(chunk);
  const bool whole = chunk == n;
  nttInverseChunk<<<dim3(static_cast<unsigned>(n / chunk), plan.limbCount),
                    chunkThreads(chunk), chunk * sizeof(uint64_t), stream>>>(
      plan, data, n, logChunk, logChunk - 1, whole ? 1 : 0);
  checkLaunch("nttInverseChunk");
  for (unsigned logGap = logChunk; logGap < logN; ++logGap) {
    const size_t groups = n >> (logGap + 1);
    nttInverseStage<<<gridFor(n / 2, plan.limbCount), kThreads, 0, stream>>>(
        plan, data, n, groups, logGap, logGap + 1 == logN ? 1 : 0);
    checkLaunch("nttInverseStage");
  }
}

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
