//===- client.cu - keys, encoding, encryption, decryption on a GPU --------===//
//
// gpu_client.h's operations: the CPU reference's steps (runtime/cpu/keys.cpp,
// encoding.cpp, encryption.cpp) one for one, on the device. Samplers are
// prng.h's per-coefficient functions, one thread per coefficient, each
// sampling call on the domain the host Prng hands out in the CPU's order;
// NTTs, scale-and-round and scale-up are the driver's kernels (kernels.cuh);
// the elementwise steps below use modarith.h's helpers in the CPU's operand
// order. Hence the same words as the CPU, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "../cpu/argument_checks.h"
#include "kernels.cuh"
#include "timing_events.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/gpu_client.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/program.h"

#include <cuda_runtime.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace ringfuse::runtime::gpu {

// The CPU reference's argument checks (argument_checks.h), same messages.
using runtime::detail::checkCiphertext;
using runtime::detail::checkGaloisElement;
using runtime::detail::checkIndexSpace;
using runtime::detail::checkPlaintext;
using runtime::detail::checkPublicKey;
using runtime::detail::checkValues;
using runtime::detail::requireBatching;

namespace {

constexpr unsigned kThreads = 256;

std::string describe(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" +
         cudaGetErrorString(error) + ")";
}

/// Throws if a CUDA API call failed, saying what the client was doing.
void check(cudaError_t error, const std::string &what) {
  if (error != cudaSuccess)
    throw Error("CUDA error in the GPU client while " + what + ": " +
                describe(error));
}

/// Throws if the launch just made failed.
void checkLaunch(const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    throw Error(std::string("GPU client: CUDA kernel ") + kernel +
                " failed to launch: " + describe(error));
}

dim3 gridFor(size_t threads) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads));
}

/// A stream, destroyed with its holder (pending work still completes).
class Stream {
public:
  Stream() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
          "creating a stream");
  }
  ~Stream() {
    if (stream_)
      cudaStreamDestroy(stream_);
    cudaGetLastError();
  }
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

/// `count` values of device memory, allocated and freed in the order of
/// `stream` (cudaMallocAsync / cudaFreeAsync), so that freeing one after an
/// error never races a kernel still queued on it.
template <typename T> class DeviceArray {
public:
  DeviceArray() = default;
  DeviceArray(size_t count, cudaStream_t stream, const std::string &what)
      : count_(count), stream_(stream) {
    if (count)
      check(cudaMallocAsync(reinterpret_cast<void **>(&data_),
                            count * sizeof(T), stream),
            "allocating " + what);
  }
  /// An allocation holding a copy of host[0 .. count).
  DeviceArray(const T *host, size_t count, cudaStream_t stream,
              const std::string &what)
      : DeviceArray(count, stream, what) {
    upload(host, count, what);
  }
  DeviceArray(const std::vector<T> &host, cudaStream_t stream,
              const std::string &what)
      : DeviceArray(host.data(), host.size(), stream, what) {}
  ~DeviceArray() { release(); }
  DeviceArray(DeviceArray &&other) noexcept { *this = std::move(other); }
  DeviceArray &operator=(DeviceArray &&other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  T *data() const { return data_; }
  size_t size() const { return count_; }

  /// this[offset .. offset + count) into host (queued on the stream).
  void download(T *host, size_t count, const std::string &what,
                size_t offset = 0) const {
    if (count)
      check(cudaMemcpyAsync(host, data_ + offset, count * sizeof(T),
                            cudaMemcpyDeviceToHost, stream_),
            "downloading " + what);
  }
  /// host[0 .. count) into this[offset .. offset + count) (queued on the
  /// stream).
  void upload(const T *host, size_t count, const std::string &what,
              size_t offset = 0) {
    if (count)
      check(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T),
                            cudaMemcpyHostToDevice, stream_),
            "uploading " + what);
  }
  void zero(const std::string &what) {
    if (count_)
      check(cudaMemsetAsync(data_, 0, count_ * sizeof(T), stream_),
            "clearing " + what);
  }

