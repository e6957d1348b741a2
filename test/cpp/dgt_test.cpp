//===- dgt_test.cpp - the hierarchical DGT against its definition and NTT ===//
#include "ringfuse/runtime/dgt.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;
using G = GaussianInteger<uint64_t>;

constexpr unsigned kLogMinDegree = 10, kLogMaxDegree = 17;

/// A few real primes of `bits` bits that support degree n (1 mod 2N); fewer
/// at the largest degrees to keep the suite fast.
std::vector<uint64_t> primesFor(unsigned bits, size_t n) {
  const size_t count = n >= (size_t(1) << 16) ? 1 : 2;
  auto primes =
      findPrimesBelow(bits, count, 2 * n, [](uint64_t) { return false; });
  if (primes.size() != count)
    throw Error("test setup: too few " + std::to_string(bits) + "-bit primes");
  return primes;
}

template <typename Word> std::vector<Word> randomLimb(size_t n, uint64_t p) {
  std::vector<Word> values(n);
  for (Word &v : values)
    v = static_cast<Word>(randomBelow(p));
  return values;
}

/// sum a_i x^i * sum b_j x^j mod (x^N + 1, p), by the schoolbook.
std::vector<uint64_t> negacyclicProduct(const std::vector<uint64_t> &a,
                                        const std::vector<uint64_t> &b,
                                        uint64_t p) {
  const size_t n = a.size();
  std::vector<uint64_t> c(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) {
      uint64_t t = mulModSlow(a[i], b[j], p);
      if (i + j < n)
        c[i + j] = addMod(c[i + j], t, p);
      else
        c[i + j - n] = subMod(c[i + j - n], t, p);
    }
  return c;
}

/// The product through NttTables (64-bit words, any p < 2^62).
std::vector<uint64_t> nttProduct(std::vector<uint64_t> a,
                                 std::vector<uint64_t> b, uint64_t p) {
  NttTables ntt(p, a.size());
  ntt.forward(a.data());
  ntt.forward(b.data());
  const Modulus m(p);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = mulMod(a[i], b[i], m);
  ntt.inverse(a.data());
  return a;
}

template <typename Word>
std::vector<uint64_t> dgtProduct(const DgtTables<Word> &dgt,
                                 std::vector<Word> a, std::vector<Word> b) {
  dgt.forward(a.data());
  dgt.forward(b.data());
  dgt.multiplyPointwise(a.data(), b.data(), a.data());
  dgt.inverse(a.data());
  return std::vector<uint64_t>(a.begin(), a.end());
}

std::string errorOf(void (*make)()) {
  try {
    make();
  } catch (const Error &e) {
    return e.what();
  }
  return "no error";
}

// Gaussian arithmetic ---------------------------------------------------------

uint64_t primeBelow(unsigned bits, uint64_t congruence) {
  return findPrimesBelow(bits, 1, congruence,
                         [](uint64_t) { return false; })[0];
}

/// Primes = 1 mod 4, small to 62-bit.
const std::vector<uint64_t> kGaussianPrimes = {5,
                                               13,
                                               17,
                                               65537,
                                               primeBelow(30, 4096),
                                               primeBelow(60, 4096),
                                               primeBelow(62, 4)};

TEST(GaussianArithmetic, ProductMatchesTheDefinitionOverWideIntegers) {
  for (uint64_t p : kGaussianPrimes) {
    for (int t = 0; t < 500; ++t) {
      G a{randomBelow(p), randomBelow(p)}, b{randomBelow(p), randomBelow(p)};
      __int128 ac = static_cast<__int128>(a.re) * b.re;
      __int128 bd = static_cast<__int128>(a.im) * b.im;
      __int128 ad = static_cast<__int128>(a.re) * b.im;
      __int128 bc = static_cast<__int128>(a.im) * b.re;
      __int128 re = (ac - bd) % static_cast<__int128>(p);
      if (re < 0)
        re += p;
      G product = gaussianMultiply(a, b, p);
      ASSERT_EQ(product.re, static_cast<uint64_t>(re)) << p;
      ASSERT_EQ(product.im, static_cast<uint64_t>((ad + bc) % p)) << p;
      ASSERT_EQ(gaussianAdd(gaussianSubtract(a, b, p), b, p), a);
    }
    EXPECT_EQ(gaussianMultiply({0, 1}, {0, 1}, p), (G{p - 1, 0})); // i^2 = -1
  }
}

