//===- serialize_test.cpp - the binary format: round trips and every error -===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/serialize.h"
#include "serialization_fixture.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace ringfuse::runtime {
namespace {
using namespace testing; // serialization_fixture.h's and test_support.h's

// Round trips -------------------------------------------------------------------

TEST_F(Serialization, ParametersRoundTripWithTheirPrimesAndFingerprint) {
  std::vector<uint8_t> bytes = serialize(*context);
  EXPECT_EQ(peekKind(bytes.data(), bytes.size()), ObjectKind::Parameters);
  ContextPtr loaded = deserializeParameters(bytes.data(), bytes.size());
  EXPECT_EQ(loaded->fingerprint(), context->fingerprint());
  EXPECT_EQ(loaded->degree(), context->degree());
  EXPECT_EQ(loaded->plaintextModulus(), context->plaintextModulus());
  EXPECT_EQ(loaded->dnum(), context->dnum());
  EXPECT_EQ(loaded->q().values(), context->q().values());
  EXPECT_EQ(loaded->p().values(), context->p().values());
  EXPECT_TRUE(loaded->insecure());
}

TEST(SerializationOfSecureParameters, LoadWithoutTheInsecureFlag) {
  ContextPtr secure = makeContext(4096, 65537, {35, 35}, {36});
  std::vector<uint8_t> bytes = serialize(*secure);
  EXPECT_EQ(bytes[kPayload + 24], 0); // the flag after N, t, dnum
  ContextPtr loaded = deserializeParameters(bytes.data(), bytes.size());
  EXPECT_FALSE(loaded->insecure());
  EXPECT_EQ(loaded->fingerprint(), secure->fingerprint());
}

TEST_F(Serialization, CiphertextsOfTwoAndThreeComponentsRoundTrip) {
  Ciphertext product = multiplyHps(ciphertext, ciphertext);
  for (const Ciphertext *original : {&ciphertext, &product}) {
    std::vector<uint8_t> bytes = serialize(*original);
    EXPECT_EQ(bytes.size(), kPayload + 8 + original->data.size() * 8);
    Ciphertext loaded = deserializeCiphertext(context, bytes.data(), bytes.size());
    EXPECT_EQ(loaded.context, context);
    EXPECT_EQ(loaded.size, original->size);
    EXPECT_EQ(loaded.data, original->data);
  }
}

TEST_F(Serialization, PlaintextRoundTrips) {
  std::vector<uint8_t> bytes = serialize(plaintext);
  Plaintext loaded = deserializePlaintext(context, bytes.data(), bytes.size());
  EXPECT_EQ(loaded.context, context);
  EXPECT_EQ(loaded.coefficients, plaintext.coefficients);
}

TEST_F(Serialization, SecretKeyRoundTripRecomputesTheNttFormAndDecrypts) {
  std::vector<uint8_t> bytes = serialize(secret);
  EXPECT_EQ(bytes.size(), kPayload + context->degree()); // one byte a coefficient
  SecretKey loaded = deserializeSecretKey(context, bytes.data(), bytes.size());
  EXPECT_EQ(loaded.coefficients, secret.coefficients);
  EXPECT_EQ(loaded.nttQP, secret.nttQP);
  EXPECT_EQ(decrypt(loaded, ciphertext).coefficients, plaintext.coefficients);
}

TEST_F(Serialization, PublicKeyRoundTripsAndEncrypts) {
  std::vector<uint8_t> bytes = serialize(pk);
  PublicKey loaded = deserializePublicKey(context, bytes.data(), bytes.size());
  EXPECT_EQ(loaded.b, pk.b);
  EXPECT_EQ(loaded.a, pk.a);
  Prng prng = seededPrng(12);
  EXPECT_EQ(decrypt(secret, encryptPublic(loaded, plaintext, prng)).coefficients,
            plaintext.coefficients);
}

TEST_F(Serialization, RelinKeyRoundTrips) {
  std::vector<uint8_t> bytes = serialize(relin);
  RelinKey loaded = deserializeRelinKey(context, bytes.data(), bytes.size());
  ASSERT_EQ(loaded.key.b.size(), context->dnum());
  EXPECT_EQ(loaded.key.b, relin.key.b);
  EXPECT_EQ(loaded.key.a, relin.key.a);
}

TEST_F(Serialization, GaloisKeysRoundTripEveryElement) {
  std::vector<uint8_t> bytes = serialize(galois);
  GaloisKeys loaded = deserializeGaloisKeys(context, bytes.data(), bytes.size());
  ASSERT_EQ(loaded.keys.size(), galois.keys.size());
  for (const auto &[element, key] : galois.keys) {
    ASSERT_EQ(loaded.keys.count(element), 1u) << element;
    EXPECT_EQ(loaded.keys.at(element).b, key.b);
    EXPECT_EQ(loaded.keys.at(element).a, key.a);
  }
}

TEST_F(Serialization, ObjectsLoadUnderLoadedParametersAndStillDecrypt) {
  std::vector<uint8_t> params = serialize(*context), sk = serialize(secret),
                       ct = serialize(ciphertext);
  ContextPtr loaded = deserializeParameters(params.data(), params.size());
  SecretKey key = deserializeSecretKey(loaded, sk.data(), sk.size());
  Ciphertext c = deserializeCiphertext(loaded, ct.data(), ct.size());
  EXPECT_EQ(decrypt(key, c).coefficients, plaintext.coefficients);
}

TEST_F(Serialization, PeekKindNamesEveryKind) {
  auto kindOf = [](const std::vector<uint8_t> &bytes) {
    return peekKind(bytes.data(), bytes.size());
  };
  EXPECT_EQ(kindOf(serialize(*context)), ObjectKind::Parameters);
  EXPECT_EQ(kindOf(serialize(secret)), ObjectKind::SecretKey);
  EXPECT_EQ(kindOf(serialize(pk)), ObjectKind::PublicKey);
  EXPECT_EQ(kindOf(serialize(relin)), ObjectKind::RelinKey);
  EXPECT_EQ(kindOf(serialize(galois)), ObjectKind::GaloisKeys);
  EXPECT_EQ(kindOf(serialize(plaintext)), ObjectKind::Plaintext);
  EXPECT_EQ(kindOf(serialize(ciphertext)), ObjectKind::Ciphertext);
  EXPECT_EQ(kindOf(serialize(EvaluationKeys{context, relin, galois})),
            ObjectKind::EvaluationKeys);
  EXPECT_EQ(kindOf(serialize(std::vector<Ciphertext>{ciphertext})),
            ObjectKind::CiphertextBatch);
  // Appended after the kinds of earlier builds, whose files keep loading.
  EXPECT_EQ(static_cast<uint32_t>(ObjectKind::CiphertextBatch), 9u);
  EXPECT_EQ(objectKindName(ObjectKind::CiphertextBatch), "ciphertext batch");
}

// Ciphertext batches (many instances' inputs or outputs in one file) -----

/// Three ciphertexts of 2, 3 and 2 components, all distinct.
class CiphertextBatches : public Serialization {
protected:
  void SetUp() override {
    Serialization::SetUp();
    Prng prng = seededPrng(12);
    batch = {ciphertext, multiplyHps(ciphertext, ciphertext),
             encryptSymmetric(secret, plaintext, prng)};
  }
  /// Where ciphertext `index`'s body (its u64 component count) starts.
  size_t bodyOffset(size_t index) const {
    size_t offset = kPayload + 8;
    for (size_t i = 0; i < index; ++i)
      offset += 8 + batch[i].data.size() * 8;
    return offset;
  }
  std::vector<Ciphertext> batch;
};

TEST_F(CiphertextBatches, RoundTripWithMixedComponentCounts) {
  std::vector<uint8_t> bytes = serialize(batch);
  EXPECT_EQ(bytes.size(), bodyOffset(batch.size()));
  EXPECT_EQ(getU64(bytes, kPayload), 3u);
  std::vector<Ciphertext> loaded =
      deserializeCiphertextBatch(context, bytes.data(), bytes.size());
  ASSERT_EQ(loaded.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(loaded[i].context, context);
    EXPECT_EQ(loaded[i].size, batch[i].size);
    EXPECT_EQ(loaded[i].data, batch[i].data);
  }
  // Each body is a ciphertext's payload: the single format, count times.
  std::vector<uint8_t> single = serialize(batch[1]);
  EXPECT_TRUE(std::equal(single.begin() + kPayload, single.end(),
                         bytes.begin() + bodyOffset(1)));
}

TEST_F(CiphertextBatches, RejectsTruncatedAndCorruptedData) {
  std::vector<uint8_t> bytes = serialize(batch);
  for (size_t size : {kPayload, kPayload + 4, bodyOffset(1), bytes.size() - 1})
    EXPECT_ERROR(deserializeCiphertextBatch(context, bytes.data(), size),
                 "truncated ciphertext batch");
  bytes[bodyOffset(2) + 100] ^= 0x10;
  EXPECT_ERROR(deserializeCiphertextBatch(context, bytes.data(), bytes.size()),
               "checksum mismatch: the data is corrupted (ciphertext batch");
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "the data holds a ciphertext batch, not a ciphertext");
}

