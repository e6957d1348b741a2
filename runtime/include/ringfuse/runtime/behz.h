//===- behz.h - BEHZ's RNS scaling: gamma correction, SmMRq, floor, ConvSK -===//
//
// Bajard, Eynard, Hasan, Zucca (2016), as summarised in Algorithms 1 and 3 of
// the variants paper. Every step is a fast base conversion plus a cheap
// correction, so nothing needs fractions; the price is an auxiliary base
// Bsk = B u {m_sk}, an extra modulus m~ = 2^32 and gamma.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_BEHZ_H
#define RINGFUSE_RUNTIME_BEHZ_H

#include "ringfuse/runtime/params.h"

namespace ringfuse::runtime {

class BehzPlan {
public:
  explicit BehzPlan(const Context &context);

  const RnsBasis &bsk() const { return bsk_; }

  /// Decryption's scale-and-round with gamma correction (Algorithm 1):
  /// x over Q (the phase c0 + c1 s) -> m = round(t x / Q) mod t, exact while
  /// the noise leaves BEHZ's margin.
  void decrypt(const uint64_t *x, size_t n, uint64_t *m) const;

  /// Q -> Bsk with SmMRq: residues over Bsk of some y = c (mod Q) with
  /// |y| <= Q (1 + rho) / 2, instead of the c + u Q (u < |Q|) of a plain fast
  /// conversion. The m~ multiple is folded into the conversion matrix.
  void extendToBsk(const uint64_t *inQ, size_t n, uint64_t *outBsk) const;

  /// Fast RNS flooring: from x over Q u Bsk, residues over Bsk of
  /// floor(t x / Q) - v with 0 <= v < |Q| (Algorithm 3, line 8).
  void fastFloor(const uint64_t *inQ, const uint64_t *inBsk, size_t n,
                 uint64_t *outBsk) const;

  /// Shenoy-Kumaresan conversion Bsk -> Q: exact for integers of absolute
  /// value below B / 2, using the redundant residue mod m_sk (lines 10-11).
  void convertBskToQ(const uint64_t *inBsk, size_t n, uint64_t *outQ) const;

private:
  size_t n_;
  RnsBasis q_, b_, bsk_;
  uint64_t t_, gamma_, mTilde_, mSk_;
  Modulus tModulus_, gammaModulus_, mSkModulus_;

  // Decryption.
  BaseConverter qToTGamma_;
  std::vector<uint64_t> gammaTModQ_;        // [gamma t]_{q_i}
  uint64_t negInverseQModT_, negInverseQModGamma_, inverseGammaModT_;
  // SmMRq.
  BaseConverter qToBskMTilde_;
  std::vector<uint64_t> mTildeModQ_;        // [m~]_{q_i}
  uint64_t negInverseQModMTilde_;
  std::vector<uint64_t> qModBsk_, inverseMTildeModBsk_;
  // Fast floor.
  BaseConverter qToBsk_;
  std::vector<uint64_t> tModQ_, tModBsk_, inverseQModBsk_;
  // ConvSK.
  BaseConverter bToQ_, bToMSk_;
  uint64_t inverseBModMSk_;
  std::vector<uint64_t> bModQ_;
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_BEHZ_H
