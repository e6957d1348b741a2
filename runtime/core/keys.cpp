//===- keys.cpp - secret, public, relinearization and Galois keys ---------===//
#include "ringfuse/runtime/bfv.h"

#include "ringfuse/runtime/argument_checks.h"
#include "poly.h"
#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {
using namespace detail;

namespace {
/// A uniform polynomial over QP, sampled directly in NTT form (uniform in
/// one domain is uniform in the other).
std::vector<uint64_t> sampleUniformQP(const Context &context, Prng &prng) {
  const size_t n = context.degree(), limbs = context.qp().size();
  std::vector<uint64_t> a(limbs * n);
  sampleUniformPolynomial(prng, context.qp().values().data(), limbs, n,
                          a.data());
  return a;
}

/// A discrete-Gaussian error over QP, in NTT form.
std::vector<uint64_t> sampleErrorQP(const Context &context, Prng &prng) {
  std::vector<int8_t> e(context.degree());
  sampleGaussianPolynomial(prng, e.size(), e.data());
  Limbs limbs = qpLimbs(context, context.qp().size());
  std::vector<uint64_t> lifted = liftSmall(limbs, e.data());
  forwardNtt(limbs, lifted.data());
  return lifted;
}

/// (-(a s) + e, a) over QP, NTT form: an encryption of zero under s.
void sampleRlwePair(const SecretKey &secret, Prng &prng,
                    std::vector<uint64_t> &b, std::vector<uint64_t> &a) {
  const Context &context = *secret.context;
  Limbs limbs = qpLimbs(context, context.qp().size());
  a = sampleUniformQP(context, prng);
  b = sampleErrorQP(context, prng);
  std::vector<uint64_t> as(a.size());
  multiplyPointwise(limbs, a.data(), secret.nttQP.data(), as.data());
  negateInPlace(limbs, as.data());
  addInPlace(limbs, b.data(), as.data());
}

/// The key switching key from s' (NTT form over QP) to s.
KeySwitchKey generateKeySwitchKey(const SecretKey &secret,
                                  const std::vector<uint64_t> &newKey,
                                  Prng &prng) {
  const Context &context = *secret.context;
  const size_t n = context.degree();
  KeySwitchKey key;
  for (size_t j = 0; j < context.dnum(); ++j) {
    std::vector<uint64_t> b, a;
    sampleRlwePair(secret, prng, b, a);
    // The gadget P * Q_j^* * [Q_j^*^{-1}]_{D_j} is P mod q_i on the primes
    // of digit j and 0 everywhere else (Algorithm 5 of the variants paper,
    // with T_j = Q~_j Q_j^*).
    auto [first, last] = context.digitRange(j);
    for (size_t i = first; i < last; ++i) {
      const Modulus &q = context.qp().modulus(i);
      uint64_t pModQ = context.p().product().modWord(q.value);
      for (size_t c = 0; c < n; ++c)
        b[i * n + c] =
            addMod(b[i * n + c], mulMod(pModQ, newKey[i * n + c], q), q.value);
    }
    key.b.push_back(std::move(b));
    key.a.push_back(std::move(a));
  }
  return key;
}
} // namespace

SecretKey generateSecretKey(const ContextPtr &context, Prng &prng) {
  SecretKey secret;
  secret.context = context;
  secret.coefficients.resize(context->degree());
  sampleTernaryPolynomial(prng, context->degree(), secret.coefficients.data());
  Limbs limbs = qpLimbs(*context, context->qp().size());
  secret.nttQP = liftSmall(limbs, secret.coefficients.data());
  forwardNtt(limbs, secret.nttQP.data());
  return secret;
}

PublicKey generatePublicKey(const SecretKey &secret, Prng &prng) {
  PublicKey key;
  key.context = secret.context;
  sampleRlwePair(secret, prng, key.b, key.a);
  return key;
}

RelinKey generateRelinKey(const SecretKey &secret, Prng &prng) {
  const Context &context = *secret.context;
  std::vector<uint64_t> square(secret.nttQP.size());
  multiplyPointwise(qpLimbs(context, context.qp().size()), secret.nttQP.data(),
                    secret.nttQP.data(), square.data());
  return RelinKey{secret.context, generateKeySwitchKey(secret, square, prng)};
}

GaloisKeys generateGaloisKeys(const SecretKey &secret,
                              const std::vector<uint64_t> &galoisElements,
                              Prng &prng) {
  const Context &context = *secret.context;
  const size_t n = context.degree();
  GaloisKeys keys{secret.context, {}};
  Limbs limbs = qpLimbs(context, context.qp().size());
  for (uint64_t g : galoisElements) {
    checkGaloisElement(context, g);
    if (keys.keys.count(g))
      continue;
    // s(X^g) in coefficient form, then NTT over QP.
    std::vector<int8_t> rotated(n);
    for (size_t i = 0; i < n; ++i) {
      uint64_t position = (i * g) % (2 * n);
      int8_t value = secret.coefficients[i];
      if (position < n)
        rotated[position] = value;
      else
        rotated[position - n] = static_cast<int8_t>(-value);
    }
    std::vector<uint64_t> lifted = liftSmall(limbs, rotated.data());
    forwardNtt(limbs, lifted.data());
    keys.keys.emplace(g, generateKeySwitchKey(secret, lifted, prng));
  }
  return keys;
}

uint64_t galoisElementForRotation(size_t n, int64_t steps) {
  const int64_t rowLength = static_cast<int64_t>(n / 2);
  if (rowLength < 1 || steps <= -rowLength || steps >= rowLength)
    throw Error("rotation by " + std::to_string(steps) +
                " steps is out of range for rows of " +
                std::to_string(rowLength) + " slots");
  // Rotating right by k is rotating left by N/2 - k.
  uint64_t left = static_cast<uint64_t>((steps + rowLength) % rowLength);
  Modulus twoN(2 * n);
  return powMod(3, left, twoN);
}

uint64_t galoisElementForRowSwap(size_t n) { return 2 * n - 1; }

} // namespace ringfuse::runtime