TEST_F(CiphertextBatches, RejectsACountThePayloadDoesNotHoldExactly) {
  std::vector<uint8_t> bytes = serialize(batch);
  auto loadWithCount = [&](uint64_t count) {
    std::vector<uint8_t> edited = bytes;
    putU64(edited, kPayload, count);
    recomputeChecksum(edited);
    return deserializeCiphertextBatch(context, edited.data(), edited.size());
  };
  for (uint64_t count : {uint64_t(0), kMaxBatchCiphertexts + 1, ~uint64_t(0)})
    EXPECT_ERROR(loadWithCount(count),
                 "a count of " + std::to_string(count) +
                     " ciphertexts, expected 1 to 1048576");
  EXPECT_ERROR(loadWithCount(2),
               "ciphertext batch payload has " +
                   std::to_string(bytes.size() - bodyOffset(2)) +
                   " bytes left over after the object");
  EXPECT_ERROR(loadWithCount(4), "truncated ciphertext batch payload");
  // A count in range that the payload could never hold reserves nothing.
  EXPECT_ERROR(loadWithCount(kMaxBatchCiphertexts),
               "truncated ciphertext batch payload: a count of 1048576 "
               "ciphertexts needs at least");
}

TEST_F(CiphertextBatches, RejectsBatchesOfOtherParameters) {
  ContextPtr other = makeContext(1024, 257, {30, 30}, {30}, true); // t differs
  std::vector<uint8_t> bytes = serialize(batch);
  EXPECT_ERROR(deserializeCiphertextBatch(other, bytes.data(), bytes.size()),
               "the ciphertext batch was made for other parameters");
  EXPECT_ERROR(deserializeCiphertextBatch(nullptr, bytes.data(), bytes.size()),
               "needs a context");
}

