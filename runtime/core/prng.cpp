//===- prng.cpp - OS seeding, domains and whole-polynomial sampling -------===//
//
// The host half of prng.h. The polynomial helpers are thin loops over the
// per-coefficient samplers, which are the definition the GPU kernels must
// reproduce bit for bit.
//
//===----------------------------------------------------------------------===//

#include "ringfuse/runtime/prng.h"

#include "ringfuse/runtime/argument_checks.h"

#include "ringfuse/runtime/error.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <sys/random.h>

namespace ringfuse::runtime {

namespace detail {

void fillFromEntropySource(uint8_t *out, size_t length, EntropySource source) {
  size_t filled = 0;
  while (filled < length) {
    ssize_t got = source(out + filled, length - filled, /*flags=*/0);
    if (got < 0) {
      // A signal arriving before any byte was copied; nothing was consumed.
      if (errno == EINTR)
        continue;
      throw Error("getrandom failed: " + std::string(std::strerror(errno)) +
                  "; cannot seed the PRNG from the OS");
    }
    if (got == 0)
      throw Error("getrandom returned no bytes; cannot seed the PRNG from "
                  "the OS");
    // Short reads happen for large requests or when a signal interrupts a
    // blocking read part way through; keep what arrived and ask for the rest.
    filled += static_cast<size_t>(got);
  }
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Seed
//===----------------------------------------------------------------------===//

Seed Seed::fromOs() {
  Seed seed;
  detail::fillFromEntropySource(seed.bytes.data(), seed.bytes.size(),
                                ::getrandom);
  return seed;
}

Seed Seed::fromBytes(const uint8_t *data, size_t length) {
  Seed seed;
  if (length != seed.bytes.size())
    throw Error("a seed is " + std::to_string(seed.bytes.size()) +
                " bytes; got " + std::to_string(length));
  std::memcpy(seed.bytes.data(), data, length);
  return seed;
}

ChaChaKey Seed::key() const {
  ChaChaKey key;
  for (int i = 0; i < 8; ++i)
    key.words[i] = static_cast<uint32_t>(bytes[4 * i]) |
                   (static_cast<uint32_t>(bytes[4 * i + 1]) << 8) |
                   (static_cast<uint32_t>(bytes[4 * i + 2]) << 16) |
                   (static_cast<uint32_t>(bytes[4 * i + 3]) << 24);
  return key;
}

//===----------------------------------------------------------------------===//
// Prng
//===----------------------------------------------------------------------===//

Prng::Prng() : Prng(Seed::fromOs()) {}

Prng::Prng(const Seed &seed) : seed_(seed), key_(seed.key()) {}

Prng Prng::fromOs() { return Prng(Seed::fromOs()); }

//===----------------------------------------------------------------------===//
// Whole polynomials
//===----------------------------------------------------------------------===//

using detail::checkIndexSpace;

void sampleUniformPolynomial(Prng &prng, const uint64_t *moduli, size_t limbs,
                             size_t n, uint64_t *out) {
  checkIndexSpace(limbs, n, "sampleUniformPolynomial");
  for (size_t i = 0; i < limbs; ++i)
    if (moduli[i] < 2)
      throw Error("sampleUniformPolynomial: modulus " + std::to_string(i) +
                  " is " + std::to_string(moduli[i]) + "; expected >= 2");
  const uint64_t domain = prng.nextDomain();
  for (size_t i = 0; i < limbs; ++i)
    for (size_t j = 0; j < n; ++j) {
      const size_t index = i * n + j;
      out[index] = sampleUniformModulo(prng.key(), domain,
                                       static_cast<uint32_t>(index), moduli[i]);
    }
}

void sampleTernaryPolynomial(Prng &prng, size_t n, int8_t *out) {
  checkIndexSpace(1, n, "sampleTernaryPolynomial");
  const uint64_t domain = prng.nextDomain();
  for (size_t j = 0; j < n; ++j)
    out[j] = static_cast<int8_t>(
        sampleTernary(prng.key(), domain, static_cast<uint32_t>(j)));
}

void sampleGaussianPolynomial(Prng &prng, size_t n, int8_t *out) {
  checkIndexSpace(1, n, "sampleGaussianPolynomial");
  const uint64_t domain = prng.nextDomain();
  for (size_t j = 0; j < n; ++j)
    out[j] = static_cast<int8_t>(
        sampleGaussian(prng.key(), domain, static_cast<uint32_t>(j)));
}

} // namespace ringfuse::runtime
