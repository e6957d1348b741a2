//===- poly.cpp - limb-wise helpers for the CPU reference -----------------===//
#include "poly.h"

namespace ringfuse::runtime::detail {

Limbs qpLimbs(const Context &context, size_t count) {
  Limbs limbs;
  for (size_t i = 0; i < count; ++i)
    limbs.push_back(&context.nttQP(i));
  return limbs;
}

Limbs qAuxiliaryLimbs(const Context &context) {
  Limbs limbs = qpLimbs(context, context.q().size());
  for (size_t i = 0; i < context.auxiliary().size(); ++i)
    limbs.push_back(&context.nttAuxiliary(i));
  return limbs;
}

void forwardNtt(const Limbs &limbs, uint64_t *poly) {
  for (size_t i = 0; i < limbs.size(); ++i)
    limbs[i]->forward(poly + i * limbs[i]->degree());
}

void inverseNtt(const Limbs &limbs, uint64_t *poly) {
  for (size_t i = 0; i < limbs.size(); ++i)
    limbs[i]->inverse(poly + i * limbs[i]->degree());
}

void multiplyPointwise(const Limbs &limbs, const uint64_t *a, const uint64_t *b,
                       uint64_t *out) {
  for (size_t i = 0; i < limbs.size(); ++i) {
    const Modulus &m = limbs[i]->modulus();
    const size_t n = limbs[i]->degree(), base = i * n;
    for (size_t j = 0; j < n; ++j)
      out[base + j] = mulMod(a[base + j], b[base + j], m);
  }
}

void multiplyAccumulate(const Limbs &limbs, const uint64_t *a,
                        const uint64_t *b, uint64_t *acc) {
  for (size_t i = 0; i < limbs.size(); ++i) {
    const Modulus &m = limbs[i]->modulus();
    const size_t n = limbs[i]->degree(), base = i * n;
    for (size_t j = 0; j < n; ++j)
      acc[base + j] =
          addMod(acc[base + j], mulMod(a[base + j], b[base + j], m), m.value);
  }
}

void addInPlace(const Limbs &limbs, uint64_t *acc, const uint64_t *a) {
  for (size_t i = 0; i < limbs.size(); ++i) {
    const uint64_t q = limbs[i]->modulus().value;
    const size_t n = limbs[i]->degree(), base = i * n;
    for (size_t j = 0; j < n; ++j)
      acc[base + j] = addMod(acc[base + j], a[base + j], q);
  }
}

void negateInPlace(const Limbs &limbs, uint64_t *poly) {
  for (size_t i = 0; i < limbs.size(); ++i) {
    const uint64_t q = limbs[i]->modulus().value;
    const size_t n = limbs[i]->degree(), base = i * n;
    for (size_t j = 0; j < n; ++j)
      poly[base + j] = negateMod(poly[base + j], q);
  }
}

std::vector<uint64_t> liftSmall(const Limbs &limbs, const int8_t *small) {
  const size_t n = limbs.front()->degree();
  std::vector<uint64_t> out(limbs.size() * n);
  for (size_t i = 0; i < limbs.size(); ++i)
    for (size_t j = 0; j < n; ++j)
      out[i * n + j] = liftSigned(small[j], limbs[i]->modulus().value);
  return out;
}

} // namespace ringfuse::runtime::detail
