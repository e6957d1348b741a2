//===- cuda_batches.cu - the CUDA driver's batches: instances a launch ----===//
//
// A batch runs in chunks; every kernel of a chunk computes all its instances
// in one launch (cuda::Instances, grid z), their buffers side by side in a
// Region. A chunk's ciphertexts are copied straight between its batches'
// memory (pinned host memory, or GPU memory) and the region, one 2-D copy a
// component: no staging, no object an instance. Three regions take turns,
// each with its own stream: while one region's chunk computes, another's
// inputs go in and a third's outputs come out, so a batch streamed from the
// host runs at the rate of the slower of the kernels and the host link.
// Each chunk's outputs are checked on the GPU (every word below its prime). The
// kernels of a chunk replay a graph captured for its region and size.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

#include "../kernel_table.h"

#include "ringfuse/gpu/timing_events.cuh"
#include "ringfuse/runtime/parallel.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <utility>

namespace ringfuse::runtime::detail {

using cuda::check;
using cuda::mebibytes;

namespace {

/// Instances one launch computes at most: past about a hundred, the kernels
/// of the (13, 120, 60) HMult fill the GPU, and a fused NTT's grid z
/// (sources times instances) must stay below 65536.
constexpr unsigned kMaxInstancesPerLaunch = 256;

/// The share of the device's free memory a batch's regions may take
/// together: the rest stays for the caller's other work.
constexpr size_t kFreeMemoryShare = 4;

/// A region's pinned staging at most (the plaintexts of its chunk).
constexpr size_t kMaxStagingBytes = size_t(512) << 20;

/// Regions taking turns: while one chunk's inputs go in, another's kernels
/// run and a third's outputs come out. With two, a region's next inputs
/// waited for its outputs, and a batch streamed from the host ran at 0.59 of
/// the slower of its kernels and the link (HMult at (13, 120, 60), H200).
constexpr size_t kRegions = 3;

/// No output word found unreduced (the check's initial code).
constexpr uint64_t kAllReduced = ~uint64_t(0);

/// A found word's code: the least one is reported. A chunk holds at most
/// kMaxInstancesPerLaunch instances, and outputs, components and limbs stay
/// below 2^16 (the format's and the catalog's bounds are far lower).
__device__ __host__ inline uint64_t unreducedCode(uint64_t instance,
                                                  uint64_t output,
                                                  uint64_t component,
                                                  uint64_t limb) {
  return instance << 48 | output << 32 | component << 16 | limb;
}

/// The words of one output component (|Q| limbs of n) of each instance
/// blockIdx.z, `stride` words after the last: the least code of a word not
/// below its limb's prime into *found.
__global__ void findUnreducedKernel(const uint64_t *words, size_t stride,
                                    const uint64_t *primes, size_t limbWords,
                                    size_t total, unsigned output,
                                    unsigned component,
                                    unsigned long long *found) {
  words += size_t(blockIdx.z) * stride;
  for (size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x; w < total;
       w += size_t(gridDim.x) * blockDim.x) {
    const size_t limb = w / limbWords;
    if (words[w] >= primes[limb])
      atomicMin(found, static_cast<unsigned long long>(
                           unreducedCode(blockIdx.z, output, component, limb)));
  }
}

} // namespace

/// While it lives, the schedule's buffers are a region's and its kernels
/// compute `count` instances; then the program's own single instance again.
class CudaDriver::InRegion {
public:
  InRegion(CudaDriver &driver, Region &region, unsigned count)
      : driver_(driver), buffers_(driver.s_.bufferData),
        spare_(driver.s_.spareBuffer), scratch_(driver.scratch_) {
    const RegionLayout &layout = driver.layout_;
    for (size_t b = 0; b < layout.buffers.size(); ++b)
      driver.s_.bufferData[b] = region.at(layout.buffers[b]);
    driver.s_.spareBuffer = region.at(layout.spare);
    driver.scratch_ = region.at(layout.scratch);
    driver.instances_ = {count, layout.bytes / sizeof(uint64_t)};
  }
  ~InRegion() {
    driver_.s_.bufferData = buffers_;
    driver_.s_.spareBuffer = spare_;
    driver_.scratch_ = scratch_;
    driver_.instances_ = {};
  }
  InRegion(const InRegion &) = delete;
  InRegion &operator=(const InRegion &) = delete;

private:
  CudaDriver &driver_;
  std::vector<uint64_t *> buffers_;
  uint64_t *spare_, *scratch_;
};

bool CudaDriver::runsInstances() const {
  // The DGT's kernels take one instance a launch.
  return std::none_of(plans_.dgt.begin(), plans_.dgt.end(),
                      [](const auto &plan) { return plan.limbCount > 0; });
}

/// Instances a chunk of a batch of `instances` takes: what kRegions regions
/// fit in a share of the free device memory (the regions this driver holds
/// count as free), at most kMaxInstancesPerLaunch.
unsigned CudaDriver::chunkCapacity(size_t instances) const {
  const size_t wanted = std::min<size_t>(instances, kMaxInstancesPerLaunch);
  size_t held = 0;
  unsigned capacity = kMaxInstancesPerLaunch;
  for (const std::unique_ptr<Region> &region : regions_)
    if (region) {
      held += region->capacity * layout_.bytes;
      capacity = std::min(capacity, region->capacity);
    }
  if (!regions_.empty() && capacity >= wanted)
    return static_cast<unsigned>(wanted);
  const size_t free = cuda::availableDeviceBytes();
  const size_t share = (free + held) / kFreeMemoryShare / kRegions;
  const size_t byMemory = share / layout_.bytes;
  if (byMemory == 0)
    throw OutOfDeviceMemory(
        "not enough GPU memory: one instance of the program needs " +
        mebibytes(layout_.bytes) + " and a batch's region may take " +
        mebibytes(share) + " (a twelfth of the " + mebibytes(free + held) +
        " free)");
  const size_t byStaging =
      kMaxStagingBytes /
      (std::max<size_t>(batchStagingWords_, 1) * sizeof(uint64_t));
  return static_cast<unsigned>(
      std::max<size_t>(1, std::min({wanted, byMemory, byStaging})));
}

/// Region `index`, holding at least `capacity` instances (made again if it
/// held fewer).
CudaDriver::Region &CudaDriver::regionFor(size_t index, unsigned capacity) {
  if (regions_.size() <= index)
    regions_.resize(index + 1);
  std::unique_ptr<Region> &region = regions_[index];
  if (!region || region->capacity < capacity) {
    region.reset(); // its memory first, so that the new one may take it
    region = std::make_unique<Region>(layout_, batchStagingWords_, capacity);
    // Cleared, as the program's own buffers are at load, and waited for:
    // the chunks run on other streams (a plain cudaMemset would go to the
    // null stream, which does not order the driver's non-blocking ones).
    check(cudaMemsetAsync(region->memory.get(), 0, layout_.bytes * capacity,
                          stream_.get()),
          "clearing a batch's buffers");
    check(cudaStreamSynchronize(stream_.get()), "clearing a batch's buffers");
  }
  return *region;
}

/// Instance `instance` of the chunk's plaintexts given one per instance
/// into its place in the region's pinned staging (ciphertexts go straight
/// from their batches, values for all from the GPU).
void CudaDriver::stageInputs(Region &region,
                             const std::vector<BatchArgument> &arguments,
                             const SharedInputs &shared, unsigned instance) {
  const size_t i = region.first + instance;
  for (size_t v = 0; v < arguments.size(); ++v) {
    const auto *plaintexts =
        std::get_if<std::vector<const Plaintext *>>(&arguments[v]);
    if (!plaintexts || shared.words[v])
      continue;
    std::memcpy(region.staged(instance, batchStagingWords_, batchStaging_[v]),
                (*plaintexts)[i]->coefficients.data(),
                valueWords(s_, s_.inputs[v]) * sizeof(uint64_t));
  }
}

/// The arguments that are one for all instances, on the GPU once.
CudaDriver::SharedInputs
CudaDriver::shareInputs(const std::vector<BatchArgument> &arguments) {
  SharedInputs shared;
  shared.words.assign(arguments.size(), nullptr);
  for (size_t v = 0; v < arguments.size(); ++v) {
    if (const auto *batch =
            std::get_if<const CiphertextBatch *>(&arguments[v])) {
      if ((*batch)->count() == 1) {
        shared.batches.push_back((*batch)->to(Placement::Device));
        shared.words[v] = shared.batches.back().words();
      }
      continue;
    }
    const auto &plaintexts =
        std::get<std::vector<const Plaintext *>>(arguments[v]);
    if (plaintexts.size() == 1) {
      shared.plaintexts.emplace_back(plaintexts[0]->coefficients, stream_.get(),
                                     "a plaintext for every instance");
      shared.words[v] = shared.plaintexts.back().data();
    }
  }
  // The uploads are done before the regions' streams read them (a batch
  // moved to the GPU waited for its own copy).
  if (!shared.plaintexts.empty())
    check(cudaStreamSynchronize(stream_.get()), "placing a batch's inputs");
  return shared;
}

/// The chunk of the region entered: its constants restored and the values
/// for all copied into every instance (one launch each), its inputs in
/// (ciphertexts from their batches' memory, host or GPU, plaintexts from the
/// staging), the schedule (its graph's replay on the region's stream, else
/// eagerly on the program's), its outputs checked and out into their
/// batches, and the region's `done` event after it all.
void CudaDriver::enqueueChunk(Region &region,
                              const std::vector<BatchArgument> &arguments,
                              const SharedInputs &shared,
                              std::vector<CiphertextBatch> &outputs,
                              unsigned count, bool replay) {
  const cudaStream_t stream = replay ? region.stream.get() : stream_.get();
  const size_t stagingPitch = batchStagingWords_ * sizeof(uint64_t);
  const size_t stride = instances_.stride * sizeof(uint64_t);
  const size_t qWords = s_.context->q().size() * s_.n;
  check(cudaMemsetAsync(region.unreduced.get(), 0xff, sizeof(uint64_t), stream),
        "clearing a batch's output check");
  copyWithin(constantCopies(), stream); // in every instance
  std::vector<WordCopy> forAll;
  for (size_t v = 0; v < s_.inputs.size(); ++v)
    if (shared.words[v]) {
      const ValueLayout &layout = s_.inputs[v];
      const size_t words = valueWords(s_, layout);
      for (size_t k = 0; k < layout.components; ++k)
        forAll.push_back({shared.words[v] + k * words,
                          s_.bufferData[layout.buffers[k]], words});
    }
  copyWithin(forAll, stream);
  for (size_t v = 0; v < s_.inputs.size(); ++v) {
    const ValueLayout &layout = s_.inputs[v];
    const std::string what = "copying input " + std::to_string(v) +
                             " of a batch's chunk to its buffers";
    if (shared.words[v])
      continue;
    if (const auto *batch =
            std::get_if<const CiphertextBatch *>(&arguments[v])) {
      const size_t pitch = (*batch)->instanceWords() * sizeof(uint64_t);
      const uint64_t *first =
          (*batch)->words() + region.first * (*batch)->instanceWords();
      for (size_t k = 0; k < layout.components; ++k)
        check(cudaMemcpy2DAsync(s_.bufferData[layout.buffers[k]], stride,
                                first + k * qWords, pitch,
                                qWords * sizeof(uint64_t), count,
                                cudaMemcpyDefault, stream),
              what);
      continue;
    }
    check(cudaMemcpy2DAsync(
              s_.bufferData[layout.buffers[0]], stride,
              region.staged(0, batchStagingWords_, batchStaging_[v]),
              stagingPitch, valueWords(s_, layout) * sizeof(uint64_t), count,
              cudaMemcpyHostToDevice, stream),
          what);
  }
  if (replay) {
    check(cudaGraphLaunch(region.graphs.at(count).exec(), stream),
          "replaying the graph of a batch's chunk");
  } else {
    s_.failed = false;
    s_.error.clear();
    s_.runFunction(&s_, &kernelTable());
    finishSchedule();
    if (s_.failed) {
      cudaError_t drained = cudaStreamSynchronize(stream);
      throw Error(programLabel(s_) + " failed in kernel " + s_.error +
                  (drained != cudaSuccess
                       ? "; then the GPU reported " + cuda::describe(drained)
                       : std::string()));
    }
  }
  checkOutputsOnDevice(region, count, stream);
  for (size_t v = 0; v < s_.outputs.size(); ++v) {
    const ValueLayout &layout = s_.outputs[v];
    CiphertextBatch &batch = outputs[v];
    const size_t pitch = batch.instanceWords() * sizeof(uint64_t);
    uint64_t *first =
        batch.mutableWords() + region.first * batch.instanceWords();
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpy2DAsync(first + k * qWords, pitch,
                              s_.bufferData[layout.buffers[k]], stride,
                              qWords * sizeof(uint64_t), count,
                              cudaMemcpyDefault, stream),
            "copying output " + std::to_string(v) +
                " of a batch's chunk into its batch");
  }
  check(cudaMemcpyAsync(region.unreducedHost.get(), region.unreduced.get(),
                        sizeof(uint64_t), cudaMemcpyDeviceToHost, stream),
        "copying a batch's output check");
  check(cudaEventRecord(region.done.get(), stream),
        "recording the end of a batch's chunk");
  region.count = count;
}

