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

template <typename Word>
__global__ void keySwitchKernel(KeySwitchPlanOf<Word> plan, Word *out0,
                                Word *out1, size_t n, size_t stride) {
  const KeySwitchKeyViewOf<Word> &key = plan.key;
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
      const Word d = plan.digitData[j][at + w];
      const Word *b = key.key + size_t(2 * j) * key.componentWords;
      const Word *a = b + key.componentWords;
      sum0 += wideProduct(d, b[keyWord]);
      sum1 += wideProduct(d, a[keyWord]);
    }
    sum0 = reduce128Quick(sum0, m);
    sum1 = reduce128Quick(sum1, m);
  }
  const KeySwitchAddendOf<Word> &addend = plan.addend;
  if (int(w / n) < addend.limbs) {
    const uint64_t scale = addend.scales[at + w / n];
    sum0 = addScaled(sum0, addend.addend0[at + w], scale, m);
    sum1 = addScaled(sum1, addend.addend1[at + w], scale, m);
  }
  out0[at + w] = static_cast<Word>(sum0);
  out1[at + w] = static_cast<Word>(sum1);
}

} // namespace

template <typename Word>
void launchKeySwitchInnerProduct(const KeySwitchPlanOf<Word> &plan, size_t n,
                                 Word *out0, Word *out1, cudaStream_t stream,
                                 Instances instances) {
  const size_t words = size_t(plan.key.limbs) * n;
  const dim3 grid(static_cast<unsigned>((words + kThreads - 1) / kThreads), 1,
                  instances.count);
  keySwitchKernel<Word>
      <<<grid, kThreads, 0, stream>>>(plan, out0, out1, n, instances.stride);
  checkLaunch("keySwitchKernel");
}

template void launchKeySwitchInnerProduct(const KeySwitchPlanOf<uint64_t> &,
                                          size_t, uint64_t *, uint64_t *,
                                          cudaStream_t, Instances);
template void launchKeySwitchInnerProduct(const KeySwitchPlanOf<uint32_t> &,
                                          size_t, uint32_t *, uint32_t *,
                                          cudaStream_t, Instances);

} // namespace ringfuse::runtime::cuda
