//===- cuda_driver.h - the CUDA driver of compiled programs ----*- CUDA -*-===//
//
// A program loaded for Device::Cuda keeps everything on one GPU, in one
// allocation made at load:
//
//   [ tables: moduli, NTT twiddles, plans, constants | buffers | spare buffer
//     | staging scratch | keys ]
//
// Plans and twiddles are uploaded at load (cuda_tables.cu), keys at bind; a
// run restores the constants, copies its inputs in (from pinned staging),
// runs the schedule, copies its outputs out and synchronizes once
// (cuda_driver.cu). Library kernels run by dataflow (cuda_kernels.cu): each
// on one of the side streams, after only the earlier launches whose words it
// shares (beginLaunch). The program's stream, which RfKernels' stream() hands
// to emitted CUDA for its generated kernels, waits for every library launch.
// The first run launches the schedule's kernels one by one; the second
// captures the schedule into a CUDA graph, and every later run replays it
// (the copies in and out stay outside the graph).
//
// A batch (runBatch, cuda_batches.cu) runs many instances in each launch:
// a Region holds `capacity` copies of the buffers, spare and scratch, each
// `stride` words after the last, so every kernel finds instance z's words at
// instance 0's plus z * stride (cuda::Instances). A batch goes through in
// chunks of at most a region's capacity, three regions taking turns so that
// a chunk's copies in, its kernels and the copies out of another overlap;
// each region replays a graph per chunk size.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DRIVER_CUDA_CUDA_DRIVER_H
#define RINGFUSE_RUNTIME_DRIVER_CUDA_CUDA_DRIVER_H

#include "../driver.h"

