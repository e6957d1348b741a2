//===- modarith.h - 64-bit modular arithmetic ---------------------*- C++ -*-===//
//
// Every modulus used by ringfuse is below 2^63 (RNS primes below 2^62, the
// plaintext modulus below 2^63), which leaves room for the one conditional
// subtraction of Barrett and Shoup reduction.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_MODARITH_H
#define RINGFUSE_RUNTIME_MODARITH_H

#include "ringfuse/runtime/config.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/program_abi.h"

#include <cstddef>
#include <cstdint>

namespace ringfuse::runtime {

/// A modulus q with its Barrett constant floor((2^128 - 1) / q).
struct Modulus {
  uint64_t value = 0;
  uint64_t ratioHigh = 0; // the constant's upper 64 bits
  uint64_t ratioLow = 0;  // and lower 64 bits

  Modulus() = default;
  RF_HOST_DEVICE explicit Modulus(uint64_t q) : value(q) {
    uint128_t ratio = ~uint128_t(0) / q;
    ratioHigh = static_cast<uint64_t>(ratio >> 64);
    ratioLow = static_cast<uint64_t>(ratio);
  }
  /// A program's record of it (RfKernels::moduli): no division.
  RF_HOST_DEVICE explicit Modulus(const RfModulus &m)
      : value(m.value), ratioHigh(m.ratio_high), ratioLow(m.ratio_low) {}

  RfModulus record() const { return {value, ratioHigh, ratioLow}; }
};

// The same words as a program's record, so that one device table of a
// basis's moduli serves both RfKernels::moduli and the library kernels.
static_assert(sizeof(Modulus) == sizeof(RfModulus) &&
                  offsetof(Modulus, value) == offsetof(RfModulus, value) &&
                  offsetof(Modulus, ratioHigh) ==
                      offsetof(RfModulus, ratio_high) &&
                  offsetof(Modulus, ratioLow) == offsetof(RfModulus, ratio_low),
              "Modulus must be laid out as RfModulus");

/// x mod q for any 128-bit x. The estimated quotient floor(x * ratio / 2^128)
/// is the true one or one less (ratio is below 2^128/q by at most 1 and
/// x < 2^128), so one conditional subtraction finishes; only the low 64 bits
/// of the quotient matter because the remainder fits in 64 bits.
RF_HOST_DEVICE inline uint64_t reduce128(uint128_t x, const Modulus &m) {
  uint64_t x0 = static_cast<uint64_t>(x), x1 = static_cast<uint64_t>(x >> 64);
  uint128_t p00 = static_cast<uint128_t>(x0) * m.ratioLow;
  uint128_t p01 = static_cast<uint128_t>(x0) * m.ratioHigh;
  uint128_t p10 = static_cast<uint128_t>(x1) * m.ratioLow;
  uint128_t middle = (p00 >> 64) + static_cast<uint64_t>(p01) +
                     static_cast<uint64_t>(p10);
  uint64_t quotient = x1 * m.ratioHigh + static_cast<uint64_t>(p01 >> 64) +
                      static_cast<uint64_t>(p10 >> 64) +
                      static_cast<uint64_t>(middle >> 64);
  uint64_t r = x0 - quotient * m.value;
  return r >= m.value ? r - m.value : r;
}

/// floor(a * b / 2^64).
RF_HOST_DEVICE inline uint64_t mulHigh(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<uint128_t>(a) * b) >> 64);
#endif
}

/// The moduli reduce128Quick takes: below 2^62 (every RNS prime, and the
/// plaintext modulus: Context refuses larger ones).
inline constexpr uint64_t kQuickReductionBound = uint64_t(1) << 62;

