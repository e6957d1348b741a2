//===- prng_test.cpp - ChaCha20, samplers and their statistics ------------===//
//
// Known-answer tests pin ChaCha20 to RFC 8439; the samplers are then checked
// for their exact construction (which block, which candidate) and for their
// distributions. Statistical tests use fixed seeds, so they cannot flake, and
// 6-sigma bounds (p ~ 1e-9 for a correct sampler), while the defects they are
// meant to catch (modulo bias, p(0) = 1/2, sigma = 4) miss them by hundreds
// of standard errors.
//
//===----------------------------------------------------------------------===//

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/gaussian_cdt.h"
#include "ringfuse/runtime/prng.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

using namespace ringfuse::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::vector<uint8_t> bytesFromHex(const std::string &hex) {
  std::vector<uint8_t> bytes;
  std::string digits;
  for (char c : hex)
    if (std::isxdigit(static_cast<unsigned char>(c)))
      digits += c;
  for (size_t i = 0; i + 1 < digits.size(); i += 2)
    bytes.push_back(
        static_cast<uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  return bytes;
}

ChaChaKey keyFromHex(const std::string &hex) {
  std::vector<uint8_t> bytes = bytesFromHex(hex);
  return Seed::fromBytes(bytes.data(), bytes.size()).key();
}

ChaChaNonce nonceFromHex(const std::string &hex) {
  std::vector<uint8_t> bytes = bytesFromHex(hex);
  EXPECT_EQ(bytes.size(), 12u);
  ChaChaNonce nonce;
  for (int i = 0; i < 3; ++i)
    nonce.words[i] = static_cast<uint32_t>(bytes[4 * i]) |
                     (static_cast<uint32_t>(bytes[4 * i + 1]) << 8) |
                     (static_cast<uint32_t>(bytes[4 * i + 2]) << 16) |
                     (static_cast<uint32_t>(bytes[4 * i + 3]) << 24);
  return nonce;
}

std::vector<uint8_t> serialize(const ChaChaBlock &block) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 64; ++i)
    bytes.push_back(static_cast<uint8_t>(blockByte(block, i)));
  return bytes;
}

/// RFC 8439 section 2.4: XOR with the keystream of consecutive blocks.
std::vector<uint8_t> chacha20Encrypt(const ChaChaKey &key,
                                     uint32_t initialCounter,
                                     const ChaChaNonce &nonce,
                                     const std::vector<uint8_t> &plaintext) {
  std::vector<uint8_t> ciphertext(plaintext.size());
  for (size_t offset = 0; offset < plaintext.size(); offset += 64) {
    ChaChaBlock block = chacha20Block(
        key, initialCounter + static_cast<uint32_t>(offset / 64), nonce);
    for (size_t i = offset; i < plaintext.size() && i < offset + 64; ++i)
      ciphertext[i] = plaintext[i] ^
                      static_cast<uint8_t>(blockByte(block, int(i - offset)));
  }
  return ciphertext;
}

Seed testSeed(uint8_t salt) {
  uint8_t bytes[32];
  for (int i = 0; i < 32; ++i)
    bytes[i] = static_cast<uint8_t>(0x5a ^ (i * 29) ^ salt);
  return Seed::fromBytes(bytes, sizeof(bytes));
}

/// Upper 6-sigma point of the chi-square distribution with `degrees` degrees
/// of freedom (Wilson-Hilferty: (X/k)^(1/3) is nearly normal), so a correct
/// sampler exceeds it with probability ~ 1e-9.
double chiSquareBound(int degrees) {
  const double z = 6.0;
  const double k = degrees;
  const double t = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - t + z * std::sqrt(t), 3.0);
}

double chiSquare(const std::vector<double> &observed,
                 const std::vector<double> &expected) {
  double statistic = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    const double difference = observed[i] - expected[i];
    statistic += difference * difference / expected[i];
  }
  return statistic;
}

