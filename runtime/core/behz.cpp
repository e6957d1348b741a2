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
  uint64_t residue = value.modWord(modulus);
  if (residue == 0)
    throw Error("BEHZ needs coprime bases: " + std::to_string(modulus) +
                " divides the product it must invert");
  return invertModSlow(residue, modulus);
}

/// The centered representative of a residue mod m, as a residue mod q.
uint64_t centeredTo(uint64_t residue, uint64_t m, const Modulus &q) {
  return signedResidue(centered(residue, m), q);
}
} // namespace

// RedundantConverter ----------------------------------------------------------

RedundantConverter::RedundantConverter(const RnsBasis &from, const RnsBasis &to,
                                       uint64_t redundant, bool readsRedundant)
    : from_(from), to_(to), readsRedundant_(readsRedundant),
      redundant_(redundant) {
  if (from.empty() || to.empty())
    throw Error("a corrected base conversion needs nonempty bases");
  // SmMRq multiplies by m~ before converting and divides by it after;
  // Shenoy-Kumaresan's redundant modulus is read, not multiplied in.
  const uint64_t premultiplier = readsRedundant ? 1 : redundant;
  factor_ = inverseOf(from.product(), redundant);
  for (size_t i = 0; i < from.size(); ++i) {
    const uint64_t a = from.values()[i];
    scale_.emplace_back(mulModSlow(premultiplier % a,
                                   from.puncturedInverse(i).value, a),
                        a);
    redundantWeights_.push_back(from.puncturedProduct(i).modWord(redundant));
  }
  std::vector<uint64_t> unscale;
  for (uint64_t t : to.values())
    unscale.push_back(invertModSlow(premultiplier % t, t));
  for (size_t i = 0; i < from.size(); ++i)
    for (size_t k = 0; k < to.size(); ++k) {
      const uint64_t t = to.values()[k];
      weights_.push_back(
          mulModSlow(from.puncturedProduct(i).modWord(t), unscale[k], t));
    }
  for (size_t k = 0; k < to.size(); ++k) {
    const uint64_t t = to.values()[k];
    product_.push_back(mulModSlow(from.product().modWord(t), unscale[k], t));
  }
}

RedundantConverter RedundantConverter::montgomery(const RnsBasis &from,
                                                  const RnsBasis &to) {
  return RedundantConverter(from, to, kMontgomeryModulus, false);
}

RedundantConverter
RedundantConverter::shenoyKumaresan(const RnsBasis &fromWithRedundant,
                                    const RnsBasis &to) {
  const size_t size = fromWithRedundant.size();
  if (size < 2)
    throw Error("Shenoy-Kumaresan conversion needs a base and a redundant "
                "modulus");
  return RedundantConverter(fromWithRedundant.slice(0, size - 1), to,
                            fromWithRedundant.values()[size - 1], true);
}

void RedundantConverter::apply(const uint64_t *in, size_t n,
                               uint64_t *out) const {
  const size_t fromSize = from_.size(), toSize = to_.size();
  const uint64_t *redundantIn = in + fromSize * n;
  std::vector<uint64_t> w(fromSize);
  for (size_t c = 0; c < n; ++c) {
    uint64_t s = 0;
    for (size_t i = 0; i < fromSize; ++i) {
      w[i] = mulShoup(in[i * n + c], scale_[i], from_.values()[i]);
      s = addMod(s, mulMod(w[i], redundantWeights_[i], redundant_),
                 redundant_.value);
    }
    const uint64_t xr = readsRedundant_ ? redundantIn[c] : 0;
    const int64_t v = centered(
        mulMod(subMod(s, xr, redundant_.value), factor_, redundant_),
        redundant_.value);
    for (size_t k = 0; k < toSize; ++k) {
      const Modulus &t = to_.modulus(k);
      uint64_t sum = 0;
      for (size_t i = 0; i < fromSize; ++i)
        sum = addMod(sum, mulMod(w[i], weights_[i * toSize + k], t), t.value);
      out[k * n + c] = subMod(
          sum, mulMod(signedResidue(v, t), product_[k], t), t.value);
    }
  }
}

// FastFloorPlan ---------------------------------------------------------------

FastFloorPlan::FastFloorPlan(const RnsBasis &divisor, const RnsBasis &kept,
                             const BigUInt &numerator)
    : divisor_(divisor), kept_(kept) {
  if (divisor.empty() || kept.empty())
    throw Error("a fast floor needs nonempty divisor and kept bases");
  if (numerator.isZero())
    throw Error("a fast floor needs a positive numerator");
  for (size_t i = 0; i < divisor.size(); ++i) {
    const uint64_t d = divisor.values()[i];
    scale_.emplace_back(
        mulModSlow(numerator.modWord(d), divisor.puncturedInverse(i).value, d),
        d);
  }
  std::vector<uint64_t> inverseD;
  for (uint64_t k : kept.values())
    inverseD.push_back(inverseOf(divisor.product(), k));
  for (size_t i = 0; i < divisor.size(); ++i)
    for (size_t k = 0; k < kept.size(); ++k) {
      const uint64_t m = kept.values()[k];
      weights_.push_back(negateMod(
          mulModSlow(divisor.puncturedProduct(i).modWord(m), inverseD[k], m),
          m));
    }
  for (size_t k = 0; k < kept.size(); ++k) {
    const uint64_t m = kept.values()[k];
    lambda_.push_back(mulModSlow(numerator.modWord(m), inverseD[k], m));
  }
}

void FastFloorPlan::apply(const uint64_t *inDivisor, const uint64_t *inKept,
                          size_t n, uint64_t *out) const {
  const size_t divisorSize = divisor_.size(), keptSize = kept_.size();
  std::vector<uint64_t> w(divisorSize);
  for (size_t c = 0; c < n; ++c) {
    for (size_t i = 0; i < divisorSize; ++i)
      w[i] = mulShoup(inDivisor[i * n + c], scale_[i], divisor_.values()[i]);
    for (size_t k = 0; k < keptSize; ++k) {
      const Modulus &m = kept_.modulus(k);
      uint64_t sum = mulMod(inKept[k * n + c], lambda_[k], m);
      for (size_t i = 0; i < divisorSize; ++i)
        sum = addMod(sum, mulMod(w[i], weights_[i * keptSize + k], m), m.value);
      out[k * n + c] = sum;
    }
  }
}

// BehzPlan --------------------------------------------------------------------

BehzPlan::BehzPlan(const Context &context)
    : q_(context.q()), bsk_(withModulus(context.auxiliary(), context.mSk())),
      t_(context.plaintextModulus()), gamma_(context.gamma()), tModulus_(t_),
      gammaModulus_(gamma_), qToTGamma_(q_, RnsBasis({t_, gamma_})),
      extend_(RedundantConverter::montgomery(q_, bsk_)),
      floor_(q_, bsk_, BigUInt(t_)),
      shenoyKumaresan_(RedundantConverter::shenoyKumaresan(bsk_, q_)) {
  const BigUInt &qProduct = q_.product();
  gammaTModQ_ = residuesOf(BigUInt(gamma_) * BigUInt(t_), q_);
  negInverseQModT_ = negateMod(inverseOf(qProduct, t_), t_);
  negInverseQModGamma_ = negateMod(inverseOf(qProduct, gamma_), gamma_);
  inverseGammaModT_ = invertModSlow(gamma_ % t_, t_);
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

} // namespace ringfuse::runtime