/// Every output word of the chunk below its prime (a residue out of range
/// would decrypt to garbage far from here), checked where the words are:
/// the least code of one that is not goes to region.unreduced.
void CudaDriver::checkOutputsOnDevice(Region &region, unsigned count,
                                      cudaStream_t stream) {
  constexpr unsigned kThreads = 256, kMostBlocks = 64;
  const size_t limbWords = s_.n, total = s_.context->q().size() * s_.n;
  const unsigned blocks = static_cast<unsigned>(
      std::min<size_t>(kMostBlocks, (total + kThreads - 1) / kThreads));
  for (size_t v = 0; v < s_.outputs.size(); ++v)
    for (size_t k = 0; k < s_.outputs[v].components; ++k) {
      findUnreducedKernel<<<dim3(blocks, 1, count), kThreads, 0, stream>>>(
          s_.bufferData[s_.outputs[v].buffers[k]], instances_.stride,
          qPrimes_.data(), limbWords, total, static_cast<unsigned>(v),
          static_cast<unsigned>(k),
          reinterpret_cast<unsigned long long *>(region.unreduced.get()));
      check(cudaGetLastError(), "checking a batch's outputs");
    }
}

/// Waits for the region's chunk (its outputs are then in their batches);
/// returns how many instances it held.
unsigned CudaDriver::awaitChunk(Region &region) {
  const unsigned count = std::exchange(region.count, 0);
  cudaError_t finished = cudaEventSynchronize(region.done.get());
  if (finished != cudaSuccess)
    throw Error(programLabel(s_) + " failed on the GPU in a batch's chunk: " +
                cuda::describe(finished) +
                "; after a fault in a kernel, the process's CUDA context "
                "stays unusable");
  uint64_t code = 0;
  std::memcpy(&code, region.unreducedHost.get(), sizeof code);
  if (code != kAllReduced)
    throw Error(programLabel(s_) + ": output " +
                std::to_string(code >> 32 & 0xffff) + " component " +
                std::to_string(code >> 16 & 0xffff) + " limb " +
                std::to_string(code & 0xffff) + " of instance " +
                std::to_string(region.first + (code >> 48)) +
                " holds a word that is not below its prime");
  return count;
}