/// Merges neighbouring bins until each expects at least 5 hits (the usual
/// validity condition of the chi-square approximation); a sparse tail at the
/// end is merged into the last full bin.
void poolSparseBins(std::vector<double> &observed,
                    std::vector<double> &expected) {
  std::vector<double> pooledObserved, pooledExpected;
  double pendingObserved = 0, pendingExpected = 0;
  for (size_t i = 0; i < observed.size(); ++i) {
    pendingObserved += observed[i];
    pendingExpected += expected[i];
    if (pendingExpected >= 5) {
      pooledObserved.push_back(pendingObserved);
      pooledExpected.push_back(pendingExpected);
      pendingObserved = pendingExpected = 0;
    }
  }
  pooledObserved.back() += pendingObserved;
  pooledExpected.back() += pendingExpected;
  observed = pooledObserved;
  expected = pooledExpected;
}

struct Moments {
  long double mean;
  long double variance;
};

template <typename T> Moments momentsOf(const T *values, size_t count) {
  long double sum = 0;
  for (size_t i = 0; i < count; ++i)
    sum += static_cast<long double>(values[i]);
  const long double mean = sum / count;
  long double squares = 0;
  for (size_t i = 0; i < count; ++i) {
    const long double deviation = static_cast<long double>(values[i]) - mean;
    squares += deviation * deviation;
  }
  return {mean, squares / (count - 1)};
}

/// The target of sampleGaussian, from the definition rather than the table:
/// P(x) proportional to exp(-x^2 / (2 sigma^2)) on [-19, 19].
constexpr double kExpectedSigma = 3.19;
constexpr int kExpectedBound = 19;

std::vector<long double> truncatedGaussianProbabilities() {
  std::vector<long double> probabilities;
  long double total = 0;
  for (int x = -kExpectedBound; x <= kExpectedBound; ++x) {
    const long double weight = std::exp(
        -static_cast<long double>(x) * x /
        (2.0L * kExpectedSigma * kExpectedSigma));
    probabilities.push_back(weight);
    total += weight;
  }
  for (long double &probability : probabilities)
    probability /= total;
  return probabilities;
}

constexpr long double kTwoTo64 = 18446744073709551616.0L;

//===----------------------------------------------------------------------===//
// ChaCha20 known answers (RFC 8439)
//===----------------------------------------------------------------------===//

TEST(ChaCha20, QuarterRoundMatchesRfc8439Section2_1_1) {
  uint32_t a = 0x11111111, b = 0x01020304, c = 0x9b8d6f43, d = 0x01234567;
  chachaQuarterRound(a, b, c, d);
  EXPECT_EQ(a, 0xea2a92f4u);
  EXPECT_EQ(b, 0xcb1cf8ceu);
  EXPECT_EQ(c, 0x4581472eu);
  EXPECT_EQ(d, 0x5881c4bbu);
}

const char *const kRfcKey = "000102030405060708090a0b0c0d0e0f"
                            "101112131415161718191a1b1c1d1e1f";

TEST(ChaCha20, BlockMatchesRfc8439Section2_3_2) {
  ChaChaBlock block = chacha20Block(keyFromHex(kRfcKey), 1,
                                    nonceFromHex("000000090000004a00000000"));
  const uint32_t expectedWords[16] = {
      0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3,
      0xc7f4d1c7, 0x0368c033, 0x9aaa2204, 0x4e6cd4c3,
      0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
      0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2};
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(block.words[i], expectedWords[i]) << "word " << i;
  EXPECT_EQ(serialize(block),
            bytesFromHex("10 f1 e7 e4 d1 3b 59 15 50 0f dd 1f a3 20 71 c4"
                         "c7 d1 f4 c7 33 c0 68 03 04 22 aa 9a c3 d4 6c 4e"
                         "d2 82 64 46 07 9f aa 09 14 c2 d7 05 d9 8b 02 a2"
                         "b5 12 9c d1 de 16 4e b9 cb d0 83 e8 a2 50 3c 4e"));
}

