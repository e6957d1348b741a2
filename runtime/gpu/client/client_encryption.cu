//===- client_encryption.cu - encoding, encryption, decryption on the GPU -===//
//
// encoding.cpp's and encryption.cpp's steps one for one on the device: the
// same sampling calls in the same order, the driver's NTT and
// scale-and-round kernels, hence the CPU's words for the same seed.
//
//===----------------------------------------------------------------------===//
#include "client_encryption.cuh"
#include "client_kernels.cuh"

#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/gpu_client.h"

namespace ringfuse::runtime::gpu {

using runtime::detail::checkCiphertext;
using runtime::detail::checkPlaintext;
using runtime::detail::checkPublicKey;
using runtime::detail::checkValues;
using runtime::detail::requireBatching;

namespace {

/// encryption.cpp's modDownToQ and addScaledPlaintext on the device:
/// components (two polynomials over QP in coefficient form, back to back)
/// divided by P into ct (2 qWords), plus round(Q m / t) on c_0; m (N words)
/// is on the device, scaled (qWords) is working memory. Launches only.
void modDownAndAddPlaintext(GpuContext &g, const uint64_t *components,
                            const uint64_t *m, uint64_t *scaled,
                            uint64_t *ct) {
  const size_t n = g.n, qWords = g.qSize * n, qpWords = g.qpSize * n;
  const cudaStream_t stream = g.stream.get();
  for (size_t k = 0; k < 2; ++k)
    cuda::launchScaleRound(g.modDown, n, components + k * qpWords,
                           ct + k * qWords, stream);
  cuda::launchScaleUp(g.scaleUp, n, m, scaled, stream);
  add(g, scaled, qWords, ct);
}

/// modDownAndAddPlaintext with the plaintext from the host, the ciphertext
/// downloaded, and the call's work waited for.
Ciphertext finishEncryption(GpuContext &g, const ContextPtr &owner,
                            const DeviceArray<uint64_t> &components,
                            const Plaintext &plaintext) {
  const size_t qWords = g.qSize * g.n;
  const cudaStream_t stream = g.stream.get();
  DeviceArray<uint64_t> ct(2 * qWords, stream, "a ciphertext");
  DeviceArray<uint64_t> m(plaintext.coefficients, stream, "a plaintext");
  DeviceArray<uint64_t> scaled(qWords, stream, "a scaled plaintext");
  modDownAndAddPlaintext(g, components.data(), m.data(), scaled.data(),
                         ct.data());
  Ciphertext result{owner, 2, std::vector<uint64_t>(2 * qWords)};
  ct.download(result.data.data(), 2 * qWords, "a ciphertext");
  finish(g, "encryption");
  return result;
}

} // namespace

/// The device work of one public-key encryption into b.ct: u (ternary), then
/// c_k = INTT(key_k * u) + e_k over QP (k = 0: b, 1: a), divided by P, plus
/// round(Q m / t) on c_0. Three fresh domains from prng, in the CPU's order
/// (u, e_0, e_1). Launches only: no transfer, no allocation.
void encryptPublicOnDevice(GpuContext &g, Prng &prng,
                           PublicEncryptionBuffers &b) {
  const size_t n = g.n, qpWords = g.qpSize * n;
  const cudaStream_t stream = g.stream.get();
  sampleSmall(g, prng, /*gaussian=*/false, g.qpSize, /*accumulate=*/false,
              nullptr, b.u.data());
  cuda::launchNttForward(g.qpNtt, n, b.u.data(), stream);
  for (size_t k = 0; k < 2; ++k) {
    uint64_t *component = b.components.data() + k * qpWords;
    multiply(g, b.keyParts.data() + k * qpWords, b.u.data(), qpWords,
             component);
    cuda::launchNttInverse(g.qpNtt, n, component, stream);
    sampleSmall(g, prng, /*gaussian=*/true, g.qpSize, /*accumulate=*/true,
                nullptr, component);
  }
  modDownAndAddPlaintext(g, b.components.data(), b.m.data(), b.scaled.data(),
                         b.ct.data());
}

/// Before a decryption on b: work and power as decryptOnDevice expects them
/// (the ciphertext as uploaded, s). Device-to-device copies.
void resetDecryption(GpuContext &g, DecryptionBuffers &b) {
  const size_t words = g.qSize * g.n;
  const cudaStream_t stream = g.stream.get();
  check(cudaMemcpyAsync(b.power.data(), b.s.data(), words * sizeof(uint64_t),
                        cudaMemcpyDeviceToDevice, stream),
        "copying a secret key");
  if (b.pristine.data())
    check(cudaMemcpyAsync(b.work.data(), b.pristine.data(),
                          b.size * words * sizeof(uint64_t),
                          cudaMemcpyDeviceToDevice, stream),
          "copying a ciphertext");
}

/// The device work of one decryption into b.m (after resetDecryption):
/// encryption.cpp's innerProductWithKey (sum_{k>=1} c_k s^k in NTT form over
/// Q, back to coefficients, plus c_0), then HPS simple scaling round(t x / Q)
/// mod t (Context::decryptionScaling). Transforms b.work's components k >= 1
/// and b.power in place. Launches and a memset only: no transfer, no
/// allocation.
void decryptOnDevice(GpuContext &g, DecryptionBuffers &b) {
  const size_t n = g.n, words = g.qSize * n;
  const cudaStream_t stream = g.stream.get();
  b.sum.zero("a decryption");
  for (size_t k = 1; k < b.size; ++k) {
    uint64_t *term = b.work.data() + k * words;
    cuda::launchNttForward(g.qNtt, n, term, stream);
    multiplyAccumulate(g, term, b.power.data(), words, b.sum.data());
    if (k + 1 < b.size)
      multiply(g, b.power.data(), b.s.data(), words, b.power.data());
  }
  cuda::launchNttInverse(g.qNtt, n, b.sum.data(), stream);
  add(g, b.work.data(), words, b.sum.data());
  cuda::launchScaleRound(g.decryptScale, n, b.sum.data(), b.m.data(), stream);
}

Plaintext encodeSlots(const ContextPtr &context, const uint64_t *values,
                      size_t count) {
  if (!context)
    throw Error("encodeSlots: no parameter set");
  requireBatching(*context);
  const size_t n = context->degree();
  checkValues(*context, values, count, n, "slots");
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(context);
  const cudaStream_t stream = g.stream.get();
  DeviceArray<uint64_t> slots(values, count, stream, "slot values");
  DeviceArray<uint64_t> coefficients(n, stream, "a plaintext");
  coefficients.zero("a plaintext");
  scatterSlots(g, slots.data(), count, coefficients.data());
  cuda::launchNttInverse(g.batchingNtt, n, coefficients.data(), stream);
  Plaintext plaintext{context, std::vector<uint64_t>(n)};
  coefficients.download(plaintext.coefficients.data(), n, "a plaintext");
  finish(g, "slot encoding");
  return plaintext;
}

std::vector<uint64_t> decodeSlots(const Plaintext &plaintext) {
  if (!plaintext.context)
    throw Error("decodeSlots: the plaintext has no parameter set");
  const Context &context = *plaintext.context;
  requireBatching(context);
  const size_t n = context.degree();
  if (plaintext.coefficients.size() != n)
    throw Error("plaintext has " + std::to_string(plaintext.coefficients.size()) +
                " coefficients, expected N = " + std::to_string(n));
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(plaintext.context);
  const cudaStream_t stream = g.stream.get();
  DeviceArray<uint64_t> evaluations(plaintext.coefficients, stream,
                                    "a plaintext");
  cuda::launchNttForward(g.batchingNtt, n, evaluations.data(), stream);
  DeviceArray<uint64_t> slots(n, stream, "slot values");
  gatherSlots(g, evaluations.data(), slots.data());
  std::vector<uint64_t> result(n);
  slots.download(result.data(), n, "slot values");
  finish(g, "slot decoding");
  return result;
}

// Encryption ----------------------------------------------------------------------

Ciphertext encryptPublic(const PublicKey &key, const Plaintext &plaintext,
                         Prng &prng) {
  if (!key.context)
    throw Error("public key has no parameter set");
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  checkPublicKey(context, key);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(key.context);
  PublicEncryptionBuffers buffers(g, key, plaintext);
  encryptPublicOnDevice(g, prng, buffers);
  const size_t qWords = g.qSize * g.n;
  Ciphertext result{key.context, 2, std::vector<uint64_t>(2 * qWords)};
  buffers.ct.download(result.data.data(), 2 * qWords, "a ciphertext");
  finish(g, "encryption");
  return result;
}

Ciphertext encryptSymmetric(const SecretKey &key, const Plaintext &plaintext,
                            Prng &prng) {
  checkSecret(key);
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(key.context);
  const cudaStream_t stream = g.stream.get();
  const size_t n = g.n, qpWords = g.qpSize * n;

  DeviceArray<uint64_t> s(key.nttQP, stream, "a secret key");
  DeviceArray<uint64_t> components(2 * qpWords, stream, "an encryption");
  uint64_t *c0 = components.data(), *c1 = c0 + qpWords;
  // c1 = a (uniform, NTT form), c0 = -(a s); both to coefficient form; c0 += e.
  sampleUniformQP(g, prng, c1);
  multiplyNegate(g, c1, s.data(), qpWords, c0);
  cuda::launchNttInverse(g.qpNtt, n, c0, stream);
  cuda::launchNttInverse(g.qpNtt, n, c1, stream);
  sampleSmall(g, prng, /*gaussian=*/true, g.qpSize, /*accumulate=*/true,
              nullptr, c0);
  return finishEncryption(g, key.context, components, plaintext);
}

Plaintext decrypt(const SecretKey &key, const Ciphertext &ct) {
  checkSecret(key);
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(key.context);
  DecryptionBuffers buffers(g, key, ct, /*keepPristine=*/false);
  resetDecryption(g, buffers);
  decryptOnDevice(g, buffers);
  Plaintext plaintext{key.context, std::vector<uint64_t>(g.n)};
  buffers.m.download(plaintext.coefficients.data(), g.n, "a plaintext");
  finish(g, "decryption");
  return plaintext;
}

} // namespace ringfuse::runtime::gpu
