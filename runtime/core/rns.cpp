//===- rns.cpp - RNS bases, base conversion, scale-and-round --------------===//
#include "ringfuse/runtime/rns.h"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/fixed_point.h"

#include <numeric>

namespace ringfuse::runtime {

/// r / d in 128-bit fixed point, for 0 <= r < d.
static Fraction128 fractionOf(uint64_t r, uint64_t d) {
  uint128_t scaled = static_cast<uint128_t>(r) << 64;
  Fraction128 f;
  f.high = static_cast<uint64_t>(scaled / d);
  f.low = static_cast<uint64_t>(((scaled % d) << 64) / d);
  return f;
}

RnsBasis::RnsBasis(std::vector<uint64_t> moduli) : values_(std::move(moduli)) {
  for (size_t i = 0; i < values_.size(); ++i) {
    if (values_[i] < 2 || values_[i] >= (uint64_t(1) << 63))
      throw Error("RNS modulus " + std::to_string(values_[i]) +
                  " is outside [2, 2^63)");
    for (size_t j = 0; j < i; ++j)
      if (std::gcd(values_[i], values_[j]) != 1)
        throw Error("RNS moduli " + std::to_string(values_[j]) + " and " +
                    std::to_string(values_[i]) + " are not coprime");
    moduli_.emplace_back(values_[i]);
  }
  product_ = BigUInt::product(values_);
  for (uint64_t m : values_) {
    BigUInt punctured = product_.divModWord(m).first;
    uint64_t inverse = invertModSlow(punctured.modWord(m), m);
    punctured_.push_back(std::move(punctured));
    puncturedInverses_.emplace_back(inverse, m);
  }
}

RnsBasis RnsBasis::slice(size_t begin, size_t end) const {
  return RnsBasis(
      std::vector<uint64_t>(values_.begin() + begin, values_.begin() + end));
}

RnsBasis RnsBasis::concat(const RnsBasis &other) const {
  std::vector<uint64_t> all = values_;
  all.insert(all.end(), other.values_.begin(), other.values_.end());
  return RnsBasis(std::move(all));
}

BigUInt RnsBasis::compose(const uint64_t *residues, size_t stride) const {
  BigUInt sum;
  for (size_t i = 0; i < size(); ++i) {
    uint64_t scaled =
        mulShoup(residues[i * stride], puncturedInverses_[i], values_[i]);
    sum += punctured_[i] * BigUInt(scaled);
  }
  // Each term is below M, so at most size() subtractions remain.
  while (sum >= product_)
    sum -= product_;
  return sum;
}

void RnsBasis::decompose(const BigUInt &value, uint64_t *residues,
                         size_t stride) const {
  for (size_t i = 0; i < size(); ++i)
    residues[i * stride] = value.modWord(values_[i]);
}

BaseConverter::BaseConverter(const RnsBasis &from, const RnsBasis &to)
    : from_(from), to_(to) {
  for (size_t i = 0; i < from.size(); ++i) {
    for (size_t j = 0; j < to.size(); ++j)
      puncturedModTo_.push_back(from.puncturedProduct(i).modWord(to.values()[j]));
    inverseOfFrom_.push_back(fractionOf(1, from.values()[i]));
  }
  for (size_t j = 0; j < to.size(); ++j)
    productModTo_.push_back(from.product().modWord(to.values()[j]));
}

void BaseConverter::convertFast(const uint64_t *in, size_t n,
                                uint64_t *out) const {
  convert(in, n, out, /*exact=*/false);
}

void BaseConverter::convertExact(const uint64_t *in, size_t n,
                                 uint64_t *out) const {
  convert(in, n, out, /*exact=*/true);
}

void BaseConverter::convert(const uint64_t *in, size_t n, uint64_t *out,
                            bool exact) const {
  const size_t fromSize = from_.size(), toSize = to_.size();
  std::vector<uint64_t> scaled(fromSize);
  for (size_t c = 0; c < n; ++c) {
    FractionSum overflow;
    for (size_t i = 0; i < fromSize; ++i) {
      scaled[i] = mulShoup(in[i * n + c], from_.puncturedInverse(i),
                           from_.values()[i]);
      overflow.add(scaled[i], inverseOfFrom_[i].high, inverseOfFrom_[i].low);
    }
    uint128_t multiple = exact ? overflow.roundHalfUp() : 0;
    for (size_t j = 0; j < toSize; ++j) {
      const Modulus &target = to_.modulus(j);
      uint64_t sum = 0;
      for (size_t i = 0; i < fromSize; ++i)
        sum = addMod(sum,
                     mulMod(scaled[i], puncturedModTo_[i * toSize + j], target),
                     target.value);
      if (exact)
        sum = subMod(sum,
                     mulMod(reduce128(multiple, target), productModTo_[j],
                            target),
                     target.value);
      out[j * n + c] = sum;
    }
  }
}

ScaleRoundPlan::ScaleRoundPlan(const RnsBasis &divisor, const RnsBasis &kept,
                               const BigUInt &numerator,
                               const std::vector<uint64_t> &outputModuli)
    : divisorSize_(divisor.size()) {
  if (divisor.empty())
    throw Error("scale-and-round needs a nonempty divisor basis");
  if (numerator.isZero())
    throw Error("scale-and-round needs a positive numerator");
  if (kept.empty()) {
    if (outputModuli.empty())
      throw Error("scale-and-round without kept moduli needs output moduli");
    for (uint64_t m : outputModuli) {
      if (m < 2 || numerator.modWord(m) != 0)
        throw Error("scale-and-round without kept moduli needs output "
                    "moduli dividing the numerator; " + std::to_string(m) +
                    " does not");
      outputs_.emplace_back(m);
    }
  } else {
    for (size_t k = 0; k < kept.size(); ++k)
      outputs_.push_back(kept.modulus(k));
  }

  const BigUInt keptProduct = kept.empty() ? BigUInt(1) : kept.product();
  for (size_t i = 0; i < divisor.size(); ++i) {
    uint64_t d = divisor.values()[i];
    // [(D K / d_i)^{-1}]_{d_i}: the CRT coefficient of residue i in Z_{DK}.
    uint64_t puncturedModD =
        mulModSlow(divisor.puncturedProduct(i).modWord(d),
                   keptProduct.modWord(d), d);
    BigUInt w = numerator * keptProduct * BigUInt(invertModSlow(puncturedModD, d));
    auto [integral, remainder] = w.divModWord(d);
    theta_.push_back(fractionOf(remainder, d));
    for (const Modulus &o : outputs_)
      omega_.push_back(integral.modWord(o.value));
  }
  for (size_t k = 0; k < kept.size(); ++k) {
    uint64_t m = kept.values()[k];
    lambda_.push_back(mulModSlow(
        numerator.modWord(m), invertModSlow(divisor.product().modWord(m), m), m));
  }
}

void ScaleRoundPlan::apply(const uint64_t *inDivisor, const uint64_t *inKept,
                           size_t n, uint64_t *out) const {
  const size_t outSize = outputs_.size();
  for (size_t c = 0; c < n; ++c) {
    FractionSum fractional;
    for (size_t i = 0; i < divisorSize_; ++i)
      fractional.add(inDivisor[i * n + c], theta_[i].high, theta_[i].low);
    uint128_t rounded = fractional.roundHalfUp();
    for (size_t o = 0; o < outSize; ++o) {
      const Modulus &m = outputs_[o];
      uint64_t sum = reduce128(rounded, m);
      for (size_t i = 0; i < divisorSize_; ++i)
        sum = addMod(sum, mulMod(inDivisor[i * n + c], omega_[i * outSize + o], m),
                     m.value);
      if (inKept && !lambda_.empty())
        sum = addMod(sum, mulMod(inKept[o * n + c], lambda_[o], m), m.value);
      out[o * n + c] = sum;
    }
  }
}

} // namespace ringfuse::runtime
