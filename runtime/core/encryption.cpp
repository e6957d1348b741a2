//===- encryption.cpp - encryption, decryption, noise measurement ---------===//
#include "ringfuse/runtime/bfv.h"

#include "ringfuse/runtime/argument_checks.h"
#include "poly.h"
#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {
using namespace detail;

namespace {
/// Divides a 2-component encryption of zero over QP (coefficient form) by P,
/// rounding, into a fresh ciphertext over Q. Encrypting at the key level and
/// switching down (as SEAL does) shrinks the encryption noise by P, leaving
/// the rounding error (r0 + r1 s) of about sqrt(N).
Ciphertext modDownToQ(const Context &context, const ContextPtr &owner,
                      std::vector<uint64_t> (&components)[2]) {
  const size_t n = context.degree(), qLimbs = context.q().size();
  Ciphertext ct{owner, 2, std::vector<uint64_t>(2 * qLimbs * n)};
  for (size_t k = 0; k < 2; ++k)
    context.modDownByP().apply(components[k].data() + qLimbs * n,
                               components[k].data(), n, ct.component(k));
  return ct;
}

/// c0 += round(Q m / t) = floor(Q/t) m + floor((2 (Q mod t) m + t) / 2t).
void addScaledPlaintext(const Context &context, const Plaintext &plaintext,
                        uint64_t *c0) {
  const size_t n = context.degree();
  const uint64_t t = context.plaintextModulus(), r = context.qModT();
  for (size_t j = 0; j < n; ++j) {
    uint64_t m = plaintext.coefficients[j];
    uint64_t correction = static_cast<uint64_t>(
        (2 * static_cast<uint128_t>(r) * m + t) / (2 * static_cast<uint128_t>(t)));
    for (size_t i = 0; i < context.q().size(); ++i) {
      const Modulus &q = context.q().modulus(i);
      uint64_t scaled = addMod(mulMod(context.deltaModQ()[i], m, q),
                               reduce(correction, q), q.value);
      c0[i * n + j] = addMod(c0[i * n + j], scaled, q.value);
    }
  }
}


/// sum_{k >= 1} c_k s^k + c_0 over Q, coefficient form.
std::vector<uint64_t> innerProductWithKey(const SecretKey &key,
                                          const Ciphertext &ct) {
  const Context &context = *key.context;
  const size_t words = ct.componentWords();
  Limbs limbs = qpLimbs(context, context.q().size());
  std::vector<uint64_t> sum(words, 0), power(key.nttQP.begin(),
                                             key.nttQP.begin() + words);
  std::vector<uint64_t> term(words);
  for (size_t k = 1; k < ct.size; ++k) {
    std::copy(ct.component(k), ct.component(k) + words, term.begin());
    forwardNtt(limbs, term.data());
    multiplyAccumulate(limbs, term.data(), power.data(), sum.data());
    if (k + 1 < ct.size)
      multiplyPointwise(limbs, power.data(), key.nttQP.data(), power.data());
  }
  inverseNtt(limbs, sum.data());
  addInPlace(limbs, sum.data(), ct.component(0));
  return sum;
}

} // namespace

Ciphertext encryptPublic(const PublicKey &key, const Plaintext &plaintext,
                         Prng &prng) {
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  checkPublicKey(context, key);
  const size_t n = context.degree();
  Limbs limbs = qpLimbs(context, context.qp().size());

  std::vector<int8_t> u(n), e(n);
  sampleTernaryPolynomial(prng, n, u.data());
  std::vector<uint64_t> uNtt = liftSmall(limbs, u.data());
  forwardNtt(limbs, uNtt.data());

  std::vector<uint64_t> components[2];
  const std::vector<uint64_t> *keyParts[2] = {&key.b, &key.a};
  for (size_t k = 0; k < 2; ++k) {
    components[k].resize(uNtt.size());
    multiplyPointwise(limbs, keyParts[k]->data(), uNtt.data(),
                      components[k].data());
    inverseNtt(limbs, components[k].data());
    sampleGaussianPolynomial(prng, n, e.data());
    std::vector<uint64_t> error = liftSmall(limbs, e.data());
    addInPlace(limbs, components[k].data(), error.data());
  }
  Ciphertext ct = modDownToQ(context, key.context, components);
  addScaledPlaintext(context, plaintext, ct.component(0));
  return ct;
}

Ciphertext encryptSymmetric(const SecretKey &key, const Plaintext &plaintext,
                            Prng &prng) {
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  const size_t n = context.degree();
  Limbs limbs = qpLimbs(context, context.qp().size());

  std::vector<uint64_t> components[2];
  components[1].resize(key.nttQP.size());
  sampleUniformPolynomial(prng, context.qp().values().data(), limbs.size(), n,
                          components[1].data());
  components[0].resize(key.nttQP.size());
  multiplyPointwise(limbs, components[1].data(), key.nttQP.data(),
                    components[0].data());
  negateInPlace(limbs, components[0].data());
  inverseNtt(limbs, components[0].data());
  inverseNtt(limbs, components[1].data());
  std::vector<int8_t> e(n);
  sampleGaussianPolynomial(prng, n, e.data());
  std::vector<uint64_t> error = liftSmall(limbs, e.data());
  addInPlace(limbs, components[0].data(), error.data());

  Ciphertext ct = modDownToQ(context, key.context, components);
  addScaledPlaintext(context, plaintext, ct.component(0));
  return ct;
}

Plaintext decrypt(const SecretKey &key, const Ciphertext &ct) {
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  std::vector<uint64_t> x = innerProductWithKey(key, ct);
  Plaintext plaintext{key.context, std::vector<uint64_t>(context.degree())};
  context.decryptionScaling().apply(x.data(), nullptr, context.degree(),
                                    plaintext.coefficients.data());
  return plaintext;
}

Plaintext decryptBehz(const SecretKey &key, const Ciphertext &ct,
                      const BehzPlan &plan) {
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  std::vector<uint64_t> x = innerProductWithKey(key, ct);
  Plaintext plaintext{key.context, std::vector<uint64_t>(context.degree())};
  plan.decrypt(x.data(), context.degree(), plaintext.coefficients.data());
  return plaintext;
}

int noiseBudget(const SecretKey &key, const Ciphertext &ct) {
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  const size_t n = context.degree(), qLimbs = context.q().size();
  std::vector<uint64_t> x = innerProductWithKey(key, ct);
  for (size_t i = 0; i < qLimbs; ++i) {
    const Modulus &q = context.q().modulus(i);
    uint64_t t = reduce(context.plaintextModulus(), q);
    for (size_t j = 0; j < n; ++j)
      x[i * n + j] = mulMod(x[i * n + j], t, q);
  }
  const BigUInt &modulus = context.q().product();
  BigUInt largest;
  for (size_t j = 0; j < n; ++j) {
    BigUInt value = context.q().compose(x.data() + j, n);
    BigUInt complement = modulus - value;
    const BigUInt &magnitude = complement < value ? complement : value;
    if (magnitude > largest)
      largest = magnitude;
  }
  int budget = static_cast<int>(modulus.bitLength()) -
               static_cast<int>(largest.bitLength()) - 1;
  return budget > 0 ? budget : 0;
}

} // namespace ringfuse::runtime