TEST_F(CiphertextBatches, RejectsAResidueOrComponentCountOutOfRange) {
  std::vector<uint8_t> bytes = serialize(batch);
  // Ciphertext 1, component 2, prime q_1, coefficient 3.
  const size_t n = context->degree(), limbs = context->q().size();
  putU64(bytes, bodyOffset(1) + 8 + ((2 * limbs + 1) * n + 3) * 8,
         context->q().values()[1]);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeCiphertextBatch(context, bytes.data(), bytes.size()),
               "ciphertext 1 component 2: residue " +
                   std::to_string(context->q().values()[1]) +
                   " of coefficient 3 is not below its prime q_1");

  bytes = serialize(batch);
  for (uint64_t components : {uint64_t(1), uint64_t(17)}) {
    putU64(bytes, bodyOffset(2), components);
    recomputeChecksum(bytes);
    EXPECT_ERROR(
        deserializeCiphertextBatch(context, bytes.data(), bytes.size()),
        "ciphertext batch payload: ciphertext 2: " +
            std::to_string(components) + " components, expected 2 to 16");
  }
}

TEST_F(CiphertextBatches, RefusesToSaveAnEmptyOrMixedBatch) {
  EXPECT_ERROR(serialize(std::vector<Ciphertext>{}),
               "cannot serialize an empty ciphertext batch");
  ContextPtr other = makeContext(1024, 257, {30, 30}, {30}, true);
  std::vector<Ciphertext> mixed = batch;
  mixed[2].context = other;
  EXPECT_ERROR(serialize(mixed), "ciphertext 2 belongs to");
  mixed[2].context = nullptr;
  EXPECT_ERROR(serialize(mixed), "ciphertext 2 belongs to no context");
  mixed[0].context = nullptr;
  EXPECT_ERROR(serialize(mixed),
               "cannot serialize a ciphertext batch without a context");
  // Equal parameters in another Context object are the same parameters.
  std::vector<uint8_t> parameters = serialize(*context);
  std::vector<Ciphertext> equal = batch;
  equal[1].context =
      deserializeParameters(parameters.data(), parameters.size());
  EXPECT_EQ(serialize(equal), serialize(batch));
  std::vector<Ciphertext> malformed = batch;
  malformed[1].data.pop_back();
  EXPECT_ERROR(serialize(malformed),
               "cannot serialize ciphertext 1 of the batch");
}

