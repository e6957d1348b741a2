//===- number_theory.h - exact 64-bit number theory ---------------*- C++ -*-===//
//
// Header-only facts about 64-bit integers: modular powers, primality, roots of
// unity. Shared by the runtime and the compiler's verifiers, so that both agree
// on what an NTT-friendly prime is.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_NUMBER_THEORY_H
#define RINGFUSE_RUNTIME_NUMBER_THEORY_H

#include "ringfuse/runtime/config.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime {

using uint128_t = unsigned __int128;

inline uint64_t mulModSlow(uint64_t a, uint64_t b, uint64_t m) {
  return static_cast<uint64_t>(static_cast<uint128_t>(a) * b % m);
}

inline uint64_t powModSlow(uint64_t base, uint64_t exp, uint64_t m) {
  uint64_t result = 1 % m;
  base %= m;
  for (; exp; exp >>= 1) {
    if (exp & 1)
      result = mulModSlow(result, base, m);
    base = mulModSlow(base, base, m);
  }
  return result;
}

/// Deterministic Miller-Rabin: the first twelve primes as witnesses decide
/// primality for every n < 2^64 (Sorenson and Webster, 2015).
inline bool isPrime(uint64_t n) {
  static constexpr uint64_t witnesses[] = {2,  3,  5,  7,  11, 13,
                                           17, 19, 23, 29, 31, 37};
  if (n < 2)
    return false;
  for (uint64_t p : witnesses)
    if (n % p == 0)
      return n == p;
  uint64_t d = n - 1;
  unsigned s = 0;
  for (; (d & 1) == 0; d >>= 1)
    ++s;
  for (uint64_t a : witnesses) {
    uint64_t x = powModSlow(a, d, n);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s && composite; ++r) {
      x = mulModSlow(x, x, n);
      composite = x != n - 1;
    }
    if (composite)
      return false;
  }
  return true;
}

/// Inverse of a modulo m (gcd(a, m) = 1, m < 2^63), by extended Euclid.
inline uint64_t invertModSlow(uint64_t a, uint64_t m) {
  int64_t oldR = static_cast<int64_t>(a % m), r = static_cast<int64_t>(m);
  __int128 oldS = 1, s = 0;
  while (r != 0) {
    int64_t q = oldR / r;
    int64_t nextR = oldR - q * r;
    oldR = r;
    r = nextR;
    __int128 nextS = oldS - static_cast<__int128>(q) * s;
    oldS = s;
    s = nextS;
  }
  // oldR is gcd(a, m) = 1 and oldS * a = 1 (mod m).
  __int128 result = oldS % static_cast<__int128>(m);
  if (result < 0)
    result += m;
  return static_cast<uint64_t>(result);
}

/// Up to `count` primes = 1 mod `congruence`, the largest below 2^bits first
/// and none at or below 2^(bits-1), skipping those `excluded(p)` names;
/// deterministic. Fewer are returned when the range runs out.
template <typename Excluded>
inline std::vector<uint64_t> findPrimesBelow(unsigned bits, size_t count,
                                             uint64_t congruence,
                                             Excluded excluded) {
  const uint64_t top = uint64_t(1) << bits, bottom = uint64_t(1) << (bits - 1);
  std::vector<uint64_t> primes;
  for (uint64_t p = (top - 1) / congruence * congruence + 1;
       primes.size() < count && p > bottom; p -= congruence)
    if (p < top && isPrime(p) && !excluded(p))
      primes.push_back(p);
  return primes;
}

/// Largest ring degree ringfuse supports (the HE security tables stop here).
inline constexpr uint64_t kMaxRingDegree = uint64_t(1) << 17;

/// Ciphertext and special primes are below 2^kMaxRnsPrimeBits: the GPU NTT
/// keeps 64-bit lazy values below 8q (cuda/ntt.cu).
inline constexpr unsigned kMaxRnsPrimeBits = 61;

/// log2 of a power of two (of the next one up otherwise); host and device.
RF_HOST_DEVICE constexpr unsigned log2Exact(uint64_t powerOfTwo) {
  unsigned log = 0;
  while ((uint64_t(1) << log) < powerOfTwo)
    ++log;
  return log;
}

inline bool isValidRingDegree(uint64_t n) {
  return n >= 2 && n <= kMaxRingDegree && (n & (n - 1)) == 0;
}

/// Batching (one plaintext slot per root of X^N + 1 mod t) needs a prime t
/// with t = 1 (mod 2N).
inline bool supportsBatching(uint64_t t, uint64_t n) {
  return isPrime(t) && t % (2 * n) == 1;
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_NUMBER_THEORY_H
