//===- gpu_client.h - keys, encoding, encryption, decryption on a GPU -*- C++ -*-===//
//
// The client operations of bfv.h, computed on the current CUDA device: the
// same signatures, the same host structs in and out, and the same words.
// Sampling runs one thread per coefficient on prng.h's RF_HOST_DEVICE
// samplers, each sampling call taking its domain from the Prng in the order
// the CPU reference (runtime/core/keys.cpp, encryption.cpp) takes it, so one
// seed gives the same keys and ciphertexts on either side, bit for bit.
// NTTs, base conversions and scale-and-round reuse the CUDA driver's kernels
// (runtime/gpu, ringfuse/gpu/kernels.cuh).
//
// Each Context's device tables (twiddles of QP and of the batching NTT mod t,
// the plans of modDownByP, decryptionScaling and the plaintext scaling, the
// slot positions) are uploaded on first use and kept until the Context is
// gone. Calls are serialized by one lock; each waits for its GPU work before
// returning, and a CUDA failure is an Error naming the step.
//
// No CUDA types here: plain C++ includes this header. In a runtime built
// without the CUDA driver, available() is false and every other function
// throws Error("... built without CUDA ...").
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_GPU_CLIENT_H
#define RINGFUSE_RUNTIME_GPU_CLIENT_H

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"

#include <cstdint>
#include <vector>