TEST(ChaCha20, KeystreamEncryptsRfc8439Section2_4_2Sunscreen) {
  const std::string text =
      "Ladies and Gentlemen of the class of '99: If I could offer you only "
      "one tip for the future, sunscreen would be it.";
  std::vector<uint8_t> plaintext(text.begin(), text.end());
  ASSERT_EQ(plaintext.size(), 114u);
  EXPECT_EQ(chacha20Encrypt(keyFromHex(kRfcKey), 1,
                            nonceFromHex("000000000000004a00000000"),
                            plaintext),
            bytesFromHex("6e 2e 35 9a 25 68 f9 80 41 ba 07 28 dd 0d 69 81"
                         "e9 7e 7a ec 1d 43 60 c2 0a 27 af cc fd 9f ae 0b"
                         "f9 1b 65 c5 52 47 33 ab 8f 59 3d ab cd 62 b3 57"
                         "16 39 d6 24 e6 51 52 ab 8f 53 0c 35 9f 08 61 d8"
                         "07 ca 0d bf 50 0d 6a 61 56 a3 8e 08 8a 22 b6 5e"
                         "52 bc 51 4d 16 cc f8 06 81 8c e9 1a b7 79 37 36"
                         "5a f9 0b bf 74 a3 5b e6 b4 0b 8e ed f2 78 5e 42"
                         "87 4d"));
}

struct AppendixVector {
  const char *key;
  uint32_t counter;
  const char *nonce;
  const char *keystream;
};

// RFC 8439 appendix A.1, test vectors 1-5.
const AppendixVector kAppendixA1[] = {
    {"0000000000000000000000000000000000000000000000000000000000000000", 0,
     "000000000000000000000000",
     "76 b8 e0 ad a0 f1 3d 90 40 5d 6a e5 53 86 bd 28 bd d2 19 b8 a0 8d ed 1a"
     "a8 36 ef cc 8b 77 0d c7 da 41 59 7c 51 57 48 8d 77 24 e0 3f b8 d8 4a 37"
     "6a 43 b8 f4 15 18 a1 1c c3 87 b6 69 b2 ee 65 86"},
    {"0000000000000000000000000000000000000000000000000000000000000000", 1,
     "000000000000000000000000",
     "9f 07 e7 be 55 51 38 7a 98 ba 97 7c 73 2d 08 0d cb 0f 29 a0 48 e3 65 69"
     "12 c6 53 3e 32 ee 7a ed 29 b7 21 76 9c e6 4e 43 d5 71 33 b0 74 d8 39 d5"
     "31 ed 1f 28 51 0a fb 45 ac e1 0a 1f 4b 79 4d 6f"},
    {"0000000000000000000000000000000000000000000000000000000000000001", 1,
     "000000000000000000000000",
     "3a eb 52 24 ec f8 49 92 9b 9d 82 8d b1 ce d4 dd 83 20 25 e8 01 8b 81 60"
     "b8 22 84 f3 c9 49 aa 5a 8e ca 00 bb b4 a7 3b da d1 92 b5 c4 2f 73 f2 fd"
     "4e 27 36 44 c8 b3 61 25 a6 4a dd eb 00 6c 13 a0"},
    {"00ff000000000000000000000000000000000000000000000000000000000000", 2,
     "000000000000000000000000",
     "72 d5 4d fb f1 2e c4 4b 36 26 92 df 94 13 7f 32 8f ea 8d a7 39 90 26 5e"
     "c1 bb be a1 ae 9a f0 ca 13 b2 5a a2 6c b4 a6 48 cb 9b 9d 1b e6 5b 2c 09"
     "24 a6 6c 54 d5 45 ec 1b 73 74 f4 87 2e 99 f0 96"},
    {"0000000000000000000000000000000000000000000000000000000000000000", 0,
     "000000000000000000000002",
     "c2 c6 4d 37 8c d5 36 37 4a e2 04 b9 ef 93 3f cd 1a 8b 22 88 b3 df a4 96"
     "72 ab 76 5b 54 ee 27 c7 8a 97 0e 0e 95 5c 14 f3 a8 8e 74 1b 97 c2 86 f7"
     "5f 8f c2 99 e8 14 83 62 fa 19 8a 39 53 1b ed 6d"},
};

TEST(ChaCha20, BlocksMatchRfc8439AppendixA1) {
  for (size_t i = 0; i < std::size(kAppendixA1); ++i) {
    const AppendixVector &vector = kAppendixA1[i];
    ChaChaBlock block = chacha20Block(keyFromHex(vector.key), vector.counter,
                                      nonceFromHex(vector.nonce));
    EXPECT_EQ(serialize(block), bytesFromHex(vector.keystream))
        << "test vector #" << i + 1;
  }
}

