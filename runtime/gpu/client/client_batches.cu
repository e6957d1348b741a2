//===- client_batches.cu - batches of encryptions, decryptions on the GPU -===//
//
// encodeSlots + encryptPublic / encryptSymmetric, and decrypt + decodeSlots,
// for many rows at once: the single calls' steps (client_encryption.cu) with
// every kernel over a chunk of instances in one launch (grid z, instance z's
// words a region's stride after instance z - 1's: cuda::Instances). Row k
// samples from the domains the k-th of a sequence of single calls would draw,
// so the ciphertexts are those calls', word for word. Ciphertexts come from
// and go to a CiphertextBatch's words (GPU or pinned host memory) with one
// 2-D copy a chunk. The device region and the pinned staging of a parameter
// set are kept for its next batch (GpuContext::batches); the staging's two
// halves let the host fill one chunk's rows while the GPU works on the last.
// Decrypted slots go straight to their destination (pinned, where the caller
// made it so).
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
/// positions[s] (the positions are a permutation of the coefficients), from
/// rows of `width` values back to back.
__global__ void placeSlotsInstances(const uint64_t *values, size_t width,
                                    const uint32_t *positions, size_t n,
                                    uint64_t *out, size_t stride) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  out[size_t(blockIdx.z) * stride + positions[s]] =
      s < width ? values[size_t(blockIdx.z) * width + s] : 0;
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

/// A batch's rows on their way to the GPU, chunk c through half c % 2 of a
/// pinned staging and of a device buffer: while the host fills one pinned
/// half, a copy stream moves the last chunk's rows to the device and the
/// compute stream encrypts the chunk before, so the rows' copies overlap the
/// kernels instead of waiting on the compute stream.
class RowsInFlight {
public:
  RowsInFlight(uint64_t *pinned, size_t halfWords, cudaStream_t compute)
      : pinned_(pinned), halfWords_(halfWords), compute_(compute),
        device_{DeviceArray<uint64_t>(std::max<size_t>(halfWords, 1), compute,
                                      "a batch's rows"),
                DeviceArray<uint64_t>(std::max<size_t>(halfWords, 1), compute,
                                      "a batch's rows")} {
    // The buffers exist for the copy stream too.
    check(cudaStreamSynchronize(compute), "allocating a batch's rows");
  }

  /// Pinned half of chunk c, once the copy of chunk c - 2 out of it is done.
  uint64_t *fill(size_t c) {
    check(cudaEventSynchronize(copied_[c % 2].get()),
          "waiting for a batch's staging");
    return pinned_ + (c % 2) * halfWords_;
  }
  /// Chunk c's `words` words to the device, once the kernels have read
  /// chunk c - 2's there; the compute stream waits for them. Returns where.
  const uint64_t *send(size_t c, size_t words) {
    const size_t h = c % 2;
    check(cudaStreamWaitEvent(copy_.get(), consumed_[h].get(), 0),
          "ordering a batch's rows");
    if (words > 0)
      check(cudaMemcpyAsync(device_[h].data(), pinned_ + h * halfWords_,
                            words * sizeof(uint64_t), cudaMemcpyHostToDevice,
                            copy_.get()),
            "copying a batch's slot values to the GPU");
    check(cudaEventRecord(copied_[h].get(), copy_.get()),
          "recording a batch's rows");
    check(cudaStreamWaitEvent(compute_, copied_[h].get(), 0),
          "ordering a batch's rows");
    return device_[h].data();
  }
  /// The kernels queued so far have read chunk c's rows.
  void consumed(size_t c) {
    check(cudaEventRecord(consumed_[c % 2].get(), compute_),
          "recording a batch's rows");
  }

private:
  uint64_t *pinned_;
  size_t halfWords_;
  cudaStream_t compute_;
  cuda::Stream copy_;
  DeviceArray<uint64_t> device_[2];
  cuda::Event copied_[2], consumed_[2];
};

