//===- client_batches.cu - batches of encryptions, decryptions on the GPU -===//
//
// encodeSlots + encryptPublic / encryptSymmetric, and decrypt + decodeSlots,
// for many rows at once: the single calls' steps (client_encryption.cu) with
// every kernel over a chunk of instances in one launch (grid z, instance z's
// words a region's stride after instance z - 1's: cuda::Instances). Row k
// samples from the domains the k-th of a sequence of single calls would draw,
// so the ciphertexts are those calls', word for word. The device region and
// the pinned staging of a parameter set are kept for its next batch
// (GpuContext::batches).
//
//===----------------------------------------------------------------------===//
#include "client_kernels.cuh"

#include "ringfuse/gpu/timing_events.cuh"
#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/gpu_client.h"
#include "ringfuse/runtime/parallel.h"
#include "ringfuse/runtime/prng.h"

#include <cstring>
#include <map>

namespace ringfuse::runtime::gpu {

using runtime::detail::checkCiphertext;
using runtime::detail::checkPublicKey;
using runtime::detail::checkValues;
using runtime::detail::requireBatching;

namespace {

constexpr unsigned kThreads = 256;

/// Instances a launch takes at most; fewer where a quarter of the free
/// device memory holds fewer regions.
constexpr size_t kMaxChunk = 1024;

/// Domains one encryption draws, in order: public (u, e_0, e_1), symmetric
/// (a, e); as encryptPublicOnDevice and encryptSymmetric take them.
constexpr uint64_t kPublicDomains = 3, kSymmetricDomains = 2;

// Kernels: word w of instance blockIdx.z, whose words are `stride` after the
// previous instance's; `shared` operands are one copy for all instances.

__global__ void sampleSmallInstances(ChaChaKey key, uint64_t firstDomain,
                                     uint64_t perInstance, int gaussian,
                                     const uint64_t *moduli, int limbs,
                                     size_t n, int accumulate, uint64_t *lifted,
                                     size_t stride) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const uint64_t domain = firstDomain + blockIdx.z * perInstance;
  const uint32_t index = static_cast<uint32_t>(j);
  const int8_t value =
      static_cast<int8_t>(gaussian ? sampleGaussian(key, domain, index)
                                   : sampleTernary(key, domain, index));
  lifted += size_t(blockIdx.z) * stride;
  for (int i = 0; i < limbs; ++i) {
    const uint64_t q = moduli[i];
    const uint64_t residue = liftSigned(value, q);
    uint64_t &word = lifted[size_t(i) * n + j];
    word = accumulate ? addMod(word, residue, q) : residue;
  }
}

__global__ void sampleUniformInstances(ChaChaKey key, uint64_t firstDomain,
                                       uint64_t perInstance,
                                       const uint64_t *moduli, size_t n,
                                       size_t words, uint64_t *out,
                                       size_t stride) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  out[size_t(blockIdx.z) * stride + w] =
      sampleUniformModulo(key, firstDomain + blockIdx.z * perInstance,
                          static_cast<uint32_t>(w), moduli[w / n]);
}

/// out = a * shared, or with `negate` -(a * shared) (multiplyNegate's).
__global__ void multiplySharedInstances(const uint64_t *a,
                                        const uint64_t *shared,
                                        const Modulus *moduli, size_t n,
                                        size_t words, int negate, uint64_t *out,
                                        size_t stride) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const size_t at = size_t(blockIdx.z) * stride + w;
  const Modulus m = moduli[w / n];
  const uint64_t product = mulMod(a[at], shared[w], m);
  out[at] = negate ? negateMod(product, m.value) : product;
}

/// acc += a.
__global__ void addInstances(const uint64_t *a, const Modulus *moduli, size_t n,
                             size_t words, uint64_t *acc, size_t stride) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const size_t at = size_t(blockIdx.z) * stride + w;
  acc[at] = addMod(acc[at], a[at], moduli[w / n].value);
}

/// encodeSlots' placement: every coefficient cleared, slot s at
/// positions[s] (the positions are a permutation of the coefficients).
__global__ void placeSlotsInstances(const uint64_t *values, size_t count,
                                    const uint32_t *positions, size_t n,
                                    uint64_t *out, size_t stride) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  const size_t at = size_t(blockIdx.z) * stride;
  out[at + positions[s]] = s < count ? values[at + s] : 0;
}

/// decodeSlots' reading: slot s from positions[s].
__global__ void gatherSlotsInstances(const uint64_t *evaluations,
                                     const uint32_t *positions, size_t n,
                                     uint64_t *slots, size_t stride) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  const size_t at = size_t(blockIdx.z) * stride;
  slots[at + s] = evaluations[at + positions[s]];
}

