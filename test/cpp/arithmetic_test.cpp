//===- arithmetic_test.cpp - modular and RNS arithmetic against big integers ===//
#include "ringfuse/runtime/biguint.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/fixed_point.h"
#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/rns.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;

const uint64_t kModuli[] = {2, 3, 256, 65537, 1152921504606846883ull,
                            (uint64_t(1) << 61) - 1, (uint64_t(1) << 63) - 25};

TEST(ModularArithmetic, BarrettReductionMatchesDivisionFor128BitInputs) {
  for (uint64_t q : kModuli) {
    Modulus m(q);
    for (int i = 0; i < 2000; ++i) {
      uint128_t x = (static_cast<uint128_t>(randomBelow(~0ull)) << 64) |
                    randomBelow(~0ull);
      ASSERT_EQ(reduce128(x, m), static_cast<uint64_t>(x % q)) << q;
    }
    EXPECT_EQ(reduce128(~uint128_t(0), m), static_cast<uint64_t>(~uint128_t(0) % q));
    EXPECT_EQ(reduce128(0, m), 0u);
  }
}

TEST(ModularArithmetic, QuickReductionMatchesDivisionFor128BitInputs) {
  // The largest modulus below kQuickReductionBound leaves its estimate the
  // least room below 4q; all-ones halves make every dropped carry happen.
  const uint64_t moduli[] = {2, 65537, 1152921504606846883ull,
                             kQuickReductionBound - 57};
  const uint64_t halves[] = {0, 1, ~0ull, ~0ull - 1, uint64_t(1) << 63};
  for (uint64_t q : moduli) {
    Modulus m(q);
    auto expectQuick = [&](uint128_t x) {
      ASSERT_EQ(reduce128Quick(x, m), static_cast<uint64_t>(x % q))
          << q << " " << static_cast<uint64_t>(x >> 64) << " "
          << static_cast<uint64_t>(x);
    };
    for (uint64_t high : halves)
      for (uint64_t low : halves)
        expectQuick((static_cast<uint128_t>(high) << 64) | low);
    for (int i = 0; i < 20000; ++i)
      expectQuick((static_cast<uint128_t>(randomBelow(~0ull)) << 64) |
                  randomBelow(~0ull));
  }
}

TEST(ModularArithmetic, ShoupMultiplicationMatchesDivision) {
  for (uint64_t q : {uint64_t(65537), uint64_t(1152921504606846883ull),
                     (uint64_t(1) << 62) - 57}) {
    for (int i = 0; i < 2000; ++i) {
      uint64_t w = randomBelow(q), x = randomBelow(~0ull);
      ShoupConstant constant(w, q);
      uint64_t expected = static_cast<uint64_t>(static_cast<uint128_t>(x) * w % q);
      ASSERT_EQ(mulShoup(x, constant, q), expected);
      ASSERT_LT(mulShoupLazy(x, constant, q), 2 * q);
    }
  }
}

TEST(ModularArithmetic, InverseAndSignedLift) {
  for (uint64_t q : {uint64_t(97), uint64_t(65537), uint64_t(1152921504606846883ull)}) {
    for (int i = 0; i < 100; ++i) {
      uint64_t a = 1 + randomBelow(q - 1);
      EXPECT_EQ(mulModSlow(a, invertModSlow(a, q), q), 1u);
    }
    EXPECT_EQ(liftSigned(-1, q), q - 1);
    EXPECT_EQ(liftSigned(-19, q), q - 19);
    EXPECT_EQ(liftSigned(5, q), 5u);
  }
}

TEST(Primes, MillerRabinAgreesWithTrialDivision) {
  for (uint64_t n = 0; n < 20000; ++n) {
    bool prime = n >= 2;
    for (uint64_t d = 2; d * d <= n && prime; ++d)
      prime = n % d != 0;
    ASSERT_EQ(isPrime(n), prime) << n;
  }
  EXPECT_TRUE(isPrime((uint64_t(1) << 61) - 1));
  EXPECT_FALSE(isPrime(3215031751ull)); // strong pseudoprime to bases 2, 3, 5, 7
}

