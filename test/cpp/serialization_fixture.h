//===- serialization_fixture.h - keys, objects and byte edits -*- C++ -*-===//
//
// What the serialization tests share (serialize_test.cpp,
// serialize_files_test.cpp): a toy parameter set with one of each object, the
// header's layout, and helpers that edit serialized bytes.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_TEST_CPP_SERIALIZATION_FIXTURE_H
#define RINGFUSE_TEST_CPP_SERIALIZATION_FIXTURE_H

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/serialize.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ringfuse::runtime::testing {

// Header layout (serialize.h): magic 0, version 8, kind 12, fingerprint 16,
// payload length 24, checksum 32, reserved 40, payload 48.
inline constexpr size_t kVersionOffset = 8, kKindOffset = 12,
                        kFingerprintOffset = 16, kChecksumOffset = 32,
                        kReservedOffset = 40, kPayload = 48;

/// Checks that `statement` throws an Error whose message contains `needle`.
#define EXPECT_ERROR(statement, needle)                                        \
  do {                                                                         \
    try {                                                                      \
      statement;                                                               \
      ADD_FAILURE() << "no Error thrown; expected one containing \""           \
                    << (needle) << "\"";                                       \
    } catch (const Error &error) {                                             \
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos)     \
          << "message: " << error.what();                                      \
    }                                                                          \
  } while (0)

inline uint64_t getU64(const std::vector<uint8_t> &bytes, size_t offset) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i)
    value |= uint64_t(bytes[offset + i]) << (8 * i);
  return value;
}

inline void putU64(std::vector<uint8_t> &bytes, size_t offset, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    bytes[offset + i] = uint8_t(value >> (8 * i));
}

inline void putU32(std::vector<uint8_t> &bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = uint8_t(value >> (8 * i));
}

/// After editing the payload: a valid checksum again, so that only the
/// payload-level check under test can catch the edit.
inline void recomputeChecksum(std::vector<uint8_t> &bytes) {
  putU64(bytes, kChecksumOffset,
         payloadChecksum(kSerializationFormatVersion, bytes.data() + kPayload,
                         bytes.size() - kPayload));
}

class Serialization : public ::testing::Test {
protected:
  void SetUp() override {
    context = makeContext(1024, 65537, {30, 30}, {30}, true);
    Prng prng = seededPrng(11);
    secret = generateSecretKey(context, prng);
    pk = generatePublicKey(secret, prng);
    relin = generateRelinKey(secret, prng);
    galois = generateGaloisKeys(
        secret,
        {galoisElementForRotation(1024, 1), galoisElementForRowSwap(1024)},
        prng);
    std::vector<uint64_t> values(1024);
    for (auto &v : values)
      v = randomBelow(65537);
    plaintext = encodeSlots(context, values.data(), values.size());
    ciphertext = encryptSymmetric(secret, plaintext, prng);
  }

  ContextPtr context;
  SecretKey secret;
  PublicKey pk;
  RelinKey relin;
  GaloisKeys galois;
  Plaintext plaintext;
  Ciphertext ciphertext;
};

} // namespace ringfuse::runtime::testing

#endif // RINGFUSE_TEST_CPP_SERIALIZATION_FIXTURE_H