/// A kernel above over `words` threads of each of `instances` instances.
template <typename Kernel, typename... Args>
void launchInstances(GpuContext &g, Kernel kernel, const char *name,
                     size_t words, unsigned instances, Args... args) {
  kernel<<<dim3(static_cast<unsigned>((words + kThreads - 1) / kThreads), 1,
                instances),
           kThreads, 0, g.stream.get()>>>(args...);
  cuda::checkLaunch(name);
}

/// Rows a chunk takes: what a quarter of the free device memory holds.
size_t chunkFor(size_t rows, size_t instanceWords, const BatchWorkspace &kept) {
  const size_t free = cuda::availableDeviceBytes();
  const size_t fits =
      (free + kept.regionBytes) / 4 / (instanceWords * sizeof(uint64_t));
  if (fits == 0)
    throw OutOfDeviceMemory(
        "not enough GPU memory: one instance of a batched encryption needs " +
        cuda::mebibytes(instanceWords * sizeof(uint64_t)) + " and " +
        cuda::mebibytes(free) + " are free");
  return std::min({rows, kMaxChunk, fits});
}

/// The instances' words are apart by an even count of words (16 bytes: the
/// tiled kernels' alignment).
size_t evenWords(size_t words) { return (words + 1) / 2 * 2; }

/// encodeSlots and encryptPublic / encryptSymmetric of every row.
std::vector<Ciphertext> encryptRows(const ContextPtr &owner,
                                    const PublicKey *publicKey,
                                    const SecretKey *secretKey,
                                    const uint64_t *values, size_t rows,
                                    size_t width, Prng &prng) {
  const Context &context = *owner;
  requireBatching(context);
  const size_t n = context.degree();
  parallelFor(rows, workersFor(rows, 0), "row", [&](size_t, size_t r) {
    checkValues(context, values + r * width, width, n, "slots");
  });
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(owner);
  const size_t qWords = g.qSize * n, qpWords = g.qpSize * n;
  // One instance: [slots n | m n | u qp | components 2 qp | scaled q | ct 2q].
  const size_t slotsAt = 0, mAt = n, uAt = 2 * n, componentsAt = uAt + qpWords,
               scaledAt = componentsAt + 2 * qpWords, ctAt = scaledAt + qWords;
  const size_t stride = evenWords(ctAt + 2 * qWords);
  const cudaStream_t stream = g.stream.get();
  const uint64_t perInstance = publicKey ? kPublicDomains : kSymmetricDomains;
  // The shared operand: the public key's (b, a), or s over QP (NTT form).
  DeviceArray<uint64_t> shared(publicKey ? 2 * qpWords : qpWords, stream,
                               "a key");
  if (publicKey) {
    shared.upload(publicKey->b.data(), qpWords, "a public key");
    shared.upload(publicKey->a.data(), qpWords, "a public key", qpWords);
  } else {
    shared.upload(secretKey->nttQP.data(), qpWords, "a secret key");
  }
  BatchWorkspace &work = g.batches;
  const size_t chunk = chunkFor(rows, stride, work);
  // Staging: the chunk's slot values (n a row), then its ciphertexts.
  work.reserve(chunk * stride * sizeof(uint64_t),
               chunk * (n + 2 * qWords) * sizeof(uint64_t));
  const NttShape shape = defaultNttShape(log2Exact(n));
  const auto *qpModuli = static_cast<const Modulus *>(g.qpModuli.data());
  std::vector<Ciphertext> ciphertexts(rows);
  for (size_t first = 0; first < rows; first += chunk) {
    const unsigned count = static_cast<unsigned>(std::min(chunk, rows - first));
    const cuda::Instances instances{count, stride};
    uint64_t *base = work.device(), *staged = work.host();
    uint64_t *stagedCts = staged + chunk * n;
    parallelFor(count, workersFor(count, 0), "row", [&](size_t, size_t i) {
      std::memcpy(staged + i * n, values + (first + i) * width,
                  width * sizeof(uint64_t));
    });
    check(cudaMemcpy2DAsync(base + slotsAt, stride * sizeof(uint64_t), staged,
                            n * sizeof(uint64_t), width * sizeof(uint64_t),
                            count, cudaMemcpyHostToDevice, stream),
          "copying a batch's slot values to the GPU");
    const uint64_t firstDomain = prng.peekDomain() + first * perInstance;
    // encodeSlots.
    launchInstances(g, placeSlotsInstances, "placeSlotsInstances", n, count,
                    static_cast<const uint64_t *>(base + slotsAt), width,
                    static_cast<const uint32_t *>(g.slotPositions.data()), n,
                    base + mAt, stride);
    cuda::launchNttInverse(g.batchingNtt, n, shape, base + mAt, stream,
                           instances);
    uint64_t *c0 = base + componentsAt, *c1 = c0 + qpWords;
    if (publicKey) {
      // encryptPublicOnDevice: u, c_k = INTT(key_k u) + e_k.
      launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n, count,
                      prng.key(), firstDomain, perInstance, 0,
                      static_cast<const uint64_t *>(g.qpValues.data()),
                      static_cast<int>(g.qpSize), n, 0, base + uAt, stride);
      cuda::launchNttForward(g.qpNtt, n, shape, base + uAt, stream,
                             static_cast<const uint64_t *>(nullptr), instances);
      for (size_t k = 0; k < 2; ++k) {
        uint64_t *component = c0 + k * qpWords;
        launchInstances(
            g, multiplySharedInstances, "multiplySharedInstances", qpWords,
            count, static_cast<const uint64_t *>(base + uAt),
            static_cast<const uint64_t *>(shared.data() + k * qpWords),
            qpModuli, n, qpWords, 0, component, stride);
        cuda::launchNttInverse(g.qpNtt, n, shape, component, stream, instances);
        launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n,
                        count, prng.key(), firstDomain + 1 + k, perInstance, 1,
                        static_cast<const uint64_t *>(g.qpValues.data()),
                        static_cast<int>(g.qpSize), n, 1, component, stride);
      }
    } else {
      // encryptSymmetric: c1 = a, c0 = -(a s), both back, c0 += e.
      launchInstances(g, sampleUniformInstances, "sampleUniformInstances",
                      qpWords, count, prng.key(), firstDomain, perInstance,
                      static_cast<const uint64_t *>(g.qpValues.data()), n,
                      qpWords, c1, stride);
      launchInstances(g, multiplySharedInstances, "multiplySharedInstances",
                      qpWords, count, static_cast<const uint64_t *>(c1),
                      static_cast<const uint64_t *>(shared.data()), qpModuli, n,
                      qpWords, 1, c0, stride);
      cuda::launchNttInverse(g.qpNtt, n, shape, c0, stream, instances);
      cuda::launchNttInverse(g.qpNtt, n, shape, c1, stream, instances);
      launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n, count,
                      prng.key(), firstDomain + 1, perInstance, 1,
                      static_cast<const uint64_t *>(g.qpValues.data()),
                      static_cast<int>(g.qpSize), n, 1, c0, stride);
    }
    // modDownAndAddPlaintext.
    uint64_t *ct = base + ctAt;
    for (size_t k = 0; k < 2; ++k)
      cuda::launchScaleRound(g.modDown, n, c0 + k * qpWords, ct + k * qWords,
                             stream, nullptr, instances);
    cuda::launchScaleUp(g.scaleUp, n, base + mAt, base + scaledAt, stream,
                        instances);
    launchInstances(g, addInstances, "addInstances", qWords, count,
                    static_cast<const uint64_t *>(base + scaledAt), qpModuli, n,
                    qWords, ct, stride);
    check(cudaMemcpy2DAsync(stagedCts, 2 * qWords * sizeof(uint64_t), ct,
                            stride * sizeof(uint64_t),
                            2 * qWords * sizeof(uint64_t), count,
                            cudaMemcpyDeviceToHost, stream),
          "copying a batch's ciphertexts from the GPU");
    finish(g, "a batch of encryptions");
    parallelFor(count, workersFor(count, 0), "row", [&](size_t, size_t i) {
      const uint64_t *words = stagedCts + i * 2 * qWords;
      ciphertexts[first + i] = Ciphertext{
          owner, 2, std::vector<uint64_t>(words, words + 2 * qWords)};
    });
  }
  prng.skip(rows * perInstance);
  return ciphertexts;
}

} // namespace

