//===- client_kernels.cu - the GPU client's elementwise steps -------------===//
//
// The CPU reference's elementwise steps (poly.cpp, prng.cpp, keys.cpp), one
// thread per word or coefficient, in the CPU's operand order and on the
// same RF_HOST_DEVICE helpers, so the words are the CPU's; and the samplers,
// each call taking its domain from the host Prng in the CPU's order.
//
//===----------------------------------------------------------------------===//
#include "client_kernels.cuh"

#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/prng.h"

namespace ringfuse::runtime::gpu {
namespace {

constexpr unsigned kThreads = 256;

dim3 gridFor(size_t threads) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads));
}

/// prng.cpp's sampleUniformPolynomial for word w = limb * n + j.
__global__ void sampleUniformKernel(ChaChaKey key, uint64_t domain,
                                    const uint64_t *moduli, size_t n,
                                    size_t words, uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  out[w] = sampleUniformModulo(key, domain, static_cast<uint32_t>(w),
                               moduli[w / n]);
}

/// prng.cpp's sampleTernaryPolynomial / sampleGaussianPolynomial for
/// coefficient j, then poly.cpp's liftSmall to every limb: stored, or with
/// `accumulate` added (addInPlace) to what is there. `small`, if not null,
/// receives the signed coefficient.
__global__ void sampleSmallKernel(ChaChaKey key, uint64_t domain, int gaussian,
                                  const uint64_t *moduli, int limbs, size_t n,
                                  int accumulate, int8_t *small,
                                  uint64_t *lifted) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const uint32_t index = static_cast<uint32_t>(j);
  const int8_t value = static_cast<int8_t>(
      gaussian ? sampleGaussian(key, domain, index)
               : sampleTernary(key, domain, index));
  if (small)
    small[j] = value;
  for (int i = 0; i < limbs; ++i) {
    const uint64_t q = moduli[i];
    const uint64_t residue = liftSigned(value, q);
    uint64_t &word = lifted[size_t(i) * n + j];
    word = accumulate ? addMod(word, residue, q) : residue;
  }
}

/// poly.cpp's liftSmall for coefficient j.
__global__ void liftSmallKernel(const int8_t *small, const uint64_t *moduli,
                                int limbs, size_t n, uint64_t *out) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  for (int i = 0; i < limbs; ++i)
    out[size_t(i) * n + j] = liftSigned(small[j], moduli[i]);
}

/// out = a * b (multiplyPointwise); out may alias a or b.
__global__ void multiplyKernel(const uint64_t *a, const uint64_t *b,
                               const Modulus *moduli, size_t n, size_t words,
                               uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  out[w] = mulMod(a[w], b[w], moduli[w / n]);
}

/// out = -(a * b) (multiplyPointwise, then negateInPlace).
__global__ void multiplyNegateKernel(const uint64_t *a, const uint64_t *b,
                                     const Modulus *moduli, size_t n,
                                     size_t words, uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  out[w] = negateMod(mulMod(a[w], b[w], m), m.value);
}

/// acc += a * b (multiplyAccumulate).
__global__ void multiplyAccumulateKernel(const uint64_t *a, const uint64_t *b,
                                         const Modulus *moduli, size_t n,
                                         size_t words, uint64_t *acc) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  acc[w] = addMod(acc[w], mulMod(a[w], b[w], m), m.value);
}

/// b += -(a s): the end of keys.cpp's sampleRlwePair (b holds e).
__global__ void subtractProductKernel(const uint64_t *a, const uint64_t *s,
                                      const Modulus *moduli, size_t n,
                                      size_t words, uint64_t *b) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  b[w] = addMod(b[w], negateMod(mulMod(a[w], s[w], m), m.value), m.value);
}

/// acc += a (addInPlace).
__global__ void addKernel(const uint64_t *a, const Modulus *moduli, size_t n,
                          size_t words, uint64_t *acc) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  acc[w] = addMod(acc[w], a[w], moduli[w / n].value);
}

/// keys.cpp's gadget term of one digit: b += (P mod q_i) * s' on the limbs
/// [first, first + words / n).
__global__ void addGadgetKernel(const uint64_t *newKey, const uint64_t *pModQ,
                                const Modulus *moduli, size_t first, size_t n,
                                size_t words, uint64_t *b) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const size_t limb = first + w / n, at = first * n + w;
  const Modulus q = moduli[limb];
  b[at] = addMod(b[at], mulMod(pModQ[limb], newKey[at], q), q.value);
}

/// encodeSlots' placement: slot s at positions[s] (out cleared before).
__global__ void scatterSlotsKernel(const uint64_t *values, size_t count,
                                   const uint32_t *positions, uint64_t *out) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  out[positions[s]] = values[s];
}

/// decodeSlots' reading: slot s from positions[s].
__global__ void gatherSlotsKernel(const uint64_t *evaluations,
                                  const uint32_t *positions, size_t n,
                                  uint64_t *slots) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  slots[s] = evaluations[positions[s]];
}