//===----------------------------------------------------------------------===//
// The keyed function and the samplers' construction
//===----------------------------------------------------------------------===//

TEST(CoefficientBlock, IsChaCha20WithIndexAsCounterAndDomainRoundAsNonce) {
  // RFC 2.3.2's nonce words are (0x09000000, 0x4a000000, 0).
  ChaChaBlock block =
      coefficientBlock(keyFromHex(kRfcKey), /*domain=*/0x4a00000009000000ull,
                       /*round=*/0, /*index=*/1);
  EXPECT_EQ(block.words[0], 0xe4e7f110u);
  EXPECT_EQ(block.words[15], 0x4e3c50a2u);
  // Appendix A.1 #5's nonce words are (0, 0, 0x02000000): the round word.
  ChaChaBlock retry = coefficientBlock(keyFromHex(kAppendixA1[4].key), 0,
                                       /*round=*/0x02000000, /*index=*/0);
  EXPECT_EQ(serialize(retry), bytesFromHex(kAppendixA1[4].keystream));
}

TEST(Seed, KeyIsLittleEndianWordsOfTheBytes) {
  ChaChaKey key = keyFromHex(kRfcKey);
  EXPECT_EQ(key.words[0], 0x03020100u);
  EXPECT_EQ(key.words[7], 0x1f1e1d1cu);
}

TEST(Seed, FromBytesRejectsWrongLength) {
  uint8_t bytes[33] = {};
  EXPECT_THROW(Seed::fromBytes(bytes, 31), Error);
  EXPECT_THROW(Seed::fromBytes(bytes, 33), Error);
  EXPECT_THROW(Seed::fromBytes(bytes, 0), Error);
  EXPECT_NO_THROW(Seed::fromBytes(bytes, 32));
  try {
    Seed::fromBytes(bytes, 16);
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("32 bytes; got 16"),
              std::string::npos)
        << error.what();
  }
}

TEST(Seed, FromOsGivesDifferentSeeds) {
  Seed first = Seed::fromOs();
  Seed second = Seed::fromOs();
  EXPECT_NE(first.bytes, second.bytes);
  EXPECT_NE(Prng().seed().bytes, Prng::fromOs().seed().bytes);
}

// Scripted getrandom(2) stand-ins for the retry logic.
int gCallCount = 0;
uint8_t gNextByte = 0;

ssize_t interruptedThenShortReads(void *buffer, size_t length, unsigned) {
  if (gCallCount++ == 0) {
    errno = EINTR;
    return -1;
  }
  const size_t chunk = length < 5 ? length : 5;
  for (size_t i = 0; i < chunk; ++i)
    static_cast<uint8_t *>(buffer)[i] = gNextByte++;
  return static_cast<ssize_t>(chunk);
}

ssize_t failingSource(void *, size_t, unsigned) {
  errno = EIO;
  return -1;
}

ssize_t exhaustedSource(void *, size_t, unsigned) { return 0; }

TEST(Seed, EntropyReadRetriesOnEintrAndShortReads) {
  gCallCount = 0;
  gNextByte = 0;
  uint8_t out[32] = {};
  detail::fillFromEntropySource(out, sizeof(out), interruptedThenShortReads);
  for (int i = 0; i < 32; ++i)
    EXPECT_EQ(out[i], i);
  EXPECT_EQ(gCallCount, 1 + 7); // one EINTR, then ceil(32 / 5) reads
}

TEST(Seed, EntropyReadFailureIsAnError) {
  uint8_t out[32];
  EXPECT_THROW(detail::fillFromEntropySource(out, 32, failingSource), Error);
  EXPECT_THROW(detail::fillFromEntropySource(out, 32, exhaustedSource), Error);
}

TEST(Prng, DomainsCountUpFromZero) {
  Prng prng(testSeed(1));
  EXPECT_EQ(prng.nextDomain(), 0u);
  EXPECT_EQ(prng.nextDomain(), 1u);
  EXPECT_EQ(prng.nextDomain(), 2u);
}

