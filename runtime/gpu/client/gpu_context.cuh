//===- gpu_context.cuh - a parameter set's tables on the GPU ---*- CUDA -*-===//
//
// What every GPU client operation (gpu_client.h) starts from: the device
// tables of the call's Context, uploaded on first use and cached until the
// Context is gone, on a stream of their own; one lock serializes the calls.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_CLIENT_GPU_CONTEXT_CUH
#define RINGFUSE_GPU_CLIENT_GPU_CONTEXT_CUH

#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/gpu/resources.cuh"

#include "ringfuse/runtime/bfv.h"

#include <mutex>
#include <string>
#include <vector>

namespace ringfuse::runtime::gpu {

using cuda::DeviceArray;
using cuda::Stream;
using cuda::check;

/// One Context's tables on the device, uploaded once. The stream is the
/// first member, so it outlives the arrays freed on it.
/// The device region and pinned staging of a parameter set's batches of
/// encryptions and decryptions (client_batches.cu), kept for the next batch
/// and grown when one needs more.
struct BatchWorkspace {
  cuda::DeviceMemory region;
  cuda::PinnedMemory staging;
  size_t regionBytes = 0, stagingBytes = 0;

  uint64_t *device() const {
    return reinterpret_cast<uint64_t *>(region.get());
  }
  uint64_t *host() const { return reinterpret_cast<uint64_t *>(staging.get()); }
  void reserve(size_t deviceBytes, size_t hostBytes) {
    if (deviceBytes > regionBytes) {
      region = cuda::DeviceMemory(); // the old one first: the new may need it
      region = cuda::DeviceMemory(deviceBytes, "a batch of encryptions");
      regionBytes = deviceBytes;
    }
    if (hostBytes > stagingBytes) {
      staging = cuda::PinnedMemory();
      staging = cuda::PinnedMemory(hostBytes, "a batch's staging");
      stagingBytes = hostBytes;
    }
  }
};

class GpuContext {
public:
  explicit GpuContext(const Context &c);

  Stream stream;
  int device = 0;
  size_t n, qSize, qpSize;
  cuda::NttPlan qpNtt{}, qNtt{}, batchingNtt{};
  cuda::ScaleRoundPlanView modDown{}, decryptScale{};
  cuda::ScaleUpPlanView scaleUp{};
  DeviceArray<Modulus> qpModuli;
  DeviceArray<uint64_t> qpValues, pModQValues;
  DeviceArray<uint32_t> slotPositions;
  BatchWorkspace batches;

private:
  cuda::NttLimb uploadTwiddles(const NttTables &tables);
  template <typename T>
  const T *keep(const std::vector<T> &values, const std::string &what);
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
                                            const std::string &name);

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
std::mutex &clientLock();

/// The device tables of `context` (caller holds clientLock()), on the
/// device they were made on, which becomes the current one.
GpuContext &gpuContextFor(const ContextPtr &context);

/// Waits for the call's work; throws what the GPU reported.
void finish(GpuContext &g, const char *operation);

/// A secret key with its parameter set and both of its forms.
void checkSecret(const SecretKey &secret);

} // namespace ringfuse::runtime::gpu

#endif // RINGFUSE_GPU_CLIENT_GPU_CONTEXT_CUH