std::vector<CiphertextBatch>
CudaDriver::runBatch(const std::vector<BatchArgument> &arguments, size_t total,
                     Placement placement, const BatchProgress &progress) {
  check(cudaSetDevice(device_), "selecting the CUDA device");
  std::vector<CiphertextBatch> outputs;
  for (const ValueLayout &layout : s_.outputs)
    outputs.push_back(CiphertextBatch::allocate(s_.context, layout.components,
                                                total, placement));
  const unsigned capacity = chunkCapacity(total);
  const size_t chunks = (total + capacity - 1) / capacity;
  const size_t regions = std::min(chunks, kRegions);
  const SharedInputs shared = shareInputs(arguments);
  bool staged = false; // plaintexts given one per instance
  for (size_t v = 0; v < arguments.size(); ++v)
    staged |=
        !shared.words[v] &&
        std::holds_alternative<std::vector<const Plaintext *>>(arguments[v]);
  size_t finished = 0;
  auto await = [&](Region &region) {
    if (region.count == 0)
      return;
    finished += awaitChunk(region);
    if (progress)
      progress(finished);
  };
  try {
    for (size_t c = 0; c < chunks; ++c) {
      Region &region = regionFor(c % regions, capacity);
      await(region); // chunk c - kRegions's, whose staging and buffers this
                     // reuses
      region.first = c * capacity;
      const unsigned count = static_cast<unsigned>(
          std::min<size_t>(capacity, total - region.first));
      if (staged)
        parallelFor(
            count, workersFor(count, 0), "instance",
            [&](size_t, size_t i) {
              stageInputs(region, arguments, shared, static_cast<unsigned>(i));
            },
            region.first);
      InRegion entered(*this, region, count);
      // A graph once the kernels have run eagerly (their first launches set
      // what capture may not).
      if (!graphDisabled_ && successfulRuns_ > 0 &&
          !region.graphs.count(count)) {
        cuda::Graph graph = captureGraph(graphProblem_);
        if (graph)
          region.graphs.emplace(count, std::move(graph));
        else
          graphDisabled_ = true;
      }
      const bool replay = region.graphs.count(count) > 0;
      enqueueChunk(region, arguments, shared, outputs, count, replay);
      if (!replay) {
        await(region);
        ++successfulRuns_;
      }
    }
    // The last chunks, in order.
    std::vector<Region *> pending;
    for (size_t r = 0; r < regions; ++r)
      if (regions_[r]->count)
        pending.push_back(regions_[r].get());
    std::sort(pending.begin(), pending.end(),
              [](Region *a, Region *b) { return a->first < b->first; });
    for (Region *region : pending)
      await(*region);
  } catch (...) {
    drainRegions();
    throw;
  }
  successfulRuns_ += chunks;
  return outputs;
}