TEST(Primes, GenerationIsDeterministicAndNttFriendly) {
  std::set<uint64_t> none;
  for (unsigned bits : {30u, 45u, 60u}) {
    auto first = generatePrimes(bits, 5, 1 << 15, none);
    EXPECT_EQ(first, generatePrimes(bits, 5, 1 << 15, none));
    for (size_t i = 0; i < first.size(); ++i) {
      EXPECT_TRUE(isPrime(first[i]));
      EXPECT_EQ(first[i] % (1 << 15), 1u);
      EXPECT_EQ(first[i] % 4, 1u); // what the DGT needs comes for free
      EXPECT_EQ(BigUInt(first[i]).bitLength(), bits);
      if (i)
        EXPECT_LT(first[i], first[i - 1]);
    }
    std::set<uint64_t> excluded = {first[0]};
    EXPECT_EQ(generatePrimes(bits, 1, 1 << 15, excluded).front(), first[1]);
  }
}

TEST(BigUInt, AgreesWith128BitArithmetic) {
  for (int i = 0; i < 500; ++i) {
    uint64_t a = randomBelow(~0ull), b = randomBelow(~0ull), d = 1 + randomBelow(~0ull);
    uint128_t product = static_cast<uint128_t>(a) * b;
    BigUInt big = BigUInt(a) * BigUInt(b);
    ASSERT_EQ(big, BigUInt::fromWords({uint64_t(product), uint64_t(product >> 64)}));
    auto [quotient, remainder] = big.divModWord(d);
    ASSERT_EQ(remainder, uint64_t(product % d));
    ASSERT_EQ(quotient, BigUInt::fromWords({uint64_t(product / d), uint64_t((product / d) >> 64)}));
    ASSERT_EQ((big + BigUInt(a)) - BigUInt(a), big);
  }
  EXPECT_EQ(BigUInt::powerOfTwo(100).toString(), "1267650600228229401496703205376");
  EXPECT_EQ((BigUInt::powerOfTwo(100) >> 37), BigUInt::powerOfTwo(63));
  EXPECT_THROW(BigUInt(1) - BigUInt(2), Error);
}

TEST(BigUInt, LongDivisionReconstructsTheDividend) {
  for (int i = 0; i < 200; ++i) {
    std::vector<uint64_t> dividendWords(1 + randomBelow(8)), divisorWords(1 + randomBelow(4));
    for (auto &w : dividendWords) w = randomBelow(~0ull);
    for (auto &w : divisorWords) w = randomBelow(~0ull);
    BigUInt dividend = BigUInt::fromWords(dividendWords);
    BigUInt divisor = BigUInt::fromWords(divisorWords) + BigUInt(1);
    auto [quotient, remainder] = dividend.divMod(divisor);
    ASSERT_LT(remainder, divisor);
    ASSERT_EQ(quotient * divisor + remainder, dividend);
  }
}

RnsBasis primeBasis(unsigned bits, size_t count, size_t n = 1024,
                    std::set<uint64_t> excluded = {}) {
  return RnsBasis(generatePrimes(bits, count, 2 * n, excluded));
}

BigUInt randomBelowBig(const BigUInt &bound) {
  std::vector<uint64_t> words(bound.words().size() + 1);
  for (auto &w : words) w = randomBelow(~0ull);
  return BigUInt::fromWords(words).divMod(bound).second;
}

TEST(Rns, CrtComposeInvertsDecompose) {
  RnsBasis basis = primeBasis(60, 7);
  std::vector<uint64_t> residues(basis.size());
  for (int i = 0; i < 200; ++i) {
    BigUInt x = randomBelowBig(basis.product());
    basis.decompose(x, residues.data(), 1);
    ASSERT_EQ(basis.compose(residues.data(), 1), x);
  }
  EXPECT_THROW(RnsBasis({6, 9}), Error);
}

/// Residues of `count` random integers below A, limb-major, and the integers.
std::vector<BigUInt> randomOver(const RnsBasis &basis, size_t count,
                                std::vector<uint64_t> &limbs) {
  std::vector<BigUInt> values;
  limbs.assign(basis.size() * count, 0);
  for (size_t c = 0; c < count; ++c) {
    values.push_back(randomBelowBig(basis.product()));
    basis.decompose(values.back(), limbs.data() + c, count);
  }
  return values;
}

