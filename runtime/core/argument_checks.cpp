//===- argument_checks.cpp - the client operations' argument checks -------===//
#include "ringfuse/runtime/argument_checks.h"

#include "ringfuse/runtime/error.h"

#include <string>

namespace ringfuse::runtime::detail {

void requireBatching(const Context &context) {
  if (!context.supportsBatching())
    throw Error("batching (slots) needs a prime plaintext modulus = 1 mod 2N; "
                "t = " + std::to_string(context.plaintextModulus()) +
                " with N = " + std::to_string(context.degree()) +
                " is not one. Encode coefficients instead.");
}

void checkValues(const Context &context, const uint64_t *values, size_t count,
                 size_t capacity, const char *what) {
  if (count > capacity)
    throw Error(std::to_string(count) + " values do not fit the " +
                std::to_string(capacity) + " " + what);
  for (size_t i = 0; i < count; ++i)
    if (values[i] >= context.plaintextModulus())
      throw Error("value " + std::to_string(values[i]) + " at index " +
                  std::to_string(i) + " is not below the plaintext modulus " +
                  std::to_string(context.plaintextModulus()));
}

void checkPlaintext(const Context &context, const Plaintext &plaintext) {
  if (plaintext.coefficients.size() != context.degree())
    throw Error("plaintext has " + std::to_string(plaintext.coefficients.size()) +
                " coefficients, expected N = " + std::to_string(context.degree()));
  for (uint64_t m : plaintext.coefficients)
    if (m >= context.plaintextModulus())
      throw Error("plaintext coefficient " + std::to_string(m) +
                  " is not below t = " + std::to_string(context.plaintextModulus()));
}

void checkCiphertext(const Context &context, const Ciphertext &ct) {
  if (!ct.context || ct.size < 2 ||
      ct.data.size() != ct.size * ct.componentWords())
    throw Error("malformed ciphertext: " + std::to_string(ct.size) +
                " components in " + std::to_string(ct.data.size()) + " words");
  if (ct.context->fingerprint() != context.fingerprint())
    throw Error("ciphertext and key belong to different parameter sets");
}

void checkPublicKey(const Context &context, const PublicKey &key) {
  const size_t qpWords = context.qp().size() * context.degree();
  if (key.b.size() != qpWords || key.a.size() != qpWords)
    throw Error("malformed public key: " + std::to_string(key.b.size()) +
                " and " + std::to_string(key.a.size()) + " words, expected " +
                std::to_string(qpWords) + " each");
}

void checkGaloisElement(const Context &context, uint64_t element) {
  const size_t n = context.degree();
  if (element == 1)
    throw Error("Galois element 1 is the identity, which needs no key");
  if (element % 2 == 0 || element >= 2 * n)
    throw Error("Galois element " + std::to_string(element) +
                " is not an odd number below 2N = " + std::to_string(2 * n));
}

void checkIndexSpace(size_t limbs, size_t n, const char *what) {
  constexpr uint64_t indexCount = uint64_t{1} << 32;
  if (n != 0 && limbs > indexCount / n)
    throw Error(std::string(what) + ": " + std::to_string(limbs) + " x " +
                std::to_string(n) +
                " coefficients exceed the 2^32 indices of one sampling call");
}

} // namespace ringfuse::runtime::detail