/// After a failure: nothing of a batch may still write into memory it
/// leaves.
void CudaDriver::drainRegions() {
  for (std::unique_ptr<Region> &region : regions_)
    if (region) {
      cudaStreamSynchronize(region->stream.get());
      region->count = 0;
    }
  cudaStreamSynchronize(stream_.get());
}

/// Binds `count` copies of the inputs in region 0 once, makes sure the
/// chunk's graph exists, then times each of its replays with CUDA events.
std::vector<double>
CudaDriver::timeBatch(const std::vector<ProgramInput> &inputs, size_t count,
                      size_t warmup, size_t iterations) {
  check(cudaSetDevice(device_), "selecting the CUDA device");
  if (count == 0 || count > kMaxInstancesPerLaunch)
    throw Error("a timed chunk takes 1 to " +
                std::to_string(kMaxInstancesPerLaunch) + " instances, not " +
                std::to_string(count));
  if (!runsInstances())
    throw Error("the program's DGTs take one instance a launch");
  // Each input one for all the chunk's instances.
  std::deque<CiphertextBatch> batches;
  std::vector<BatchArgument> arguments;
  for (const ProgramInput &input : inputs) {
    if (const auto *plaintext = std::get_if<const Plaintext *>(&input)) {
      arguments.push_back(std::vector<const Plaintext *>{*plaintext});
      continue;
    }
    const auto *ciphertext = std::get_if<const Ciphertext *>(&input);
    if (!ciphertext)
      throw Error("a timed chunk takes its ciphertexts from the host");
    batches.push_back(CiphertextBatch::fromCiphertexts({*ciphertext}));
    arguments.push_back(&batches.back());
  }
  std::vector<CiphertextBatch> outputs;
  for (const ValueLayout &layout : s_.outputs)
    outputs.push_back(CiphertextBatch::allocate(s_.context, layout.components,
                                                count, Placement::Device));
  const SharedInputs shared = shareInputs(arguments);
  const unsigned instances = static_cast<unsigned>(count);
  Region &region = regionFor(0, instances);
  region.first = 0;
  InRegion entered(*this, region, instances);
  try {
    if (successfulRuns_ == 0) {
      enqueueChunk(region, arguments, shared, outputs, instances,
                   /*replay=*/false);
      awaitChunk(region);
      ++successfulRuns_;
    }
    if (!region.graphs.count(instances)) {
      std::string problem;
      cuda::Graph graph = captureGraph(problem);
      if (!graph)
        throw Error("the batch's schedule could not be captured: " + problem);
      region.graphs.emplace(instances, std::move(graph));
    }
    // The inputs in (and, with the graph's first replay, what it sets up).
    enqueueChunk(region, arguments, shared, outputs, instances,
                 /*replay=*/true);
    awaitChunk(region);
  } catch (...) {
    drainRegions();
    throw;
  }
  const cudaStream_t stream = region.stream.get();
  const cudaGraphExec_t exec = region.graphs.at(instances).exec();
  for (size_t i = 0; i < warmup; ++i)
    check(cudaGraphLaunch(exec, stream), "replaying a batch's graph");
  cuda::TimingEvents events(iterations);
  for (size_t i = 0; i < iterations; ++i) {
    events.recordStart(i, stream);
    check(cudaGraphLaunch(exec, stream), "replaying a batch's graph");
    events.recordStop(i, stream);
  }
  check(cudaStreamSynchronize(stream), "timing a batch's replays");
  successfulRuns_ += 1 + warmup + iterations;
  return events.microseconds();
}

} // namespace ringfuse::runtime::detail

