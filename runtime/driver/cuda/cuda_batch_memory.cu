//===- cuda_batch_memory.cu - where ciphertext batches live ---------------===//
//
// A batch in host memory is pinned where the process works on the GPU, so
// that a chunk of it goes over the host link as one DMA, with no staging
// copy. Pinning is
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
#include <optional>

namespace ringfuse::runtime::detail {

using cuda::check;
using cuda::mebibytes;

namespace {

/// Blocks are whole multiples of a granule, so that batches of nearby sizes
/// share them: 64 KiB below 8 MiB (a small batch or a few rows of slots),
/// 2 MiB above.
size_t pinnedBytes(size_t bytes) {
  const size_t granule =
      bytes < (size_t(8) << 20) ? size_t(64) << 10 : size_t(2) << 20;
  return (bytes + granule - 1) / granule * granule;
}

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
  /// A pinned block of at least `bytes`, or none where the machine cannot
  /// pin that much now.
  std::shared_ptr<uint64_t> allocate(size_t bytes) {
    // The kept blocks are freed at exit, before CUDA's own teardown (which
    // registered earlier), so that nothing pinned is left behind; blocks
    // freed later go straight back.
    static const bool releasedAtExit =
        std::atexit([] { pinnedCache().close(); }) == 0;
    (void)releasedAtExit;
    bytes = pinnedBytes(bytes);
    Block block = take(bytes);
    if (!block.memory) {
      // Kept blocks may be what the machine is missing.
      std::optional<uint64_t> available = availableHostBytes();
      if (available && bytes > *available)
        release(0);
      requireHostBytes(bytes, "a ciphertext batch in host memory");
      block = {bytes, nullptr};
      if (cudaHostAlloc(&block.memory, bytes, 0) != cudaSuccess) {
        cudaGetLastError();
        release(0);
        if (cudaHostAlloc(&block.memory, bytes, 0) != cudaSuccess) {
          cudaGetLastError();
          return nullptr;
        }
      }
    }
    return std::shared_ptr<uint64_t>(
        static_cast<uint64_t *>(block.memory),
        [this, bytes = block.bytes](uint64_t *p) { giveBack(p, bytes); });
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

  /// The smallest kept block of `bytes` to 2 * `bytes`, taken out (none: a
  /// null one).
  Block take(size_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto best = kept_.end();
    for (auto block = kept_.begin(); block != kept_.end(); ++block)
      if (block->bytes >= bytes && block->bytes <= 2 * bytes &&
          (best == kept_.end() || block->bytes < best->bytes))
        best = block;
    if (best == kept_.end())
      return {0, nullptr};
    Block taken = *best;
    keptBytes_ -= taken.bytes;
    kept_.erase(best);
    return taken;
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
  if (placement == Placement::Host) {
    // Pinned where this process works on the GPU; pageable otherwise, or
    // where the machine will not pin that much (the GPU copies pageable
    // memory too, through the driver's own staging).
    if (cuda::processUsesGpu() && cudaAvailable())
      if (std::shared_ptr<uint64_t> pinned = pinnedCache().allocate(bytes))
        return pinned;
    return plainBatchWords(words);
  }
  if (!cudaAvailable())
    throw Error("no usable CUDA device: a batch cannot be placed in GPU "
                "memory here");
  cuda::processUsesGpu() = true;
  void *memory = nullptr;
  cuda::allocateOrExplain(
      [&] { return cudaMallocAsync(&memory, bytes, nullptr); }, bytes,
      "a ciphertext batch");
  // Ready for every stream (the runtime's are non-blocking, which the null
  // stream does not order); freed when the last holder lets go, after every
  // call that used it has waited for its work.
  check(cudaStreamSynchronize(nullptr), "allocating a ciphertext batch");
  return std::shared_ptr<uint64_t>(static_cast<uint64_t *>(memory),
                                   [](uint64_t *p) {
                                     cudaFreeAsync(p, nullptr);
                                     cudaGetLastError();
                                   });
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
