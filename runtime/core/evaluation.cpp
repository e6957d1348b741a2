//===- evaluation.cpp - reference operations that exercise the keys -------===//
#include "ringfuse/runtime/bfv.h"

#include "poly.h"
#include "ringfuse/runtime/error.h"

#include <array>

namespace ringfuse::runtime {
using namespace detail;

namespace {
void requireSameParameters(const Ciphertext &a, const Ciphertext &b) {
  if (a.context->fingerprint() != b.context->fingerprint())
    throw Error("ciphertexts belong to different parameter sets");
}

void requireSize(const Ciphertext &ct, size_t size, const char *operation) {
  if (ct.size != size)
    throw Error(std::string(operation) + " expects a " + std::to_string(size) +
                "-component ciphertext, got " + std::to_string(ct.size) +
                " components");
}

/// Hybrid key switching of one polynomial c over Q (coefficient form): returns
/// (k0, k1) over Q with k0 + k1 s = c s' + small (Algorithm 5).
void keySwitch(const Context &context, const uint64_t *c,
               const KeySwitchKey &key, uint64_t *out0, uint64_t *out1) {
  const size_t n = context.degree(), qLimbs = context.q().size();
  const size_t qpLimbs = context.qp().size();
  Limbs limbs = detail::qpLimbs(context, qpLimbs);
  std::vector<uint64_t> acc0(qpLimbs * n, 0), acc1(qpLimbs * n, 0);
  std::vector<uint64_t> extended(qpLimbs * n), others;
  for (size_t j = 0; j < context.dnum(); ++j) {
    auto [first, last] = context.digitRange(j);
    // [c]_{D_j} keeps its own residues; the fast conversion supplies the rest
    // of QP (its overflow u * D_j is absorbed by the division by P).
    others.resize((qpLimbs - (last - first)) * n);
    context.digitExtension(j).convertFast(c + first * n, n, others.data());
    for (size_t i = 0, k = 0; i < qpLimbs; ++i) {
      const uint64_t *source =
          (i >= first && i < last) ? c + i * n : others.data() + (k++) * n;
      std::copy(source, source + n, extended.data() + i * n);
    }
    forwardNtt(limbs, extended.data());
    multiplyAccumulate(limbs, extended.data(), key.b[j].data(), acc0.data());
    multiplyAccumulate(limbs, extended.data(), key.a[j].data(), acc1.data());
  }
  inverseNtt(limbs, acc0.data());
  inverseNtt(limbs, acc1.data());
  context.modDownByP().apply(acc0.data() + qLimbs * n, acc0.data(), n, out0);
  context.modDownByP().apply(acc1.data() + qLimbs * n, acc1.data(), n, out1);
}
/// (a0 b0, a0 b1 + a1 b0, a1 b1) for two 2-component ciphertexts, each
/// component first lifted (coefficient form, over `limbs`) by `lift`; the
/// products are taken in the NTT domain, the result is in coefficient form.
template <typename Lift>
std::array<std::vector<uint64_t>, 3>
tensorProduct(const Limbs &limbs, const Ciphertext &a, const Ciphertext &b,
              Lift lift) {
  auto transformed = [&](const uint64_t *component) {
    std::vector<uint64_t> lifted = lift(component);
    forwardNtt(limbs, lifted.data());
    return lifted;
  };
  std::vector<uint64_t> a0 = transformed(a.component(0)),
                        a1 = transformed(a.component(1));
  std::vector<uint64_t> b0 = transformed(b.component(0)),
                        b1 = transformed(b.component(1));
  const size_t words = a0.size();
  std::array<std::vector<uint64_t>, 3> tensor = {
      std::vector<uint64_t>(words, 0), std::vector<uint64_t>(words, 0),
      std::vector<uint64_t>(words, 0)};
  multiplyAccumulate(limbs, a0.data(), b0.data(), tensor[0].data());
  multiplyAccumulate(limbs, a0.data(), b1.data(), tensor[1].data());
  multiplyAccumulate(limbs, a1.data(), b0.data(), tensor[1].data());
  multiplyAccumulate(limbs, a1.data(), b1.data(), tensor[2].data());
  for (std::vector<uint64_t> &component : tensor)
    inverseNtt(limbs, component.data());
  return tensor;
}

void requireMultiplicands(const Ciphertext &a, const Ciphertext &b) {
  requireSameParameters(a, b);
  requireSize(a, 2, "multiplication");
  requireSize(b, 2, "multiplication");
}
} // namespace

Ciphertext add(const Ciphertext &a, const Ciphertext &b) {
  requireSameParameters(a, b);
  requireSize(b, a.size, "add");
  Ciphertext sum = a;
  Limbs limbs = qpLimbs(*a.context, a.context->q().size());
  for (size_t k = 0; k < a.size; ++k)
    addInPlace(limbs, sum.component(k), b.component(k));
  return sum;
}

Ciphertext multiplyHps(const Ciphertext &a, const Ciphertext &b) {
  requireMultiplicands(a, b);
  const Context &context = *a.context;
  const size_t n = context.degree(), qLimbs = context.q().size();
  const size_t bLimbs = context.auxiliary().size();
  // Each component lifted exactly (centered) to Q u B.
  auto tensor = tensorProduct(qAuxiliaryLimbs(context), a, b,
                              [&](const uint64_t *component) {
    std::vector<uint64_t> lifted((qLimbs + bLimbs) * n);
    std::copy(component, component + qLimbs * n, lifted.begin());
    context.extendQToAuxiliary().convertExact(component, n,
                                              lifted.data() + qLimbs * n);
    return lifted;
  });
  // round(t/Q x) into B, then exactly back to Q.
  Ciphertext product{a.context, 3, std::vector<uint64_t>(3 * qLimbs * n)};
  std::vector<uint64_t> scaled(bLimbs * n);
  for (size_t h = 0; h < 3; ++h) {
    context.tensorScaling().apply(tensor[h].data(), tensor[h].data() + qLimbs * n,
                                  n, scaled.data());
    context.auxiliaryToQ().convertExact(scaled.data(), n, product.component(h));
  }
  return product;
}

Ciphertext multiplyBehz(const Ciphertext &a, const Ciphertext &b,
                        const BehzPlan &plan) {
  requireMultiplicands(a, b);
  const Context &context = *a.context;
  const size_t n = context.degree(), qLimbs = context.q().size();
  const size_t bskLimbs = plan.bsk().size();
  Limbs limbs = qAuxiliaryLimbs(context);
  limbs.push_back(&context.nttAuxiliary(context.auxiliary().size())); // m_sk
  // Each component extended to Q u Bsk with SmMRq.
  auto tensor = tensorProduct(limbs, a, b, [&](const uint64_t *component) {
    std::vector<uint64_t> lifted((qLimbs + bskLimbs) * n);
    std::copy(component, component + qLimbs * n, lifted.begin());
    plan.extendToBsk(component, n, lifted.data() + qLimbs * n);
    return lifted;
  });
  // Fast floor of t/Q into Bsk, Shenoy-Kumaresan back to Q.
  Ciphertext product{a.context, 3, std::vector<uint64_t>(3 * qLimbs * n)};
  std::vector<uint64_t> floored(bskLimbs * n);
  for (size_t h = 0; h < 3; ++h) {
    plan.fastFloor(tensor[h].data(), tensor[h].data() + qLimbs * n, n,
                   floored.data());
    plan.convertBskToQ(floored.data(), n, product.component(h));
  }
  return product;
}

Ciphertext relinearize(const Ciphertext &ct, const RelinKey &key) {
  requireSize(ct, 3, "relinearize");
  if (ct.context->fingerprint() != key.context->fingerprint())
    throw Error("ciphertext and relinearization key belong to different "
                "parameter sets");
  const Context &context = *ct.context;
  Ciphertext result{ct.context, 2,
                    std::vector<uint64_t>(ct.data.begin(),
                                          ct.data.begin() + 2 * ct.componentWords())};
  std::vector<uint64_t> k0(ct.componentWords()), k1(ct.componentWords());
  keySwitch(context, ct.component(2), key.key, k0.data(), k1.data());
  Limbs limbs = qpLimbs(context, context.q().size());
  addInPlace(limbs, result.component(0), k0.data());
  addInPlace(limbs, result.component(1), k1.data());
  return result;
}

Ciphertext applyGalois(const Ciphertext &ct, uint64_t galoisElement,
                       const GaloisKeys &keys) {
  requireSize(ct, 2, "a Galois automorphism");
  auto key = keys.keys.find(galoisElement);
  if (key == keys.keys.end())
    throw Error("no Galois key for element " + std::to_string(galoisElement) +
                "; generate keys for this rotation");
  const Context &context = *ct.context;
  const size_t n = context.degree(), words = ct.componentWords();
  Ciphertext rotated{ct.context, 2, std::vector<uint64_t>(2 * words)};
  std::vector<uint64_t> c1(words);
  for (size_t i = 0; i < context.q().size(); ++i) {
    uint64_t q = context.q().values()[i];
    applyAutomorphism(ct.component(0) + i * n, n, galoisElement, q,
                      rotated.component(0) + i * n);
    applyAutomorphism(ct.component(1) + i * n, n, galoisElement, q,
                      c1.data() + i * n);
  }
  std::vector<uint64_t> k0(words);
  keySwitch(context, c1.data(), key->second, k0.data(), rotated.component(1));
  addInPlace(qpLimbs(context, context.q().size()), rotated.component(0),
             k0.data());
  return rotated;
}

} // namespace ringfuse::runtime