TEST(GaussianArithmetic, PowersAndNormsAreMultiplicative) {
  for (uint64_t p : kGaussianPrimes) {
    G a{randomBelow(p), randomBelow(p)}, b{randomBelow(p), randomBelow(p)};
    auto norm = [p](G z) {
      return addMod(mulModSlow(z.re, z.re, p), mulModSlow(z.im, z.im, p), p);
    };
    EXPECT_EQ(norm(gaussianMultiply(a, b, p)), mulModSlow(norm(a), norm(b), p));
    EXPECT_EQ(gaussianPower(a, 5, p),
              gaussianMultiply(gaussianMultiply(gaussianMultiply(a, a, p),
                                                gaussianMultiply(a, a, p), p),
                               a, p));
    EXPECT_EQ(gaussianPower({0, 1}, 4, p), (G{1, 0}));
    EXPECT_EQ(gaussianPower(a, 0, p), (G{1, 0}));
  }
}

template <typename Word> void checkLazyHelpers(uint64_t p64) {
  const Word p = static_cast<Word>(p64), twoP = 2 * p;
  for (int t = 0; t < 2000; ++t) {
    // Any word for the Gaussian Shoup product; below 2p / 4p for butterflies.
    G w{randomBelow(p64), randomBelow(p64)};
    GaussianShoup<Word> ws{typename DgtWord<Word>::Shoup(Word(w.re), p),
                           typename DgtWord<Word>::Shoup(Word(w.im), p)};
    Word re = static_cast<Word>(randomBelow(~Word(0))),
         im = static_cast<Word>(randomBelow(~Word(0)));
    G expected = gaussianMultiply({re % p64, im % p64}, w, p64);
    dgtMultiplyGaussianLazy(re, im, ws, p);
    ASSERT_LT(re, twoP);
    ASSERT_LT(im, twoP);
    ASSERT_EQ((G{re % p64, im % p64}), expected);

    uint64_t tw = randomBelow(p64);
    typename DgtWord<Word>::Shoup ts(static_cast<Word>(tw), p);
    Word x[2] = {Word(randomBelow(twoP)), Word(randomBelow(twoP))};
    Word y[2] = {Word(randomBelow(twoP)), Word(randomBelow(twoP))};
    Word fx[2] = {x[0], x[1]}, fy[2] = {y[0], y[1]};
    dgtForwardButterfly(fx[0], fx[1], fy[0], fy[1], ts, p);
    for (int k = 0; k < 2; ++k) {
      ASSERT_LT(fx[k], twoP);
      ASSERT_LT(fy[k], twoP);
      ASSERT_EQ(fx[k] % p, (x[k] + uint64_t(y[k])) % p64);
      ASSERT_EQ(fy[k] % p, mulModSlow((x[k] + 2 * p64 - y[k]) % p64, tw, p64));
    }
    Word ix[2] = {Word(randomBelow(4 * p64)), Word(randomBelow(4 * p64))};
    Word iy[2] = {Word(randomBelow(4 * p64)), Word(randomBelow(4 * p64))};
    Word cx[2] = {ix[0], ix[1]}, cy[2] = {iy[0], iy[1]};
    dgtInverseButterfly(cx[0], cx[1], cy[0], cy[1], ts, p);
    for (int k = 0; k < 2; ++k) {
      uint64_t product = mulModSlow(iy[k] % p64, tw, p64);
      ASSERT_LT(cx[k], 2 * twoP);
      ASSERT_LT(cy[k], 2 * twoP);
      ASSERT_EQ(cx[k] % p, (ix[k] % p64 + product) % p64);
      ASSERT_EQ(cy[k] % p, (ix[k] % p64 + p64 - product) % p64);
      ASSERT_EQ(dgtReduceFromFourP(cy[k], p), cy[k] % p);
    }
  }
}

