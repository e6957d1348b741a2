//===- client_encryption.cuh - encryption and decryption on the GPU -*- CUDA -*-===//
//
// The device work of one encryption or decryption, apart from its
// transfers, so that client_timing.cu can capture and replay it.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_CLIENT_CLIENT_ENCRYPTION_CUH
#define RINGFUSE_GPU_CLIENT_CLIENT_ENCRYPTION_CUH

#include "gpu_context.cuh"

namespace ringfuse::runtime::gpu {

/// The device memory of one public-key encryption: the key (b then a, NTT
/// form over QP) and the plaintext uploaded, working buffers allocated, all
/// on g's stream.
struct PublicEncryptionBuffers {
  PublicEncryptionBuffers(GpuContext &g, const PublicKey &key,
                          const Plaintext &plaintext)
      : keyParts(2 * g.qpSize * g.n, g.stream.get(), "a public key"),
        m(plaintext.coefficients, g.stream.get(), "a plaintext"),
        u(g.qpSize * g.n, g.stream.get(), "the encryption mask u"),
        components(2 * g.qpSize * g.n, g.stream.get(), "an encryption"),
        scaled(g.qSize * g.n, g.stream.get(), "a scaled plaintext"),
        ct(2 * g.qSize * g.n, g.stream.get(), "a ciphertext") {
    const size_t qpWords = g.qpSize * g.n;
    keyParts.upload(key.b.data(), qpWords, "a public key");
    keyParts.upload(key.a.data(), qpWords, "a public key", qpWords);
  }
  DeviceArray<uint64_t> keyParts, m, u, components, scaled, ct;
};

/// The device work of one public-key encryption into b.ct: u (ternary), then
/// c_k = INTT(key_k * u) + e_k over QP (k = 0: b, 1: a), divided by P, plus
/// round(Q m / t) on c_0. Three fresh domains from prng, in the CPU's order
/// (u, e_0, e_1). Launches only: no transfer, no allocation.
void encryptPublicOnDevice(GpuContext &g, Prng &prng,
                           PublicEncryptionBuffers &b);

/// The device memory of one decryption: the ciphertext (twice: `pristine`
/// as uploaded, `work` transformed in place), s over Q, s^k, the sum and
/// the plaintext.
struct DecryptionBuffers {
  DecryptionBuffers(GpuContext &g, const SecretKey &key, const Ciphertext &ct,
                    bool keepPristine)
      : size(ct.size),
        work(ct.data, g.stream.get(), "a ciphertext"),
        s(key.nttQP.data(), g.qSize * g.n, g.stream.get(), "a secret key"),
        power(g.qSize * g.n, g.stream.get(), "a secret key"),
        sum(g.qSize * g.n, g.stream.get(), "a decryption"),
        m(g.n, g.stream.get(), "a plaintext") {
    if (keepPristine)
      pristine = DeviceArray<uint64_t>(ct.data, g.stream.get(), "a ciphertext");
  }
  size_t size;
  DeviceArray<uint64_t> work, s, power, sum, m, pristine;
};

/// Before a decryption on b: work and power as decryptOnDevice expects them
/// (the ciphertext as uploaded, s). Device-to-device copies.
void resetDecryption(GpuContext &g, DecryptionBuffers &b);

/// The device work of one decryption into b.m (after resetDecryption):
/// encryption.cpp's innerProductWithKey (sum_{k>=1} c_k s^k in NTT form over
/// Q, back to coefficients, plus c_0), then HPS simple scaling round(t x / Q)
/// mod t (Context::decryptionScaling). Transforms b.work's components k >= 1
/// and b.power in place. Launches and a memset only: no transfer, no
/// allocation.
void decryptOnDevice(GpuContext &g, DecryptionBuffers &b);

} // namespace ringfuse::runtime::gpu

#endif // RINGFUSE_GPU_CLIENT_CLIENT_ENCRYPTION_CUH
