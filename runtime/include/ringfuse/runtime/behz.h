//===- behz.h - BEHZ's RNS scaling: gamma correction, SmMRq, floor, ConvSK -===//
//
// Bajard, Eynard, Hasan, Zucca (2016), as summarised in Algorithms 1 and 3 of
// the variants paper. Every step is a fast base conversion plus a cheap
// correction, so nothing needs fractions; the price is an auxiliary base
// Bsk = B u {m_sk}, an extra modulus m~ = 2^32 and gamma.
//
// The two conversions (SmMRq and Shenoy-Kumaresan) share one shape, a fast
// conversion corrected through a redundant modulus (RedundantConverter), and
// the fast floor is a conversion with the multiply-and-subtract folded into
// its constants (FastFloorPlan); compiled programs run both as library
// kernels, whose GPU versions read the tables below.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_BEHZ_H
#define RINGFUSE_RUNTIME_BEHZ_H

#include "ringfuse/runtime/params.h"

namespace ringfuse::runtime {

/// m~ of BEHZ's small Montgomery reduction.
constexpr uint64_t kMontgomeryModulus = uint64_t(1) << 32;

/// A fast base conversion A -> T corrected through one redundant modulus r:
///   w_i = [x_i s_i]_{a_i}
///   v   = centered([(sum_i w_i [A/a_i]_r - x_r) f]_r)
///   y_k = sum_i w_i c_{ik} - v p_k   (mod t_k)
class RedundantConverter {
public:
  /// SmMRq (Q -> Bsk): r = m~, x_r = 0, s_i = [m~ (A/a_i)^{-1}]_{a_i},
  /// f = [A^{-1}]_{m~}, c_ik = [(A/a_i) m~^{-1}]_{t_k}, p_k = [A m~^{-1}]_{t_k}.
  /// The result is y = x (mod A) with |y| <= A (1/2 + |A| / m~), where a
  /// plain fast conversion would give x + u A with u up to |A| - 1.
  static RedundantConverter montgomery(const RnsBasis &from, const RnsBasis &to);
  /// Shenoy-Kumaresan (Bsk -> Q): the input is A followed by r = m_sk, its
  /// last limb; s_i = [(A/a_i)^{-1}]_{a_i}, f = [A^{-1}]_{m_sk},
  /// c_ik = [A/a_i]_{t_k}, p_k = [A]_{t_k}. Exact for |x| < A / 2: v is the
  /// multiple of A the fast conversion added.
  static RedundantConverter shenoyKumaresan(const RnsBasis &fromWithRedundant,
                                            const RnsBasis &to);

  /// in: the limbs of A (then r's, for Shenoy-Kumaresan); out: |T| limbs.
  void apply(const uint64_t *in, size_t n, uint64_t *out) const;

  const RnsBasis &from() const { return from_; } // A, without r
  const RnsBasis &to() const { return to_; }
  bool readsRedundant() const { return readsRedundant_; }
  const Modulus &redundant() const { return redundant_; }
  uint64_t factor() const { return factor_; }
  const std::vector<ShoupConstant> &scale() const { return scale_; }
  const std::vector<uint64_t> &redundantWeights() const { return redundantWeights_; }
  const std::vector<uint64_t> &weights() const { return weights_; } // [i |T| + k]
  const std::vector<uint64_t> &product() const { return product_; }

private:
  RedundantConverter(const RnsBasis &from, const RnsBasis &to,
                     uint64_t redundant, bool readsRedundant);

  RnsBasis from_, to_;
  bool readsRedundant_;
  Modulus redundant_;
  uint64_t factor_ = 0;
  std::vector<ShoupConstant> scale_;
  std::vector<uint64_t> redundantWeights_, weights_, product_;
};

/// BEHZ's fast floor: x over D u K -> floor(a x / D) - u mod each k of K,
/// 0 <= u < |D| (Algorithm 3, line 8). The fast conversion of [a x]_D to K
/// and the subtraction from a x and division by D are one dot product:
///   w_i = [x_{d_i} a (D/d_i)^{-1}]_{d_i}
///   y_k = x_k [a D^{-1}]_k + sum_i w_i [-(D/d_i) D^{-1}]_k   (mod k)
class FastFloorPlan {
public:
  FastFloorPlan(const RnsBasis &divisor, const RnsBasis &kept,
                const BigUInt &numerator);

  /// inDivisor: |D| limbs; inKept: |K| limbs; out: |K| limbs.
  void apply(const uint64_t *inDivisor, const uint64_t *inKept, size_t n,
             uint64_t *out) const;

  const RnsBasis &divisor() const { return divisor_; }
  const RnsBasis &kept() const { return kept_; }
  const std::vector<ShoupConstant> &scale() const { return scale_; }
  const std::vector<uint64_t> &weights() const { return weights_; } // [i |K| + k]
  const std::vector<uint64_t> &lambda() const { return lambda_; }

private:
  RnsBasis divisor_, kept_;
  std::vector<ShoupConstant> scale_;
  std::vector<uint64_t> weights_, lambda_;
};

/// BEHZ multiplication's steps and decryption for one parameter set.
class BehzPlan {
public:
  explicit BehzPlan(const Context &context);

  const RnsBasis &bsk() const { return bsk_; }

  /// Decryption's scale-and-round with gamma correction (Algorithm 1):
  /// x over Q (the phase c0 + c1 s) -> m = round(t x / Q) mod t, exact while
  /// the noise leaves BEHZ's margin.
  void decrypt(const uint64_t *x, size_t n, uint64_t *m) const;

  /// Q -> Bsk with SmMRq (RedundantConverter::montgomery).
  void extendToBsk(const uint64_t *inQ, size_t n, uint64_t *outBsk) const {
    extend_.apply(inQ, n, outBsk);
  }
  /// From x over Q u Bsk, residues over Bsk of floor(t x / Q) - v with
  /// 0 <= v < |Q|.
  void fastFloor(const uint64_t *inQ, const uint64_t *inBsk, size_t n,
                 uint64_t *outBsk) const {
    floor_.apply(inQ, inBsk, n, outBsk);
  }
  /// Bsk -> Q, exact for integers of absolute value below B / 2.
  void convertBskToQ(const uint64_t *inBsk, size_t n, uint64_t *outQ) const {
    shenoyKumaresan_.apply(inBsk, n, outQ);
  }

private:
  RnsBasis q_, bsk_;
  uint64_t t_, gamma_;
  Modulus tModulus_, gammaModulus_;

  // Decryption.
  BaseConverter qToTGamma_;
  std::vector<uint64_t> gammaTModQ_;        // [gamma t]_{q_i}
  uint64_t negInverseQModT_, negInverseQModGamma_, inverseGammaModT_;
  // Multiplication.
  RedundantConverter extend_;
  FastFloorPlan floor_;
  RedundantConverter shenoyKumaresan_;
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_BEHZ_H
