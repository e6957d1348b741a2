//===- batch_encryption_test.cpp - encryptions and decryptions of batches -===//
//
// A batch encrypted on threads is, word for word, the ciphertexts of
// encrypting its plaintexts one after another with the same Prng, which it
// leaves where that sequence leaves it; decryptBatch is decrypt of each.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;
using testing::seededPrng;

ContextPtr toyContext(uint64_t t = 65537) {
  ParameterRequest request;
  request.polyModulusDegree = 1024;
  request.plaintextModulus = t;
  request.coeffModulusBits = {30, 30};
  request.specialModulusBits = {30};
  request.allowInsecure = true;
  return Context::create(request);
}

std::vector<Plaintext> randomPlaintexts(const ContextPtr &context,
                                        size_t count) {
  std::vector<Plaintext> plaintexts;
  for (size_t k = 0; k < count; ++k) {
    std::vector<uint64_t> values(context->degree());
    for (uint64_t &value : values)
      value = randomBelow(context->plaintextModulus());
    plaintexts.push_back(encodeSlots(context, values.data(), values.size()));
  }
  return plaintexts;
}

TEST(BatchEncryption, ThreadsGiveTheSequenceOfSingleEncryptions) {
  ContextPtr context = toyContext();
  Prng keyPrng = seededPrng(1);
  SecretKey secret = generateSecretKey(context, keyPrng);
  PublicKey publicKey = generatePublicKey(secret, keyPrng);
  std::vector<Plaintext> plaintexts = randomPlaintexts(context, 7);
  for (bool symmetric : {false, true}) {
    for (size_t threads : {1, 3, 0}) {
      Prng batchPrng = seededPrng(2), singlePrng = seededPrng(2);
      std::vector<Ciphertext> batch =
          symmetric
              ? encryptSymmetricBatch(secret, plaintexts, batchPrng, threads)
              : encryptPublicBatch(publicKey, plaintexts, batchPrng, threads);
      ASSERT_EQ(batch.size(), plaintexts.size());
      for (size_t k = 0; k < plaintexts.size(); ++k) {
        Ciphertext single =
            symmetric ? encryptSymmetric(secret, plaintexts[k], singlePrng)
                      : encryptPublic(publicKey, plaintexts[k], singlePrng);
        EXPECT_EQ(batch[k].data, single.data)
            << "instance " << k << ", " << threads << " threads"
            << (symmetric ? ", symmetric" : "");
      }
      EXPECT_EQ(batchPrng.peekDomain(), singlePrng.peekDomain());
      std::vector<Plaintext> decrypted = decryptBatch(secret, batch, threads);
      for (size_t k = 0; k < plaintexts.size(); ++k)
        EXPECT_EQ(decrypted[k].coefficients, plaintexts[k].coefficients);
    }
  }
}

TEST(BatchEncryption, AFailureNamesItsInstance) {
  ContextPtr context = toyContext();
  Prng prng = seededPrng(3);
  SecretKey secret = generateSecretKey(context, prng);
  PublicKey publicKey = generatePublicKey(secret, prng);
  std::vector<Plaintext> plaintexts = randomPlaintexts(context, 4);
  plaintexts[2].coefficients.resize(3); // not N coefficients
  std::string message = testing::errorOf(
      [&] { encryptPublicBatch(publicKey, plaintexts, prng, 2); });
  EXPECT_NE(message.find("instance 2: "), std::string::npos) << message;
  std::vector<Plaintext> first = {plaintexts[2]};
  message =
      testing::errorOf([&] { encryptPublicBatch(publicKey, first, prng, 2); });
  EXPECT_NE(message.find("instance 0: "), std::string::npos) << message;
  EXPECT_TRUE(encryptPublicBatch(publicKey, {}, prng, 2).empty());
}

} // namespace
} // namespace ringfuse::runtime