// Evaluation keys (a server's relinearization and Galois keys in one file) ------

TEST_F(Serialization, EvaluationKeysRoundTripWithEitherKeyAbsent) {
  for (bool withRelin : {false, true})
    for (bool withGalois : {false, true}) {
      EvaluationKeys keys{context, std::nullopt, std::nullopt};
      if (withRelin) keys.relin = relin;
      if (withGalois) keys.galois = galois;
      std::vector<uint8_t> bytes = serialize(keys);
      EvaluationKeys loaded =
          deserializeEvaluationKeys(context, bytes.data(), bytes.size());
      EXPECT_EQ(loaded.context, context);
      ASSERT_EQ(loaded.relin.has_value(), withRelin);
      ASSERT_EQ(loaded.galois.has_value(), withGalois);
      if (withRelin) {
        EXPECT_EQ(loaded.relin->context, context);
        EXPECT_EQ(loaded.relin->key.b, relin.key.b);
        EXPECT_EQ(loaded.relin->key.a, relin.key.a);
      }
      if (withGalois) {
        EXPECT_EQ(loaded.galois->context, context);
        ASSERT_EQ(loaded.galois->keys.size(), galois.keys.size());
        for (const auto &[element, key] : galois.keys) {
          ASSERT_EQ(loaded.galois->keys.count(element), 1u) << element;
          EXPECT_EQ(loaded.galois->keys.at(element).b, key.b);
          EXPECT_EQ(loaded.galois->keys.at(element).a, key.a);
        }
      }
    }
}

TEST_F(Serialization, EvaluationKeysHoldTheSameBytesAsTheKeysAlone) {
  // The bundle is the two payloads behind their presence flags, nothing more.
  std::vector<uint8_t> alone = serialize(relin), galoisAlone = serialize(galois);
  std::vector<uint8_t> bundle = serialize(EvaluationKeys{context, relin, galois});
  const size_t relinPayload = alone.size() - kPayload,
               galoisPayload = galoisAlone.size() - kPayload;
  ASSERT_EQ(bundle.size(), kPayload + 2 + relinPayload + galoisPayload);
  EXPECT_EQ(bundle[kPayload], 1);
  EXPECT_TRUE(std::equal(alone.begin() + kPayload, alone.end(),
                         bundle.begin() + kPayload + 1));
  EXPECT_EQ(bundle[kPayload + 1 + relinPayload], 1);
  EXPECT_TRUE(std::equal(galoisAlone.begin() + kPayload, galoisAlone.end(),
                         bundle.begin() + kPayload + 2 + relinPayload));
}

TEST_F(Serialization, RejectsEvaluationKeysOfOtherParameters) {
  ContextPtr other = makeContext(1024, 257, {30, 30}, {30}, true);
  std::vector<uint8_t> bytes = serialize(EvaluationKeys{context, relin, galois});
  EXPECT_ERROR(deserializeEvaluationKeys(other, bytes.data(), bytes.size()),
               "the evaluation keys were made for other parameters");
  // A bundle whose keys belong to another context than its own.
  EXPECT_ERROR(serialize(EvaluationKeys{other, relin, std::nullopt}),
               "cannot serialize evaluation keys: the relinearization key "
               "belongs to BFV(N=1024, t=65537");
  EXPECT_ERROR(serialize(EvaluationKeys{other, std::nullopt, galois}),
               "the Galois keys belong to");
  EXPECT_ERROR(serialize(EvaluationKeys{nullptr, relin, galois}),
               "without a context");
}

