//===- gpu_context.cu - a parameter set's tables on the GPU ---------------===//
#include "gpu_context.cuh"

#include "ringfuse/runtime/error.h"

#include <map>
#include <memory>

namespace ringfuse::runtime::gpu {
namespace {

std::vector<int> limbRange(size_t first, size_t last) {
  std::vector<int> limbs;
  for (size_t i = first; i < last; ++i)
    limbs.push_back(static_cast<int>(i));
  return limbs;
}

} // namespace

GpuContext::GpuContext(const Context &c)
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


cuda::NttLimb GpuContext::uploadTwiddles(const NttTables &tables) {
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
const T *GpuContext::keep(const std::vector<T> &values, const std::string &what) {
  DeviceArray<T> array(values, stream.get(), what);
  const T *data = array.data();
  keep(std::move(array));
  return data;
}

cuda::ScaleRoundPlanView GpuContext::uploadScaleRound(const ScaleRoundPlan &plan,
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


std::mutex &clientLock() {
  static std::mutex *lock = new std::mutex;
  return *lock;
}

namespace {
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
} // namespace

GpuContext &gpuContextFor(const ContextPtr &context) {
  if (!context)
    throw Error("GPU client: the object has no parameter set");
  if (!cuda::deviceVisible())
    throw Error("the GPU client operations need a CUDA device, and none is "
                "visible (cudaGetDeviceCount found none, or failed)");
  cuda::processUsesGpu() = true;
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

void finish(GpuContext &g, const char *operation) {
  check(cudaStreamSynchronize(g.stream.get()),
        std::string("running ") + operation);
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

bool available() { return cuda::deviceVisible(); }

} // namespace ringfuse::runtime::gpu