private:
  void release() {
    if (data_) {
      // Errors are ignored: a destructor cannot report them.
      cudaFreeAsync(data_, stream_);
      cudaGetLastError();
    }
    data_ = nullptr;
  }

  T *data_ = nullptr;
  size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
};

std::vector<int> limbRange(size_t first, size_t last) {
  std::vector<int> limbs;
  for (size_t i = first; i < last; ++i)
    limbs.push_back(static_cast<int>(i));
  return limbs;
}

/// One Context's tables on the device, uploaded once. The stream is the
/// first member, so it outlives the arrays freed on it.
class GpuContext {
public:
  explicit GpuContext(const Context &c)
      : n(c.degree()), qSize(c.q().size()), qpSize(c.qp().size()) {
    check(cudaGetDevice(&device), "reading the current CUDA device");
    const cudaStream_t s = stream.get();

    // NTT limbs of QP (Q first, so Q's plan is a prefix) and of t.
    std::vector<cuda::NttLimb> limbs;
    for (size_t i = 0; i < qpSize; ++i)
      limbs.push_back(uploadTwiddles(c.nttQP(i)));
    qpNttLimbs = DeviceArray<cuda::NttLimb>(limbs, s, "the NTT limbs of QP");
    qpNtt = {qpNttLimbs.data(), static_cast<int>(qpSize)};
    qNtt = {qpNttLimbs.data(), static_cast<int>(qSize)};
    if (c.supportsBatching()) {
      std::vector<cuda::NttLimb> batching = {
          uploadTwiddles(c.batchingTables())};
      batchingNttLimb =
          DeviceArray<cuda::NttLimb>(batching, s, "the batching NTT limb");
      batchingNtt = {batchingNttLimb.data(), 1};
      std::vector<size_t> positions = batchingSlotPositions(n);
      slotPositions = DeviceArray<uint32_t>(
          std::vector<uint32_t>(positions.begin(), positions.end()), s,
          "the slot positions");
    }

    std::vector<Modulus> qp;
    for (size_t i = 0; i < qpSize; ++i)
      qp.push_back(c.qp().modulus(i));
    qpModuli = DeviceArray<Modulus>(qp, s, "the moduli of QP");
    qpValues = DeviceArray<uint64_t>(c.qp().values(), s, "the primes of QP");
    std::vector<uint64_t> pModQ;
    for (size_t i = 0; i < qSize; ++i)
      pModQ.push_back(c.p().product().modWord(c.q().values()[i]));
    pModQValues = DeviceArray<uint64_t>(pModQ, s, "[P]_{q_i}");

    // round(x / P) from QP (P's limbs after Q's) to Q: Context::modDownByP.
    modDown =
        uploadScaleRound(c.modDownByP(), limbRange(qSize, qpSize),
                         limbRange(0, qSize), c.qp().values(), "modDownByP");
    // round(t x / Q) mod t from Q: Context::decryptionScaling (no kept
    // moduli; the kept limbs are never read).
    decryptScale = uploadScaleRound(c.decryptionScaling(), limbRange(0, qSize),
                                    limbRange(0, qSize), c.q().values(),
                                    "decryptionScaling");

    // round(Q m / t) over Q.
    deltaModQ = DeviceArray<uint64_t>(c.deltaModQ(), s, "floor(Q/t) mod q_i");
    scaleUp.limbs = static_cast<int>(qSize);
    scaleUp.t = c.plaintextModulus();
    scaleUp.qModT = c.qModT();
    scaleUp.deltaModOutput = deltaModQ.data();
    scaleUp.outputs = qpModuli.data(); // Q is QP's prefix

    check(cudaStreamSynchronize(s), "uploading a parameter set's tables");
  }