TEST(GaussianArithmetic, LazyShoupStepsStayInBoundsAndAreExact) {
  checkLazyHelpers<uint64_t>(primeBelow(60, 4096));
  checkLazyHelpers<uint64_t>(primeBelow(62, 4)); // the largest 64-bit words
  checkLazyHelpers<uint64_t>(65537u);
}

// Roots of i (Appendix C) -----------------------------------------------------

TEST(RootsOfI, GaussianPrimeFactorsMultiplyBackToP) {
  for (uint64_t p : kGaussianPrimes) {
    GaussianPrime f = factorGaussianPrime(p);
    EXPECT_GT(f.x, 0);
    EXPECT_GT(f.y, 0);
    EXPECT_EQ(static_cast<__int128>(f.x) * f.x +
                  static_cast<__int128>(f.y) * f.y,
              static_cast<__int128>(p))
        << p;
  }
  GaussianPrime five =
      factorGaussianPrime(5); // 5 = (1 + 2i)(1 - 2i) or (2 + i)(2 - i)
  EXPECT_EQ(five.x * five.x + five.y * five.y, 5);
}

TEST(RootsOfI, RootHasOrderTwoNAndItsHalfDegreePowerIsI) {
  for (unsigned logN = 2; logN <= kLogMaxDegree; ++logN) {
    const size_t n = size_t(1) << logN;
    for (unsigned bits : {60u, 30u}) {
      for (uint64_t p : primesFor(bits, n)) {
        G h = primitiveRootOfI(p, n);
        EXPECT_EQ(gaussianPower(h, n / 2, p), (G{0, 1})) << p << " " << n;
        // Order exactly 2N: h^(2N) = 1 and, 2N being a power of two, h^N != 1.
        EXPECT_EQ(gaussianPower(h, 2 * n, p), (G{1, 0}));
        EXPECT_NE(gaussianPower(h, n, p), (G{1, 0}));
        EXPECT_EQ(primitiveRootOfI(p, n), h); // deterministic
      }
    }
  }
}

TEST(RootsOfI, TablesAreDeterministic) {
  const size_t n = 1024;
  const uint64_t p = primesFor(60, n)[0];
  DgtTables64 a(p, n), b(p, n);
  EXPECT_EQ(a.rootOfI(), b.rootOfI());
  EXPECT_EQ(a.rootOfUnity(), b.rootOfUnity());
  for (size_t j = 0; j < n / 2; ++j) {
    ASSERT_EQ(a.twist()[j].re.value, b.twist()[j].re.value);
    ASSERT_EQ(a.twist()[j].im.value, b.twist()[j].im.value);
    ASSERT_EQ(a.stepTwiddles()[j].value, b.stepTwiddles()[j].value);
  }
  // g has order exactly M = N/2.
  EXPECT_EQ(powModSlow(a.rootOfUnity(), n / 2, p), 1u);
  EXPECT_NE(powModSlow(a.rootOfUnity(), n / 4, p), 1u);
}

// The transform ---------------------------------------------------------------

/// Position k of the forward output is A(h g^bitrev_M(k)) with A(x) = sum_j
/// (a_j + i a_{j+M}) x^j (dgt.h), evaluated by Horner.
template <typename Word>
void checkForwardAgainstDefinition(const DgtTables<Word> &dgt,
                                   const std::vector<Word> &a) {
  const size_t n = dgt.degree(), m = n / 2;
  const uint64_t p = dgt.modulus();
  const unsigned logM = static_cast<unsigned>(__builtin_ctzll(m));
  std::vector<Word> out = a;
  dgt.forward(out.data());
  for (size_t k = 0; k < m; ++k) {
    uint64_t e = reverseBits(static_cast<unsigned>(k), logM);
    G point = gaussianMultiply(dgt.rootOfI(),
                               {powModSlow(dgt.rootOfUnity(), e, p), 0}, p);
    G value{0, 0};
    for (size_t j = m; j-- > 0;)
      value =
          gaussianAdd(gaussianMultiply(value, point, p), {a[j], a[m + j]}, p);
    ASSERT_EQ(out[k], value.re) << "N = " << n << ", k = " << k;
    ASSERT_EQ(out[m + k], value.im) << "N = " << n << ", k = " << k;
  }
}