TEST(Rns, FastBaseConversionIsExactUpToSmallMultiplesOfTheSourceModulus) {
  RnsBasis from = primeBasis(59, 4), to = primeBasis(60, 3);
  BaseConverter converter(from, to);
  const size_t n = 64;
  std::vector<uint64_t> in, out(to.size() * n);
  auto values = randomOver(from, n, in);
  converter.convertFast(in.data(), n, out.data());
  for (size_t c = 0; c < n; ++c) {
    bool found = false;
    for (uint64_t u = 0; u < from.size() && !found; ++u) {
      BigUInt candidate = values[c] + from.product() * BigUInt(u);
      bool all = true;
      for (size_t j = 0; j < to.size(); ++j)
        all &= candidate.modWord(to.values()[j]) == out[j * n + c];
      found = all;
    }
    ASSERT_TRUE(found) << "coefficient " << c;
  }
}

TEST(Rns, ExactBaseConversionGivesTheCenteredRepresentative) {
  RnsBasis from = primeBasis(60, 5), to = primeBasis(59, 6);
  BaseConverter converter(from, to);
  const size_t n = 128;
  std::vector<uint64_t> in, out(to.size() * n);
  auto values = randomOver(from, n, in);
  converter.convertExact(in.data(), n, out.data());
  BigUInt half = from.product() >> 1;
  for (size_t c = 0; c < n; ++c)
    for (size_t j = 0; j < to.size(); ++j) {
      uint64_t b = to.values()[j];
      uint64_t expected =
          values[c] <= half
              ? values[c].modWord(b)
              : (b - (from.product() - values[c]).modWord(b)) % b;
      ASSERT_EQ(out[j * n + c], expected) << c << "," << j;
    }
}

/// round(numerator * x / D) for x in [0, D K), half up, exactly.
BigUInt exactScaleRound(const BigUInt &x, const BigUInt &numerator, const BigUInt &d) {
  BigUInt doubled = BigUInt(2) * numerator * x + d;
  return doubled.divMod(BigUInt(2) * d).first;
}

// Compact HPS's switch of x from Q to R: round(R x / Q) mod every r_j, a
// numerator of 180 bits and three outputs, none of them in the input.
TEST(ScaleRound, ModulusSwitchMatchesExactRationalRounding) {
  RnsBasis q = primeBasis(60, 4), r = primeBasis(59, 3);
  ScaleRoundPlan plan(q, RnsBasis(), r.product(), r.values());
  const size_t n = 200;
  std::vector<uint64_t> in, out(r.size() * n);
  auto values = randomOver(q, n, in);
  plan.apply(in.data(), nullptr, n, out.data());
  for (size_t c = 0; c < n; ++c) {
    BigUInt expected = exactScaleRound(values[c], r.product(), q.product());
    for (size_t j = 0; j < r.size(); ++j)
      ASSERT_EQ(out[j * n + c], expected.modWord(r.values()[j]));
  }
  // Every output modulus must divide the numerator.
  EXPECT_THROW(ScaleRoundPlan(q, RnsBasis(), r.product(), {r.values()[0], 97}), Error);
  EXPECT_THROW(ScaleRoundPlan(q, RnsBasis(), BigUInt(0), r.values()), Error);
}

TEST(ScaleRound, ComplexScalingMatchesExactRationalRounding) {
  RnsBasis divisor = primeBasis(60, 4), kept = primeBasis(59, 5);
  RnsBasis all = divisor.concat(kept);
  for (uint64_t numerator : {uint64_t(1), uint64_t(65537), uint64_t(256)}) {
    ScaleRoundPlan plan(divisor, kept, numerator);
    const size_t n = 200;
    std::vector<uint64_t> in, out(kept.size() * n);
    auto values = randomOver(all, n, in);
    plan.apply(in.data(), in.data() + divisor.size() * n, n, out.data());
    for (size_t c = 0; c < n; ++c) {
      BigUInt expected = exactScaleRound(values[c], numerator, divisor.product());
      for (size_t k = 0; k < kept.size(); ++k)
        ASSERT_EQ(out[k * n + c], expected.modWord(kept.values()[k]));
    }
  }
}

