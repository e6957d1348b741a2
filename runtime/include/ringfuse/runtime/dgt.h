//===- dgt.h - the hierarchical Discrete Galois Transform ------*- C++ -*-===//
//
// The DGT of "Faster Homomorphic Encryption over GPGPUs via hierarchical DGT"
// (Section 3, Algorithms 1, 4 and 5; Appendix C), for a prime p = 1 mod 4
// (our NTT primes are 1 mod 2N) and a ring degree N = 2^2 ... 2^17, over
// 64-bit words (p < 2^62).
//
// Layout. A limb is N words; the transform is in place. In coefficient form
// word j is a_j. In the DGT domain the limb holds M = N/2 Gaussian integers
// X_0 ... X_{M-1} of Z_p[i], real parts in words [0, M), imaginary parts in
// words [M, N): so folding (Section 3.1, a_j + i a_{j+M}) moves no data.
//
// Forward (Algorithm 4). With h the root of i (h^M = i, order 2N in
// Z_p[i]^*) and g a primitive M-th root of unity in Z_p:
//   y_j = (a_j + i a_{j+M}) h^j                       fold and twist, j < M
//   word pair k (re k, im M + k) = Y_{bitrev_M(k)},  Y_l = sum_j y_j g^{j l}
// i.e. position k holds A(h g^{bitrev_M(k)}) for A(x) = sum_j (a_j + i
// a_{j+M}) x^j, every word canonical in [0, p). (Definition 2 writes the
// transform with g^{-jl}; that is this one for g^{-1}.) This is the order a
// plain Gentleman-Sande DGT (Algorithm 2) leaves: bit-reversed, whatever the
// four-step matrix shape, so the GPU may split M differently and still
// produce these very words.
//
// Four-step (Section 3.2): y is an R x C row-major matrix (y_{rC+c}, M = R C,
// C = 2^ceil(log2(M)/2)). Step 1: an R-point Gentleman-Sande DGT (root g^C)
// down each column; step 2: entry (r, c) times g^{c bitrev_R(r)}; step 3: a
// C-point Gentleman-Sande DGT (root g^R) along each row.
//
// Inverse (Algorithm 5): C-point Cooley-Tukey inverse DGTs on the rows, entry
// (r, c) times g^{-c bitrev_R(r)}, R-point inverse DGTs on the columns, then
// y_j times h^{-j} M^{-1} (the paper splits M^{-1} = Nr^{-1} Nc^{-1} over
// the last two multiplications; one place suffices), and unfolding is again
// free. A pointwise Gaussian product of two forward transforms followed by
// the inverse is the negacyclic product mod p, as with NttTables: the fold
// and twist map Z_p[x]/(x^N + 1) into Z_p[i][x]/(x^M - i) and then into
// Z_p[i][y]/(y^M - 1), where the length-M DGT diagonalizes the product.
//
// Arithmetic: real twiddles (powers of g) cost two Shoup products per
// Gaussian, twists four. Butterflies keep Harvey's lazy bounds (below 2p in
// Gentleman-Sande, below 4p in Cooley-Tukey), which needs 4p below the word.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DGT_H
#define RINGFUSE_RUNTIME_DGT_H

#include "ringfuse/runtime/modarith.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime {

/// The word's Shoup constant and the largest prime whose lazy values (below
/// 4p) still fit a word.
template <typename Word> struct DgtWord {
  using Shoup = ShoupOfWord<Word>;
  static constexpr unsigned kModulusBits = 62;
};

/// re + im i in Z_p[i].
template <typename Word> struct GaussianInteger {
  Word re = 0;
  Word im = 0;
};

template <typename Word>
inline bool operator==(GaussianInteger<Word> a, GaussianInteger<Word> b) {
  return a.re == b.re && a.im == b.im;
}
template <typename Word>
inline bool operator!=(GaussianInteger<Word> a, GaussianInteger<Word> b) {
  return !(a == b);
}

/// A fixed Gaussian factor c + d i with Shoup companions for c and d.
template <typename Word> struct GaussianShoup {
  typename DgtWord<Word>::Shoup re;
  typename DgtWord<Word>::Shoup im;
};

// Exact Gaussian arithmetic mod p (Appendix A), canonical operands in [0, p),
// p < 2^62. Used to build tables, for pointwise products and by tests.

GaussianInteger<uint64_t> gaussianAdd(GaussianInteger<uint64_t> a,
                                      GaussianInteger<uint64_t> b, uint64_t p);
GaussianInteger<uint64_t> gaussianSubtract(GaussianInteger<uint64_t> a,
                                           GaussianInteger<uint64_t> b,
                                           uint64_t p);
/// (a + b i)(c + d i) = (ac - bd) + (ad + bc) i.
GaussianInteger<uint64_t> gaussianMultiply(GaussianInteger<uint64_t> a,
                                           GaussianInteger<uint64_t> b,
                                           uint64_t p);
GaussianInteger<uint64_t> gaussianPower(GaussianInteger<uint64_t> base,
                                        uint64_t exponent, uint64_t p);