  Stream stream;
  int device = 0;
  size_t n, qSize, qpSize;
  cuda::NttPlan qpNtt{}, qNtt{}, batchingNtt{};
  cuda::ScaleRoundPlanView modDown{}, decryptScale{};
  cuda::ScaleUpPlanView scaleUp{};
  DeviceArray<Modulus> qpModuli;
  DeviceArray<uint64_t> qpValues, pModQValues;
  DeviceArray<uint32_t> slotPositions;

private:
  cuda::NttLimb uploadTwiddles(const NttTables &tables) {
    const std::string prime = std::to_string(tables.modulus().value);
    tables_.emplace_back(
        DeviceArray<ShoupConstant>(tables.rootPowers(), stream.get(),
                                   "the twiddles of " + prime));
    const ShoupConstant *roots = tables_.back().data();
    tables_.emplace_back(
        DeviceArray<ShoupConstant>(tables.inverseRootPowers(), stream.get(),
                                   "the inverse twiddles of " + prime));
    return cuda::makeNttLimb(tables.modulus().value, roots,
                             tables_.back().data(), tables.inverseDegree());
  }

  template <typename T>
  const T *keep(const std::vector<T> &values, const std::string &what) {
    DeviceArray<T> array(values, stream.get(), what);
    const T *data = array.data();
    keep(std::move(array));
    return data;
  }
  void keep(DeviceArray<int> &&array) { ints_.push_back(std::move(array)); }
  void keep(DeviceArray<uint64_t> &&array) {
    words_.push_back(std::move(array));
  }
  void keep(DeviceArray<Fraction128> &&array) {
    fractions_.push_back(std::move(array));
  }
  void keep(DeviceArray<Modulus> &&array) {
    moduli_.push_back(std::move(array));
  }

  cuda::ScaleRoundPlanView uploadScaleRound(const ScaleRoundPlan &plan,
                                            const std::vector<int> &divisor,
                                            const std::vector<int> &kept,
                                            const std::vector<uint64_t> &input,
                                            const std::string &name) {
    cuda::ScaleRoundPlanView view{};
    view.divisorSize = static_cast<int>(plan.divisorSize());
    view.outputSize = static_cast<int>(plan.outputLimbs());
    view.hasLambda = plan.lambda().empty() ? 0 : 1;
    view.divisorLimbs = keep(divisor, name);
    view.keptLimbs = keep(kept, name);
    view.theta = keep(plan.theta(), name);
    view.omega =
        keep(cuda::weightRows(plan.omega(), view.divisorSize, view.outputSize),
             name);
    view.productsPerSum = cuda::productsPerSum(
        cuda::largestModulus(input), cuda::largestModulus(plan.outputModuli()),
        cuda::roundedSumBound(plan.divisorSize(), cuda::largestModulus(input)));
    view.lambda = plan.lambda().empty() ? nullptr : keep(plan.lambda(), name);
    view.outputs = keep(plan.outputModuli(), name);
    return view;
  }

  DeviceArray<cuda::NttLimb> qpNttLimbs, batchingNttLimb;
  DeviceArray<uint64_t> deltaModQ;
  std::vector<DeviceArray<ShoupConstant>> tables_;
  std::vector<DeviceArray<int>> ints_;
  std::vector<DeviceArray<uint64_t>> words_;
  std::vector<DeviceArray<Fraction128>> fractions_;
  std::vector<DeviceArray<Modulus>> moduli_;
};

/// Every call runs under this lock (one stream per parameter set; the
/// Python bindings release the GIL around calls).
std::mutex &clientLock() {
  static std::mutex *lock = new std::mutex;
  return *lock;
}

/// The cache, never destroyed: at process exit the CUDA runtime may be gone
/// before static destructors would run.
struct CacheEntry {
  std::weak_ptr<const Context> owner;
  std::unique_ptr<GpuContext> gpu;
};
std::map<const Context *, CacheEntry> &contextCache() {
  static auto *cache = new std::map<const Context *, CacheEntry>;
  return *cache;
}

