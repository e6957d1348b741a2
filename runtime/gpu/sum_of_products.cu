//===- sum_of_products.cu - sums of products on the GPU -------------------===//
//
// sum_of_products (kernel_catalog.def): one thread per word of the basis,
// each output's word by the word rule the CPU driver uses too
// (sum_of_products.h), so the words are the same, bit for bit. The factors'
// pointers and the products' indices are kernel parameters, the same for
// every thread of a warp at each step: uniform reads, while the words
// themselves are read coalesced.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/gpu/resources.cuh"

namespace ringfuse::runtime::cuda {
namespace {

constexpr unsigned kThreads = 256;

/// Word w of every output. A thread reads the factors' words at w and the
/// output's (accumulating) before writing it; no output overlaps a factor
/// or another output (the driver's check), so no thread sees another's
/// writes.
__global__ void sumOfProductsKernel(SumOfProducts sums, size_t n,
                                    size_t stride) {
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= size_t(sums.limbs) * n)
    return;
  // The instance's words: an offset on the word, the factors' pointers shared.
  const size_t at = size_t(blockIdx.z) * stride;
  const Modulus q = sums.moduli[w / n];
  for (int k = 0; k < sums.outputCount; ++k) {
    uint64_t *out = sums.outputs[k] + at;
    out[w] = sumOfProductsWord(sums.factors, sums.first, sums.second,
                               sums.firstProduct[k], sums.firstProduct[k + 1],
                               at + w, sums.accumulate ? out[w] : 0, q);
  }
}

} // namespace

void launchSumOfProducts(const SumOfProducts &sums, size_t n,
                         cudaStream_t stream, Instances instances) {
  const size_t words = size_t(sums.limbs) * n;
  const dim3 blocks(static_cast<unsigned>((words + kThreads - 1) / kThreads), 1,
                    instances.count);
  sumOfProductsKernel<<<blocks, kThreads, 0, stream>>>(sums, n,
                                                       instances.stride);
  checkLaunch("sumOfProductsKernel");
}

} // namespace ringfuse::runtime::cuda