/// A Gaussian prime x + y i of Z[i] (not reduced mod anything).
struct GaussianPrime {
  int64_t x = 0;
  int64_t y = 0;
};

/// Appendix C, Algorithm 6: the Gaussian prime f0 = x + y i with x, y > 0
/// and p = f0 * conj(f0) = x^2 + y^2, for a prime p = 1 mod 4, p < 2^62:
/// k = n^((p-1)/4) for the smallest non-residue n (so k^2 = -1 mod p), and
/// f0 = gcd(p, k + i) in Z[i] (Lemma 4), normalized by a unit. Throws Error
/// for p not a prime = 1 mod 4.
GaussianPrime factorGaussianPrime(uint64_t p);

/// Appendix C, Algorithm 7: a primitive M-th root of i mod p (M = N/2): h
/// with h^M = i and order exactly 2N in Z_p[i]^*, for a prime p = 1 mod 2N,
/// p = 1 mod 4. Deterministic; the construction is documented in dgt.cpp.
GaussianInteger<uint64_t> primitiveRootOfI(uint64_t p, size_t n);

/// The four-step matrix of an M-point DGT: R rows of C columns, M = R C,
/// C = 2^ceil(log2(M)/2) (the longer side is the contiguous one).
struct DgtShape {
  size_t rows;
  size_t columns;
};
DgtShape dgtShape(size_t gaussianCount);

// Per-element steps, shared by the CPU reference and the CUDA kernels so that
// both compute the very same words. Bounds are on each word (re and im).

/// Gentleman-Sande butterfly (Algorithm 2, line 8) on one Gaussian pair with
/// a real twiddle w: inputs below 2p stay below 2p (x + y < 4p loses 2p at
/// most once; (x - y + 2p) w is Shoup-lazy, below 2p).
template <typename Word>
RF_HOST_DEVICE inline void
dgtForwardButterfly(Word &xRe, Word &xIm, Word &yRe, Word &yIm,
                    typename DgtWord<Word>::Shoup w, Word p) {
  const Word twoP = 2 * p;
  Word sumRe = xRe + yRe, sumIm = xIm + yIm;
  Word diffRe = xRe - yRe + twoP, diffIm = xIm - yIm + twoP;
  xRe = sumRe >= twoP ? sumRe - twoP : sumRe;
  xIm = sumIm >= twoP ? sumIm - twoP : sumIm;
  yRe = mulShoupLazy(diffRe, w, p);
  yIm = mulShoupLazy(diffIm, w, p);
}

/// Cooley-Tukey butterfly (Algorithm 3, line 8) with a real twiddle w:
/// inputs below 4p stay below 4p (x is first brought below 2p, y w is below
/// 2p).
template <typename Word>
RF_HOST_DEVICE inline void
dgtInverseButterfly(Word &xRe, Word &xIm, Word &yRe, Word &yIm,
                    typename DgtWord<Word>::Shoup w, Word p) {
  const Word twoP = 2 * p;
  Word uRe = xRe >= twoP ? xRe - twoP : xRe;
  Word uIm = xIm >= twoP ? xIm - twoP : xIm;
  Word vRe = mulShoupLazy(yRe, w, p), vIm = mulShoupLazy(yIm, w, p);
  xRe = uRe + vRe;
  xIm = uIm + vIm;
  yRe = uRe - vRe + twoP;
  yIm = uIm - vIm + twoP;
}

/// (re + im i) (c + d i) for a fixed Gaussian c + d i, any input words, the
/// result below 2p: each Shoup product is below 2p, so ac - bd + 2p and
/// ad + bc lie below 4p and one conditional subtraction of 2p suffices.
template <typename Word>
RF_HOST_DEVICE inline void
dgtMultiplyGaussianLazy(Word &re, Word &im, GaussianShoup<Word> w, Word p) {
  const Word twoP = 2 * p;
  Word ac = mulShoupLazy(re, w.re, p), bd = mulShoupLazy(im, w.im, p);
  Word ad = mulShoupLazy(re, w.im, p), bc = mulShoupLazy(im, w.re, p);
  Word outRe = ac - bd + twoP, outIm = ad + bc;
  re = outRe >= twoP ? outRe - twoP : outRe;
  im = outIm >= twoP ? outIm - twoP : outIm;
}

/// Position k of a forward DGT (re, im: words k and M + k, canonical) to the
/// NTT's words k and M + k: re + f im and re - f im, f = psi^M (see
/// primitiveRootOfI), canonical.
template <typename Word>
RF_HOST_DEVICE inline void
dgtToNttPair(Word &re, Word &im, typename DgtWord<Word>::Shoup f, Word p) {
  const Word product = mulShoup(im, f, p);
  const Word sum = re + product, difference = re + (p - product);
  re = sum >= p ? sum - p : sum;
  im = difference >= p ? difference - p : difference;
}