/// The device tables of `context` (caller holds clientLock()), on the
/// device they were made on, which becomes the current one.
GpuContext &gpuContextFor(const ContextPtr &context) {
  if (!context)
    throw Error("GPU client: the object has no parameter set");
  if (!cudaAvailable())
    throw Error("the GPU client operations need a CUDA device, and none is "
                "visible (cudaGetDeviceCount found none, or failed)");
  auto &cache = contextCache();
  // Entries of Contexts that are gone: their address may be reused.
  for (auto it = cache.begin(); it != cache.end();)
    it = it->second.owner.expired() ? cache.erase(it) : std::next(it);
  auto found = cache.find(context.get());
  if (found == cache.end()) {
    auto gpu = std::make_unique<GpuContext>(*context);
    found = cache.emplace(context.get(), CacheEntry{context, std::move(gpu)})
                .first;
  }
  GpuContext &g = *found->second.gpu;
  check(cudaSetDevice(g.device), "selecting the CUDA device");
  return g;
}

/// Waits for the call's work; throws what the GPU reported.
void finish(GpuContext &g, const char *operation) {
  check(cudaStreamSynchronize(g.stream.get()),
        std::string("running ") + operation);
}

// Kernels ----------------------------------------------------------------------

/// prng.cpp's sampleUniformPolynomial for word w = limb * n + j.
__global__ void sampleUniformKernel(ChaChaKey key, uint64_t domain,
                                    const uint64_t *moduli, size_t n,
                                    size_t words, uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  out[w] = sampleUniformModulo(key, domain, static_cast<uint32_t>(w),
                               moduli[w / n]);
}

/// prng.cpp's sampleTernaryPolynomial / sampleGaussianPolynomial for
/// coefficient j, then poly.cpp's liftSmall to every limb: stored, or with
/// `accumulate` added (addInPlace) to what is there. `small`, if not null,
/// receives the signed coefficient.
__global__ void sampleSmallKernel(ChaChaKey key, uint64_t domain, int gaussian,
                                  const uint64_t *moduli, int limbs, size_t n,
                                  int accumulate, int8_t *small,
                                  uint64_t *lifted) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const uint32_t index = static_cast<uint32_t>(j);
  const int8_t value = static_cast<int8_t>(
      gaussian ? sampleGaussian(key, domain, index)
               : sampleTernary(key, domain, index));
  if (small)
    small[j] = value;
  for (int i = 0; i < limbs; ++i) {
    const uint64_t q = moduli[i];
    const uint64_t residue = liftSigned(value, q);
    uint64_t &word = lifted[size_t(i) * n + j];
    word = accumulate ? addMod(word, residue, q) : residue;
  }
}

/// poly.cpp's liftSmall for coefficient j.
__global__ void liftSmallKernel(const int8_t *small, const uint64_t *moduli,
                                int limbs, size_t n, uint64_t *out) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  for (int i = 0; i < limbs; ++i)
    out[size_t(i) * n + j] = liftSigned(small[j], moduli[i]);
}

/// out = a * b (multiplyPointwise); out may alias a or b.
__global__ void multiplyKernel(const uint64_t *a, const uint64_t *b,
                               const Modulus *moduli, size_t n, size_t words,
                               uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  out[w] = mulMod(a[w], b[w], moduli[w / n]);
}

/// out = -(a * b) (multiplyPointwise, then negateInPlace).
__global__ void multiplyNegateKernel(const uint64_t *a, const uint64_t *b,
                                     const Modulus *moduli, size_t n,
                                     size_t words, uint64_t *out) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  out[w] = negateMod(mulMod(a[w], b[w], m), m.value);
}

/// acc += a * b (multiplyAccumulate).
__global__ void multiplyAccumulateKernel(const uint64_t *a, const uint64_t *b,
                                         const Modulus *moduli, size_t n,
                                         size_t words, uint64_t *acc) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  acc[w] = addMod(acc[w], mulMod(a[w], b[w], m), m.value);
}