TEST_F(Serialization, RejectsEvaluationKeysThatAreAnotherKindCorruptOrTruncated) {
  std::vector<uint8_t> key = serialize(relin);
  EXPECT_ERROR(deserializeEvaluationKeys(context, key.data(), key.size()),
               "the data holds a relinearization key, not evaluation keys");
  std::vector<uint8_t> bytes = serialize(EvaluationKeys{context, relin, galois});
  EXPECT_ERROR(deserializeRelinKey(context, bytes.data(), bytes.size()),
               "the data holds evaluation keys, not a relinearization key");
  for (size_t size : {kPayload, kPayload + 1, bytes.size() / 2, bytes.size() - 1})
    EXPECT_ERROR(deserializeEvaluationKeys(context, bytes.data(), size),
                 "truncated evaluation keys");
  std::vector<uint8_t> flipped = bytes;
  flipped[kPayload + 100] ^= 0x10;
  EXPECT_ERROR(deserializeEvaluationKeys(context, flipped.data(), flipped.size()),
               "checksum mismatch");
}

TEST_F(Serialization, RejectsAPresenceFlagOtherThanZeroOrOne) {
  std::vector<uint8_t> bytes =
      serialize(EvaluationKeys{context, std::nullopt, std::nullopt});
  ASSERT_EQ(bytes.size(), kPayload + 2);
  bytes[kPayload] = 2;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeEvaluationKeys(context, bytes.data(), bytes.size()),
               "the relinearization key flag is 2, expected 0 (absent) or 1");
  bytes[kPayload] = 0;
  bytes[kPayload + 1] = 7;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeEvaluationKeys(context, bytes.data(), bytes.size()),
               "the Galois keys flag is 7");
  // A flag that announces a key the payload does not hold.
  bytes[kPayload + 1] = 1;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeEvaluationKeys(context, bytes.data(), bytes.size()),
               "truncated evaluation keys payload");
}

// Header errors -------------------------------------------------------------------

TEST_F(Serialization, RejectsDataWithoutTheMagic) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  bytes[0] = 'X';
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "not a ringfuse file");
  EXPECT_ERROR(peekKind(bytes.data(), bytes.size()), "not a ringfuse file");
}

TEST_F(Serialization, RejectsATruncatedHeader) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  for (size_t size : {size_t(0), size_t(5), size_t(8), size_t(20), kPayload - 1})
    EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), size),
                 "truncated header");
}

TEST_F(Serialization, RejectsAPayloadTruncatedAnywhere) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  for (size_t size : {kPayload, kPayload + 4, bytes.size() / 2, bytes.size() - 1})
    EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), size),
                 "truncated ciphertext");
}

TEST_F(Serialization, RejectsTrailingBytes) {
  std::vector<uint8_t> bytes = serialize(pk);
  bytes.push_back(0);
  EXPECT_ERROR(deserializePublicKey(context, bytes.data(), bytes.size()),
               "trailing data after the public key");
}

TEST_F(Serialization, RejectsAFlippedPayloadBitByTheChecksum) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  bytes[kPayload + 1000] ^= 0x04;
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "checksum mismatch: the data is corrupted");
}

TEST_F(Serialization, RejectsAnotherFormatVersion) {
  for (uint32_t version : {0u, 3u}) {
    std::vector<uint8_t> bytes = serialize(ciphertext);
    putU32(bytes, kVersionOffset, version);
    const std::string expected = "format version " + std::to_string(version) +
                                 " is not supported; this build reads "
                                 "versions 1 to 2";
    EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
                 expected);
    EXPECT_ERROR(peekKind(bytes.data(), bytes.size()), expected);
  }
}

TEST_F(Serialization, ReadsVersionOneFilesAndWritesVersionTwo) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  uint32_t written = 0;
  for (int i = 0; i < 4; ++i)
    written |= uint32_t(bytes[kVersionOffset + i]) << (8 * i);
  EXPECT_EQ(written, 2u);
  // The same object as version 1 wrote it: FNV-1a over the payload's bytes.
  putU32(bytes, kVersionOffset, 1);
  uint64_t fnv = 1469598103934665603ull;
  for (size_t i = kPayload; i < bytes.size(); ++i)
    fnv = (fnv ^ bytes[i]) * 1099511628211ull;
  putU64(bytes, kChecksumOffset, fnv);
  Ciphertext loaded =
      deserializeCiphertext(context, bytes.data(), bytes.size());
  EXPECT_EQ(loaded.data, ciphertext.data);
  // Each checksum belongs to its version.
  putU32(bytes, kVersionOffset, 2);
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "checksum mismatch");
}

