//===- batch_encryption.cpp - encryptions and decryptions of batches ------===//
//
// A batch's instances are independent, and an encryption's randomness is a
// function of (seed, domain, index): instance 0 runs first and shows how many
// domains one encryption draws; the others then run on threads, each from
// the domain the sequence of single calls would have given it.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/parallel.h"

namespace ringfuse::runtime {
namespace {

template <typename Encrypt>
std::vector<Ciphertext> encryptBatch(const std::vector<Plaintext> &plaintexts,
                                     Prng &prng, size_t threads,
                                     Encrypt encrypt) {
  std::vector<Ciphertext> ciphertexts(plaintexts.size());
  if (plaintexts.empty())
    return ciphertexts;
  const uint64_t first = prng.peekDomain();
  try {
    ciphertexts[0] = encrypt(plaintexts[0], prng);
  } catch (const std::exception &e) {
    throw Error(std::string("instance 0: ") + e.what());
  }
  const uint64_t perInstance = prng.peekDomain() - first;
  const size_t rest = plaintexts.size() - 1;
  parallelFor(
      rest, workersFor(rest, threads), "instance",
      [&](size_t, size_t i) {
        Prng own = prng.startingAt(first + (i + 1) * perInstance);
        ciphertexts[i + 1] = encrypt(plaintexts[i + 1], own);
      },
      /*firstName=*/1);
  prng.skip(rest * perInstance);
  return ciphertexts;
}

} // namespace

std::vector<Ciphertext>
encryptPublicBatch(const PublicKey &key,
                   const std::vector<Plaintext> &plaintexts, Prng &prng,
                   size_t threads) {
  return encryptBatch(plaintexts, prng, threads,
                      [&](const Plaintext &plaintext, Prng &own) {
                        return encryptPublic(key, plaintext, own);
                      });
}

std::vector<Ciphertext>
encryptSymmetricBatch(const SecretKey &key,
                      const std::vector<Plaintext> &plaintexts, Prng &prng,
                      size_t threads) {
  return encryptBatch(plaintexts, prng, threads,
                      [&](const Plaintext &plaintext, Prng &own) {
                        return encryptSymmetric(key, plaintext, own);
                      });
}

std::vector<Plaintext> decryptBatch(const SecretKey &key,
                                    const std::vector<Ciphertext> &ciphertexts,
                                    size_t threads) {
  std::vector<Plaintext> plaintexts(ciphertexts.size());
  parallelFor(
      ciphertexts.size(), workersFor(ciphertexts.size(), threads), "instance",
      [&](size_t, size_t i) { plaintexts[i] = decrypt(key, ciphertexts[i]); });
  return plaintexts;
}

} // namespace ringfuse::runtime
