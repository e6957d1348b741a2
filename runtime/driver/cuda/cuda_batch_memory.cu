//===- cuda_batch_memory.cu - where ciphertext batches live ---------------===//
//
// A batch in host memory is pinned where a GPU is visible, so that a chunk of
// it goes over the host link as one DMA, with no staging copy. Pinning is
// slow (the pages are allocated, locked and mapped for the device) and
// cudaFreeHost waits for the whole device, so freed blocks are kept for the
// next batch of about their size, up to a bound. A batch in GPU memory comes
// from the device's stream-ordered pool, as a run's outputs do.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

#include "ringfuse/runtime/ciphertext_batch.h"
#include "ringfuse/runtime/host_memory.h"

#include <cstdlib>
#include <cstring>
#include <list>
#include <mutex>

namespace ringfuse::runtime::detail {

using cuda::check;
using cuda::mebibytes;

namespace {

/// Blocks are whole multiples of this, so that batches of nearby sizes
/// share them.
constexpr size_t kPinnedGranule = size_t(2) << 20;

/// Pinned blocks kept unused at most (bytes).
constexpr size_t kMostPinnedKept = size_t(8) << 30;

class PinnedCache;
PinnedCache &pinnedCache();

/// Freed pinned blocks, for the next batch that fits one (at most twice its
/// size, so that a small batch does not hold a large block). Past the bound,
/// the blocks given back longest ago are freed: a server whose batches
/// change size keeps the blocks of its current size.
class PinnedCache {
public:
  std::shared_ptr<uint64_t> allocate(size_t bytes) {
    // The kept blocks are freed at exit, before CUDA's own teardown (which
    // registered earlier), so that nothing pinned is left behind; blocks
    // freed later go straight back.
    static const bool releasedAtExit =
        std::atexit([] { pinnedCache().close(); }) == 0;
    (void)releasedAtExit;
    bytes = (bytes + kPinnedGranule - 1) / kPinnedGranule * kPinnedGranule;
    void *block = take(bytes);
    if (!block) {
      requireHostBytes(bytes, "a ciphertext batch in host memory");
      cudaError_t allocated = cudaHostAlloc(&block, bytes, 0);
      if (allocated != cudaSuccess) {
        cudaGetLastError();
        release(0); // kept blocks may be what the machine is missing
        check(cudaHostAlloc(&block, bytes, 0),
              "allocating " + mebibytes(bytes) +
                  " of pinned host memory for a ciphertext batch");
      }
    }
    return std::shared_ptr<uint64_t>(
        static_cast<uint64_t *>(block),
        [this, bytes](uint64_t *p) { giveBack(p, bytes); });
  }

  /// Frees the kept blocks, and from now on every block given back.
  void close() {
    release(0);
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
  }

private:
  struct Block {
    size_t bytes;
    void *memory;
  };

  void *take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = kept_.end();
    for (auto block = kept_.begin(); block != kept_.end(); ++block)
      if (block->bytes >= bytes && block->bytes <= 2 * bytes &&
          (best == kept_.end() || block->bytes < best->bytes))
        best = block;
    if (best == kept_.end())
      return nullptr;
    void *memory = best->memory;
    keptBytes_ -= best->bytes;
    kept_.erase(best);
    return memory;
  }
  void giveBack(uint64_t *memory, size_t bytes) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!closed_) {
        kept_.push_back({bytes, memory});
        keptBytes_ += bytes;
        memory = nullptr;
      }
    }
    if (memory) {
      cudaFreeHost(memory);
      cudaGetLastError();
    }
    release(kMostPinnedKept);
  }
  /// Frees the blocks given back longest ago until at most `keep` bytes
  /// are kept.
  void release(size_t keep) {
    std::lock_guard<std::mutex> lock(mutex_);
    while (keptBytes_ > keep) {
      cudaFreeHost(kept_.front().memory);
      keptBytes_ -= kept_.front().bytes;
      kept_.pop_front();
    }
    cudaGetLastError();
  }

  std::mutex mutex_;
  std::list<Block> kept_; // in the order given back
  size_t keptBytes_ = 0;
  bool closed_ = false;
};

PinnedCache &pinnedCache() {
  // Never destroyed: batches freed during the process's exit still return
  // their blocks to it.
  static PinnedCache *cache = new PinnedCache;
  return *cache;
}

} // namespace

std::shared_ptr<uint64_t> allocateBatchWords(size_t words,
                                             Placement placement) {
  const size_t bytes = std::max<size_t>(words, 1) * sizeof(uint64_t);
  if (placement == Placement::Host)
    return cudaAvailable() ? pinnedCache().allocate(bytes)
                           : plainBatchWords(words);
  if (!cudaAvailable())
    throw Error("no usable CUDA device: a batch cannot be placed in GPU "
                "memory here");
  void *memory = nullptr;
  cuda::allocateOrExplain(
      [&] { return cudaMallocAsync(&memory, bytes, nullptr); }, bytes,
      "a ciphertext batch");
  // Ready for every stream (the runtime's are non-blocking, which the null
  // stream does not order); freed when the last holder lets go, after every
  // call that used it has waited for its work.
  check(cudaStreamSynchronize(nullptr), "allocating a ciphertext batch");
  return std::shared_ptr<uint64_t>(
      static_cast<uint64_t *>(memory),
      [](uint64_t *p) { cudaFreeAsync(p, nullptr); });
}

void copyBatchWords(uint64_t *to, Placement toPlacement, const uint64_t *from,
                    Placement fromPlacement, size_t words) {
  const size_t bytes = words * sizeof(uint64_t);
  if (toPlacement == Placement::Host && fromPlacement == Placement::Host) {
    std::memcpy(to, from, bytes);
    return;
  }
  check(cudaMemcpy(to, from, bytes, cudaMemcpyDefault),
        std::string("copying a ciphertext batch from ") +
            placementName(fromPlacement) + " to " + placementName(toPlacement) +
            " memory");
  // A copy from pageable memory may return before its DMA ends.
  check(cudaStreamSynchronize(nullptr), "copying a ciphertext batch");
}

} // namespace ringfuse::runtime::detail