/// b += -(a s): the end of keys.cpp's sampleRlwePair (b holds e).
__global__ void subtractProductKernel(const uint64_t *a, const uint64_t *s,
                                      const Modulus *moduli, size_t n,
                                      size_t words, uint64_t *b) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const Modulus m = moduli[w / n];
  b[w] = addMod(b[w], negateMod(mulMod(a[w], s[w], m), m.value), m.value);
}

/// acc += a (addInPlace).
__global__ void addKernel(const uint64_t *a, const Modulus *moduli, size_t n,
                          size_t words, uint64_t *acc) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  acc[w] = addMod(acc[w], a[w], moduli[w / n].value);
}

/// keys.cpp's gadget term of one digit: b += (P mod q_i) * s' on the limbs
/// [first, first + words / n).
__global__ void addGadgetKernel(const uint64_t *newKey, const uint64_t *pModQ,
                                const Modulus *moduli, size_t first, size_t n,
                                size_t words, uint64_t *b) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const size_t limb = first + w / n, at = first * n + w;
  const Modulus q = moduli[limb];
  b[at] = addMod(b[at], mulMod(pModQ[limb], newKey[at], q), q.value);
}

/// encodeSlots' placement: slot s at positions[s] (out cleared before).
__global__ void scatterSlotsKernel(const uint64_t *values, size_t count,
                                   const uint32_t *positions, uint64_t *out) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= count)
    return;
  out[positions[s]] = values[s];
}

/// decodeSlots' reading: slot s from positions[s].
__global__ void gatherSlotsKernel(const uint64_t *evaluations,
                                  const uint32_t *positions, size_t n,
                                  uint64_t *slots) {
  const size_t s = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n)
    return;
  slots[s] = evaluations[positions[s]];
}

// Launch helpers ---------------------------------------------------------------

/// The elementwise kernels above over `words` words of limbs of n.
template <typename Kernel, typename... Args>
void launchWords(Kernel kernel, const char *name, size_t words,
                 cudaStream_t stream, Args... args) {
  if (words == 0)
    return;
  kernel<<<gridFor(words), kThreads, 0, stream>>>(args...);
  checkLaunch(name);
}

/// A uniform polynomial over QP, sampled in NTT form, into out.
void sampleUniformQP(GpuContext &g, Prng &prng, uint64_t *out) {
  checkIndexSpace(g.qpSize, g.n, "sampleUniformPolynomial");
  const uint64_t domain = prng.nextDomain();
  const size_t words = g.qpSize * g.n;
  launchWords(sampleUniformKernel, "sampleUniformKernel", words,
              g.stream.get(), prng.key(), domain,
              static_cast<const uint64_t *>(g.qpValues.data()), g.n, words,
              out);
}

/// A small polynomial (ternary or Gaussian) of one fresh domain, lifted to
/// the first `limbs` primes of QP (stored, or added with `accumulate`).
void sampleSmall(GpuContext &g, Prng &prng, bool gaussian, size_t limbs,
                 bool accumulate, int8_t *small, uint64_t *lifted) {
  checkIndexSpace(1, g.n,
                  gaussian ? "sampleGaussianPolynomial"
                           : "sampleTernaryPolynomial");
  const uint64_t domain = prng.nextDomain();
  launchWords(sampleSmallKernel, "sampleSmallKernel", g.n, g.stream.get(),
              prng.key(), domain, gaussian ? 1 : 0,
              static_cast<const uint64_t *>(g.qpValues.data()),
              static_cast<int>(limbs), g.n, accumulate ? 1 : 0, small,
              lifted);
}