TEST(UniformSampler, TakesFirstAcceptedCandidateModuloTheModulus) {
  const ChaChaKey key = testSeed(2).key();
  const uint64_t modulus = 0xffffffff00000001ull; // rejects only x >= modulus
  for (uint32_t index = 0; index < 100; ++index) {
    const ChaChaBlock block = coefficientBlock(key, 7, 0, index);
    ASSERT_LT(blockWord64(block, 0), modulus); // P(reject) = 2^-32
    EXPECT_EQ(sampleUniformModulo(key, 7, index, modulus),
              blockWord64(block, 0));
    EXPECT_EQ(sampleUniformModulo(key, 7, index, 97),
              blockWord64(block, 0) % 97);
    // A power of two divides 2^64: nothing is ever rejected.
    EXPECT_EQ(sampleUniformModulo(key, 7, index, uint64_t{1} << 32),
              blockWord64(block, 0) & 0xffffffffu);
  }
}

TEST(UniformSampler, SkipsRejectedCandidatesAndRetriesWithTheNextRound) {
  // Just above 2^63, about half of all candidates are rejected.
  const uint64_t modulus = (uint64_t{1} << 63) + 1;
  const uint64_t limit = modulus; // floor(2^64 / modulus) = 1
  const ChaChaKey key = testSeed(3).key();
  bool sawSkippedCandidate = false, sawNextRound = false;
  for (uint32_t index = 0; index < 10000; ++index) {
    uint64_t expected = 0;
    bool found = false;
    for (uint32_t round = 0; !found; ++round) {
      const ChaChaBlock block = coefficientBlock(key, 11, round, index);
      for (int i = 0; i < 8 && !found; ++i) {
        if (blockWord64(block, i) < limit) {
          expected = blockWord64(block, i) % modulus;
          found = true;
          sawSkippedCandidate |= i > 0;
          sawNextRound |= round > 0;
        }
      }
    }
    ASSERT_EQ(sampleUniformModulo(key, 11, index, modulus), expected)
        << "index " << index;
  }
  // Each happens with probability ~1/2 and ~1/256 per index.
  EXPECT_TRUE(sawSkippedCandidate);
  EXPECT_TRUE(sawNextRound);
}

TEST(UniformSampler, LargestModulusStaysInRange) {
  const ChaChaKey key = testSeed(4).key();
  for (uint32_t index = 0; index < 1000; ++index) {
    EXPECT_LT(sampleUniformModulo(key, 0, index, UINT64_MAX), UINT64_MAX);
    EXPECT_LT(sampleUniformModulo(key, 0, index, 2), 2u);
  }
}

TEST(TernarySampler, SkipsByte255) {
  const ChaChaKey key = testSeed(5).key();
  int skipped = 0;
  for (uint32_t index = 0; index < 5000; ++index) {
    const ChaChaBlock block = coefficientBlock(key, 3, 0, index);
    int i = 0;
    while (blockByte(block, i) == 255)
      ++i;
    skipped += i > 0;
    EXPECT_EQ(sampleTernary(key, 3, index),
              static_cast<int>(blockByte(block, i) % 3) - 1);
  }
  EXPECT_GT(skipped, 0); // ~5000 / 256 indices start with byte 255
}

TEST(GaussianSampler, InvertsTheTableAtItsEdges) {
  const GaussianCdt table = gaussianCdt();
  EXPECT_EQ(gaussianFromUniformWord(0), -19);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[0] - 1), -19);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[0]), -18);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[18]), 0);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[19] - 1), 0);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[19]), 1);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[37] - 1), 18);
  EXPECT_EQ(gaussianFromUniformWord(table.thresholds[37]), 19);
  EXPECT_EQ(gaussianFromUniformWord(UINT64_MAX), 19);
}

TEST(GaussianSampler, UsesTheFirstWordOfRoundZero) {
  const ChaChaKey key = testSeed(6).key();
  for (uint32_t index = 0; index < 100; ++index)
    EXPECT_EQ(sampleGaussian(key, 5, index),
              gaussianFromUniformWord(
                  blockWord64(coefficientBlock(key, 5, 0, index), 0)));
}