namespace ringfuse::runtime::gpu {

#ifdef RINGFUSE_HAVE_CUDA

/// True iff the runtime has its CUDA driver and a CUDA device is visible.
bool available();

SecretKey generateSecretKey(const ContextPtr &context, Prng &prng);
PublicKey generatePublicKey(const SecretKey &secret, Prng &prng);
RelinKey generateRelinKey(const SecretKey &secret, Prng &prng);
GaloisKeys generateGaloisKeys(const SecretKey &secret,
                              const std::vector<uint64_t> &galoisElements,
                              Prng &prng);

Plaintext encodeSlots(const ContextPtr &context, const uint64_t *values,
                      size_t count);
std::vector<uint64_t> decodeSlots(const Plaintext &plaintext);

Ciphertext encryptPublic(const PublicKey &key, const Plaintext &plaintext,
                         Prng &prng);
Ciphertext encryptSymmetric(const SecretKey &key, const Plaintext &plaintext,
                            Prng &prng);
Plaintext decrypt(const SecretKey &key, const Ciphertext &ciphertext);

/// Batches: encodeSlots then encryptPublic (encryptSymmetric) of each of
/// `rows` rows of `width` slot values (rows back to back): ciphertext k is,
/// word for word, what the k-th of a sequence of those single calls gives,
/// and `prng` ends where that sequence leaves it. Ciphertext k's words (2
/// components over Q, the Ciphertext layout) go to `out` + k * 2|Q|N: GPU
/// memory, or pinned host memory (a CiphertextBatch's). Every kernel takes
/// a chunk of rows (up to 1024, as a quarter of the free device memory
/// allows) in one launch; the next chunk's rows are staged while the GPU
/// works on the last.
void encryptPublicSlotsBatch(const PublicKey &key, const uint64_t *values,
                             size_t rows, size_t width, Prng &prng,
                             uint64_t *out);
void encryptSymmetricSlotsBatch(const SecretKey &key, const uint64_t *values,
                                size_t rows, size_t width, Prng &prng,
                                uint64_t *out);
/// decrypt then decodeSlots of `rows` 2-component ciphertexts of the key's
/// parameter set, side by side at `ciphertexts` (GPU memory or pinned host
/// memory: a CiphertextBatch's words): N slot values a ciphertext, back to
/// back, into `slots` (host memory; pinned, it is copied to without
/// staging).
void decryptSlotsBatch(const SecretKey &key, const uint64_t *ciphertexts,
                       size_t rows, uint64_t *slots);

/// Device times of encryptPublic's and decrypt's GPU work, in microseconds,
/// one per timed run. The inputs (key, plaintext / ciphertext) are uploaded
/// once and every working buffer is allocated before timing; each of the
/// `warmup` + `iterations` runs is captured into a CUDA graph of its own,
/// then the graphs are replayed back to back and each of the last
/// `iterations` is bracketed by two CUDA events on the stream (no transfer,
/// allocation or host launch latency in a timed region).
///
/// timeEncryptPublic: one encryption is sampling u, e_0, e_1 (three fresh
/// domains of `prng` per run, as a real encryption takes them), the
/// products with the key, the inverse NTTs, the division by P and adding
/// round(Q m / t). After timing, the last run's ciphertext must equal the
/// CPU reference's encryptPublic for the same domains, word for word.
///
/// timeDecrypt: one decryption is the inner product with s (forward NTTs of
/// c_1.., products), the inverse NTT, adding c_0 and the HPS scaling to the
/// plaintext polynomial (no slot decoding). The ciphertext components are
/// restored by a device-to-device copy before each run, outside the events.
/// After timing, the last run's plaintext must equal the CPU reference's
/// decrypt, word for word.
///
/// Throws Error on a CUDA failure, a failed check or iterations == 0.
std::vector<double> timeEncryptPublic(const PublicKey &key,
                                      const Plaintext &plaintext, Prng &prng,
                                      size_t warmup, size_t iterations);
std::vector<double> timeDecrypt(const SecretKey &key,
                                const Ciphertext &ciphertext, size_t warmup,
                                size_t iterations);

#else // !RINGFUSE_HAVE_CUDA

namespace detail {
[[noreturn]] inline void builtWithoutCuda() {
  throw Error("the GPU client operations are unavailable: this ringfuse "
              "runtime was built without CUDA (no nvcc at configure time, or "
              "RINGFUSE_CUDA=OFF)");
}
} // namespace detail

inline bool available() { return false; }

inline SecretKey generateSecretKey(const ContextPtr &, Prng &) {
  detail::builtWithoutCuda();
}
inline PublicKey generatePublicKey(const SecretKey &, Prng &) {
  detail::builtWithoutCuda();
}
inline RelinKey generateRelinKey(const SecretKey &, Prng &) {
  detail::builtWithoutCuda();
}
inline GaloisKeys generateGaloisKeys(const SecretKey &,
                                     const std::vector<uint64_t> &, Prng &) {
  detail::builtWithoutCuda();
}
inline Plaintext encodeSlots(const ContextPtr &, const uint64_t *, size_t) {
  detail::builtWithoutCuda();
}
inline std::vector<uint64_t> decodeSlots(const Plaintext &) {
  detail::builtWithoutCuda();
}
inline Ciphertext encryptPublic(const PublicKey &, const Plaintext &, Prng &) {
  detail::builtWithoutCuda();
}
inline Ciphertext encryptSymmetric(const SecretKey &, const Plaintext &,
                                   Prng &) {
  detail::builtWithoutCuda();
}
inline Plaintext decrypt(const SecretKey &, const Ciphertext &) {
  detail::builtWithoutCuda();
}
inline void encryptPublicSlotsBatch(const PublicKey &, const uint64_t *, size_t,
                                    size_t, Prng &, uint64_t *) {
  detail::builtWithoutCuda();
}
inline void encryptSymmetricSlotsBatch(const SecretKey &, const uint64_t *,
                                       size_t, size_t, Prng &, uint64_t *) {
  detail::builtWithoutCuda();
}
inline void decryptSlotsBatch(const SecretKey &, const uint64_t *, size_t,
                              uint64_t *) {
  detail::builtWithoutCuda();
}
inline std::vector<double> timeEncryptPublic(const PublicKey &,
                                             const Plaintext &, Prng &, size_t,
                                             size_t) {
  detail::builtWithoutCuda();
}
inline std::vector<double> timeDecrypt(const SecretKey &, const Ciphertext &,
                                       size_t, size_t) {
  detail::builtWithoutCuda();
}

#endif // RINGFUSE_HAVE_CUDA

} // namespace ringfuse::runtime::gpu

#endif // RINGFUSE_RUNTIME_GPU_CLIENT_H
