//===- rns.h - RNS bases, base conversion, scale-and-round --------*- C++ -*-===//
//
// Polynomials over a basis {q_0, ..., q_{k-1}} are stored limb-major: residue
// i of coefficient j at [i * n + j]. The kernels here are the CPU reference
// definitions; the GPU versions must match them bit for bit.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_RNS_H
#define RINGFUSE_RUNTIME_RNS_H

#include "ringfuse/runtime/biguint.h"
#include "ringfuse/runtime/modarith.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime {

/// A 128-bit fixed-point fraction in [0, 1): value = (high * 2^64 + low) / 2^128.
struct Fraction128 {
  uint64_t high = 0;
  uint64_t low = 0;
};

/// An RNS basis: pairwise coprime moduli, their product M, and the CRT
/// constants M/m_i and [(M/m_i)^{-1}]_{m_i}.
class RnsBasis {
public:
  RnsBasis() = default;
  explicit RnsBasis(std::vector<uint64_t> moduli);

  size_t size() const { return moduli_.size(); }
  bool empty() const { return moduli_.empty(); }
  const std::vector<uint64_t> &values() const { return values_; }
  const Modulus &modulus(size_t i) const { return moduli_[i]; }
  const BigUInt &product() const { return product_; }
  const BigUInt &puncturedProduct(size_t i) const { return punctured_[i]; }
  /// [(M/m_i)^{-1}]_{m_i}.
  const ShoupConstant &puncturedInverse(size_t i) const {
    return puncturedInverses_[i];
  }

  /// The moduli [begin, end) as a basis of their own.
  RnsBasis slice(size_t begin, size_t end) const;
  RnsBasis concat(const RnsBasis &other) const;

  /// The integer in [0, M) with the given residues (residue i at
  /// residues[i * stride]).
  BigUInt compose(const uint64_t *residues, size_t stride) const;
  void decompose(const BigUInt &value, uint64_t *residues,
                 size_t stride) const;

private:
  std::vector<uint64_t> values_;
  std::vector<Modulus> moduli_;
  BigUInt product_;
  std::vector<BigUInt> punctured_;
  std::vector<ShoupConstant> puncturedInverses_;
};

/// Fast base conversion A -> B (BEHZ's Conv, HPS's first step):
///   y_j = sum_i [x_i * (A/a_i)^{-1}]_{a_i} * [A/a_i]_{b_j}  (mod b_j),
/// which is x + u*A for some 0 <= u < |A|. With `exact`, HPS's correction
/// subtracts round(sum_i [x_i (A/a_i)^{-1}]_{a_i} / a_i) * A, so y is the
/// centered representative of x in (-A/2, A/2] reduced mod b_j (exact except
/// within |A| * 2^-66 of the tie A/2).
class BaseConverter {
public:
  BaseConverter(const RnsBasis &from, const RnsBasis &to);

  const RnsBasis &from() const { return from_; }
  const RnsBasis &to() const { return to_; }
  /// in: |A| limbs of n coefficients; out: |B| limbs.
  void convertFast(const uint64_t *in, size_t n, uint64_t *out) const;
  void convertExact(const uint64_t *in, size_t n, uint64_t *out) const;

  /// The tables of the formula above, read-only, for drivers that upload
  /// them (the CUDA driver): [A/a_i]_{b_j} at [i * |B| + j], [A]_{b_j}, and
  /// 1 / a_i in 128-bit fixed point. The [(A/a_i)^{-1}]_{a_i} are
  /// from().puncturedInverse(i).
  const std::vector<uint64_t> &puncturedModTo() const {
    return puncturedModTo_;
  }
  const std::vector<uint64_t> &productModTo() const { return productModTo_; }
  const std::vector<Fraction128> &inverseOfFrom() const {
    return inverseOfFrom_;
  }

private:
  void convert(const uint64_t *in, size_t n, uint64_t *out, bool exact) const;

  RnsBasis from_, to_;
  std::vector<uint64_t> puncturedModTo_; // [A/a_i]_{b_j} at [i * |B| + j]
  std::vector<uint64_t> productModTo_;   // [A]_{b_j}
  std::vector<Fraction128> inverseOfFrom_; // 1 / a_i
};

/// HPS scale-and-round, the one primitive behind decryption, tensoring's t/Q
/// and key switching's division by P. Input x over D u K (the divisor basis D
/// and the kept basis K), output
///   y = round(numerator * x / D)  mod each modulus of K,
/// or, when K is empty, mod each of `outputModuli` (each must divide the
/// numerator: decryption's t, or compact HPS's switch of a ciphertext from Q
/// to R with numerator R). x is taken in [0, D*K); any representative gives
/// the same residues. Rounding is half up; the fractional parts are 128-bit
/// fixed point, so the result is exact unless numerator * x / D lies within
/// |D| * 2^-66 of a half-integer, and identical on every machine.
class ScaleRoundPlan {
public:
  ScaleRoundPlan(const RnsBasis &divisor, const RnsBasis &kept,
                 const BigUInt &numerator,
                 const std::vector<uint64_t> &outputModuli = {});
  /// One output modulus (0: none, for a nonempty K).
  ScaleRoundPlan(const RnsBasis &divisor, const RnsBasis &kept,
                 uint64_t numerator, uint64_t outputModulus = 0)
      : ScaleRoundPlan(divisor, kept, BigUInt(numerator),
                       outputModulus ? std::vector<uint64_t>{outputModulus}
                                     : std::vector<uint64_t>{}) {}

  size_t outputLimbs() const { return outputs_.size(); }
  const std::vector<Modulus> &outputModuli() const { return outputs_; }
  /// inDivisor: |D| limbs; inKept: |K| limbs (unused if K is empty);
  /// out: outputLimbs() limbs, all of n coefficients. With inKept null and
  /// K nonempty, the kept limbs' term lambda_k x_k is left out: what is
  /// written is the part of the rounding that the divisor's limbs decide
  /// (RfScaleRound's switch to moduli not dividing the numerator).
  void apply(const uint64_t *inDivisor, const uint64_t *inKept, size_t n,
             uint64_t *out) const;

  /// The tables of apply, read-only, for drivers that upload them (the CUDA
  /// driver): theta_i = frac(W_i) per divisor modulus, [floor(W_i)]_o at
  /// [i * outputLimbs() + o], and lambda_k = [numerator * D^{-1}]_{k} per
  /// kept modulus (empty when K is empty).
  size_t divisorSize() const { return divisorSize_; }
  const std::vector<Fraction128> &theta() const { return theta_; }
  const std::vector<uint64_t> &omega() const { return omega_; }
  const std::vector<uint64_t> &lambda() const { return lambda_; }

private:
  size_t divisorSize_;
  std::vector<Modulus> outputs_;
  std::vector<Fraction128> theta_;    // frac(W_i), per divisor modulus
  std::vector<uint64_t> omega_;       // [floor(W_i)]_{o}, at [i * |O| + o]
  std::vector<uint64_t> lambda_;      // [numerator * D^{-1}]_{k}, per kept k
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_RNS_H