TEST(GaussianCdtTable, MatchesTheTruncatedGaussianCdf) {
  EXPECT_EQ(GaussianCdt::kSigma, kExpectedSigma);
  EXPECT_EQ(GaussianCdt::kBound, kExpectedBound);
  ASSERT_EQ(GaussianCdt::kThresholdCount, 2 * kExpectedBound);
  const GaussianCdt table = gaussianCdt();
  const std::vector<long double> probabilities =
      truncatedGaussianProbabilities();
  long double cdf = 0;
  for (int k = 0; k < GaussianCdt::kThresholdCount; ++k) {
    cdf += probabilities[k];
    // long double carries 64 bits: agreement to ~1e-15 absolute is all a
    // cross-check in this precision can ask of the exact script.
    EXPECT_NEAR(static_cast<double>(table.thresholds[k] / kTwoTo64),
                static_cast<double>(cdf), 1e-15)
        << "T_" << k;
    if (k > 0) {
      EXPECT_LT(table.thresholds[k - 1], table.thresholds[k]);
    }
  }
}

TEST(GaussianCdtTable, IsExactlySymmetric) {
  const GaussianCdt table = gaussianCdt();
  for (int k = 0; k < GaussianCdt::kThresholdCount; ++k) {
    // T_k + T_{37-k} = 2^64, i.e. 0 in wrapping 64-bit arithmetic.
    EXPECT_EQ(table.thresholds[k] +
                  table.thresholds[GaussianCdt::kThresholdCount - 1 - k],
              0u)
        << "k = " << k;
  }
}

//===----------------------------------------------------------------------===//
// Whole polynomials and reproducibility
//===----------------------------------------------------------------------===//

TEST(PolynomialSampling, IsLimbMajorOverThePerCoefficientSamplers) {
  const uint64_t moduli[2] = {97, (uint64_t{1} << 62) + 57};
  const size_t n = 16;
  Prng prng(testSeed(7));
  std::vector<uint64_t> uniform(2 * n);
  std::vector<int8_t> ternary(n), gaussian(n);
  sampleUniformPolynomial(prng, moduli, 2, n, uniform.data());
  sampleTernaryPolynomial(prng, n, ternary.data());
  sampleGaussianPolynomial(prng, n, gaussian.data());
  const ChaChaKey key = testSeed(7).key();
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < n; ++j)
      EXPECT_EQ(uniform[i * n + j],
                sampleUniformModulo(key, 0, uint32_t(i * n + j), moduli[i]));
  for (size_t j = 0; j < n; ++j) {
    EXPECT_EQ(ternary[j], sampleTernary(key, 1, uint32_t(j)));
    EXPECT_EQ(gaussian[j], sampleGaussian(key, 2, uint32_t(j)));
  }
  EXPECT_EQ(prng.nextDomain(), 3u); // one domain per call
}

TEST(PolynomialSampling, SameSeedGivesSameSamples) {
  const uint64_t moduli[1] = {(uint64_t{1} << 60) - 93};
  const size_t n = 1024;
  Prng first(testSeed(8)), second(testSeed(8));
  for (Prng *prng : {&first, &second})
    EXPECT_EQ(prng->nextDomain(), 0u);
  std::vector<uint64_t> uniformA(n), uniformB(n);
  std::vector<int8_t> ternaryA(n), ternaryB(n), gaussianA(n), gaussianB(n);
  sampleUniformPolynomial(first, moduli, 1, n, uniformA.data());
  sampleTernaryPolynomial(first, n, ternaryA.data());
  sampleGaussianPolynomial(first, n, gaussianA.data());
  sampleUniformPolynomial(second, moduli, 1, n, uniformB.data());
  sampleTernaryPolynomial(second, n, ternaryB.data());
  sampleGaussianPolynomial(second, n, gaussianB.data());
  EXPECT_EQ(uniformA, uniformB);
  EXPECT_EQ(ternaryA, ternaryB);
  EXPECT_EQ(gaussianA, gaussianB);
}

