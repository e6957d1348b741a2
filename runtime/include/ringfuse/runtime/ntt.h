//===- ntt.h - the negacyclic number-theoretic transform ----------*- C++ -*-===//
//
// Forward: Cooley-Tukey, natural order in, bit-reversed order out: output j
// is a(psi^(2 * bitrev(j) + 1)), the evaluation at the odd powers of a
// primitive 2N-th root psi, so a pointwise product is the negacyclic product.
// Inverse: Gentleman-Sande, bit-reversed in, natural out, scaled by N^{-1}.
// Butterflies use Shoup constants with Harvey's lazy reduction (values kept
// below 4q, which needs q < 2^62).
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_NTT_H
#define RINGFUSE_RUNTIME_NTT_H

#include "ringfuse/runtime/modarith.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime {

/// Twiddles for one prime and ring degree; built once per parameter set.
class NttTables {
public:
  NttTables(uint64_t q, size_t n);

  size_t degree() const { return n_; }
  const Modulus &modulus() const { return modulus_; }
  /// psi, the smallest primitive 2N-th root of unity mod q.
  uint64_t root() const { return root_; }

  void forward(uint64_t *values) const;
  void inverse(uint64_t *values) const;

  /// The twiddles, for drivers that upload them (the GPU computes with the
  /// very same constants): psi^bitrev(k), psi^-bitrev(k), N^{-1}.
  const std::vector<ShoupConstant> &rootPowers() const { return rootPowers_; }
  const std::vector<ShoupConstant> &inverseRootPowers() const {
    return inverseRootPowers_;
  }
  ShoupConstant inverseDegree() const { return inverseDegree_; }

private:
  size_t n_;
  unsigned logN_;
  Modulus modulus_;
  uint64_t root_;
  std::vector<ShoupConstant> rootPowers_;        // psi^bitrev(k), k < N
  std::vector<ShoupConstant> inverseRootPowers_; // psi^-bitrev(k)
  ShoupConstant inverseDegree_;                  // N^{-1}
};

/// The CPU reference NTT of a word type, for code templated on the word
/// (the GPU's kernels and their tests; 64-bit words only).
template <typename Word> struct NttTablesFor;
template <> struct NttTablesFor<uint64_t> { using type = NttTables; };

/// The smallest primitive 2N-th root of unity mod a prime q = 1 (mod 2N).
uint64_t minimalPrimitiveRoot(uint64_t q, size_t twoN);

/// The low `bits` bits of `value` in reverse order (usable on the GPU).
RF_HOST_DEVICE inline uint64_t reverseBits(uint64_t value, unsigned bits) {
  uint64_t result = 0;
  for (unsigned b = 0; b < bits; ++b, value >>= 1)
    result = (result << 1) | (value & 1);
  return result;
}

/// Batching's slot layout: slot s of the two rows of N/2 sits at position
/// positions[s] of the NTT's (bit-reversed) output, the evaluation at
/// zeta^(3^i) (row 0) or zeta^(-3^i) (row 1), since the NTT puts
/// m(zeta^(2 bitrev(j) + 1)) at position j.
std::vector<size_t> batchingSlotPositions(size_t n);

/// X -> X^g on one limb in coefficient form (g odd, 1 <= g < 2N):
/// coefficient i moves to i*g mod 2N, negated past N.
void applyAutomorphism(const uint64_t *in, size_t n, uint64_t galoisElement,
                       uint64_t q, uint64_t *out);

/// The same automorphism on one limb in evaluation form (the forward NTT's
/// output): position j holds a(psi^(2 bitrev(j) + 1)), and a(X^g) there is
/// a at psi^((2 bitrev(j) + 1) g), so the map is a permutation, without
/// negations or a modulus: out[j] = in[k] for 2 bitrev(k) + 1 =
/// (2 bitrev(j) + 1) g mod 2N. Equal to ntt(applyAutomorphism(intt(in))).
void applyEvaluationAutomorphism(const uint64_t *in, size_t n,
                                 uint64_t galoisElement, uint64_t *out);


/// The input position that output position j of an evaluation-form
/// automorphism reads: the one CPU reference and GPU kernel share.
/// (2 bitrev(j) + 1) g < 2N * 2N <= 2^36: no overflow.
RF_HOST_DEVICE inline uint64_t evaluationAutomorphismSource(
    uint64_t j, unsigned logN, uint64_t galoisElement) {
  const uint64_t twoN = uint64_t(2) << logN;
  const uint64_t exponent =
      ((2 * reverseBits(j, logN) + 1) * galoisElement) % twoN;
  return reverseBits((exponent - 1) / 2, logN);
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_NTT_H
