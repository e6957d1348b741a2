//===- bfv.h - keys, encoding, encryption, decryption -------------*- C++ -*-===//
//
// The host-side BFV math core: what a client does (keys, encode, encrypt,
// decrypt, noise measurement) and the reference operations that test the keys
// (key switching, relinearization, Galois automorphisms, HPS multiplication).
// Polynomials are limb-major; ciphertexts are stored in coefficient form over
// Q; secret and evaluation keys in NTT form over QP.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_BFV_H
#define RINGFUSE_RUNTIME_BFV_H

#include "ringfuse/runtime/behz.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/prng.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ringfuse::runtime {

/// m in R_t: N coefficients in [0, t).
struct Plaintext {
  ContextPtr context;
  std::vector<uint64_t> coefficients;
};

/// (c_0, ..., c_{size-1}) over Q, coefficient form: component k, limb i,
/// coefficient j at data[(k * |Q| + i) * N + j]. 2 to kMaxCiphertextComponents
/// components (what the format stores).
inline constexpr size_t kMinCiphertextComponents = 2,
                        kMaxCiphertextComponents = 16;
struct Ciphertext {
  ContextPtr context;
  size_t size = 0;
  std::vector<uint64_t> data;

  uint64_t *component(size_t k) { return data.data() + k * componentWords(); }
  const uint64_t *component(size_t k) const {
    return data.data() + k * componentWords();
  }
  size_t componentWords() const {
    return context->q().size() * context->degree();
  }
};

struct SecretKey {
  ContextPtr context;
  std::vector<int8_t> coefficients; // ternary s
  std::vector<uint64_t> nttQP;      // s over QP, NTT form
};

struct PublicKey {
  ContextPtr context;
  std::vector<uint64_t> b, a; // (-(a s + e), a) over QP, NTT form
};

/// Hybrid key switching from s' to s: for each digit j,
/// (b_j, a_j) = (-(a_j s) + e_j + P * [Q_j^*]... s', a_j) over QP in NTT form,
/// where the gadget term is (P mod q_i) * s' on the primes of digit j only.
struct KeySwitchKey {
  std::vector<std::vector<uint64_t>> b, a;
};

struct RelinKey {
  ContextPtr context;
  KeySwitchKey key; // s^2 -> s
};

struct GaloisKeys {
  ContextPtr context;
  std::map<uint64_t, KeySwitchKey> keys; // Galois element g: s(X^g) -> s
};

// Keys --------------------------------------------------------------------

SecretKey generateSecretKey(const ContextPtr &context, Prng &prng);
PublicKey generatePublicKey(const SecretKey &secret, Prng &prng);
RelinKey generateRelinKey(const SecretKey &secret, Prng &prng);
GaloisKeys generateGaloisKeys(const SecretKey &secret,
                              const std::vector<uint64_t> &galoisElements,
                              Prng &prng);

/// g = 3^steps mod 2N (steps may be negative: rotation to the right).
uint64_t galoisElementForRotation(size_t n, int64_t steps);
/// g = 2N - 1, which exchanges the two slot rows.
uint64_t galoisElementForRowSwap(size_t n);

// Encoding ---------------------------------------------------------------

/// Slots: two rows of N/2; slot (r, i) is m(zeta^e) with e = 3^i (r = 0) or
/// -3^i (r = 1) mod 2N, zeta the NTT's root mod t. `values` has at most N
/// entries in [0, t); missing slots are zero.
Plaintext encodeSlots(const ContextPtr &context, const uint64_t *values,
                      size_t count);
std::vector<uint64_t> decodeSlots(const Plaintext &plaintext);
/// The polynomial's coefficients directly (any t).
Plaintext encodeCoefficients(const ContextPtr &context, const uint64_t *values,
                             size_t count);

// Encryption ---------------------------------------------------------------

Ciphertext encryptPublic(const PublicKey &key, const Plaintext &plaintext,
                         Prng &prng);
Ciphertext encryptSymmetric(const SecretKey &key, const Plaintext &plaintext,
                            Prng &prng);
Plaintext decrypt(const SecretKey &key, const Ciphertext &ciphertext);

/// Many encryptions on `threads` threads (0: one per hardware thread): word
/// for word the ciphertexts of encrypting the plaintexts one after another
/// with `prng` (each encryption draws the same number of sampling domains,
/// so instance k takes the domains the k-th single call would have drawn),
/// and `prng` is left where that sequence leaves it. A failure names its
/// instance ("instance k: ...").
std::vector<Ciphertext>
encryptPublicBatch(const PublicKey &key,
                   const std::vector<Plaintext> &plaintexts, Prng &prng,
                   size_t threads);
std::vector<Ciphertext>
encryptSymmetricBatch(const SecretKey &key,
                      const std::vector<Plaintext> &plaintexts, Prng &prng,
                      size_t threads);
/// decrypt of each ciphertext, on `threads` threads (0: all).
std::vector<Plaintext> decryptBatch(const SecretKey &key,
                                    const std::vector<Ciphertext> &ciphertexts,
                                    size_t threads);
/// SEAL's invariant noise budget: bits(Q) - bits(||[t (c0 + c1 s + ...)]_Q||) - 1,
/// at least 0.
int noiseBudget(const SecretKey &key, const Ciphertext &ciphertext);

// Reference operations ------------------------------------------------------

Ciphertext add(const Ciphertext &a, const Ciphertext &b);
/// HPS tensoring: exact extension to Q u B, tensor product, round(t/Q) into B,
/// exact conversion back to Q. Two 2-component inputs, 3 components out.
Ciphertext multiplyHps(const Ciphertext &a, const Ciphertext &b);
/// BEHZ tensoring: SmMRq extension to Q u Bsk, tensor product, fast floor of
/// t/Q into Bsk, Shenoy-Kumaresan back to Q.
Ciphertext multiplyBehz(const Ciphertext &a, const Ciphertext &b,
                        const BehzPlan &plan);
/// Decryption with BEHZ's gamma-corrected scaling instead of HPS's.
Plaintext decryptBehz(const SecretKey &key, const Ciphertext &ciphertext,
                      const BehzPlan &plan);
Ciphertext relinearize(const Ciphertext &ciphertext, const RelinKey &key);
Ciphertext applyGalois(const Ciphertext &ciphertext, uint64_t galoisElement,
                       const GaloisKeys &keys);

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_BFV_H