TEST(PolynomialSampling, EachCallDrawsFreshSamples) {
  const uint64_t moduli[1] = {(uint64_t{1} << 60) - 93};
  const size_t n = 1024;
  Prng prng(testSeed(9));
  std::vector<uint64_t> uniformA(n), uniformB(n);
  std::vector<int8_t> ternaryA(n), ternaryB(n), gaussianA(n), gaussianB(n);
  sampleUniformPolynomial(prng, moduli, 1, n, uniformA.data());
  sampleUniformPolynomial(prng, moduli, 1, n, uniformB.data());
  sampleTernaryPolynomial(prng, n, ternaryA.data());
  sampleTernaryPolynomial(prng, n, ternaryB.data());
  sampleGaussianPolynomial(prng, n, gaussianA.data());
  sampleGaussianPolynomial(prng, n, gaussianB.data());
  size_t equalUniform = 0;
  for (size_t j = 0; j < n; ++j)
    equalUniform += uniformA[j] == uniformB[j];
  EXPECT_EQ(equalUniform, 0u); // 60-bit values: a collision is ~2^-50
  EXPECT_NE(ternaryA, ternaryB);
  EXPECT_NE(gaussianA, gaussianB);
  // Different seeds, same domain: different samples too.
  Prng other(testSeed(10));
  std::vector<uint64_t> uniformC(n);
  sampleUniformPolynomial(other, moduli, 1, n, uniformC.data());
  EXPECT_NE(uniformA, uniformC);
}

TEST(PolynomialSampling, RejectsBadArguments) {
  Prng prng(testSeed(11));
  uint64_t out[4];
  const uint64_t tooSmall[2] = {97, 1};
  EXPECT_THROW(sampleUniformPolynomial(prng, tooSmall, 2, 2, out), Error);
  const uint64_t moduli[3] = {97, 97, 97};
  // 3 * 2^31 indices do not fit the 32-bit block counter; checked before
  // anything is written.
  EXPECT_THROW(
      sampleUniformPolynomial(prng, moduli, 3, size_t{1} << 31, nullptr),
      Error);
  EXPECT_THROW(sampleTernaryPolynomial(prng, (size_t{1} << 32) + 1, nullptr),
               Error);
  EXPECT_THROW(sampleGaussianPolynomial(prng, (size_t{1} << 32) + 1, nullptr),
               Error);
}

//===----------------------------------------------------------------------===//
// Distributions
//===----------------------------------------------------------------------===//

constexpr size_t kSampleCount = size_t{1} << 20;

/// Chi-square over 64 buckets (value * 64 / q) with exact per-bucket value
/// counts, plus mean and variance against (q - 1) / 2 and (q^2 - 1) / 12.
void expectUniformModulo(const uint64_t *values, size_t count,
                         uint64_t modulus) {
  std::vector<double> observed(64, 0), expected(64);
  for (size_t i = 0; i < count; ++i) {
    ASSERT_LT(values[i], modulus);
    observed[static_cast<size_t>(
        static_cast<unsigned __int128>(values[i]) * 64 / modulus)] += 1;
  }
  // Bucket b holds the values v with ceil(b q / 64) <= v < ceil((b+1) q / 64).
  auto firstValueOf = [&](unsigned b) {
    const unsigned __int128 scaled =
        static_cast<unsigned __int128>(modulus) * b;
    return (scaled + 63) / 64;
  };
  for (unsigned b = 0; b < 64; ++b)
    expected[b] = static_cast<double>(count) *
                  static_cast<double>(firstValueOf(b + 1) - firstValueOf(b)) /
                  static_cast<double>(modulus);
  EXPECT_LT(chiSquare(observed, expected), chiSquareBound(63))
      << "modulus " << modulus;

  const long double q = modulus;
  const Moments moments = momentsOf(values, count);
  const long double mean = (q - 1) / 2;
  const long double variance = (q * q - 1) / 12;
  // Standard errors: sigma / sqrt(N) for the mean, and for the variance
  // sqrt((mu4 - sigma^4) / N) with mu4 = q^4 / 80 for a (near) continuous
  // uniform law, i.e. sigma^2 * sqrt(0.8 / N).
  const long double meanError = std::sqrt(variance / count);
  const long double varianceError = variance * std::sqrt(0.8L / count);
  EXPECT_LT(std::fabs(moments.mean - mean), 6 * meanError)
      << "modulus " << modulus;
  EXPECT_LT(std::fabs(moments.variance - variance), 6 * varianceError)
      << "modulus " << modulus;
}