namespace ringfuse::runtime {

double hostLinkBytesPerSecond(size_t bytes, bool toDevice, int repeats) {
  if (!cudaAvailable())
    throw Error("no usable CUDA device: there is no host link to measure");
  if (bytes == 0 || repeats < 1)
    throw Error("measuring the host link takes at least one byte and one copy");
  cuda::PinnedMemory host(bytes, "measuring the host link");
  cuda::DeviceMemory device(bytes, "measuring the host link");
  cuda::Stream stream;
  std::memset(host.get(), 1, bytes);
  auto copy = [&] {
    cuda::check(toDevice
                    ? cudaMemcpyAsync(device.get(), host.get(), bytes,
                                      cudaMemcpyHostToDevice, stream.get())
                    : cudaMemcpyAsync(host.get(), device.get(), bytes,
                                      cudaMemcpyDeviceToHost, stream.get()),
                "copying over the host link");
  };
  copy(); // warm-up
  cuda::TimingEvents events(static_cast<size_t>(repeats));
  for (int i = 0; i < repeats; ++i) {
    events.recordStart(i, stream.get());
    copy();
    events.recordStop(i, stream.get());
  }
  cuda::check(cudaStreamSynchronize(stream.get()), "measuring the host link");
  std::vector<double> us = events.microseconds();
  std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
  return static_cast<double>(bytes) / (us[us.size() / 2] * 1e-6);
}

} // namespace ringfuse::runtime
