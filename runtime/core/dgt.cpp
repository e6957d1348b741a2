//===- dgt.cpp - the negacyclic hierarchical Discrete Galois Transform ----===//
//
// The CPU reference of dgt.h: the definition the CUDA kernels (cuda/dgt.cu)
// must reproduce word for word.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/dgt.h"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"

#include <string>

namespace ringfuse::runtime {

// Gaussian integers mod p ----------------------------------------------------

GaussianInteger<uint64_t> gaussianAdd(GaussianInteger<uint64_t> a,
                                      GaussianInteger<uint64_t> b, uint64_t p) {
  return {addMod(a.re, b.re, p), addMod(a.im, b.im, p)};
}

GaussianInteger<uint64_t> gaussianSubtract(GaussianInteger<uint64_t> a,
                                           GaussianInteger<uint64_t> b,
                                           uint64_t p) {
  return {subMod(a.re, b.re, p), subMod(a.im, b.im, p)};
}

GaussianInteger<uint64_t> gaussianMultiply(GaussianInteger<uint64_t> a,
                                           GaussianInteger<uint64_t> b,
                                           uint64_t p) {
  // ac - bd = ac + (p - b) d mod p; each sum is below 2 p^2 < 2^125.
  const Modulus m(p);
  uint128_t re = static_cast<uint128_t>(a.re) * b.re +
                 static_cast<uint128_t>(p - a.im) * b.im;
  uint128_t im =
      static_cast<uint128_t>(a.re) * b.im + static_cast<uint128_t>(a.im) * b.re;
  return {reduce128(re, m), reduce128(im, m)};
}

GaussianInteger<uint64_t> gaussianPower(GaussianInteger<uint64_t> base,
                                        uint64_t exponent, uint64_t p) {
  GaussianInteger<uint64_t> result{1 % p, 0};
  for (; exponent; exponent >>= 1) {
    if (exponent & 1)
      result = gaussianMultiply(result, base, p);
    base = gaussianMultiply(base, base, p);
  }
  return result;
}

// Roots of i (Appendix C) ----------------------------------------------------

namespace {

using Int128 = __int128;

/// An element of Z[i] with 128-bit parts: Euclid on p < 2^62 and k + i
/// (k < p) never leaves |part| < 2^125.
struct WideGaussian {
  Int128 re, im;
};

/// The integer nearest n / d, d > 0 (ties either way: Euclid in Z[i] only
/// needs a remainder of norm at most half the divisor's).
Int128 roundedDivide(Int128 n, Int128 d) {
  Int128 q = n / d, r = n % d; // truncated: r has the sign of n
  if (2 * r >= d)
    ++q;
  else if (2 * r <= -d)
    --q;
  return q;
}

/// gcd in the Euclidean domain Z[i] (remainder a - round(a / b) b, where
/// a / b = a conj(b) / N(b)); defined up to a unit.
WideGaussian gaussianGcd(WideGaussian a, WideGaussian b) {
  while (b.re != 0 || b.im != 0) {
    Int128 norm = b.re * b.re + b.im * b.im;
    Int128 numRe = a.re * b.re + a.im * b.im;
    Int128 numIm = a.im * b.re - a.re * b.im;
    Int128 qRe = roundedDivide(numRe, norm), qIm = roundedDivide(numIm, norm);
    WideGaussian r{a.re - (qRe * b.re - qIm * b.im),
                   a.im - (qRe * b.im + qIm * b.re)};
    a = b;
    b = r;
  }
  return a;
}

void checkGaussianPrime(uint64_t p) {
  if (p % 4 != 1)
    throw Error("DGT modulus " + std::to_string(p) + " is " +
                std::to_string(p % 4) +
                " mod 4; it must be a prime = 1 mod 4, so that it splits "
                "over the Gaussian integers (p = f0 * conj(f0))");
  if (!isPrime(p))
    throw Error("DGT modulus " + std::to_string(p) + " is not a prime");
  if (p >= (uint64_t(1) << 62))
    throw Error("DGT modulus " + std::to_string(p) + " is not below 2^62");
}

bool isPowerOfTwo(size_t n) { return n != 0 && (n & (n - 1)) == 0; }


} // namespace

GaussianPrime factorGaussianPrime(uint64_t p) {
  checkGaussianPrime(p);
  // Algorithm 6: a non-residue n has n^((p-1)/2) = -1, so k = n^((p-1)/4)
  // squares to -1 and p | k^2 + 1 = (k + i)(k - i) without dividing either
  // factor; gcd(p, k + i) is then one of the two Gaussian primes over p.
  uint64_t n = 2;
  while (powModSlow(n, (p - 1) / 2, p) != p - 1)
    ++n;
  const uint64_t k = powModSlow(n, (p - 1) / 4, p);
  WideGaussian u =
      gaussianGcd({static_cast<Int128>(p), 0}, {static_cast<Int128>(k), 1});
  // The associate (of four: times 1, i, -1, -i) in the open first quadrant;
  // neither part is 0, since p is not a square.
  for (int turn = 0; turn < 4 && !(u.re > 0 && u.im > 0); ++turn)
    u = {-u.im, u.re};
  if (!(u.re > 0 && u.im > 0) ||
      u.re * u.re + u.im * u.im != static_cast<Int128>(p))
    throw Error("internal: the Gaussian gcd of " + std::to_string(p) +
                " and k + i is not a Gaussian prime over it");
  return {static_cast<int64_t>(u.re), static_cast<int64_t>(u.im)};
}

// Algorithm 7. With f0 = x + y i, f1 = conj(f0) = x - y i and p = f0 f1, the
// CRT splits Z_p[i] = Z[i]/(p) into Z[i]/(f0) x Z[i]/(f1), two copies of Z_p:
// x + y i = 0 mod f0 sends i to rho = -x / y mod p there, and to -rho mod f1.
// So h is a root of i of order 2N exactly when its images h0, h1 in Z_p have
// order dividing 2N and h0^M = rho, h1^M = -rho (M = N/2); the paper takes
// h_j = zeta_j^((p-1)/(4M)) for generators zeta_j and retries until h^M = i.
// Deterministically, from psi = minimalPrimitiveRoot(p, 2N) (the NTT's root,
// order 2N, psi^M = +-rho since (psi^M)^2 = -1): the image under i -> psi^M
// is psi and the other is psi^3 (also of order 2N; (psi^3)^M = -psi^M). So
// h0 = psi, h1 = psi^3 if psi^M = rho, else h0 = psi^3, h1 = psi. Then
// position k of the forward DGT, A(h g^bitrev(k)), sent to Z_p by
// i -> psi^M, is the NTT's word k, and by i -> -psi^M its word M + k
// (forwardAsNtt). Back through the CRT,
//   h = f1 (f1^{-1} h0 mod f0) + f0 (f0^{-1} h1 mod f1)   mod p,
// where f1 = 2x mod f0 and f0 = 2x mod f1, so
//   h = (2x)^{-1} ((x - y i) h0 + (x + y i) h1)           mod p.
GaussianInteger<uint64_t> primitiveRootOfI(uint64_t p, size_t n) {
  if (!isPowerOfTwo(n) || n < 4 || n > kMaxRingDegree)
    throw Error("DGT ring degree " + std::to_string(n) +
                " is not a power of two in [4, 2^17]");
  checkGaussianPrime(p);
  if ((p - 1) % (2 * n) != 0)
    throw Error("DGT modulus " + std::to_string(p) +
                " is not 1 mod 2N = " + std::to_string(2 * n) +
                ", so Z_p[i] has no root of i of order 2N");
  const GaussianPrime f0 = factorGaussianPrime(p);
  const uint64_t x = static_cast<uint64_t>(f0.x),
                 y = static_cast<uint64_t>(f0.y);
  const uint64_t rho = negateMod(mulModSlow(x, invertModSlow(y, p), p), p);
  const uint64_t psi = minimalPrimitiveRoot(p, 2 * n);
  const uint64_t psiCubed = powModSlow(psi, 3, p);
  const size_t m = n / 2;
  const bool psiOverRho = powModSlow(psi, m, p) == rho;
  const uint64_t h0 = psiOverRho ? psi : psiCubed;
  const uint64_t h1 = psiOverRho ? psiCubed : psi;
  const uint64_t inverseTwoX = invertModSlow(mulModSlow(2, x, p), p);
  GaussianInteger<uint64_t> fromF0 =
      gaussianMultiply({x, negateMod(y, p)}, {h0, 0}, p);
  GaussianInteger<uint64_t> fromF1 = gaussianMultiply({x, y}, {h1, 0}, p);
  GaussianInteger<uint64_t> h =
      gaussianMultiply(gaussianAdd(fromF0, fromF1, p), {inverseTwoX, 0}, p);
  // The construction guarantees both; a failure is a bug, not bad input.
  const GaussianInteger<uint64_t> i{0, 1}, minusOne{p - 1, 0};
  if (gaussianPower(h, m, p) != i || gaussianPower(h, n, p) != minusOne)
    throw Error("internal: the root of i built for p = " + std::to_string(p) +
                ", N = " + std::to_string(n) + " is not one");
  return h;
}

DgtShape dgtShape(size_t gaussianCount) {
  const unsigned logM = log2Exact(gaussianCount);
  const size_t columns = size_t(1) << ((logM + 1) / 2);
  return {gaussianCount / columns, columns};
}

// The tables ------------------------------------------------------------------

namespace {

template <typename Word>
typename DgtWord<Word>::Shoup shoupOf(uint64_t w, uint64_t p) {
  return
      typename DgtWord<Word>::Shoup(static_cast<Word>(w), static_cast<Word>(p));
}

template <typename Word>
GaussianShoup<Word> gaussianShoupOf(GaussianInteger<uint64_t> w, uint64_t p) {
  return {shoupOf<Word>(w.re, p), shoupOf<Word>(w.im, p)};
}

/// In-place Gentleman-Sande DGT of `length` Gaussians `stride` apart,
/// natural order in, bit-reversed out; words below 2p stay below 2p.
template <typename Word>
void gentlemanSande(Word *re, Word *im, size_t length, size_t stride,
                    const typename DgtWord<Word>::Shoup *twiddles, Word p) {
  for (size_t len = length / 2; len >= 1; len /= 2)
    for (size_t block = 0; block < length; block += 2 * len)
      for (size_t j = 0; j < len; ++j) {
        const size_t x = (block + j) * stride, y = x + len * stride;
        dgtForwardButterfly(re[x], im[x], re[y], im[y], twiddles[len + j], p);
      }
}

/// In-place Cooley-Tukey inverse DGT (unscaled), bit-reversed order in,
/// natural out; words below 4p stay below 4p.
template <typename Word>
void cooleyTukey(Word *re, Word *im, size_t length, size_t stride,
                 const typename DgtWord<Word>::Shoup *inverseTwiddles, Word p) {
  for (size_t len = 1; len < length; len *= 2)
    for (size_t block = 0; block < length; block += 2 * len)
      for (size_t j = 0; j < len; ++j) {
        const size_t x = (block + j) * stride, y = x + len * stride;
        dgtInverseButterfly(re[x], im[x], re[y], im[y],
                            inverseTwiddles[len + j], p);
      }
}

} // namespace

template <typename Word>
DgtTables<Word>::DgtTables(uint64_t p, size_t n) : n_(n) {
  if (!isPowerOfTwo(n) || n < 4 || n > kMaxRingDegree)
    throw Error("DGT ring degree " + std::to_string(n) +
                " is not a power of two in [4, 2^17]");
  constexpr unsigned bits = DgtWord<Word>::kModulusBits;
  if (p >= (uint64_t(1) << bits))
    throw Error("DGT modulus " + std::to_string(p) + " is not below 2^" +
                std::to_string(bits) + " (" + std::to_string(8 * sizeof(Word)) +
                "-bit words keep lazy values below 4p)");
  p_ = static_cast<Word>(p);
  rootOfI_ = primitiveRootOfI(p, n);
  const size_t m = n / 2;
  shape_ = dgtShape(m);
  const uint64_t psi = minimalPrimitiveRoot(p, 2 * n);
  rootOfUnity_ = powModSlow(psi, 4, p);
  // The NTT order's pair map (forwardAsNtt): f = psi^M, 1/2 and 1/(2f).
  const uint64_t f = powModSlow(psi, n / 2, p);
  const uint64_t half = invertModSlow(2, p);
  nttOrderFactor_ = shoupOf<Word>(f, p);
  half_ = shoupOf<Word>(half, p);
  halfOverFactor_ = shoupOf<Word>(mulModSlow(half, invertModSlow(f, p), p), p);

  // Powers of g and of h, and their inverses.
  std::vector<uint64_t> gPowers(m);
  uint64_t power = 1;
  for (size_t e = 0; e < m; ++e, power = mulModSlow(power, rootOfUnity_, p))
    gPowers[e] = power;
  auto gPower = [&](size_t e) { return gPowers[e % m]; };
  auto gInversePower = [&](size_t e) { return gPowers[(m - e % m) % m]; };

  twist_.resize(m);
  untwist_.resize(m);
  const GaussianInteger<uint64_t> hInverse =
      gaussianPower(rootOfI_, 2 * n - 1, p);
  GaussianInteger<uint64_t> hPower{1, 0};
  GaussianInteger<uint64_t> hInversePower{invertModSlow(m % p, p), 0};
  for (size_t j = 0; j < m; ++j) {
    twist_[j] = gaussianShoupOf<Word>(hPower, p);
    untwist_[j] = gaussianShoupOf<Word>(hInversePower, p);
    hPower = gaussianMultiply(hPower, rootOfI_, p);
    hInversePower = gaussianMultiply(hInversePower, hInverse, p);
  }

  twiddles_.assign(m, shoupOf<Word>(1, p));
  inverseTwiddles_.assign(m, shoupOf<Word>(1, p));
  for (size_t len = 1; len <= m / 2; len *= 2)
    for (size_t j = 0; j < len; ++j) {
      twiddles_[len + j] = shoupOf<Word>(gPower(j * (m / (2 * len))), p);
      inverseTwiddles_[len + j] =
          shoupOf<Word>(gInversePower(j * (m / (2 * len))), p);
    }

  const size_t rows = shape_.rows, columns = shape_.columns;
  const unsigned logRows = log2Exact(rows);
  stepTwiddles_.resize(m);
  inverseStepTwiddles_.resize(m);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < columns; ++c) {
      const size_t e = c * reverseBits(static_cast<unsigned>(r), logRows);
      stepTwiddles_[r * columns + c] = shoupOf<Word>(gPower(e), p);
      inverseStepTwiddles_[r * columns + c] =
          shoupOf<Word>(gInversePower(e), p);
    }
}