TEST(UniformDistribution, SmallAndLargeModuliAreUniform) {
  // 97: a small modulus with uneven buckets (1 or 2 values each).
  // 2^63 + 29: the most rejections (almost 1/2 of all candidates), so a block
  //   often needs several candidates and ~1/256 of them a second round.
  // 3 * 2^62 + 1: where plain x mod q is most biased: residues below 2^62,
  //   a third of them, would get half of the mass (the mean would be ~5q/12).
  const uint64_t moduli[3] = {97, (uint64_t{1} << 63) + 29,
                              (uint64_t{3} << 62) + 1};
  Prng prng(testSeed(12));
  std::vector<uint64_t> values(3 * kSampleCount);
  sampleUniformPolynomial(prng, moduli, 3, kSampleCount, values.data());
  for (size_t i = 0; i < 3; ++i)
    expectUniformModulo(values.data() + i * kSampleCount, kSampleCount,
                        moduli[i]);
}

TEST(TernaryDistribution, IsUniformOverMinusOneZeroOne) {
  // 2^22 samples so that even a sampler that forgets to reject byte 255
  // (p(-1) = 86/256 instead of 1/3) fails the chi-square test.
  const size_t sampleCount = size_t{1} << 22;
  Prng prng(testSeed(13));
  std::vector<int8_t> values(sampleCount);
  sampleTernaryPolynomial(prng, sampleCount, values.data());
  std::vector<double> observed(3, 0);
  for (int8_t value : values) {
    ASSERT_GE(value, -1);
    ASSERT_LE(value, 1);
    observed[value + 1] += 1;
  }
  std::vector<double> expected(3, sampleCount / 3.0);
  EXPECT_LT(chiSquare(observed, expected), chiSquareBound(2));
  const Moments moments = momentsOf(values.data(), values.size());
  const double meanError = std::sqrt(2.0 / 3.0 / sampleCount);
  EXPECT_LT(std::fabs(static_cast<double>(moments.mean)), 6 * meanError);
}

TEST(GaussianDistribution, MatchesTheTruncatedGaussian) {
  Prng prng(testSeed(14));
  std::vector<int8_t> values(kSampleCount);
  sampleGaussianPolynomial(prng, kSampleCount, values.data());
  std::vector<double> observed(2 * kExpectedBound + 1, 0);
  for (int8_t value : values) {
    ASSERT_LE(std::abs(value), kExpectedBound);
    observed[value + kExpectedBound] += 1;
  }

  // Moments against the exact truncated law; for a Gaussian mu4 = 3 sigma^4,
  // so the sample variance has standard error sigma^2 * sqrt(2 / N).
  const std::vector<long double> probabilities =
      truncatedGaussianProbabilities();
  long double variance = 0;
  for (int x = -kExpectedBound; x <= kExpectedBound; ++x)
    variance += probabilities[x + kExpectedBound] * x * x;
  EXPECT_NEAR(static_cast<double>(variance),
              kExpectedSigma * kExpectedSigma, 1e-6);
  const Moments moments = momentsOf(values.data(), values.size());
  const double meanError = kExpectedSigma / std::sqrt(double(kSampleCount));
  const double varianceError =
      static_cast<double>(variance) * std::sqrt(2.0 / kSampleCount);
  EXPECT_LT(std::fabs(static_cast<double>(moments.mean)), 6 * meanError);
  EXPECT_LT(std::fabs(static_cast<double>(moments.variance - variance)),
            6 * varianceError);

  // Symmetry: among the nonzero samples the sign is a fair coin, and each
  // pair of bins x, -x agrees within its own noise.
  double positive = 0, negative = 0;
  for (int x = 1; x <= kExpectedBound; ++x) {
    const double up = observed[kExpectedBound + x];
    const double down = observed[kExpectedBound - x];
    positive += up;
    negative += down;
    EXPECT_LE(std::fabs(up - down), 6 * std::sqrt(up + down) + 1)
        << "x = " << x;
  }
  EXPECT_LT(std::fabs(positive - negative), 6 * std::sqrt(positive + negative));

  std::vector<double> expected;
  for (long double probability : probabilities)
    expected.push_back(static_cast<double>(probability * kSampleCount));
  poolSparseBins(observed, expected);
  EXPECT_GE(observed.size(), 20u); // only the far tails were pooled
  EXPECT_LT(chiSquare(observed, expected),
            chiSquareBound(static_cast<int>(observed.size()) - 1));
}

} // namespace