/// keys.cpp's sampleRlwePair: (-(a s) + e, a) over QP in NTT form, with s
/// (NTT form over QP) on the device.
void sampleRlwePair(GpuContext &g, Prng &prng, const uint64_t *s, uint64_t *b,
                    uint64_t *a) {
  const size_t words = g.qpSize * g.n;
  sampleUniformQP(g, prng, a);
  sampleSmall(g, prng, /*gaussian=*/true, g.qpSize, /*accumulate=*/false,
              nullptr, b);
  cuda::launchNttForward(g.qpNtt, g.n, b, g.stream.get());
  launchWords(subtractProductKernel, "subtractProductKernel", words,
              g.stream.get(), static_cast<const uint64_t *>(a), s,
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words, b);
}

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
    launchWords(addGadgetKernel, "addGadgetKernel", digitWords, stream,
                newKey, static_cast<const uint64_t *>(g.pModQValues.data()),
                static_cast<const Modulus *>(g.qpModuli.data()), first, n,
                digitWords, b);
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

void checkSecret(const SecretKey &secret) {
  if (!secret.context)
    throw Error("secret key has no parameter set");
  const Context &c = *secret.context;
  const size_t words = c.qp().size() * c.degree();
  if (secret.nttQP.size() != words || secret.coefficients.size() != c.degree())
    throw Error("malformed secret key: " + std::to_string(secret.nttQP.size()) +
                " NTT words and " + std::to_string(secret.coefficients.size()) +
                " coefficients, expected " + std::to_string(words) + " and " +
                std::to_string(c.degree()));
}

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
  launchWords(addKernel, "addKernel", qWords, stream,
              static_cast<const uint64_t *>(scaled),
              static_cast<const Modulus *>(g.qpModuli.data()), n, qWords, ct);
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
                           PublicEncryptionBuffers &b) {
  const size_t n = g.n, qpWords = g.qpSize * n;
  const cudaStream_t stream = g.stream.get();
  const Modulus *moduli = g.qpModuli.data();
  sampleSmall(g, prng, /*gaussian=*/false, g.qpSize, /*accumulate=*/false,
              nullptr, b.u.data());
  cuda::launchNttForward(g.qpNtt, n, b.u.data(), stream);
  for (size_t k = 0; k < 2; ++k) {
    uint64_t *component = b.components.data() + k * qpWords;
    launchWords(multiplyKernel, "multiplyKernel", qpWords, stream,
                static_cast<const uint64_t *>(b.keyParts.data() + k * qpWords),
                static_cast<const uint64_t *>(b.u.data()), moduli, n, qpWords,
                component);
    cuda::launchNttInverse(g.qpNtt, n, component, stream);
    sampleSmall(g, prng, /*gaussian=*/true, g.qpSize, /*accumulate=*/true,
                nullptr, component);
  }
  modDownAndAddPlaintext(g, b.components.data(), b.m.data(), b.scaled.data(),
                         b.ct.data());
}

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
  const Modulus *moduli = g.qpModuli.data();
  b.sum.zero("a decryption");
  for (size_t k = 1; k < b.size; ++k) {
    uint64_t *term = b.work.data() + k * words;
    cuda::launchNttForward(g.qNtt, n, term, stream);
    launchWords(multiplyAccumulateKernel, "multiplyAccumulateKernel", words,
                stream, static_cast<const uint64_t *>(term),
                static_cast<const uint64_t *>(b.power.data()), moduli, n,
                words, b.sum.data());
    if (k + 1 < b.size)
      launchWords(multiplyKernel, "multiplyKernel", words, stream,
                  static_cast<const uint64_t *>(b.power.data()),
                  static_cast<const uint64_t *>(b.s.data()), moduli, n, words,
                  b.power.data());
  }
  cuda::launchNttInverse(g.qNtt, n, b.sum.data(), stream);
  launchWords(addKernel, "addKernel", words, stream,
              static_cast<const uint64_t *>(b.work.data()), moduli, n, words,
              b.sum.data());
  cuda::launchScaleRound(g.decryptScale, n, b.sum.data(), b.m.data(), stream);
}

