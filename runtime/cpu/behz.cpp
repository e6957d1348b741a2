//===- behz.cpp - BEHZ's RNS scaling --------------------------------------===//
#include "ringfuse/runtime/behz.h"

#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {

namespace {
RnsBasis withModulus(const RnsBasis &basis, uint64_t extra) {
  return basis.concat(RnsBasis({extra}));
}

std::vector<uint64_t> residuesOf(const BigUInt &value, const RnsBasis &basis) {
  std::vector<uint64_t> residues(basis.size());
  basis.decompose(value, residues.data(), 1);
  return residues;
}

uint64_t inverseOf(const BigUInt &value, uint64_t modulus) {
  return invertModSlow(value.modWord(modulus), modulus);
}

/// The centered representative of a residue mod m, as a residue mod q.
uint64_t centeredTo(uint64_t residue, uint64_t m, const Modulus &q) {
  return residue > m / 2 ? negateMod(reduce(m - residue, q), q.value)
                         : reduce(residue, q);
}
} // namespace

BehzPlan::BehzPlan(const Context &context)
    : n_(context.degree()), q_(context.q()), b_(context.auxiliary()),
      bsk_(withModulus(context.auxiliary(), context.mSk())),
      t_(context.plaintextModulus()), gamma_(context.gamma()),
      mTilde_(context.mTilde()), mSk_(context.mSk()), tModulus_(t_),
      gammaModulus_(gamma_), mSkModulus_(mSk_),
      qToTGamma_(q_, RnsBasis({t_, gamma_})),
      qToBskMTilde_(q_, withModulus(bsk_, mTilde_)), qToBsk_(q_, bsk_),
      bToQ_(b_, q_), bToMSk_(b_, RnsBasis({mSk_})) {
  const BigUInt &qProduct = q_.product();
  gammaTModQ_ = residuesOf(BigUInt(gamma_) * BigUInt(t_), q_);
  negInverseQModT_ = negateMod(inverseOf(qProduct, t_), t_);
  negInverseQModGamma_ = negateMod(inverseOf(qProduct, gamma_), gamma_);
  inverseGammaModT_ = invertModSlow(gamma_ % t_, t_);

  mTildeModQ_ = residuesOf(BigUInt(mTilde_), q_);
  negInverseQModMTilde_ = negateMod(inverseOf(qProduct, mTilde_), mTilde_);
  qModBsk_ = residuesOf(qProduct, bsk_);
  for (uint64_t m : bsk_.values())
    inverseMTildeModBsk_.push_back(invertModSlow(mTilde_ % m, m));

  tModQ_ = residuesOf(BigUInt(t_), q_);
  tModBsk_ = residuesOf(BigUInt(t_), bsk_);
  for (uint64_t m : bsk_.values())
    inverseQModBsk_.push_back(inverseOf(qProduct, m));

  inverseBModMSk_ = inverseOf(b_.product(), mSk_);
  bModQ_ = residuesOf(b_.product(), q_);
}

void BehzPlan::decrypt(const uint64_t *x, size_t n, uint64_t *m) const {
  const size_t l = q_.size();
  std::vector<uint64_t> scaled(l * n), converted(2 * n);
  for (size_t i = 0; i < l; ++i)
    for (size_t j = 0; j < n; ++j)
      scaled[i * n + j] = mulMod(x[i * n + j], gammaTModQ_[i], q_.modulus(i));
  qToTGamma_.convertFast(scaled.data(), n, converted.data());
  for (size_t j = 0; j < n; ++j) {
    uint64_t ft = mulMod(converted[j], negInverseQModT_, tModulus_);
    uint64_t fGamma = mulMod(converted[n + j], negInverseQModGamma_, gammaModulus_);
    // ft - centered(fGamma), then times gamma^{-1} mod t.
    uint64_t correction = centeredTo(fGamma, gamma_, tModulus_);
    m[j] = mulMod(subMod(ft, correction, t_), inverseGammaModT_, tModulus_);
  }
}

void BehzPlan::extendToBsk(const uint64_t *inQ, size_t n,
                           uint64_t *outBsk) const {
  const size_t l = q_.size(), k = bsk_.size();
  std::vector<uint64_t> scaled(l * n), converted((k + 1) * n);
  for (size_t i = 0; i < l; ++i)
    for (size_t j = 0; j < n; ++j)
      scaled[i * n + j] = mulMod(inQ[i * n + j], mTildeModQ_[i], q_.modulus(i));
  qToBskMTilde_.convertFast(scaled.data(), n, converted.data());
  const uint64_t *sMTilde = converted.data() + k * n;
  Modulus mTildeModulus(mTilde_);
  for (size_t j = 0; j < n; ++j) {
    // r = [-s_{m~} / Q]_{m~}, centered; then (s + Q r) / m~ over Bsk.
    uint64_t r = mulMod(sMTilde[j], negInverseQModMTilde_, mTildeModulus);
    for (size_t b = 0; b < k; ++b) {
      const Modulus &mb = bsk_.modulus(b);
      uint64_t sum = addMod(converted[b * n + j],
                            mulMod(qModBsk_[b], centeredTo(r, mTilde_, mb), mb),
                            mb.value);
      outBsk[b * n + j] = mulMod(sum, inverseMTildeModBsk_[b], mb);
    }
  }
}

void BehzPlan::fastFloor(const uint64_t *inQ, const uint64_t *inBsk, size_t n,
                         uint64_t *outBsk) const {
  const size_t l = q_.size(), k = bsk_.size();
  std::vector<uint64_t> scaled(l * n), converted(k * n);
  for (size_t i = 0; i < l; ++i)
    for (size_t j = 0; j < n; ++j)
      scaled[i * n + j] = mulMod(inQ[i * n + j], tModQ_[i], q_.modulus(i));
  qToBsk_.convertFast(scaled.data(), n, converted.data());
  for (size_t b = 0; b < k; ++b) {
    const Modulus &mb = bsk_.modulus(b);
    for (size_t j = 0; j < n; ++j) {
      uint64_t tx = mulMod(inBsk[b * n + j], tModBsk_[b], mb);
      outBsk[b * n + j] = mulMod(subMod(tx, converted[b * n + j], mb.value),
                                 inverseQModBsk_[b], mb);
    }
  }
}

void BehzPlan::convertBskToQ(const uint64_t *inBsk, size_t n,
                             uint64_t *outQ) const {
  const size_t l = q_.size(), kB = b_.size();
  std::vector<uint64_t> toMSk(n);
  bToMSk_.convertFast(inBsk, n, toMSk.data());
  bToQ_.convertFast(inBsk, n, outQ);
  const uint64_t *xMSk = inBsk + kB * n;
  for (size_t j = 0; j < n; ++j) {
    // alpha = (Conv(x) - x) / B mod m_sk: the multiple of B the fast
    // conversion added, taken centered so negative x work too.
    uint64_t alpha = mulMod(subMod(toMSk[j], xMSk[j], mSk_), inverseBModMSk_,
                            mSkModulus_);
    for (size_t i = 0; i < l; ++i) {
      const Modulus &q = q_.modulus(i);
      uint64_t correction = mulMod(centeredTo(alpha, mSk_, q), bModQ_[i], q);
      outQ[i * n + j] = subMod(outQ[i * n + j], correction, q.value);
    }
  }
}

} // namespace ringfuse::runtime