TEST(Dgt, ForwardIsTheTwistedFoldedTransformInBitReversedOrder) {
  for (size_t n : {size_t(4), size_t(16), size_t(128), size_t(1024)}) {
    for (uint64_t p : primesFor(60, n))
      checkForwardAgainstDefinition(DgtTables64(p, n),
                                    randomLimb<uint64_t>(n, p));
    for (uint64_t p : primesFor(30, n))
      checkForwardAgainstDefinition(DgtTables64(p, n),
                                    randomLimb<uint64_t>(n, p));
  }
}

template <typename Word> void checkRoundTrip(unsigned bits) {
  for (unsigned logN = kLogMinDegree; logN <= kLogMaxDegree; ++logN) {
    const size_t n = size_t(1) << logN;
    for (uint64_t p : primesFor(bits, n)) {
      DgtTables<Word> dgt(p, n);
      std::vector<Word> a = randomLimb<Word>(n, p), b = a;
      dgt.forward(b.data());
      for (Word v : b)
        ASSERT_LT(v, dgt.modulus());
      EXPECT_NE(a, b);
      dgt.inverse(b.data());
      ASSERT_EQ(a, b) << "p = " << p << ", N = " << n;
    }
  }
}

TEST(Dgt, InverseUndoesForward64) { checkRoundTrip<uint64_t>(60); }
TEST(Dgt, InverseUndoesForwardOnNarrowPrimes) { checkRoundTrip<uint64_t>(30); }

TEST(Dgt, ExtremeWordsRoundTrip) {
  const size_t n = 4096;
  for (uint64_t p : primesFor(60, n)) {
    DgtTables64 dgt(p, n);
    std::vector<uint64_t> a(n, p - 1), b = a;
    dgt.forward(b.data());
    dgt.inverse(b.data());
    EXPECT_EQ(a, b);
  }
  // The largest 64-bit words: a prime just below 2^62.
  const uint64_t p62 = primeBelow(62, 2 * n);
  DgtTables64 big(p62, n);
  std::vector<uint64_t> a(n, p62 - 1), b = a;
  big.forward(b.data());
  big.inverse(b.data());
  EXPECT_EQ(a, b);
}

template <typename Word> void checkProductAgainstNtt(unsigned bits) {
  for (unsigned logN = kLogMinDegree; logN <= kLogMaxDegree; ++logN) {
    const size_t n = size_t(1) << logN;
    for (uint64_t p : primesFor(bits, n)) {
      DgtTables<Word> dgt(p, n);
      std::vector<Word> a = randomLimb<Word>(n, p), b = randomLimb<Word>(n, p);
      std::vector<uint64_t> a64(a.begin(), a.end()), b64(b.begin(), b.end());
      ASSERT_EQ(dgtProduct(dgt, a, b), nttProduct(a64, b64, p))
          << "p = " << p << ", N = " << n;
    }
  }
}

// What compiled programs run as their dgt transform: the NTT's very words,
// so every other kernel of a program works on them unchanged.
TEST(Dgt, AsNttGivesTheNttsWordsAndBack) {
  for (unsigned logN = 2; logN <= kLogMaxDegree; ++logN) {
    const size_t n = size_t(1) << logN;
    for (uint64_t p : primesFor(60, n)) {
      DgtTables64 dgt(p, n);
      NttTables ntt(p, n);
      const std::vector<uint64_t> a = randomLimb<uint64_t>(n, p);
      std::vector<uint64_t> viaDgt = a, viaNtt = a;
      dgt.forwardAsNtt(viaDgt.data());
      ntt.forward(viaNtt.data());
      ASSERT_EQ(viaDgt, viaNtt) << "p = " << p << ", N = " << n;
      dgt.inverseAsNtt(viaDgt.data());
      ASSERT_EQ(viaDgt, a) << "p = " << p << ", N = " << n;
    }
  }
  // Extreme words, and the largest primes 64-bit words take.
  const size_t n = 4096;
  const uint64_t p62 = primeBelow(62, 2 * n);
  DgtTables64 dgt(p62, n);
  NttTables ntt(p62, n);
  std::vector<uint64_t> viaDgt(n, p62 - 1), viaNtt = viaDgt;
  dgt.forwardAsNtt(viaDgt.data());
  ntt.forward(viaNtt.data());
  EXPECT_EQ(viaDgt, viaNtt);
}