/// An instantiated CUDA graph, destroyed with its holder.
class GraphExec {
public:
  explicit GraphExec(cudaGraphExec_t exec) : exec_(exec) {}
  ~GraphExec() {
    if (exec_)
      cudaGraphExecDestroy(exec_);
    cudaGetLastError();
  }
  GraphExec(GraphExec &&other) noexcept
      : exec_(std::exchange(other.exec_, nullptr)) {}
  GraphExec(const GraphExec &) = delete;
  GraphExec &operator=(const GraphExec &) = delete;
  GraphExec &operator=(GraphExec &&) = delete;
  cudaGraphExec_t get() const { return exec_; }

private:
  cudaGraphExec_t exec_ = nullptr;
};

/// What `body` queues on g's stream, captured into an instantiated graph.
template <typename Body>
GraphExec captureGraph(GpuContext &g, const char *operation, Body &body) {
  const cudaStream_t stream = g.stream.get();
  cudaGetLastError(); // nothing stale may be blamed on a captured launch
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
        std::string("starting the capture of ") + operation);
  try {
    body();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial)
      cudaGraphDestroy(partial);
    cudaGetLastError();
    throw;
  }
  cudaGraph_t graph = nullptr;
  check(cudaStreamEndCapture(stream, &graph),
        std::string("ending the capture of ") + operation);
  if (!graph)
    throw Error(std::string("GPU client: capturing ") + operation +
                " gave no graph");
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  check(instantiated, std::string("instantiating the graph of ") + operation);
  return GraphExec(exec);
}

/// Times the device work of `body` (launches on g's stream only). Each of
/// the warmup + iterations runs is captured into a graph of its own first
/// (body may differ per run: fresh sampling domains); then the graphs are
/// replayed in order, `before` (device-to-device resets, not timed) ahead of
/// each, and each timed replay bracketed by two CUDA events on the stream.
/// All queued back to back, then one wait: the events see the GPU's work,
/// not the host's launch latency. Each timed replay's microseconds.
template <typename Before, typename Body>
std::vector<double> timeOnStream(GpuContext &g, size_t warmup,
                                 size_t iterations, const char *operation,
                                 Before before, Body body) {
  if (iterations == 0)
    throw Error(std::string("timing ") + operation +
                ": iterations must be at least 1");
  const cudaStream_t stream = g.stream.get();
  finish(g, (std::string("uploading the inputs of ") + operation).c_str());
  std::vector<GraphExec> graphs;
  graphs.reserve(warmup + iterations);
  for (size_t i = 0; i < warmup + iterations; ++i)
    graphs.push_back(captureGraph(g, operation, body));
  cuda::TimingEvents events(iterations);
  for (size_t i = 0; i < warmup + iterations; ++i) {
    before();
    const bool timed = i >= warmup;
    if (timed)
      events.recordStart(i - warmup, stream);
    check(cudaGraphLaunch(graphs[i].get(), stream),
          std::string("launching the graph of ") + operation);
    if (timed)
      events.recordStop(i - warmup, stream);
  }
  finish(g, (std::string("timed runs of ") + operation).c_str());
  return events.microseconds();
}

} // namespace

bool available() { return cudaAvailable(); }