/// encodeSlots and encryptPublic / encryptSymmetric of every row, into
/// `out` (a ciphertext of 2|Q|N words a row).
void encryptRows(const ContextPtr &owner, const PublicKey *publicKey,
                 const SecretKey *secretKey, const uint64_t *values,
                 size_t rows, size_t width, Prng &prng, uint64_t *out) {
  const Context &context = *owner;
  requireBatching(context);
  const size_t n = context.degree();
  if (width > n)
    throw Error(std::to_string(width) +
                " slot values a row do not fit: there "
                "are " +
                std::to_string(n));
  if (rows == 0)
    return;
  std::lock_guard<std::mutex> guard(clientLock());
  GpuContext &g = gpuContextFor(owner);
  const size_t qWords = g.qSize * n, qpWords = g.qpSize * n;
  // One instance: [m n | u qp | components 2 qp | scaled q | ct 2q].
  const size_t mAt = 0, uAt = n, componentsAt = uAt + qpWords,
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
  // Staging: two halves of a chunk's slot values (`width` a row).
  work.reserve(chunk * stride * sizeof(uint64_t),
               2 * chunk * std::max<size_t>(width, 1) * sizeof(uint64_t));
  RowsInFlight rowsIn(work.host(), chunk * width, stream);
  const NttShape shape = defaultNttShape(log2Exact(n));
  const auto *qpModuli = static_cast<const Modulus *>(g.qpModuli.data());
  try {
    for (size_t first = 0, c = 0; first < rows; first += chunk, ++c) {
      const unsigned count =
          static_cast<unsigned>(std::min(chunk, rows - first));
      const cuda::Instances instances{count, stride};
      uint64_t *base = work.device();
      // Each row checked as it is staged, on all cores, while the GPU works
      // on the chunks before.
      uint64_t *staged = rowsIn.fill(c);
      parallelFor(
          count, workersFor(count / 64 + 1, 0), "row",
          [&](size_t, size_t i) {
            const uint64_t *row = values + (first + i) * width;
            checkValues(context, row, width, n, "slots");
            std::memcpy(staged + i * width, row, width * sizeof(uint64_t));
          },
          first);
      const uint64_t *rowsOnDevice = rowsIn.send(c, count * width);
      const uint64_t firstDomain = prng.peekDomain() + first * perInstance;
      // encodeSlots.
      launchInstances(g, placeSlotsInstances, "placeSlotsInstances", n, count,
                      rowsOnDevice, width,
                      static_cast<const uint32_t *>(g.slotPositions.data()), n,
                      base + mAt, stride);
      rowsIn.consumed(c);
      cuda::launchNttInverse(g.batchingNtt, n, shape, base + mAt, stream,
                             instances);
      uint64_t *c0 = base + componentsAt, *c1 = c0 + qpWords;
      if (publicKey) {
        // encryptPublicOnDevice: u, c_k = INTT(key_k u) + e_k.
        launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n,
                        count, prng.key(), firstDomain, perInstance, 0,
                        static_cast<const uint64_t *>(g.qpValues.data()),
                        static_cast<int>(g.qpSize), n, 0, base + uAt, stride);
        cuda::launchNttForward(g.qpNtt, n, shape, base + uAt, stream,
                               static_cast<const uint64_t *>(nullptr),
                               instances);
        for (size_t k = 0; k < 2; ++k) {
          uint64_t *component = c0 + k * qpWords;
          launchInstances(
              g, multiplySharedInstances, "multiplySharedInstances", qpWords,
              count, static_cast<const uint64_t *>(base + uAt),
              static_cast<const uint64_t *>(shared.data() + k * qpWords),
              qpModuli, n, qpWords, 0, component, stride);
          cuda::launchNttInverse(g.qpNtt, n, shape, component, stream,
                                 instances);
          launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n,
                          count, prng.key(), firstDomain + 1 + k, perInstance,
                          1, static_cast<const uint64_t *>(g.qpValues.data()),
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
                        static_cast<const uint64_t *>(shared.data()), qpModuli,
                        n, qpWords, 1, c0, stride);
        cuda::launchNttInverse(g.qpNtt, n, shape, c0, stream, instances);
        cuda::launchNttInverse(g.qpNtt, n, shape, c1, stream, instances);
        launchInstances(g, sampleSmallInstances, "sampleSmallInstances", n,
                        count, prng.key(), firstDomain + 1, perInstance, 1,
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
                      static_cast<const uint64_t *>(base + scaledAt), qpModuli,
                      n, qWords, ct, stride);
      check(cudaMemcpy2DAsync(
                out + first * 2 * qWords, 2 * qWords * sizeof(uint64_t), ct,
                stride * sizeof(uint64_t), 2 * qWords * sizeof(uint64_t), count,
                cudaMemcpyDefault, stream),
            "copying a batch's ciphertexts into their batch");
    }
  } catch (...) {
    // A bad row stops the batch; nothing queued may outlive its buffers.
    cudaStreamSynchronize(stream);
    throw;
  }
  finish(g, "a batch of encryptions");
  prng.skip(rows * perInstance);
}

} // namespace