/// The inverse of dgtToNttPair: the NTT's words u, v (canonical) to
/// re = (u + v) / 2 and im = (u - v) / (2 f), canonical.
template <typename Word>
RF_HOST_DEVICE inline void
nttToDgtPair(Word &u, Word &v, typename DgtWord<Word>::Shoup half,
             typename DgtWord<Word>::Shoup halfOverF, Word p) {
  const Word sum = u + v, difference = u + (p - v);
  u = mulShoup(sum >= p ? sum - p : sum, half, p);
  v = mulShoup(difference >= p ? difference - p : difference, halfOverF, p);
}

/// A word below 2p, reduced to [0, p).
template <typename Word>
RF_HOST_DEVICE inline Word dgtReduceFromTwoP(Word x, Word p) {
  return x >= p ? x - p : x;
}

/// A word below 4p, reduced to [0, p).
template <typename Word>
RF_HOST_DEVICE inline Word dgtReduceFromFourP(Word x, Word p) {
  const Word twoP = 2 * p;
  x = x >= twoP ? x - twoP : x;
  return x >= p ? x - p : x;
}

/// Tables of the hierarchical DGT for one prime p and ring degree N, built
/// once per (p, N), deterministically. Word is uint64_t (p < 2^62).
template <typename Word> class DgtTables {
public:
  using Shoup = typename DgtWord<Word>::Shoup;

  /// Throws Error unless N is a power of two in [4, 2^17] and p is a prime
  /// with p = 1 mod 4, p = 1 mod 2N and p below 2^62.
  DgtTables(uint64_t p, size_t n);

  size_t degree() const { return n_; }
  /// M = N/2, the Gaussian integers per limb.
  size_t gaussianCount() const { return n_ / 2; }
  DgtShape shape() const { return shape_; }
  Word modulus() const { return p_; }
  /// h, with h^(N/2) = i and order 2N.
  GaussianInteger<uint64_t> rootOfI() const { return rootOfI_; }
  /// g = psi^4 for psi = minimalPrimitiveRoot(p, 2N) (NttTables' root):
  /// order N/2 in Z_p.
  uint64_t rootOfUnity() const { return rootOfUnity_; }

  /// N words in [0, p), coefficient form -> DGT domain (the order above).
  void forward(Word *values) const;
  /// N words in [0, p), DGT domain -> coefficient form.
  void inverse(Word *values) const;
  /// out = a * b Gaussian by Gaussian, all in the DGT domain, words in
  /// [0, p); out may alias a or b.
  void multiplyPointwise(const Word *a, const Word *b, Word *out) const;

  /// The negacyclic NTT through the DGT: forward, then each Gaussian pair
  /// mapped to the NTT's two words (dgtToNttPair), so the output is
  /// NttTables::forward's, word for word; inverseAsNtt undoes it. What
  /// compiled programs run as their `dgt` transform: every other kernel
  /// works on the NTT's words.
  void forwardAsNtt(Word *values) const;
  void inverseAsNtt(Word *values) const;
  /// Their constants: f = psi^M, 1/2 and 1/(2f).
  Shoup nttOrderFactor() const { return nttOrderFactor_; }
  Shoup half() const { return half_; }
  Shoup halfOverFactor() const { return halfOverFactor_; }

  // The tables, for drivers that upload them (the GPU computes with the very
  // same constants).

  /// h^j, j < M.
  const std::vector<GaussianShoup<Word>> &twist() const { return twist_; }
  /// h^{-j} M^{-1}, j < M.
  const std::vector<GaussianShoup<Word>> &untwist() const { return untwist_; }
  /// Butterfly twiddles of every power-of-two DGT of length dividing M:
  /// entry len + j (1 <= len <= M/2, j < len) is w^j for the primitive
  /// 2len-th root w = g^(M / 2len); a Gentleman-Sande stage whose pairs are
  /// len apart multiplies pair j of a block by it. Entry 0 is unused (1).
  const std::vector<Shoup> &twiddles() const { return twiddles_; }
  /// The same with g^{-1}, for the Cooley-Tukey inverse.
  const std::vector<Shoup> &inverseTwiddles() const { return inverseTwiddles_; }
  /// Step 2 of the four-step method: entry r C + c is g^(c bitrev_R(r)).
  const std::vector<Shoup> &stepTwiddles() const { return stepTwiddles_; }
  /// entry r C + c is g^(-c bitrev_R(r)).
  const std::vector<Shoup> &inverseStepTwiddles() const {
    return inverseStepTwiddles_;
  }

private:
  size_t n_;
  DgtShape shape_;
  Word p_;
  GaussianInteger<uint64_t> rootOfI_;
  uint64_t rootOfUnity_;
  std::vector<GaussianShoup<Word>> twist_, untwist_;
  std::vector<Shoup> twiddles_, inverseTwiddles_;
  std::vector<Shoup> stepTwiddles_, inverseStepTwiddles_;
  Shoup nttOrderFactor_, half_, halfOverFactor_;
};

extern template class DgtTables<uint64_t>;

using DgtTables64 = DgtTables<uint64_t>;

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_DGT_H
