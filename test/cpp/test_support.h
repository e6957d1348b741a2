//===- test_support.h - shared helpers of the runtime's unit tests -*- C++ -*-===//
#ifndef RINGFUSE_TEST_CPP_TEST_SUPPORT_H
#define RINGFUSE_TEST_CPP_TEST_SUPPORT_H

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/prng.h"

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace ringfuse::runtime::testing {

/// A reproducible PRNG for tests: the same bytes give the same keys.
inline Prng seededPrng(uint8_t tag) {
  std::array<uint8_t, 32> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(tag * 31 + i);
  return Prng(Seed::fromBytes(bytes.data(), bytes.size()));
}

/// The parameter set of N = n, t and primes of the given widths for Q and P
/// (insecure ones only when asked).
inline ContextPtr makeContext(size_t n, uint64_t t, std::vector<unsigned> q,
                              std::vector<unsigned> p,
                              bool allowInsecure = false) {
  ParameterRequest request;
  request.polyModulusDegree = n;
  request.plaintextModulus = t;
  request.coeffModulusBits = std::move(q);
  request.specialModulusBits = std::move(p);
  request.allowInsecure = allowInsecure;
  return Context::create(request);
}

/// Non-cryptographic randomness for test inputs.
inline std::mt19937_64 &testRandom() {
  static std::mt19937_64 engine(20261122);
  return engine;
}

inline uint64_t randomBelow(uint64_t bound) {
  return std::uniform_int_distribution<uint64_t>(0, bound - 1)(testRandom());
}

/// What `action` throws as an Error, or "(no error)".
inline std::string errorOf(const std::function<void()> &action) {
  try {
    action();
  } catch (const Error &error) {
    return error.what();
  }
  return "(no error)";
}

} // namespace ringfuse::runtime::testing

/// `message` contains `fragment` (gtest; prints the message otherwise).
#define EXPECT_MESSAGE(message, fragment)                                      \
  EXPECT_NE(std::string(message).find(fragment), std::string::npos) << (message)

#endif // RINGFUSE_TEST_CPP_TEST_SUPPORT_H
