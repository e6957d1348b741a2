//===- key_switch.cu - key switching's inner product on the GPU ===//
//
// The sums of digits times key words over Q_l P, in the evaluation domain,
// one thread per word, exactly as the CPU driver sums them (the fused
// variant, which takes the sums in the NTT's last step, is ntt_fused.cu's).
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/gpu/resources.cuh"

namespace ringfuse::runtime::cuda {
namespace {

constexpr unsigned kThreads = 256;

__global__ void keySwitchKernel(KeySwitchPlan plan, uint64_t *out0,
                                uint64_t *out1, size_t n, size_t stride) {
  const KeySwitchKeyView &key = plan.key;
  const size_t words = size_t(key.limbs) * n;
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  // The instance's digits, addend and outputs (the key is shared).
  const size_t at = size_t(blockIdx.z) * stride;
  const int keyLimb = key.keyLimb(int(w / n));
  const size_t keyWord = size_t(keyLimb) * n + w % n;
  const Modulus m = key.moduli[keyLimb];
  uint128_t sum0 = 0, sum1 = 0;
  for (int first = 0; first < plan.digits; first += kKeySwitchDigitsPerSum) {
    const int last = ::min(plan.digits, first + kKeySwitchDigitsPerSum);
#pragma unroll 4
    for (int j = first; j < last; ++j) {
      const uint64_t d = plan.digitData[j][at + w];
      const uint64_t *b = key.key + size_t(2 * j) * key.componentWords;
      const uint64_t *a = b + key.componentWords;
      sum0 += static_cast<uint128_t>(d) * b[keyWord];
      sum1 += static_cast<uint128_t>(d) * a[keyWord];
    }
    sum0 = reduce128Quick(sum0, m);
    sum1 = reduce128Quick(sum1, m);
  }
  const RfKeySwitchAddend &addend = plan.addend;
  if (int(w / n) < addend.limbs) {
    const uint64_t scale = addend.scales[at + w / n];
    sum0 = addScaled(sum0, addend.addend0[at + w], scale, m);
    sum1 = addScaled(sum1, addend.addend1[at + w], scale, m);
  }
  out0[at + w] = static_cast<uint64_t>(sum0);
  out1[at + w] = static_cast<uint64_t>(sum1);
}

} // namespace

void launchKeySwitchInnerProduct(const KeySwitchPlan &plan, size_t n,
                                 uint64_t *out0, uint64_t *out1,
                                 cudaStream_t stream, Instances instances) {
  const size_t words = size_t(plan.key.limbs) * n;
  const dim3 grid(static_cast<unsigned>((words + kThreads - 1) / kThreads), 1,
                  instances.count);
  keySwitchKernel<<<grid, kThreads, 0, stream>>>(plan, out0, out1, n,
                                                 instances.stride);
  checkLaunch("keySwitchKernel");
}

} // namespace ringfuse::runtime::cuda