/// A kernel above over `words` words of limbs of n, on g's stream.
template <typename Kernel, typename... Args>
void launchWords(GpuContext &g, Kernel kernel, const char *name, size_t words,
                 Args... args) {
  if (words == 0)
    return;
  kernel<<<gridFor(words), kThreads, 0, g.stream.get()>>>(args...);
  cuda::checkLaunch(name);
}

} // namespace

void multiply(GpuContext &g, const uint64_t *a, const uint64_t *b,
              size_t words, uint64_t *out) {
  launchWords(g, multiplyKernel, "multiplyKernel", words, a, b,
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words,
              out);
}

void multiplyNegate(GpuContext &g, const uint64_t *a, const uint64_t *b,
                    size_t words, uint64_t *out) {
  launchWords(g, multiplyNegateKernel, "multiplyNegateKernel", words, a, b,
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words,
              out);
}

void multiplyAccumulate(GpuContext &g, const uint64_t *a, const uint64_t *b,
                        size_t words, uint64_t *acc) {
  launchWords(g, multiplyAccumulateKernel, "multiplyAccumulateKernel", words,
              a, b, static_cast<const Modulus *>(g.qpModuli.data()), g.n,
              words, acc);
}

void add(GpuContext &g, const uint64_t *a, size_t words, uint64_t *acc) {
  launchWords(g, addKernel, "addKernel", words, a,
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words,
              acc);
}

void addGadget(GpuContext &g, const uint64_t *newKey, size_t first,
               size_t words, uint64_t *b) {
  launchWords(g, addGadgetKernel, "addGadgetKernel", words, newKey,
              static_cast<const uint64_t *>(g.pModQValues.data()),
              static_cast<const Modulus *>(g.qpModuli.data()), first, g.n,
              words, b);
}

void liftSmall(GpuContext &g, const int8_t *small, uint64_t *out) {
  launchWords(g, liftSmallKernel, "liftSmallKernel", g.n, small,
              static_cast<const uint64_t *>(g.qpValues.data()),
              static_cast<int>(g.qpSize), g.n, out);
}

void scatterSlots(GpuContext &g, const uint64_t *values, size_t count,
                  uint64_t *out) {
  launchWords(g, scatterSlotsKernel, "scatterSlotsKernel", count, values,
              count, static_cast<const uint32_t *>(g.slotPositions.data()),
              out);
}

void gatherSlots(GpuContext &g, const uint64_t *evaluations, uint64_t *slots) {
  launchWords(g, gatherSlotsKernel, "gatherSlotsKernel", g.n, evaluations,
              static_cast<const uint32_t *>(g.slotPositions.data()), g.n,
              slots);
}

/// A uniform polynomial over QP, sampled in NTT form, into out.
void sampleUniformQP(GpuContext &g, Prng &prng, uint64_t *out) {
  runtime::detail::checkIndexSpace(g.qpSize, g.n, "sampleUniformPolynomial");
  const uint64_t domain = prng.nextDomain();
  const size_t words = g.qpSize * g.n;
  launchWords(g, sampleUniformKernel, "sampleUniformKernel", words,
              prng.key(), domain,
              static_cast<const uint64_t *>(g.qpValues.data()), g.n, words,
              out);
}

/// A small polynomial (ternary or Gaussian) of one fresh domain, lifted to
/// the first `limbs` primes of QP (stored, or added with `accumulate`).
void sampleSmall(GpuContext &g, Prng &prng, bool gaussian, size_t limbs,
                 bool accumulate, int8_t *small, uint64_t *lifted) {
  runtime::detail::checkIndexSpace(1, g.n,
                  gaussian ? "sampleGaussianPolynomial"
                           : "sampleTernaryPolynomial");
  const uint64_t domain = prng.nextDomain();
  launchWords(g, sampleSmallKernel, "sampleSmallKernel", g.n, prng.key(),
              domain, gaussian ? 1 : 0,
              static_cast<const uint64_t *>(g.qpValues.data()),
              static_cast<int>(limbs), g.n, accumulate ? 1 : 0, small,
              lifted);
}

/// keys.cpp's sampleRlwePair: (-(a s) + e, a) over QP in NTT form, with s
/// (NTT form over QP) on the device.
void sampleRlwePair(GpuContext &g, Prng &prng, const uint64_t *s, uint64_t *b,
                    uint64_t *a) {
  const size_t words = g.qpSize * g.n;
  sampleUniformQP(g, prng, a);
  sampleSmall(g, prng, /*gaussian=*/true, g.qpSize, /*accumulate=*/false,
              nullptr, b);
  cuda::launchNttForward(g.qpNtt, g.n, b, g.stream.get());
  launchWords(g, subtractProductKernel, "subtractProductKernel", words,
              static_cast<const uint64_t *>(a), s,
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words, b);
}

} // namespace ringfuse::runtime::gpu