// Without its kept limbs (inKept null) a rounding over D u K writes the part
// its divisor's limbs decide: adding lambda_k x_k gives the whole rounding,
// which is how rns-fuse adds that term in the evaluation domain. For x below
// D (kept limbs x mod k) that part is round(a x / D) - [a D^-1]_k x.
TEST(ScaleRound, DivisorPartPlusKeptTermIsTheWholeRounding) {
  RnsBasis divisor = primeBasis(60, 3), kept = primeBasis(59, 4);
  RnsBasis all = divisor.concat(kept);
  const uint64_t numerator = 786433;
  ScaleRoundPlan plan(divisor, kept, numerator);
  const size_t n = 200;
  std::vector<uint64_t> in, whole(kept.size() * n), part(kept.size() * n);
  auto values = randomOver(all, n, in);
  plan.apply(in.data(), in.data() + divisor.size() * n, n, whole.data());
  plan.apply(in.data(), nullptr, n, part.data());
  for (size_t k = 0; k < kept.size(); ++k) {
    const Modulus m(kept.values()[k]);
    for (size_t c = 0; c < n; ++c) {
      const uint64_t keptWord = in[(divisor.size() + k) * n + c];
      ASSERT_EQ(addMod(part[k * n + c], mulMod(keptWord, plan.lambda()[k], m),
                       m.value),
                whole[k * n + c])
          << k << "," << c;
    }
  }
  std::vector<uint64_t> below;
  auto small = randomOver(divisor, n, below);
  plan.apply(below.data(), nullptr, n, part.data());
  for (size_t c = 0; c < n; ++c) {
    BigUInt rounded = exactScaleRound(small[c], BigUInt(numerator), divisor.product());
    for (size_t k = 0; k < kept.size(); ++k) {
      const Modulus m(kept.values()[k]);
      const uint64_t x = small[c].modWord(m.value);
      ASSERT_EQ(addMod(part[k * n + c], mulMod(x, plan.lambda()[k], m), m.value),
                rounded.modWord(m.value))
          << k << "," << c;
    }
  }
}

TEST(ScaleRound, SimpleScalingMatchesExactRationalRounding) {
  RnsBasis divisor = primeBasis(60, 6);
  for (uint64_t t : {uint64_t(2), uint64_t(256), uint64_t(65537), uint64_t(1) << 40}) {
    ScaleRoundPlan plan(divisor, RnsBasis(), t, t);
    const size_t n = 300;
    std::vector<uint64_t> in, out(n);
    auto values = randomOver(divisor, n, in);
    plan.apply(in.data(), nullptr, n, out.data());
    for (size_t c = 0; c < n; ++c)
      ASSERT_EQ(out[c], exactScaleRound(values[c], t, divisor.product()).modWord(t));
  }
  EXPECT_THROW(ScaleRoundPlan(divisor, RnsBasis(), 6, 4), Error);
}

std::vector<uint64_t> schoolbookNegacyclic(const std::vector<uint64_t> &a,
                                           const std::vector<uint64_t> &b,
                                           const Modulus &m) {
  const size_t n = a.size();
  std::vector<uint64_t> result(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      uint64_t product = mulMod(a[i], b[j], m);
      size_t k = i + j;
      result[k % n] = k < n ? addMod(result[k], product, m.value)
                            : subMod(result[k - n], product, m.value);
    }
  return result;
}

TEST(FixedPoint, CarriesRunThroughEveryWordAndRoundHalfUp) {
  // x (1 - 2^-128) for x = 2^62 - 1, forty times: every add carries through
  // all four words, and the sum is 40 x less 40 x 2^-128, which rounds to 40 x.
  const uint64_t x = (uint64_t(1) << 62) - 1;
  FractionSum sum;
  for (int i = 0; i < 40; ++i)
    sum.add(x, ~uint64_t(0), ~uint64_t(0));
  EXPECT_EQ(sum.roundHalfUp(), uint128_t(40) * x);
  FractionSum half; // exactly 1/2 rounds up; just below it rounds down
  half.add(1, uint64_t(1) << 63, 0);
  EXPECT_EQ(half.roundHalfUp(), uint128_t(1));
  FractionSum below;
  below.add(1, (uint64_t(1) << 63) - 1, ~uint64_t(0));
  EXPECT_EQ(below.roundHalfUp(), uint128_t(0));
}

