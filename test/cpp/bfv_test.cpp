//===- bfv_test.cpp - keys, encoding, encryption and the key operations ---===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using testing::makeContext;
using testing::randomBelow;
using testing::seededPrng;

/// A secure parameter set for each N from 2^12 to 2^15.
ContextPtr secureContext(size_t n, uint64_t t) {
  switch (n) {
  case 1 << 12: return makeContext(n, t, {35, 35}, {36});
  case 1 << 13: return makeContext(n, t, {50, 50, 50}, {50});
  case 1 << 14: return makeContext(n, t, {60, 60, 60, 60, 60}, {60});
  default: return makeContext(n, t, std::vector<unsigned>(10, 60), {60});
  }
}

std::vector<uint64_t> randomValues(size_t count, uint64_t t) {
  std::vector<uint64_t> values(count);
  for (auto &v : values) v = randomBelow(t);
  return values;
}

TEST(Parameters, RefusesSetsBeyondTheSecurityBound) {
  try {
    makeContext(4096, 65537, {60, 60}, {60});
    FAIL() << "an insecure set was accepted";
  } catch (const Error &error) {
    std::string message = error.what();
    EXPECT_NE(message.find("not 128-bit secure"), std::string::npos) << message;
    EXPECT_NE(message.find("at most 106 bits"), std::string::npos) << message;
  }
  EXPECT_TRUE(makeContext(4096, 65537, {60, 60}, {60}, true)->insecure());
  EXPECT_THROW(makeContext(16, 65537, {30}, {30}), Error); // no bound below 2^10
  EXPECT_FALSE(makeContext(1 << 14, 65537, std::vector<unsigned>(6, 60), {60})
                   ->insecure()); // 420 bits <= 430
  EXPECT_THROW(makeContext(1 << 14, 65537, std::vector<unsigned>(7, 60), {60}),
               Error); // 480 bits > 430
}

TEST(Parameters, ChecksPrimeSizesDigitsAndPlaintextModulus) {
  EXPECT_THROW(makeContext(1 << 14, 65537, {62}, {60}), Error);
  EXPECT_THROW(makeContext(1 << 14, 65537, {10}, {60}), Error);
  EXPECT_THROW(makeContext(1 << 14, 1, {60}, {60}), Error);
  EXPECT_THROW(makeContext(1 << 14, 65537, {60, 60}, {}), Error);
  // P must be as wide as a digit: two 60-bit primes per digit need 120 bits.
  ParameterRequest request;
  request.polyModulusDegree = 1 << 14;
  request.plaintextModulus = 65537;
  request.coeffModulusBits = {60, 60, 60, 60};
  request.specialModulusBits = {60};
  request.dnum = 2;
  EXPECT_THROW(Context::create(request), Error);
  request.specialModulusBits = {60, 60};
  EXPECT_EQ(Context::create(request)->dnum(), 2u);
}

TEST(Parameters, PrimesAreDeterministicAndDistinct) {
  auto a = secureContext(1 << 14, 65537), b = secureContext(1 << 14, 65537);
  EXPECT_EQ(a->qp().values(), b->qp().values());
  EXPECT_EQ(a->fingerprint(), b->fingerprint());
  std::set<uint64_t> all(a->qp().values().begin(), a->qp().values().end());
  all.insert(a->auxiliary().values().begin(), a->auxiliary().values().end());
  all.insert(a->mSk());
  all.insert(a->gamma());
  EXPECT_EQ(all.size(), a->qp().size() + a->auxiliary().size() + 2);
  EXPECT_GE(a->auxiliary().product().bitLength(),
            a->q().product().bitLength() + 14 + 17 + 2);
}

