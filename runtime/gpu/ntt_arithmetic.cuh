//===- ntt_arithmetic.cuh - the NTT's lazy butterflies -*- CUDA -*-===//
//
// Stage s of the transform (s = 0 .. log N - 1) pairs the words x and
// x + N / 2^(s+1) of each group g = x >> (log N - s) with the twiddle
// powers[2^s + g], as ntt.cpp does. A step transforms M = 2^LOG_M words per
// column (column step) or per row (row step); within it, a round of RK stages
// gives each thread groups of 2^RK words spaced d = M >> (s0 + RK) apart,
// which the thread transforms in registers: the groups are closed under those
// stages. Rounds exchange words through shared memory.
//
// Lazy bounds: with B = LazyModulus::bound (4q), forward values stay below 2B
// and inverse values below B, and each Shoup product is below B. Products are
// approximate (see LazyModulus<uint64_t>), which is why B is 4q and q < 2^61.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each NTT file that includes it compiles what it instantiates.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_NTT_ARITHMETIC_CUH
#define RINGFUSE_GPU_NTT_ARITHMETIC_CUH

#include "ringfuse/gpu/ntt.cuh"

#include "ringfuse/runtime/number_theory.h"

namespace ringfuse::runtime::cuda {
namespace {

/// Threads a row-step block aims for (rows are packed until it has them).
constexpr unsigned kRowStepThreads = 256;

__host__ __device__ constexpr unsigned minOf(unsigned a, unsigned b) { return a < b ? a : b; }
/// Blocks of `blockThreads` an SM that keep `threads` resident (at least 1).
constexpr unsigned minBlocksPerSm(unsigned threads, unsigned blockThreads) {
  return threads > blockThreads ? threads / blockThreads : 1;
}
__host__ __device__ constexpr unsigned log2Floor(unsigned x) {
  return x <= 1 ? 0 : 1 + log2Floor(x / 2);
}

// Lazy arithmetic ------------------------------------------------------------

/// x - c if x >= c, else x, for x < 2c. c < 2^63, so x - c lies in
/// (-2^63, 2^63) and its sign gives the comparison (one instruction fewer
/// than a 64-bit compare).
template <typename Word>
__device__ __forceinline__ Word subtractIfAtLeast(Word x, Word c) {
  static_assert(sizeof(Word) == 8);
  const int64_t difference = static_cast<int64_t>(x - c);
  return difference < 0 ? x : static_cast<Word>(difference);
}

template <typename Word> struct LazyModulus;

/// 64-bit words: the Shoup quotient floor(y w' / 2^64) is estimated from
/// three of the four 32-bit partial products, dropping the low-by-low one and
/// the carries out of the middle word, so it falls short by at most 2 and
/// y w - e q is below 4q (B = 4q; values below 8q fit a word for q < 2^61).
/// That saves a multiply and the carry chain. y w - e q is taken as
/// y w + e (2^64 - q), and only its low 64 bits matter: two wide products
/// give the low word and carry, and the four cross products go into the
/// high word as one chain of 32-bit multiply-adds, two instructions fewer
/// than 64-bit multiplies (which ptxas splits into independent halves).
template <> struct LazyModulus<uint64_t> {
  uint64_t q, bound, negQ;
  uint32_t quotientInputShift, quotientRatio, quotientShift;

  __device__ explicit LazyModulus(const BasicNttLimb<uint64_t> &limb)
      : q(limb.q), bound(4 * limb.q), negQ(0 - limb.q),
        quotientInputShift(limb.quotientInputShift),
        quotientRatio(limb.quotientRatio), quotientShift(limb.quotientShift) {}
  /// floor(x / q) or one less, for x < 8q (makeNttLimb's estimate).
  __device__ __forceinline__ uint32_t quotientEstimate(uint64_t x) const {
    const uint32_t top = __funnelshift_rc(static_cast<uint32_t>(x),
                                          static_cast<uint32_t>(x >> 32),
                                          quotientInputShift);
    return __umulhi(top, quotientRatio) >> quotientShift;
  }
  __device__ __forceinline__ uint64_t times(uint64_t y,
                                            ShoupConstant w) const {
    uint64_t r;
    asm("{\n\t.reg .u32 yl, yh, vl, vh, wl, wh, nl, nh, el, eh, a, b, rl, rh;"
        "\n\t.reg .u64 e, a64, b64;\n\t"
        "mov.b64 {yl, yh}, %1;\n\t"
        "mov.b64 {vl, vh}, %2;\n\t"
        "mov.b64 {wl, wh}, %3;\n\t"
        "mov.b64 {nl, nh}, %4;\n\t"
        "mul.hi.u32 a, yh, wl;\n\t"
        "mul.hi.u32 b, yl, wh;\n\t"
        "cvt.u64.u32 a64, a;\n\t"
        "cvt.u64.u32 b64, b;\n\t"
        "mad.wide.u32 e, yh, wh, a64;\n\t"
        "add.u64 e, e, b64;\n\t"
        "mov.b64 {el, eh}, e;\n\t"
        "mul.wide.u32 %0, yl, vl;\n\t"
        "mad.wide.u32 %0, el, nl, %0;\n\t"
        "mov.b64 {rl, rh}, %0;\n\t"
        "mad.lo.u32 rh, yh, vl, rh;\n\t"
        "mad.lo.u32 rh, yl, vh, rh;\n\t"
        "mad.lo.u32 rh, eh, nl, rh;\n\t"
        "mad.lo.u32 rh, el, nh, rh;\n\t"
        "mov.b64 %0, {rl, rh};\n\t}"
        : "=l"(r)
        : "l"(y), "l"(w.value), "l"(w.quotient), "l"(negQ));
    return r;
  }
  __device__ __forceinline__ uint64_t belowBound(uint64_t x) const {
    return subtractIfAtLeast(x, bound);
  }
};

/// A forward value (below 2B) as a canonical residue.
template <typename Word>
__device__ __forceinline__ Word canonical(Word x, const LazyModulus<Word> &m) {
  x = m.belowBound(x);
  x = subtractIfAtLeast(x, 2 * m.q);
  return subtractIfAtLeast(x, m.q);
}

/// canonical for 64-bit words by the estimated multiple of q (makeNttLimb),
/// then q if it fell one short: ten instructions where canonical takes
/// fifteen, but four of them on the multiply pipe. ntt_products' row step
/// gains by it (HMult up to 1% faster); the plain forward row step, whose
/// multiply pipe is busier, ran 4% slower (docs/experiments.md).
__device__ __forceinline__ uint64_t
canonicalByQuotient(uint64_t x, const LazyModulus<uint64_t> &m) {
  // x - k q as x + k (2^64 - q), k being below 8.
  return subtractIfAtLeast(x + uint64_t(m.quotientEstimate(x)) * m.negQ, m.q);
}

// Butterflies --------------------------------------------------------------

/// Cooley-Tukey: (x, y) -> (x + w y, x - w y), given v = w y below B.
template <typename Word>
__device__ __forceinline__ void forwardButterfly(Word &x, Word &y, Word v,
                                                 const LazyModulus<Word> &m) {
  const Word u = m.belowBound(x);
  x = u + v;
  y = u - v + m.bound;
}

/// Gentleman-Sande, first half: x + y (below B) and the difference x - y + B
/// that the twiddle multiplies.
template <typename Word>
__device__ __forceinline__ Word
inverseButterflySum(Word &x, Word y, const LazyModulus<Word> &m) {
  const Word difference = x - y + m.bound;
  x = m.belowBound(x + y);
  return difference;
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_NTT_ARITHMETIC_CUH