void encryptPublicSlotsBatch(const PublicKey &key, const uint64_t *values,
                             size_t rows, size_t width, Prng &prng,
                             uint64_t *out) {
  if (!key.context)
    throw Error("public key has no parameter set");
  checkPublicKey(*key.context, key);
  encryptRows(key.context, &key, nullptr, values, rows, width, prng, out);
}

void encryptSymmetricSlotsBatch(const SecretKey &key, const uint64_t *values,
                                size_t rows, size_t width, Prng &prng,
                                uint64_t *out) {
  checkSecret(key);
  encryptRows(key.context, nullptr, &key, values, rows, width, prng, out);
}

void decryptSlotsBatch(const SecretKey &key, const uint64_t *ciphertexts,
                       size_t rows, uint64_t *slots) {
  checkSecret(key);
  const ContextPtr &owner = key.context;
  const Context &context = *owner;
  requireBatching(context);
  const size_t n = context.degree();
  if (rows == 0)
    return;
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
  work.reserve(chunk * stride * sizeof(uint64_t), 0);
  const NttShape shape = defaultNttShape(log2Exact(n));
  const auto *qpModuli = static_cast<const Modulus *>(g.qpModuli.data());
  try {
    for (size_t first = 0; first < rows; first += chunk) {
      const unsigned count =
          static_cast<unsigned>(std::min(chunk, rows - first));
      const cuda::Instances instances{count, stride};
      uint64_t *base = work.device();
      check(cudaMemcpy2DAsync(base + cAt, stride * sizeof(uint64_t),
                              ciphertexts + first * 2 * qWords,
                              2 * qWords * sizeof(uint64_t),
                              2 * qWords * sizeof(uint64_t), count,
                              cudaMemcpyDefault, stream),
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
      cuda::launchScaleRound(g.decryptScale, n, sum, base + mAt, stream,
                             nullptr, instances);
      // decodeSlots.
      cuda::launchNttForward(g.batchingNtt, n, shape, base + mAt, stream,
                             static_cast<const uint64_t *>(nullptr), instances);
      launchInstances(g, gatherSlotsInstances, "gatherSlotsInstances", n, count,
                      static_cast<const uint64_t *>(base + mAt),
                      static_cast<const uint32_t *>(g.slotPositions.data()), n,
                      base + slotsAt, stride);
      check(cudaMemcpy2DAsync(slots + first * n, n * sizeof(uint64_t),
                              base + slotsAt, stride * sizeof(uint64_t),
                              n * sizeof(uint64_t), count, cudaMemcpyDefault,
                              stream),
            "copying a batch's slots from the GPU");
    }
  } catch (...) {
    // Nothing queued may still write into `slots` once the caller frees it.
    cudaStreamSynchronize(stream);
    throw;
  }
  finish(g, "a batch of decryptions");
}

} // namespace ringfuse::runtime::gpu