TEST(Encoding, SlotsRoundTripAndRejectBadInput) {
  auto context = makeContext(1024, 65537, {30}, {30}, true);
  auto values = randomValues(1024, 65537);
  Plaintext plaintext = encodeSlots(context, values.data(), values.size());
  EXPECT_EQ(decodeSlots(plaintext), values);
  uint64_t tooBig = 65537;
  EXPECT_THROW(encodeSlots(context, &tooBig, 1), Error);
  std::vector<uint64_t> tooMany(1025, 1);
  EXPECT_THROW(encodeSlots(context, tooMany.data(), tooMany.size()), Error);
  auto noBatching = makeContext(1024, 256, {30}, {30}, true);
  EXPECT_THROW(encodeSlots(noBatching, values.data(), 1), Error);
}

TEST(Encoding, ScalarIsTheConstantPolynomial) {
  auto context = makeContext(64, 65537, {30}, {30}, true);
  std::vector<uint64_t> seven(64, 7);
  Plaintext plaintext = encodeSlots(context, seven.data(), seven.size());
  std::vector<uint64_t> expected(64, 0);
  expected[0] = 7;
  EXPECT_EQ(plaintext.coefficients, expected);
}

struct RoundTripCase {
  size_t n;
  uint64_t t;
};

class EncryptionRoundTrip : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(EncryptionRoundTrip, PublicAndSymmetricEncryptionDecrypt) {
  auto [n, t] = GetParam();
  auto context = secureContext(n, t);
  Prng prng = seededPrng(1);
  SecretKey secret = generateSecretKey(context, prng);
  PublicKey pk = generatePublicKey(secret, prng);
  auto values = randomValues(n, t);
  Plaintext plaintext = context->supportsBatching()
                            ? encodeSlots(context, values.data(), n)
                            : encodeCoefficients(context, values.data(), n);
  for (bool symmetric : {false, true}) {
    Ciphertext ct = symmetric ? encryptSymmetric(secret, plaintext, prng)
                              : encryptPublic(pk, plaintext, prng);
    EXPECT_EQ(decrypt(secret, ct).coefficients, plaintext.coefficients);
    EXPECT_GT(noiseBudget(secret, ct), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Degrees, EncryptionRoundTrip,
    ::testing::Values(RoundTripCase{1 << 12, 65537}, RoundTripCase{1 << 12, 256},
                      RoundTripCase{1 << 13, 65537}, RoundTripCase{1 << 13, 256},
                      RoundTripCase{1 << 14, 65537}, RoundTripCase{1 << 14, 256},
                      RoundTripCase{1 << 15, 65537}, RoundTripCase{1 << 15, 256}));

TEST(Encryption, SameSeedGivesIdenticalCiphertexts) {
  auto context = secureContext(1 << 12, 65537);
  auto values = randomValues(16, 65537);
  Plaintext plaintext = encodeSlots(context, values.data(), values.size());
  std::vector<uint64_t> first, second;
  for (auto *out : {&first, &second}) {
    Prng prng = seededPrng(7);
    SecretKey secret = generateSecretKey(context, prng);
    *out = encryptPublic(generatePublicKey(secret, prng), plaintext, prng).data;
  }
  EXPECT_EQ(first, second);
  Prng other = seededPrng(8);
  SecretKey secret = generateSecretKey(context, other);
  EXPECT_NE(encryptPublic(generatePublicKey(secret, other), plaintext, other).data,
            first);
}

TEST(Encryption, DecryptionRefusesAnotherParameterSet) {
  auto a = secureContext(1 << 12, 65537), b = secureContext(1 << 12, 257);
  Prng prng = seededPrng(2);
  SecretKey keyA = generateSecretKey(a, prng), keyB = generateSecretKey(b, prng);
  std::vector<uint64_t> zero(1, 0);
  Ciphertext ct = encryptSymmetric(keyA, encodeCoefficients(a, zero.data(), 1), prng);
  EXPECT_THROW(decrypt(keyB, ct), Error);
}

TEST(Encryption, RefusesMalformedKeysAndCiphertexts) {
  auto context = secureContext(1 << 12, 65537);
  Prng prng = seededPrng(4);
  SecretKey secret = generateSecretKey(context, prng);
  PublicKey key = generatePublicKey(secret, prng);
  std::vector<uint64_t> zero(1, 0);
  Plaintext plaintext = encodeCoefficients(context, zero.data(), 1);
  key.a.pop_back();
  EXPECT_THROW(encryptPublic(key, plaintext, prng), Error);
  Ciphertext ct = encryptSymmetric(secret, plaintext, prng);
  ct.data.pop_back();
  EXPECT_THROW(decrypt(secret, ct), Error);
  ct.context = nullptr;
  EXPECT_THROW(decrypt(secret, ct), Error);
}

class KeyOperations : public ::testing::Test {
protected:
  void SetUp() override {
    context = secureContext(1 << 13, 65537);
    Prng prng = seededPrng(3);
    secret = generateSecretKey(context, prng);
    pk = generatePublicKey(secret, prng);
    relin = generateRelinKey(secret, prng);
    galois = generateGaloisKeys(secret,
                                {galoisElementForRotation(8192, 1),
                                 galoisElementForRotation(8192, -3),
                                 galoisElementForRowSwap(8192)},
                                prng);
  }

  Ciphertext encrypt(const std::vector<uint64_t> &slots) {
    Prng prng = seededPrng(4);
    return encryptPublic(pk, encodeSlots(context, slots.data(), slots.size()), prng);
  }

  std::vector<uint64_t> decryptSlots(const Ciphertext &ct) {
    return decodeSlots(decrypt(secret, ct));
  }

  ContextPtr context;
  SecretKey secret;
  PublicKey pk;
  RelinKey relin;
  GaloisKeys galois;
};

TEST_F(KeyOperations, MultiplicationAndRelinearizationGiveSlotwiseProducts) {
  auto x = randomValues(8192, 65537), y = randomValues(8192, 65537);
  Ciphertext cx = encrypt(x), cy = encrypt(y);
  Ciphertext product = multiplyHps(cx, cy);
  ASSERT_EQ(product.size, 3u);
  std::vector<uint64_t> expected(8192);
  for (size_t i = 0; i < expected.size(); ++i)
    expected[i] = x[i] * y[i] % 65537;
  EXPECT_EQ(decryptSlots(product), expected);
  Ciphertext relinearized = relinearize(product, relin);
  ASSERT_EQ(relinearized.size, 2u);
  EXPECT_EQ(decryptSlots(relinearized), expected);
  int fresh = noiseBudget(secret, cx);
  int afterMultiply = noiseBudget(secret, relinearized);
  EXPECT_GT(afterMultiply, 0);
  EXPECT_LT(afterMultiply, fresh - 20);
  EXPECT_EQ(decryptSlots(add(cx, cy))[5], (x[5] + y[5]) % 65537);
}

std::vector<uint64_t> rotateRows(const std::vector<uint64_t> &slots, int64_t steps) {
  const size_t row = slots.size() / 2;
  std::vector<uint64_t> rotated(slots.size());
  for (size_t r = 0; r < 2; ++r)
    for (size_t i = 0; i < row; ++i)
      rotated[r * row + i] = slots[r * row + (i + row + steps % int64_t(row)) % row];
  return rotated;
}

TEST_F(KeyOperations, GaloisKeysRotateRowsAndSwapThem) {
  auto x = randomValues(8192, 65537);
  Ciphertext cx = encrypt(x);
  EXPECT_EQ(decryptSlots(applyGalois(cx, galoisElementForRotation(8192, 1), galois)),
            rotateRows(x, 1));
  EXPECT_EQ(decryptSlots(applyGalois(cx, galoisElementForRotation(8192, -3), galois)),
            rotateRows(x, -3));
  std::vector<uint64_t> swapped(x.begin() + 4096, x.end());
  swapped.insert(swapped.end(), x.begin(), x.begin() + 4096);
  EXPECT_EQ(decryptSlots(applyGalois(cx, galoisElementForRowSwap(8192), galois)),
            swapped);
  EXPECT_THROW(applyGalois(cx, galoisElementForRotation(8192, 2), galois), Error);
  EXPECT_THROW(galoisElementForRotation(8192, 4096), Error);
}

} // namespace
} // namespace ringfuse::runtime