TEST_F(Serialization, VersionTwoChecksumSeesEveryChangedWord) {
  std::vector<uint8_t> payload(8 * 64 + 3);
  for (size_t i = 0; i < payload.size(); ++i)
    payload[i] = uint8_t(i * 37 + 11);
  const uint64_t original = payloadChecksum(2, payload.data(), payload.size());
  for (size_t byte = 0; byte < payload.size(); byte += 7)
    for (int bit = 0; bit < 8; ++bit) {
      payload[byte] ^= uint8_t(1 << bit);
      EXPECT_NE(payloadChecksum(2, payload.data(), payload.size()), original)
          << "byte " << byte << " bit " << bit;
      payload[byte] ^= uint8_t(1 << bit);
    }
}

TEST_F(Serialization, RejectsAnotherObjectKind) {
  std::vector<uint8_t> key = serialize(pk);
  EXPECT_ERROR(deserializeCiphertext(context, key.data(), key.size()),
               "the data holds a public key, not a ciphertext");
  std::vector<uint8_t> bytes = serialize(ciphertext);
  putU32(bytes, kKindOffset, static_cast<uint32_t>(ObjectKind::GaloisKeys));
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "the data holds Galois keys, not a ciphertext");
  putU32(bytes, kKindOffset, 42);
  EXPECT_ERROR(peekKind(bytes.data(), bytes.size()), "unknown object kind (42)");
}

TEST_F(Serialization, RejectsObjectsMadeForOtherParameters) {
  ContextPtr other = makeContext(1024, 257, {30, 30}, {30}, true); // t differs
  ASSERT_NE(other->fingerprint(), context->fingerprint());
  std::vector<uint8_t> bytes = serialize(ciphertext);
  EXPECT_ERROR(deserializeCiphertext(other, bytes.data(), bytes.size()),
               "the ciphertext was made for other parameters");
  std::vector<uint8_t> keys = serialize(galois);
  EXPECT_ERROR(deserializeGaloisKeys(other, keys.data(), keys.size()),
               "the Galois keys were made for other parameters");
}

TEST_F(Serialization, RejectsParametersWhoseFingerprintWasAltered) {
  std::vector<uint8_t> bytes = serialize(*context);
  putU64(bytes, kFingerprintOffset, getU64(bytes, kFingerprintOffset) ^ 1);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()),
               "the data is corrupted");
}

TEST_F(Serialization, RejectsANonzeroReservedField) {
  std::vector<uint8_t> bytes = serialize(plaintext);
  putU64(bytes, kReservedOffset, 1);
  EXPECT_ERROR(deserializePlaintext(context, bytes.data(), bytes.size()),
               "reserved field");
}

TEST(SerializationWithoutContext, RejectsANullContext) {
  ContextPtr context = makeContext(1024, 65537, {30, 30}, {30}, true);
  std::vector<uint64_t> zero(1, 0);
  std::vector<uint8_t> bytes =
      serialize(encodeCoefficients(context, zero.data(), zero.size()));
  EXPECT_ERROR(deserializePlaintext(nullptr, bytes.data(), bytes.size()),
               "needs a context");
}

// Payload errors (each edit re-checksummed) ------------------------------------

TEST_F(Serialization, RejectsAResidueNotBelowItsPrime) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  // Component 0, prime q_1, coefficient 5: after the u64 component count.
  const size_t n = context->degree();
  putU64(bytes, kPayload + 8 + (1 * n + 5) * 8, context->q().values()[1]);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "ciphertext component 0: residue");
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "is not below its prime q_1");

  std::vector<uint8_t> key = serialize(pk);
  putU64(key, key.size() - 8, ~uint64_t(0)); // a's last residue, prime p_0
  recomputeChecksum(key);
  EXPECT_ERROR(deserializePublicKey(context, key.data(), key.size()),
               "public key a: residue");
}

TEST_F(Serialization, RejectsAPlaintextCoefficientNotBelowT) {
  std::vector<uint8_t> bytes = serialize(plaintext);
  putU64(bytes, kPayload + 3 * 8, 65537);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializePlaintext(context, bytes.data(), bytes.size()),
               "plaintext coefficient 3 is 65537, not below t = 65537");
}

