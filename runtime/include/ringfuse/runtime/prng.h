//===- prng.h - ChaCha20 samplers for keys, masks and errors ----*- C++ -*-===//
//
// All randomness of the runtime is a keyed function of (seed, domain, index):
//
//   coefficientBlock(key, domain, round, index)
//     = ChaCha20 block (RFC 8439) with key = the 32-byte seed,
//       block counter = index,
//       nonce = (low 32 bits of domain, high 32 bits of domain, round).
//
// A sampling call (one polynomial) gets a fresh `domain` from the host Prng and
// coefficient `index` is sampled from its own blocks only, so every coefficient
// can be drawn independently: one GPU thread per coefficient, in any order,
// with the same result as the CPU loop. `round` counts rejection-sampling
// retries and is nonzero only when every candidate of a block was rejected.
//
// Everything marked RF_HOST_DEVICE is plain integer code (no exceptions, no
// containers, no <random>) so that nvcc compiles the same bodies for the GPU
// and produces bit-identical samples. The host-only part (OS seeding, the Prng
// that hands out domains, whole-polynomial loops) is declared at the end and
// defined in runtime/core/prng.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_PRNG_H
#define RINGFUSE_RUNTIME_PRNG_H

#include "ringfuse/runtime/config.h"
#include "ringfuse/runtime/gaussian_cdt.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace ringfuse::runtime {

//===----------------------------------------------------------------------===//
// ChaCha20 (RFC 8439, section 2)
//===----------------------------------------------------------------------===//

/// A 256-bit ChaCha20 key as the eight little-endian words of the 32 key bytes
/// (RFC 8439 section 2.3: state words 4..11).
struct ChaChaKey {
  uint32_t words[8];
};

/// The 96-bit nonce as three little-endian words (state words 13..15).
struct ChaChaNonce {
  uint32_t words[3];
};

/// One 64-byte keystream block as sixteen words; byte 4*i + j of the
/// serialised block is bits 8*j .. 8*j+7 of words[i].
struct ChaChaBlock {
  uint32_t words[16];
};

RF_HOST_DEVICE inline uint32_t rotateLeft32(uint32_t value, int shift) {
  return (value << shift) | (value >> (32 - shift));
}

/// RFC 8439 section 2.1.
RF_HOST_DEVICE inline void chachaQuarterRound(uint32_t &a, uint32_t &b,
                                              uint32_t &c, uint32_t &d) {
  a += b;
  d ^= a;
  d = rotateLeft32(d, 16);
  c += d;
  b ^= c;
  b = rotateLeft32(b, 12);
  a += b;
  d ^= a;
  d = rotateLeft32(d, 8);
  c += d;
  b ^= c;
  b = rotateLeft32(b, 7);
}