/// reduce128 with a cheaper quotient, for the GPU's sums of products, for
/// q < kQuickReductionBound (the CUDA driver refuses plans with larger
/// moduli: cuda::productsPerSum). The low-by-low partial product and the
/// carries out of the middle word are dropped, so the estimate falls short
/// by at most 3 and x - estimate q is below 4q, which fits a word; two
/// conditional subtractions finish. No branch for larger moduli: it kept the
/// two coefficients' reductions of a dot product from interleaving (HMult
/// 1.8% slower at logN 16).
RF_HOST_DEVICE inline uint64_t reduce128Quick(uint128_t x, const Modulus &m) {
  const uint64_t x0 = static_cast<uint64_t>(x),
                 x1 = static_cast<uint64_t>(x >> 64);
  const uint64_t quotient =
      x1 * m.ratioHigh + mulHigh(x1, m.ratioLow) + mulHigh(x0, m.ratioHigh);
  uint64_t r = x0 - quotient * m.value;
  if (r >= 2 * m.value)
    r -= 2 * m.value;
  return r >= m.value ? r - m.value : r;
}

RF_HOST_DEVICE inline uint64_t reduce(uint64_t x, const Modulus &m) {
  return reduce128(x, m);
}

RF_HOST_DEVICE inline uint64_t mulMod(uint64_t a, uint64_t b,
                                      const Modulus &m) {
  return reduce128(static_cast<uint128_t>(a) * b, m);
}

/// Operands in [0, q).
RF_HOST_DEVICE inline uint64_t addMod(uint64_t a, uint64_t b, uint64_t q) {
  uint64_t s = a + b;
  return s >= q ? s - q : s;
}

RF_HOST_DEVICE inline uint64_t subMod(uint64_t a, uint64_t b, uint64_t q) {
  return a >= b ? a - b : a + q - b;
}

RF_HOST_DEVICE inline uint64_t negateMod(uint64_t a, uint64_t q) {
  return a == 0 ? 0 : q - a;
}

/// The centered representative of a residue r mod m: r, or r - m past m/2.
RF_HOST_DEVICE inline int64_t centered(uint64_t r, uint64_t m) {
  return r > m / 2 ? -static_cast<int64_t>(m - r) : static_cast<int64_t>(r);
}

/// v mod q for a signed v with |v| < 2^63.
RF_HOST_DEVICE inline uint64_t signedResidue(int64_t v, const Modulus &m) {
  return v < 0 ? negateMod(reduce(static_cast<uint64_t>(-v), m), m.value)
               : reduce(static_cast<uint64_t>(v), m);
}

/// A constant w with its Shoup companion floor(w * 2^64 / q): multiplying by
/// it costs two multiplications and no division.
struct ShoupConstant {
  uint64_t value = 0;
  uint64_t quotient = 0;

  ShoupConstant() = default;
  RF_HOST_DEVICE ShoupConstant(uint64_t w, uint64_t q)
      : value(w),
        quotient(static_cast<uint64_t>((static_cast<uint128_t>(w) << 64) / q)) {}
};

/// x * w mod q in [0, 2q), for any 64-bit x (Harvey's lazy form).
RF_HOST_DEVICE inline uint64_t mulShoupLazy(uint64_t x, ShoupConstant w,
                                            uint64_t q) {
  uint64_t estimate =
      static_cast<uint64_t>((static_cast<uint128_t>(x) * w.quotient) >> 64);
  return x * w.value - estimate * q;
}

RF_HOST_DEVICE inline uint64_t mulShoup(uint64_t x, ShoupConstant w,
                                        uint64_t q) {
  uint64_t r = mulShoupLazy(x, w, q);
  return r >= q ? r - q : r;
}

/// The Shoup constant of a word type, for code templated on the word (64-bit
/// words only: ShoupConstant).
template <typename Word> struct ShoupFor;
template <> struct ShoupFor<uint64_t> { using type = ShoupConstant; };
template <typename Word> using ShoupOfWord = typename ShoupFor<Word>::type;

RF_HOST_DEVICE inline uint64_t powMod(uint64_t base, uint64_t exponent,
                                      const Modulus &m) {
  uint64_t result = 1 % m.value;
  base = reduce(base, m);
  for (; exponent; exponent >>= 1) {
    if (exponent & 1)
      result = mulMod(result, base, m);
    base = mulMod(base, base, m);
  }
  return result;
}

/// A signed small integer (a noise or ternary coefficient) as a residue mod q.
RF_HOST_DEVICE inline uint64_t liftSigned(int64_t x, uint64_t q) {
  return x >= 0 ? static_cast<uint64_t>(x) % q
                : q - 1 - static_cast<uint64_t>(-(x + 1)) % q;
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_MODARITH_H