#include "ringfuse/gpu/dgt.cuh"
#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/gpu/resources.cuh"

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ringfuse::runtime::detail {

/// Words of device memory a library launch reads or writes.
struct Span {
  const uint64_t *data;
  size_t words;
};

struct Accesses {
  std::vector<Span> reads, writes;
};

/// A copy within the GPU: `words` words from `from` to `to`, then zeros up
/// to `total` words (CudaDriver::copyWithin).
struct WordCopy {
  const uint64_t *from;
  uint64_t *to;
  size_t words, total = 0;
};

/// Every table and buffer of the allocation starts at a multiple of 256 bytes.
inline size_t alignUp(size_t bytes) {
  constexpr size_t kAlignment = 256;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// The plans on the device, pointing into the tables region.
struct DevicePlans {
  std::vector<cuda::NttPlan> ntt;           // per basis (limbCount 0: no NTT)
  std::vector<cuda::DgtPlan<uint64_t>> dgt; // per basis (limbCount 0: none)
  std::vector<cuda::ConvertPlan> converters;
  std::vector<cuda::ScaleRoundPlanView> scaleRounds;
  std::vector<cuda::ScaleUpPlanView> scaleUps;
  const Modulus *qpModuli = nullptr;
  std::vector<const Modulus *> basisModuli;    // per basis
  std::vector<const uint64_t *> constantWords; // per constant
  std::vector<const RfModulus *> moduli;       // what moduli() hands out
  const RfModulus *spareModuli = nullptr;
};

/// The tables region, laid out twice: first with base 0 to learn its size,
/// then with the allocation's address, so that the plans' pointers are the
/// device addresses of the words the image puts there.
class TableImage {
public:
  explicit TableImage(uintptr_t base) : base_(base) {}

  template <typename T> const T *put(const T *data, size_t count);
  template <typename T> const T *put(const std::vector<T> &values) {
    return put(values.data(), values.size());
  }

  size_t size() const;
  const std::vector<unsigned char> &bytes() const { return bytes_; }
  /// Where the next put's words will be.
  uintptr_t nextAddress() const { return base_ + alignUp(bytes_.size()); }

private:
  uintptr_t base_;
  std::vector<unsigned char> bytes_;
};

/// Every table of the program laid out in `image`, and the plans pointing at
/// them (cuda_tables.cu). `twiddles`: the NTT tables of each prime that some
/// transformable basis has.
DevicePlans placeTables(const RfRuntime &s,
                        const std::map<uint64_t, const NttTables *> &twiddles,
                        TableImage &image);

class CudaDriver final : public Driver {
public:
  explicit CudaDriver(RfRuntime &s);
  ~CudaDriver() override;

#define RF_KERNEL(name, Call, parameters, ...)                                 \
  void name(const Call &call, RF_UNPAREN parameters) override;
#include "ringfuse/runtime/kernel_catalog.def"

  void *stream() override { return stream_.get(); }
  void checkLaunch(const char *kernel, int cudaError) override;
  RfInstances instances() const override {
    return {instances_.count, instances_.stride};
  }

  bool takesDeviceInputs() const override { return true; }
  void placeKeys(bool force) override;
  std::vector<Ciphertext> run(const std::vector<ProgramInput> &inputs) override;
  std::vector<DeviceCiphertext>
  runOnDevice(const std::vector<ProgramInput> &inputs) override;
  std::vector<double> timeRuns(const std::vector<ProgramInput> &inputs,
                               size_t warmup, size_t iterations) override;
  bool replaysGraph() const override { return static_cast<bool>(graph_); }
  bool runsInstances() const override;
  std::vector<CiphertextBatch>
  runBatch(const std::vector<BatchArgument> &arguments, size_t count,
           Placement placement, const BatchProgress &progress) override;
  std::vector<double> timeBatch(const std::vector<ProgramInput> &inputs,
                                size_t count, size_t warmup,
                                size_t iterations) override;

private:
  struct Region;
  class InRegion;
  // Dataflow (cuda_kernels.cu).
  cudaStream_t beginLaunch(Accesses accesses);
  void endLaunch();
  void forkAgain();
  uint64_t *targetOf(bool overlapping, uint64_t *out);
  Accesses inToOut(Span in, Span out, bool overlapping) const;
  void copyFromScratch(uint64_t *out, size_t words, cudaStream_t stream);
  void launchScaleRoundCall(int index, const ScaleRoundCall &call,
                            const uint64_t *in, const uint64_t *addend,
                            uint64_t *out);
  cuda::KeySwitchKeyView keyView(int key, const KeySwitchCall &call) const;
  void addendAccesses(const RfKeySwitchAddend &addend,
                      Accesses &accesses) const;
  Accesses sourceAccesses(const uint64_t *const *sources,
                          uint64_t *const *scratch,
                          const std::vector<bool> &oneLimb, size_t words) const;
  void nttLaunch(const NttCall &call, int basis, uint64_t *data, bool forward);
  void dgtLaunch(int basis, uint64_t *data, bool forward);

  // Runs (cuda_driver.cu).
  void copyWithin(const std::vector<WordCopy> &copies, cudaStream_t stream);
  std::vector<WordCopy> constantCopies() const;
  void bindInputs(const std::vector<ProgramInput> &inputs);
  const uint64_t *keptOnDevice(size_t input, const Plaintext &given);
  void runSchedule();
  void runScheduleChecked();
  void captureSchedule();
  cuda::Graph captureGraph(std::string &problem);
  void finishSchedule();
  void finishRun(const std::string &when);

  // Batches (cuda_batches.cu).
  unsigned chunkCapacity(size_t instances) const;
  Region &regionFor(size_t index, unsigned capacity);
  /// A batch's arguments that are one for all instances, on the GPU once:
  /// per input, their words there (null: one per instance).
  struct SharedInputs {
    std::deque<CiphertextBatch> batches;
    std::deque<cuda::DeviceArray<uint64_t>> plaintexts;
    std::vector<const uint64_t *> words;
  };
  SharedInputs shareInputs(const std::vector<BatchArgument> &arguments);
  void stageInputs(Region &region, const std::vector<BatchArgument> &arguments,
                   const SharedInputs &shared, unsigned instance);
  void enqueueChunk(Region &region, const std::vector<BatchArgument> &arguments,
                    const SharedInputs &shared,
                    std::vector<CiphertextBatch> &outputs, unsigned count,
                    bool replay);
  void drainRegions();
  unsigned awaitChunk(Region &region);
  void checkOutputsOnDevice(Region &region, unsigned count,
                            cudaStream_t stream);

  RfRuntime &s_;
  int device_ = 0;
  cuda::Stream stream_;
  cuda::DeviceMemory memory_;  // the one device allocation
  cuda::PinnedMemory pinned_;  // staging of inputs and outputs
  cuda::DeviceArray<uint64_t> qPrimes_; // Q's primes, for checking outputs
  DevicePlans plans_;

  // Dataflow: each library kernel goes to a side stream and waits, by their
  // events, only for the earlier launches it depends on (dependsOn), so that
  // independent work overlaps across the compiler's concurrent regions, not
  // only within them. stream_ waits for every launch as it is made, so that
  // the generated kernels emitted CUDA puts on it (it may ask for the stream
  // once, before them all) and the schedule's end come after everything
  // before them. The sides fork from stream_ (the `start_` event) at their
  // first launch and again after each generated kernel (checkLaunch).
  struct Launched {
    Accesses accesses;
    size_t side;
  };
  /// Side streams: as many as kernel-concurrent puts in a group. HMult was
  /// up to 3.5% faster with 16 than with 8, and 4 were slower at logN 16
  /// (docs/experiments.md).
  static constexpr size_t kSideStreams = 16;
  std::vector<cuda::Stream> sides_;
  std::vector<Launched> launched_; // since the sides last forked
  std::vector<cuda::Event> done_;  // launched_[i] records done_[i] (a pool)
  std::vector<size_t> lastOnSide_; // index into launched_, or kNone
  std::vector<bool> forked_;       // the side has waited for start_
  cuda::Event start_;
  bool startRecorded_ = false;
  size_t nextSide_ = 0;
  static constexpr size_t kNone = ~size_t(0);

  /// Where the buffers, spare and scratch lie, from the start of their
  /// region (the words one instance needs), and the region's size.
  struct RegionLayout {
    std::vector<size_t> buffers;
    size_t spare = 0, scratch = 0, bytes = 0;
  } layout_;
  /// What the kernels launched now compute: one instance, or a region's.
  cuda::Instances instances_;
  std::vector<std::unique_ptr<Region>> regions_; // batches' (kRegions at most)

  uint64_t *scratch_ = nullptr; // an output staged when it overlaps the input
  uint64_t *keys_ = nullptr;    // key k at keys_ + k * keyWords_
  size_t keyWords_ = 0;

  // A run's pinned staging (pinned_): word offsets of each input / output
  // component.
  std::vector<std::vector<size_t>> inputStaging_, outputStaging_;
  // A batch region's pinned staging an instance: the word offset of each
  // plaintext input, within batchStagingWords_ words.
  std::vector<size_t> batchStaging_;
  size_t batchStagingWords_ = 0;

  /// Per prepared plaintext input, its words in device memory as of a
  /// generation of RfRuntime::preparedInputs: while that does not change,
  /// a run copies them within the GPU instead of from the host.
  struct DeviceInput {
    cuda::DeviceArray<uint64_t> words;
    uint64_t generation = 0;
  };
  std::map<size_t, DeviceInput> deviceInputs_;
  size_t deviceInputBytes_ = 0; // at most kMaxDeviceInputBytes

  /// What was uploaded to each key slot: the key object and where its words
  /// were, so that an unchanged binding is not copied again.
  struct UploadedKey {
    const KeySwitchKey *key = nullptr;
    std::vector<const uint64_t *> words;
  };
  std::vector<UploadedKey> uploaded_;

  // The schedule as a graph, from the second successful run on.
  size_t successfulRuns_ = 0;
  cuda::Graph graph_;
  bool graphDisabled_ = false; // capture failed: runs stay eager
  std::string graphProblem_;
};

/// `capacity` instances' buffers, spare and scratch (a stride of
/// RegionLayout::bytes), their pinned staging, the stream of their copies
/// and replays, and the graphs of the chunk sizes run on them so far.
struct CudaDriver::Region {
  Region(const RegionLayout &layout, size_t stagingWords, unsigned capacity)
      : capacity(capacity),
        memory(layout.bytes * capacity,
               "a batch of " + std::to_string(capacity) + " instances"),
        staging(std::max<size_t>(stagingWords, 1) * sizeof(uint64_t) * capacity,
                "the plaintexts of a batch's chunk") {}

  uint64_t *at(size_t offset) const {
    return reinterpret_cast<uint64_t *>(memory.get() + offset);
  }
  uint64_t *staged(size_t instance, size_t stagingWords, size_t offset) const {
    return reinterpret_cast<uint64_t *>(staging.get()) +
           instance * stagingWords + offset;
  }

  unsigned capacity;
  cuda::DeviceMemory memory;
  cuda::PinnedMemory staging;
  // The least code of an output word not below its prime in the chunk
  // (CudaDriver::checkOutputsOnDevice), on the device and copied back.
  cuda::DeviceMemory unreduced{sizeof(uint64_t), "a batch's output check"};
  cuda::PinnedMemory unreducedHost{sizeof(uint64_t), "a batch's output check"};
  cuda::Stream stream;
  cuda::Event done;
  std::map<unsigned, cuda::Graph> graphs;
  // The chunk in flight: its first instance and size (0: none).
  size_t first = 0;
  unsigned count = 0;
};

/// Device memory for a ciphertext of `components` components over Q.
/// Device memory for a ciphertext of `components` components over Q, from
/// the device's stream-ordered pool, ready for work on `stream`.
DeviceCiphertext allocateDeviceCiphertext(const ContextPtr &context,
                                          size_t components,
                                          cudaStream_t stream);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_CUDA_CUDA_DRIVER_H
