//===- cuda_copies.cu - a run's copies within the GPU, in one launch ------===//
//
// A run's copies of words within the GPU (its constants restored, inputs
// already in GPU memory, outputs kept there) go as one kernel, not a copy
// call each: each call cost the host a few microseconds and the GPU a step
// of its own, one after another.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

namespace ringfuse::runtime::detail {
namespace {

/// Copies one launch takes (its parameters stay within 4 KiB).
constexpr size_t kCopiesPerLaunch = 64;

struct CopyTable {
  const uint64_t *from[kCopiesPerLaunch];
  uint64_t *to[kCopiesPerLaunch];
  size_t words[kCopiesPerLaunch], total[kCopiesPerLaunch];
};

/// Copy blockIdx.y of instance blockIdx.z (its target `stride` words after
/// the last instance's; the source is shared): `words` words, then zeros up
/// to `total`.
__global__ void copyWordsKernel(CopyTable table, size_t stride) {
  const unsigned c = blockIdx.y;
  uint64_t *to = table.to[c] + size_t(blockIdx.z) * stride;
  const uint64_t *from = table.from[c];
  const size_t words = table.words[c], total = table.total[c];
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += size_t(gridDim.x) * blockDim.x)
    to[i] = i < words ? from[i] : 0;
}

} // namespace

void CudaDriver::copyWithin(const std::vector<WordCopy> &copies,
                            cudaStream_t stream) {
  constexpr unsigned kThreads = 256, kMostBlocks = 256;
  for (size_t first = 0; first < copies.size(); first += kCopiesPerLaunch) {
    const size_t count = std::min(kCopiesPerLaunch, copies.size() - first);
    CopyTable table{};
    size_t largest = 1;
    for (size_t c = 0; c < count; ++c) {
      const WordCopy &copy = copies[first + c];
      table.from[c] = copy.from;
      table.to[c] = copy.to;
      table.words[c] = copy.words;
      table.total[c] = std::max(copy.words, copy.total);
      largest = std::max(largest, table.total[c]);
    }
    const unsigned blocks = static_cast<unsigned>(
        std::min<size_t>(kMostBlocks, (largest + kThreads - 1) / kThreads));
    copyWordsKernel<<<dim3(blocks, static_cast<unsigned>(count),
                           instances_.count),
                      kThreads, 0, stream>>>(table, instances_.stride);
    cuda::check(cudaGetLastError(), "copying a run's words within the GPU");
  }
}

} // namespace ringfuse::runtime::detail
