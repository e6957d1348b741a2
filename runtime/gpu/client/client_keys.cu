//===- client_keys.cu - key generation on the GPU -------------------------===//
//
// keys.cpp's steps one for one on the device: the same sampling calls in the
// same order, hence the CPU's keys for the same seed, word for word.
//
//===----------------------------------------------------------------------===//
#include "client_kernels.cuh"

#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/gpu_client.h"

namespace ringfuse::runtime::gpu {
namespace {

/// keys.cpp's generateKeySwitchKey from s' (newKey, NTT form over QP, on the
/// device) to s.
KeySwitchKey generateKeySwitchKey(GpuContext &g, const Context &context,
                                  const uint64_t *s, const uint64_t *newKey,
                                  Prng &prng) {
  const size_t n = g.n, words = g.qpSize * n;
  const cudaStream_t stream = g.stream.get();
  const size_t dnum = context.dnum();
  DeviceArray<uint64_t> digits(2 * dnum * words, stream, "a key switching key");
  for (size_t j = 0; j < dnum; ++j) {
    uint64_t *b = digits.data() + 2 * j * words, *a = b + words;
    sampleRlwePair(g, prng, s, b, a);
    auto [first, last] = context.digitRange(j);
    const size_t digitWords = (last - first) * n;
    addGadget(g, newKey, first, digitWords, b);
  }
  KeySwitchKey key;
  key.b.assign(dnum, std::vector<uint64_t>(words));
  key.a.assign(dnum, std::vector<uint64_t>(words));
  for (size_t j = 0; j < dnum; ++j) {
    digits.download(key.b[j].data(), words, "a key switching key",
                    2 * j * words);
    digits.download(key.a[j].data(), words, "a key switching key",
                    (2 * j + 1) * words);
  }
  finish(g, "key switching key generation");
  return key;
}

} // namespace

SecretKey generateSecretKey(const ContextPtr &context, Prng &prng) {
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(context);
  const cudaStream_t stream = g.stream.get();
  const size_t n = g.n, words = g.qpSize * n;
  DeviceArray<int8_t> small(n, stream, "a secret key");
  DeviceArray<uint64_t> lifted(words, stream, "a secret key");
  sampleSmall(g, prng, /*gaussian=*/false, g.qpSize, /*accumulate=*/false,
              small.data(), lifted.data());
  cuda::launchNttForward(g.qpNtt, n, lifted.data(), stream);
  SecretKey secret;
  secret.context = context;
  secret.coefficients.resize(n);
  secret.nttQP.resize(words);
  small.download(secret.coefficients.data(), n, "a secret key");
  lifted.download(secret.nttQP.data(), words, "a secret key");
  finish(g, "secret key generation");
  return secret;
}

PublicKey generatePublicKey(const SecretKey &secret, Prng &prng) {
  checkSecret(secret);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(secret.context);
  const cudaStream_t stream = g.stream.get();
  const size_t words = g.qpSize * g.n;
  DeviceArray<uint64_t> s(secret.nttQP, stream, "a secret key");
  DeviceArray<uint64_t> pair(2 * words, stream, "a public key");
  sampleRlwePair(g, prng, s.data(), pair.data(), pair.data() + words);
  PublicKey key;
  key.context = secret.context;
  key.b.resize(words);
  key.a.resize(words);
  pair.download(key.b.data(), words, "a public key");
  pair.download(key.a.data(), words, "a public key", words);
  finish(g, "public key generation");
  return key;
}

RelinKey generateRelinKey(const SecretKey &secret, Prng &prng) {
  checkSecret(secret);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(secret.context);
  const cudaStream_t stream = g.stream.get();
  const size_t words = g.qpSize * g.n;
  DeviceArray<uint64_t> s(secret.nttQP, stream, "a secret key");
  DeviceArray<uint64_t> square(words, stream, "s^2");
  multiply(g, s.data(), s.data(), words, square.data());
  return RelinKey{secret.context,
                  generateKeySwitchKey(g, *secret.context, s.data(),
                                       square.data(), prng)};
}

GaloisKeys generateGaloisKeys(const SecretKey &secret,
                              const std::vector<uint64_t> &galoisElements,
                              Prng &prng) {
  checkSecret(secret);
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(secret.context);
  const cudaStream_t stream = g.stream.get();
  const size_t n = g.n, words = g.qpSize * n;
  GaloisKeys keys{secret.context, {}};
  DeviceArray<uint64_t> s(secret.nttQP, stream, "a secret key");
  // s in coefficient form over QP: X -> X^g on residues negates past N, as
  // keys.cpp negates the ternary coefficient before lifting (the same
  // residue: q - 1, 0 or 1).
  DeviceArray<int8_t> small(secret.coefficients, stream, "a secret key");
  DeviceArray<uint64_t> sCoefficients(words, stream, "a secret key");
  liftSmall(g, small.data(), sCoefficients.data());
  DeviceArray<uint64_t> rotated(words, stream, "s(X^g)");
  for (uint64_t element : galoisElements) {
    runtime::detail::checkGaloisElement(*secret.context, element);
    if (keys.keys.count(element))
      continue;
    cuda::launchAutomorphism(g.qpModuli.data(), static_cast<int>(g.qpSize), n,
                             element, sCoefficients.data(), rotated.data(),
                             stream);
    cuda::launchNttForward(g.qpNtt, n, rotated.data(), stream);
    keys.keys.emplace(element, generateKeySwitchKey(g, *secret.context,
                                                    s.data(), rotated.data(),
                                                    prng));
  }
  finish(g, "Galois key generation");
  return keys;
}

} // namespace ringfuse::runtime::gpu