/// The ChaCha20 block function, RFC 8439 section 2.3: 20 rounds (10 column +
/// diagonal double rounds), then the input state is added word by word.
RF_HOST_DEVICE inline ChaChaBlock chacha20Block(const ChaChaKey &key,
                                                uint32_t blockCounter,
                                                const ChaChaNonce &nonce) {
  // "expand 32-byte k" as little-endian words.
  const uint32_t constants[4] = {0x61707865u, 0x3320646eu, 0x79622d32u,
                                 0x6b206574u};
  uint32_t input[16];
  for (int i = 0; i < 4; ++i)
    input[i] = constants[i];
  for (int i = 0; i < 8; ++i)
    input[4 + i] = key.words[i];
  input[12] = blockCounter;
  for (int i = 0; i < 3; ++i)
    input[13 + i] = nonce.words[i];

  ChaChaBlock block;
  for (int i = 0; i < 16; ++i)
    block.words[i] = input[i];
  uint32_t *x = block.words;
  for (int doubleRound = 0; doubleRound < 10; ++doubleRound) {
    chachaQuarterRound(x[0], x[4], x[8], x[12]);
    chachaQuarterRound(x[1], x[5], x[9], x[13]);
    chachaQuarterRound(x[2], x[6], x[10], x[14]);
    chachaQuarterRound(x[3], x[7], x[11], x[15]);
    chachaQuarterRound(x[0], x[5], x[10], x[15]);
    chachaQuarterRound(x[1], x[6], x[11], x[12]);
    chachaQuarterRound(x[2], x[7], x[8], x[13]);
    chachaQuarterRound(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i)
    block.words[i] += input[i];
  return block;
}

//===----------------------------------------------------------------------===//
// The keyed random function over coefficient indices
//===----------------------------------------------------------------------===//

/// The block from which coefficient `index` of sampling call `domain` draws
/// its candidates in rejection round `round` (see the file comment). Distinct
/// (domain, round, index) give distinct ChaCha20 inputs, hence independent
/// blocks as long as ChaCha20 is a PRF.
RF_HOST_DEVICE inline ChaChaBlock coefficientBlock(const ChaChaKey &key,
                                                   uint64_t domain,
                                                   uint32_t round,
                                                   uint32_t index) {
  ChaChaNonce nonce = {{static_cast<uint32_t>(domain),
                        static_cast<uint32_t>(domain >> 32), round}};
  return chacha20Block(key, index, nonce);
}

/// Candidate i of a block as a little-endian u64 (bytes 8i .. 8i+7).
RF_HOST_DEVICE inline uint64_t blockWord64(const ChaChaBlock &block, int i) {
  return static_cast<uint64_t>(block.words[2 * i]) |
         (static_cast<uint64_t>(block.words[2 * i + 1]) << 32);
}

/// Byte i of the serialised block (RFC 8439 little-endian serialisation).
RF_HOST_DEVICE inline uint32_t blockByte(const ChaChaBlock &block, int i) {
  return (block.words[i / 4] >> (8 * (i % 4))) & 0xffu;
}

//===----------------------------------------------------------------------===//
// Per-coefficient samplers
//===----------------------------------------------------------------------===//

/// Uniform over [0, modulus), exactly: a candidate x (a uniform u64) is
/// accepted iff x < modulus * floor(2^64 / modulus), the largest multiple of
/// the modulus that fits, so each residue has the same number of preimages
/// (no modulo bias). Any modulus in [2, 2^64 - 1] works. A candidate is
/// rejected with probability (2^64 mod modulus) / 2^64 < 1/2 and a block holds
/// 8 of them, so a second round happens with probability < 2^-8 even for the
/// worst modulus (just above 2^63), and almost never for NTT primes.
RF_HOST_DEVICE inline uint64_t sampleUniformModulo(const ChaChaKey &key,
                                                   uint64_t domain,
                                                   uint32_t index,
                                                   uint64_t modulus) {
  // 2^64 mod modulus, computed in 64 bits as (2^64 - modulus) mod modulus.
  const uint64_t rejectedCount = (uint64_t{0} - modulus) % modulus;
  // Accept x < 2^64 - rejectedCount, written so that it cannot overflow.
  const uint64_t largestAccepted = UINT64_MAX - rejectedCount;
  for (uint32_t round = 0;; ++round) {
    const ChaChaBlock block = coefficientBlock(key, domain, round, index);
    for (int i = 0; i < 8; ++i) {
      const uint64_t candidate = blockWord64(block, i);
      if (candidate <= largestAccepted)
        return candidate % modulus;
    }
  }
}

/// Uniform over {-1, 0, 1}: the 64 bytes of a block are candidates, a byte
/// b < 255 is accepted (255 = 3 * 85 values, so b mod 3 is exactly uniform)
/// and gives (b mod 3) - 1. Whether a byte is rejected is independent of the
/// result, so the branch reveals nothing about the secret.
RF_HOST_DEVICE inline int sampleTernary(const ChaChaKey &key, uint64_t domain,
                                        uint32_t index) {
  for (uint32_t round = 0;; ++round) {
    const ChaChaBlock block = coefficientBlock(key, domain, round, index);
    for (int i = 0; i < 64; ++i) {
      const uint32_t byte = blockByte(block, i);
      if (byte < 255)
        return static_cast<int>(byte % 3) - 1;
    }
  }
}

/// The inversion step of sampleGaussian: maps a uniform u64 to
/// -kBound + #{k : u >= T_k} over the table in gaussian_cdt.h. Every threshold
/// is compared (no early exit) and each comparison is added as a 0/1 value, so
/// neither the time nor any branch depends on the (secret) result.
RF_HOST_DEVICE inline int gaussianFromUniformWord(uint64_t u) {
  const GaussianCdt table = gaussianCdt();
  int thresholdsPassed = 0;
#ifdef __CUDA_ARCH__ // only the device pass knows the pragma
#pragma unroll
#endif
  for (int k = 0; k < GaussianCdt::kThresholdCount; ++k)
    thresholdsPassed += static_cast<int>(u >= table.thresholds[k]);
  return thresholdsPassed - GaussianCdt::kBound;
}

/// Discrete Gaussian with sigma = GaussianCdt::kSigma (3.19) truncated to
/// |x| <= GaussianCdt::kBound (19, i.e. 6 sigma as in SEAL and the HE
/// Standard), by inversion of the first little-endian u64 of the block. One
/// block, never a retry. Each probability is a multiple of 2^-64, within
/// 2^-64 of the exact one (gaussian_cdt.h states the resulting error).
RF_HOST_DEVICE inline int sampleGaussian(const ChaChaKey &key, uint64_t domain,
                                         uint32_t index) {
  const ChaChaBlock block = coefficientBlock(key, domain, /*round=*/0, index);
  return gaussianFromUniformWord(blockWord64(block, 0));
}

//===----------------------------------------------------------------------===//
// Host side (runtime/core/prng.cpp)
//===----------------------------------------------------------------------===//
//
// Plain declarations: nvcc can include them, only host code calls them.

/// The 32-byte secret every sample is derived from.
struct Seed {
  std::array<uint8_t, 32> bytes;

  /// 32 bytes from the kernel CSPRNG (getrandom(2)); throws Error if the OS
  /// cannot provide them.
  static Seed fromOs();
  /// Exactly 32 bytes (a stored seed, a test vector); throws Error otherwise.
  static Seed fromBytes(const uint8_t *data, size_t length);
  /// The bytes as the ChaCha20 key (little-endian words, RFC 8439 2.3).
  ChaChaKey key() const;
};

/// Hands out sampling domains under one seed. Domains count up from 0, so two
/// Prngs built from the same Seed produce the same samples call for call.
/// Not thread-safe: one Prng per thread, or hand domains out under a lock.
class Prng {
public:
  /// Seeded from the OS.
  Prng();
  explicit Prng(const Seed &seed);
  static Prng fromOs();

  /// The domain for the next sampling call (0, 1, 2, ...).
  uint64_t nextDomain() { return nextDomain_++; }
  /// The domain nextDomain() gives next, without taking it.
  uint64_t peekDomain() const { return nextDomain_; }
  /// A copy that hands out domains from `domain` on: samples are functions
  /// of (seed, domain, index), so a batch can give instance k the domains
  /// the k-th of a sequence of single calls would have drawn, and run the
  /// instances in any order.
  Prng startingAt(uint64_t domain) const {
    Prng copy = *this;
    copy.nextDomain_ = domain;
    return copy;
  }
  /// Skips `count` domains (handed to copies).
  void skip(uint64_t count) { nextDomain_ += count; }
  const ChaChaKey &key() const { return key_; }
  const Seed &seed() const { return seed_; }

private:
  Seed seed_;
  ChaChaKey key_;
  uint64_t nextDomain_ = 0;
};

/// Uniform residues of an RNS polynomial, limb-major: out[i * n + j] is
/// coefficient j modulo moduli[i], drawn with index i * n + j in one fresh
/// domain. Throws Error if a modulus is < 2 or limbs * n exceeds 2^32 (the
/// index is a 32-bit ChaCha20 block counter).
void sampleUniformPolynomial(Prng &prng, const uint64_t *moduli, size_t limbs,
                             size_t n, uint64_t *out);
/// n coefficients in {-1, 0, 1} (secret keys, encryption masks), one domain.
void sampleTernaryPolynomial(Prng &prng, size_t n, int8_t *out);
/// n coefficients of the truncated discrete Gaussian (errors), one domain.
void sampleGaussianPolynomial(Prng &prng, size_t n, int8_t *out);

namespace detail {
/// getrandom(2)'s signature, so tests can substitute a source that is
/// interrupted or returns short reads.
using EntropySource = ssize_t (*)(void *buffer, size_t length, unsigned flags);

/// Fills out[0 .. length) from `source`, retrying on EINTR and continuing
/// after short reads; throws Error on any other failure.
void fillFromEntropySource(uint8_t *out, size_t length, EntropySource source);
} // namespace detail

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PRNG_H
