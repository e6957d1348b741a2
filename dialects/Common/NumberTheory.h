//===- NumberTheory.h - integer facts the verifiers check ------*- C++ -*-===//
//
// Small, exact number-theoretic predicates shared by the dialect verifiers:
// RNS moduli must be prime (or pairwise coprime) and NTT-friendly.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H
#define RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H

#include <cstdint>

namespace ringfuse {

inline uint64_t mulMod(uint64_t a, uint64_t b, uint64_t m) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(a) * b % m);
}

inline uint64_t powMod(uint64_t base, uint64_t exp, uint64_t m) {
  uint64_t result = 1 % m;
  base %= m;
  for (; exp; exp >>= 1) {
    if (exp & 1)
      result = mulMod(result, base, m);
    base = mulMod(base, base, m);
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
    uint64_t x = powMod(a, d, n);
    if (x == 1 || x == n - 1)
      continue;
    bool composite = true;
    for (unsigned r = 1; r < s && composite; ++r) {
      x = mulMod(x, x, n);
      composite = x != n - 1;
    }
    if (composite)
      return false;
  }
  return true;
}

/// Largest ring degree ringfuse supports (the HE Standard tables stop here).
inline constexpr uint64_t kMaxRingDegree = uint64_t(1) << 17;

inline bool isValidRingDegree(uint64_t n) {
  return n >= 2 && n <= kMaxRingDegree && (n & (n - 1)) == 0;
}

/// Batching (one plaintext slot per root of X^N + 1 mod t) needs a prime t
/// with t = 1 (mod 2N).
inline bool supportsBatching(uint64_t t, uint64_t n) {
  return isPrime(t) && t % (2 * n) == 1;
}

} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H