template <typename Word> void DgtTables<Word>::forward(Word *values) const {
  const size_t m = n_ / 2, rows = shape_.rows, columns = shape_.columns;
  const Word p = p_;
  Word *re = values, *im = values + m; // folding: a_j + i a_{j+M}
  for (size_t j = 0; j < m; ++j)
    dgtMultiplyGaussianLazy(re[j], im[j], twist_[j], p);
  // Step 1: R-point DGTs down the columns.
  for (size_t c = 0; c < columns; ++c)
    gentlemanSande(re + c, im + c, rows, columns, twiddles_.data(), p);
  // Step 2: g^(c bitrev_R(r)), the column index of the bit-reversed output.
  for (size_t e = 0; e < m; ++e) {
    re[e] = mulShoupLazy(re[e], stepTwiddles_[e], p);
    im[e] = mulShoupLazy(im[e], stepTwiddles_[e], p);
  }
  // Step 3: C-point DGTs along the rows.
  for (size_t r = 0; r < rows; ++r)
    gentlemanSande(re + r * columns, im + r * columns, columns, 1,
                   twiddles_.data(), p);
  for (size_t e = 0; e < n_; ++e)
    values[e] = dgtReduceFromTwoP(values[e], p);
}

template <typename Word> void DgtTables<Word>::inverse(Word *values) const {
  const size_t m = n_ / 2, rows = shape_.rows, columns = shape_.columns;
  const Word p = p_;
  Word *re = values, *im = values + m;
  for (size_t r = 0; r < rows; ++r)
    cooleyTukey(re + r * columns, im + r * columns, columns, 1,
                inverseTwiddles_.data(), p);
  // Words below 4p in, below 2p out (any word is a valid Shoup input).
  for (size_t e = 0; e < m; ++e) {
    re[e] = mulShoupLazy(re[e], inverseStepTwiddles_[e], p);
    im[e] = mulShoupLazy(im[e], inverseStepTwiddles_[e], p);
  }
  for (size_t c = 0; c < columns; ++c)
    cooleyTukey(re + c, im + c, rows, columns, inverseTwiddles_.data(), p);
  // Untwist and scale by M^{-1} at once; unfolding is the layout.
  for (size_t j = 0; j < m; ++j) {
    dgtMultiplyGaussianLazy(re[j], im[j], untwist_[j], p);
    re[j] = dgtReduceFromTwoP(re[j], p);
    im[j] = dgtReduceFromTwoP(im[j], p);
  }
}

template <typename Word>
void DgtTables<Word>::forwardAsNtt(Word *values) const {
  forward(values);
  const size_t m = n_ / 2;
  for (size_t k = 0; k < m; ++k)
    dgtToNttPair(values[k], values[m + k], nttOrderFactor_, p_);
}

template <typename Word>
void DgtTables<Word>::inverseAsNtt(Word *values) const {
  const size_t m = n_ / 2;
  for (size_t k = 0; k < m; ++k)
    nttToDgtPair(values[k], values[m + k], half_, halfOverFactor_, p_);
  inverse(values);
}

template <typename Word>
void DgtTables<Word>::multiplyPointwise(const Word *a, const Word *b,
                                        Word *out) const {
  const size_t m = n_ / 2;
  for (size_t k = 0; k < m; ++k) {
    GaussianInteger<uint64_t> product =
        gaussianMultiply({a[k], a[m + k]}, {b[k], b[m + k]}, p_);
    out[k] = static_cast<Word>(product.re);
    out[m + k] = static_cast<Word>(product.im);
  }
}

template class DgtTables<uint64_t>;

} // namespace ringfuse::runtime