std::vector<Ciphertext> encryptPublicSlotsBatch(const PublicKey &key,
                                                const uint64_t *values,
                                                size_t rows, size_t width,
                                                Prng &prng) {
  if (!key.context)
    throw Error("public key has no parameter set");
  checkPublicKey(*key.context, key);
  return encryptRows(key.context, &key, nullptr, values, rows, width, prng);
}

std::vector<Ciphertext> encryptSymmetricSlotsBatch(const SecretKey &key,
                                                   const uint64_t *values,
                                                   size_t rows, size_t width,
                                                   Prng &prng) {
  checkSecret(key);
  return encryptRows(key.context, nullptr, &key, values, rows, width, prng);
}

std::vector<uint64_t>
decryptSlotsBatch(const SecretKey &key,
                  const std::vector<const Ciphertext *> &ciphertexts) {
  checkSecret(key);
  const ContextPtr &owner = key.context;
  const Context &context = *owner;
  requireBatching(context);
  const size_t rows = ciphertexts.size(), n = context.degree();
  parallelFor(rows, workersFor(rows, 0), "ciphertext", [&](size_t, size_t r) {
    if (!ciphertexts[r])
      throw Error("a null ciphertext");
    checkCiphertext(context, *ciphertexts[r]);
    if (ciphertexts[r]->size != 2)
      throw Error("a batch decrypts 2-component ciphertexts; this one has " +
                  std::to_string(ciphertexts[r]->size) + " (relinearize it)");
  });
  std::vector<uint64_t> slots(rows * n);
  if (rows == 0)
    return slots;
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(owner);
  const size_t qWords = g.qSize * n;
  // One instance: [c 2q | sum q | m n | slots n].
  const size_t cAt = 0, sumAt = 2 * qWords, mAt = sumAt + qWords,
               slotsAt = mAt + n;
  const size_t stride = evenWords(slotsAt + n);
  const cudaStream_t stream = g.stream.get();
  DeviceArray<uint64_t> s(key.nttQP.data(), qWords, stream, "a secret key");
  BatchWorkspace &work = g.batches;
  const size_t chunk = chunkFor(rows, stride, work);
  work.reserve(chunk * stride * sizeof(uint64_t),
               chunk * (2 * qWords + n) * sizeof(uint64_t));
  const NttShape shape = defaultNttShape(log2Exact(n));
  const auto *qpModuli = static_cast<const Modulus *>(g.qpModuli.data());
  for (size_t first = 0; first < rows; first += chunk) {
    const unsigned count = static_cast<unsigned>(std::min(chunk, rows - first));
    const cuda::Instances instances{count, stride};
    uint64_t *base = work.device(), *staged = work.host();
    uint64_t *stagedSlots = staged + chunk * 2 * qWords;
    parallelFor(count, workersFor(count, 0), "row", [&](size_t, size_t i) {
      std::memcpy(staged + i * 2 * qWords, ciphertexts[first + i]->data.data(),
                  2 * qWords * sizeof(uint64_t));
    });
    check(cudaMemcpy2DAsync(base + cAt, stride * sizeof(uint64_t), staged,
                            2 * qWords * sizeof(uint64_t),
                            2 * qWords * sizeof(uint64_t), count,
                            cudaMemcpyHostToDevice, stream),
          "copying a batch's ciphertexts to the GPU");
    // decryptOnDevice for two components: INTT(NTT(c_1) s) + c_0, scaled.
    uint64_t *c1 = base + cAt + qWords, *sum = base + sumAt;
    cuda::launchNttForward(g.qNtt, n, shape, c1, stream,
                           static_cast<const uint64_t *>(nullptr), instances);
    launchInstances(g, multiplySharedInstances, "multiplySharedInstances",
                    qWords, count, static_cast<const uint64_t *>(c1),
                    static_cast<const uint64_t *>(s.data()), qpModuli, n,
                    qWords, 0, sum, stride);
    cuda::launchNttInverse(g.qNtt, n, shape, sum, stream, instances);
    launchInstances(g, addInstances, "addInstances", qWords, count,
                    static_cast<const uint64_t *>(base + cAt), qpModuli, n,
                    qWords, sum, stride);
    cuda::launchScaleRound(g.decryptScale, n, sum, base + mAt, stream, nullptr,
                           instances);
    // decodeSlots.
    cuda::launchNttForward(g.batchingNtt, n, shape, base + mAt, stream,
                           static_cast<const uint64_t *>(nullptr), instances);
    launchInstances(g, gatherSlotsInstances, "gatherSlotsInstances", n, count,
                    static_cast<const uint64_t *>(base + mAt),
                    static_cast<const uint32_t *>(g.slotPositions.data()), n,
                    base + slotsAt, stride);
    check(cudaMemcpy2DAsync(stagedSlots, n * sizeof(uint64_t), base + slotsAt,
                            stride * sizeof(uint64_t), n * sizeof(uint64_t),
                            count, cudaMemcpyDeviceToHost, stream),
          "copying a batch's slots from the GPU");
    finish(g, "a batch of decryptions");
    std::memcpy(slots.data() + first * n, stagedSlots,
                count * n * sizeof(uint64_t));
  }
  return slots;
}

} // namespace ringfuse::runtime::gpu