TEST_F(Serialization, RejectsASecretCoefficientOutsideTernary) {
  std::vector<uint8_t> bytes = serialize(secret);
  bytes[kPayload + 7] = 2;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeSecretKey(context, bytes.data(), bytes.size()),
               "secret key coefficient 7 is 2");
  bytes[kPayload + 7] = 0xfe; // -2
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeSecretKey(context, bytes.data(), bytes.size()),
               "secret key coefficient 7 is -2");
}

TEST_F(Serialization, RejectsAComponentCountOutOfRange) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  for (uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(17), ~uint64_t(0)}) {
    putU64(bytes, kPayload, count);
    recomputeChecksum(bytes);
    EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
                 std::to_string(count) + " components, expected 2 to 16");
  }
  // A count in range that the payload does not hold.
  putU64(bytes, kPayload, 3);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeCiphertext(context, bytes.data(), bytes.size()),
               "truncated ciphertext payload");
}

// 1 is the identity, which needs no key (it loaded before).
TEST_F(Serialization, RejectsTheIdentityAnEvenOrATooLargeGaloisElement) {
  std::vector<uint8_t> bytes = serialize(galois);
  const size_t firstElement = kPayload + 8;
  for (uint64_t element :
       {uint64_t(1), uint64_t(4), uint64_t(2049), uint64_t(1) << 40}) {
    putU64(bytes, firstElement, element);
    recomputeChecksum(bytes);
    EXPECT_ERROR(deserializeGaloisKeys(context, bytes.data(), bytes.size()),
                 "element " + std::to_string(element) +
                     " is not an odd number in (1, 2N) = (1, 2048)");
  }
  Prng prng = seededPrng(3);
  EXPECT_ERROR(generateGaloisKeys(secret, {1}, prng),
               "Galois element 1 is the identity, which needs no key");
}

TEST_F(Serialization, RejectsARepeatedGaloisElement) {
  std::vector<uint8_t> bytes = serialize(galois);
  ASSERT_EQ(galois.keys.size(), 2u);
  const size_t keyBytes = (bytes.size() - kPayload - 8) / 2;
  const size_t first = kPayload + 8, second = first + keyBytes;
  putU64(bytes, second, getU64(bytes, first));
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeGaloisKeys(context, bytes.data(), bytes.size()),
               "appears twice");
}

TEST_F(Serialization, RejectsADigitCountOtherThanDnum) {
  std::vector<uint8_t> bytes = serialize(relin);
  putU64(bytes, kPayload, context->dnum() + 1);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeRelinKey(context, bytes.data(), bytes.size()),
               "relinearization key has 3 digits, but the parameters' dnum is 2");
}

TEST_F(Serialization, RefusesInsecureParametersUnlessFlagged) {
  std::vector<uint8_t> bytes = serialize(*context);
  ASSERT_EQ(bytes[kPayload + 24], 1);
  bytes[kPayload + 24] = 0;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()),
               "not 128-bit secure");
  bytes[kPayload + 24] = 2;
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()),
               "expected 0 or 1");
}

TEST_F(Serialization, RejectsParametersThatContextRefuses) {
  std::vector<uint8_t> bytes = serialize(*context);
  // Q's first prime, after N, t, dnum, the flag and |Q|: no longer prime.
  const size_t firstPrime = kPayload + 3 * 8 + 1 + 8;
  putU64(bytes, firstPrime, getU64(bytes, firstPrime) + 2);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()),
               "is not an NTT-friendly prime");
  // A prime count larger than the payload.
  bytes = serialize(*context);
  putU64(bytes, firstPrime - 8, uint64_t(1) << 60);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()),
               "truncated parameter set payload");
}

// A stored set records its digits: dnum = 0 is the API's "default", never a
// file's (it loaded as the default set before).
TEST_F(Serialization, ParametersWithDnumZeroAreRefused) {
  std::vector<uint8_t> bytes = serialize(*context);
  putU64(bytes, kPayload + 16, 0);
  recomputeChecksum(bytes);
  EXPECT_ERROR(deserializeParameters(bytes.data(), bytes.size()), "dnum is 0");
}

} // namespace
} // namespace ringfuse::runtime