TEST(Dgt, PointwiseProductIsTheNttsNegacyclicProduct64) {
  checkProductAgainstNtt<uint64_t>(60);
}

// NttTables takes any prime below 2^62, 30-bit ones included.
TEST(Dgt, PointwiseProductIsTheNttsNegacyclicProductOnNarrowPrimes) {
  checkProductAgainstNtt<uint64_t>(30);
}

TEST(Dgt, PointwiseProductIsTheSchoolbookNegacyclicProduct) {
  for (size_t n :
       {size_t(4), size_t(8), size_t(64), size_t(256), size_t(1024)}) {
    for (uint64_t p : primesFor(30, n)) {
      DgtTables64 dgt(p, n);
      auto a = randomLimb<uint64_t>(n, p), b = randomLimb<uint64_t>(n, p);
      ASSERT_EQ(dgtProduct(dgt, a, b), negacyclicProduct(a, b, p)) << n;
    }
    for (uint64_t p : primesFor(60, n)) {
      DgtTables64 dgt(p, n);
      auto a = randomLimb<uint64_t>(n, p), b = randomLimb<uint64_t>(n, p);
      ASSERT_EQ(dgtProduct(dgt, a, b), negacyclicProduct(a, b, p)) << n;
    }
  }
  // x^(N-1) * x = x^N = -1.
  const size_t n = 1024;
  const uint64_t p = primesFor(30, n)[0];
  std::vector<uint64_t> a(n, 0), b(n, 0);
  a[n - 1] = 1;
  b[1] = 1;
  std::vector<uint64_t> minusOne(n, 0);
  minusOne[0] = p - 1;
  EXPECT_EQ(dgtProduct(DgtTables64(p, n), a, b), minusOne);
}

// Bad parameters --------------------------------------------------------------

TEST(Dgt, RefusesBadParametersWithAClearMessage) {
  // 1000003 is a prime = 3 mod 4.
  EXPECT_NE(errorOf([] { DgtTables64(1000003ull, 1024); }).find("3 mod 4"),
            std::string::npos);
  EXPECT_NE(errorOf([] { factorGaussianPrime(1000003ull); }).find("1 mod 4"),
            std::string::npos);
  EXPECT_NE(
      errorOf([] { DgtTables64(12289, 1000); }).find("not a power of two"),
      std::string::npos);
  EXPECT_NE(errorOf([] { DgtTables64(12289, 2); }).find("not a power of two"),
            std::string::npos);
  EXPECT_NE(errorOf([] {
              DgtTables64(12289, size_t(1) << 18);
            }).find("not a power of two"),
            std::string::npos);
  // A prime above 2^62.
  EXPECT_NE(errorOf([] {
              DgtTables64((uint64_t(1) << 62) + 1, 1024);
            }).find("not below 2^62"),
            std::string::npos);
  EXPECT_NE(errorOf([] { DgtTables64(65537ull * 5, 16); }).find("not a prime"),
            std::string::npos);
  // 12289 = 3 * 2^12 + 1: 1 mod 2N for N = 2048, not for N = 4096.
  EXPECT_NE(errorOf([] { DgtTables64(12289, 4096); }).find("not 1 mod 2N"),
            std::string::npos);
  EXPECT_EQ(errorOf([] { DgtTables64(12289, 2048); }), "no error");
}

} // namespace
} // namespace ringfuse::runtime