// Keys --------------------------------------------------------------------------

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
  launchWords(multiplyKernel, "multiplyKernel", words, stream,
              static_cast<const uint64_t *>(s.data()),
              static_cast<const uint64_t *>(s.data()),
              static_cast<const Modulus *>(g.qpModuli.data()), g.n, words,
              square.data());
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
  launchWords(liftSmallKernel, "liftSmallKernel", n, stream,
              static_cast<const int8_t *>(small.data()),
              static_cast<const uint64_t *>(g.qpValues.data()),
              static_cast<int>(g.qpSize), n, sCoefficients.data());
  DeviceArray<uint64_t> rotated(words, stream, "s(X^g)");
  for (uint64_t element : galoisElements) {
    checkGaloisElement(*secret.context, element);
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

// Encoding ------------------------------------------------------------------------

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
  launchWords(scatterSlotsKernel, "scatterSlotsKernel", count, stream,
              static_cast<const uint64_t *>(slots.data()), count,
              static_cast<const uint32_t *>(g.slotPositions.data()),
              coefficients.data());
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
  launchWords(gatherSlotsKernel, "gatherSlotsKernel", n, stream,
              static_cast<const uint64_t *>(evaluations.data()),
              static_cast<const uint32_t *>(g.slotPositions.data()), n,
              slots.data());
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
  const Modulus *moduli = g.qpModuli.data();

  DeviceArray<uint64_t> s(key.nttQP, stream, "a secret key");
  DeviceArray<uint64_t> components(2 * qpWords, stream, "an encryption");
  uint64_t *c0 = components.data(), *c1 = c0 + qpWords;
  // c1 = a (uniform, NTT form), c0 = -(a s); both to coefficient form; c0 += e.
  sampleUniformQP(g, prng, c1);
  launchWords(multiplyNegateKernel, "multiplyNegateKernel", qpWords, stream,
              static_cast<const uint64_t *>(c1),
              static_cast<const uint64_t *>(s.data()), moduli, n, qpWords, c0);
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

// Timing --------------------------------------------------------------------------

std::vector<double> timeEncryptPublic(const PublicKey &key,
                                      const Plaintext &plaintext, Prng &prng,
                                      size_t warmup, size_t iterations) {
  if (!key.context)
    throw Error("public key has no parameter set");
  const Context &context = *key.context;
  checkPlaintext(context, plaintext);
  checkPublicKey(context, key);
  std::vector<double> microseconds;
  std::vector<uint64_t> last;
  Prng lastPrng = prng; // the Prng as the last run starts (set below)
  {
    std::lock_guard<std::mutex> guard(clientLock());
    GpuContext &g = gpuContextFor(key.context);
    PublicEncryptionBuffers buffers(g, key, plaintext);
    size_t run = 0;
    microseconds = timeOnStream(
        g, warmup, iterations, "public-key encryption", [] {}, [&] {
          if (++run == warmup + iterations)
            lastPrng = prng;
          encryptPublicOnDevice(g, prng, buffers);
        });
    const size_t qWords = g.qSize * g.n;
    last.resize(2 * qWords);
    buffers.ct.download(last.data(), 2 * qWords, "a ciphertext");
    finish(g, "downloading the last timed encryption");
  }
  // The last timed run must have computed the CPU reference's ciphertext
  // for the same domains, word for word.
  if (ringfuse::runtime::encryptPublic(key, plaintext, lastPrng).data != last)
    throw Error("timeEncryptPublic: the last timed encryption differs from "
                "the CPU reference's ciphertext");
  return microseconds;
}

std::vector<double> timeDecrypt(const SecretKey &key, const Ciphertext &ct,
                                size_t warmup, size_t iterations) {
  checkSecret(key);
  const Context &context = *key.context;
  checkCiphertext(context, ct);
  std::vector<double> microseconds;
  std::vector<uint64_t> last;
  {
    std::lock_guard<std::mutex> guard(clientLock());
    GpuContext &g = gpuContextFor(key.context);
    DecryptionBuffers buffers(g, key, ct, /*keepPristine=*/true);
    microseconds = timeOnStream(
        g, warmup, iterations, "decryption",
        [&] { resetDecryption(g, buffers); },
        [&] { decryptOnDevice(g, buffers); });
    last.resize(g.n);
    buffers.m.download(last.data(), g.n, "a plaintext");
    finish(g, "downloading the last timed decryption");
  }
  // The last timed run must have computed what the CPU reference computes.
  if (ringfuse::runtime::decrypt(key, ct).coefficients != last)
    throw Error("timeDecrypt: the last timed decryption differs from the CPU "
                "reference's plaintext");
  return microseconds;
}

} // namespace ringfuse::runtime::gpu