TEST(Ntt, PointwiseProductIsTheSchoolbookNegacyclicProduct) {
  for (unsigned logN = 4; logN <= 12; ++logN) {
    const size_t n = size_t(1) << logN;
    for (unsigned bits : {30u, 61u}) {
      uint64_t q = generatePrimes(bits, 1, 2 * n, {}).front();
      NttTables tables(q, n);
      std::vector<uint64_t> a(n), b(n);
      for (size_t i = 0; i < n; ++i) {
        a[i] = randomBelow(q);
        b[i] = randomBelow(q);
      }
      std::vector<uint64_t> expected = schoolbookNegacyclic(a, b, tables.modulus());
      std::vector<uint64_t> fa = a, fb = b;
      tables.forward(fa.data());
      tables.forward(fb.data());
      for (size_t i = 0; i < n; ++i)
        fa[i] = mulMod(fa[i], fb[i], tables.modulus());
      tables.inverse(fa.data());
      ASSERT_EQ(fa, expected) << "N = " << n << ", q = " << q;
      tables.inverse(fb.data());
      ASSERT_EQ(fb, b); // inverse undoes forward
    }
  }
}

TEST(Ntt, OutputIsTheEvaluationAtOddPowersInBitReversedOrder) {
  const size_t n = 16;
  uint64_t q = generatePrimes(40, 1, 2 * n, {}).front();
  NttTables tables(q, n);
  Modulus m(q);
  EXPECT_EQ(powMod(tables.root(), n, m), q - 1); // a primitive 2N-th root
  std::vector<uint64_t> a(n);
  for (auto &x : a) x = randomBelow(q);
  std::vector<uint64_t> transformed = a;
  tables.forward(transformed.data());
  for (size_t j = 0; j < n; ++j) {
    uint64_t point = powMod(tables.root(), 2 * reverseBits(j, 4) + 1, m);
    uint64_t value = 0, power = 1;
    for (size_t i = 0; i < n; ++i, power = mulMod(power, point, m))
      value = addMod(value, mulMod(a[i], power, m), q);
    EXPECT_EQ(transformed[j], value) << j;
  }
}

TEST(Ntt, RejectsUnfriendlyPrimes) {
  EXPECT_THROW(NttTables(97, 64), Error);                     // 97 != 1 mod 128
  EXPECT_THROW(NttTables((uint64_t(1) << 62) + 135, 2), Error); // too wide
}

TEST(Automorphism, IsARingHomomorphismAndComposes) {
  const size_t n = 64;
  uint64_t q = generatePrimes(50, 1, 2 * n, {}).front();
  Modulus m(q);
  std::vector<uint64_t> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = randomBelow(q);
    b[i] = randomBelow(q);
  }
  for (uint64_t g : {3ull, 5ull, 127ull, 9ull}) {
    std::vector<uint64_t> sa(n), sb(n), sab(n);
    applyAutomorphism(a.data(), n, g, q, sa.data());
    applyAutomorphism(b.data(), n, g, q, sb.data());
    auto ab = schoolbookNegacyclic(a, b, m);
    applyAutomorphism(ab.data(), n, g, q, sab.data());
    EXPECT_EQ(sab, schoolbookNegacyclic(sa, sb, m)) << g;
  }
  std::vector<uint64_t> once(n), twice(n), direct(n);
  applyAutomorphism(a.data(), n, 3, q, once.data());
  applyAutomorphism(once.data(), n, 5, q, twice.data());
  applyAutomorphism(a.data(), n, 15, q, direct.data());
  EXPECT_EQ(twice, direct);
}

TEST(Automorphism, InEvaluationFormIsTheTransformedCoefficientAutomorphism) {
  for (size_t n : {2, 8, 64, 1024, 8192}) {
    const uint64_t q = generatePrimes(50, 1, 2 * n, {}).front();
    NttTables tables(q, n);
    std::vector<uint64_t> x(n);
    for (auto &v : x)
      v = randomBelow(q);
    std::vector<uint64_t> evaluation = x;
    tables.forward(evaluation.data());
    for (uint64_t g : {uint64_t(1), uint64_t(3), uint64_t(5), 2 * n - 1,
                       uint64_t(3 * 3 * 3) % (2 * n) | 1, n + 1}) {
      if (g >= 2 * n)
        continue;
      // ntt(applyAutomorphism(intt(ntt(x)))): the coefficient-form route.
      std::vector<uint64_t> expected(n), actual(n);
      applyAutomorphism(x.data(), n, g, q, expected.data());
      tables.forward(expected.data());
      applyEvaluationAutomorphism(evaluation.data(), n, g, actual.data());
      EXPECT_EQ(actual, expected) << "N = " << n << ", g = " << g;
    }
  }
}

} // namespace
} // namespace ringfuse::runtime
