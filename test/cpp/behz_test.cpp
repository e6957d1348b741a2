//===- behz_test.cpp - BEHZ's scaling steps against big-integer math ------===//
#include "ringfuse/runtime/behz.h"
#include "ringfuse/runtime/bfv.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;
using testing::seededPrng;

ContextPtr behzContext(uint64_t t = 65537) {
  ParameterRequest request;
  request.polyModulusDegree = 1 << 13;
  request.plaintextModulus = t;
  request.coeffModulusBits = {50, 50, 50};
  request.specialModulusBits = {50};
  return Context::create(request);
}

BigUInt randomBelowBig(const BigUInt &bound) {
  std::vector<uint64_t> words(bound.words().size() + 1);
  for (auto &w : words) w = randomBelow(~0ull);
  return BigUInt::fromWords(words).divMod(bound).second;
}

/// x mod m for a signed big integer given as (magnitude, negative).
uint64_t residue(const BigUInt &magnitude, bool negative, uint64_t m) {
  uint64_t r = magnitude.modWord(m);
  return negative && r ? m - r : r;
}

TEST(Behz, SmallMontgomeryExtensionStaysWithinAFewMultiplesOfQ) {
  auto context = behzContext();
  BehzPlan plan(*context);
  const RnsBasis &q = context->q(), &bsk = plan.bsk();
  const size_t n = 64;
  std::vector<uint64_t> in(q.size() * n), out(bsk.size() * n);
  std::vector<BigUInt> values;
  for (size_t c = 0; c < n; ++c) {
    values.push_back(randomBelowBig(q.product()));
    q.decompose(values.back(), in.data() + c, n);
  }
  plan.extendToBsk(in.data(), n, out.data());
  for (size_t c = 0; c < n; ++c) {
    bool matched = false;
    for (int k = -2; k <= 2 && !matched; ++k) {
      // y = x + k Q, possibly negative.
      bool negative = k < 0;
      BigUInt kq = q.product() * BigUInt(uint64_t(negative ? -k : k));
      BigUInt magnitude = negative ? (kq > values[c] ? kq - values[c] : values[c] - kq)
                                   : values[c] + kq;
      bool yNegative = negative && kq > values[c];
      bool all = true;
      for (size_t b = 0; b < bsk.size(); ++b)
        all &= out[b * n + c] == residue(magnitude, yNegative, bsk.values()[b]);
      matched = all;
    }
    ASSERT_TRUE(matched) << "coefficient " << c;
  }
}

TEST(Behz, FastFloorIsTheFloorMinusLessThanTheBasisSize) {
  auto context = behzContext();
  BehzPlan plan(*context);
  const RnsBasis &q = context->q(), &bsk = plan.bsk();
  RnsBasis all = q.concat(bsk);
  const size_t n = 64;
  std::vector<uint64_t> in(all.size() * n), out(bsk.size() * n);
  std::vector<BigUInt> values;
  for (size_t c = 0; c < n; ++c) {
    // Products of two centered ciphertext coefficients are far below Q Bsk.
    values.push_back(randomBelowBig(q.product() * q.product()));
    all.decompose(values.back(), in.data() + c, n);
  }
  plan.fastFloor(in.data(), in.data() + q.size() * n, n, out.data());
  for (size_t c = 0; c < n; ++c) {
    BigUInt floor = (BigUInt(65537) * values[c]).divMod(q.product()).first;
    bool matched = false;
    for (uint64_t v = 0; v < q.size() && !matched; ++v) {
      bool all = true;
      for (size_t b = 0; b < bsk.size(); ++b)
        all &= out[b * n + c] == (floor - BigUInt(v)).modWord(bsk.values()[b]);
      matched = all;
    }
    ASSERT_TRUE(matched) << "coefficient " << c;
  }
}

TEST(Behz, ShenoyKumaresanConvertsExactlyForPositiveAndNegativeValues) {
  auto context = behzContext();
  BehzPlan plan(*context);
  const RnsBasis &q = context->q(), &bsk = plan.bsk();
  const BigUInt half = context->auxiliary().product() >> 1;
  const size_t n = 64;
  std::vector<uint64_t> in(bsk.size() * n), out(q.size() * n);
  std::vector<std::pair<BigUInt, bool>> values;
  for (size_t c = 0; c < n; ++c) {
    values.emplace_back(randomBelowBig(half), c % 2 == 1);
    for (size_t b = 0; b < bsk.size(); ++b)
      in[b * n + c] = residue(values[c].first, values[c].second, bsk.values()[b]);
  }
  plan.convertBskToQ(in.data(), n, out.data());
  for (size_t c = 0; c < n; ++c)
    for (size_t i = 0; i < q.size(); ++i)
      ASSERT_EQ(out[i * n + c],
                residue(values[c].first, values[c].second, q.values()[i]));
}

class BehzScheme : public ::testing::TestWithParam<uint64_t> {};

TEST_P(BehzScheme, DecryptionAndMultiplicationAgreeWithHps) {
  uint64_t t = GetParam();
  auto context = behzContext(t);
  BehzPlan plan(*context);
  Prng prng = seededPrng(5);
  SecretKey secret = generateSecretKey(context, prng);
  PublicKey pk = generatePublicKey(secret, prng);
  std::vector<uint64_t> x(8192), y(8192);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = randomBelow(t);
    y[i] = randomBelow(t);
  }
  Ciphertext cx = encryptPublic(pk, encodeCoefficients(context, x.data(), x.size()), prng);
  Ciphertext cy = encryptPublic(pk, encodeCoefficients(context, y.data(), y.size()), prng);
  EXPECT_EQ(decryptBehz(secret, cx, plan).coefficients, x);
  Ciphertext behz = multiplyBehz(cx, cy, plan);
  Ciphertext hps = multiplyHps(cx, cy);
  std::vector<uint64_t> expected = decrypt(secret, hps).coefficients;
  EXPECT_EQ(decrypt(secret, behz).coefficients, expected);
  EXPECT_EQ(decryptBehz(secret, behz, plan).coefficients, expected);
  EXPECT_GT(noiseBudget(secret, behz), 0);
}

INSTANTIATE_TEST_SUITE_P(PlaintextModuli, BehzScheme,
                         ::testing::Values(uint64_t(65537), uint64_t(256)));

} // namespace
} // namespace ringfuse::runtime
