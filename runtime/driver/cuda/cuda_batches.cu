//===- cuda_batches.cu - the CUDA driver's batches: instances a launch ----===//
//
// A batch runs in chunks; every kernel of a chunk computes all its instances
// in one launch (cuda::Instances, grid z), their buffers side by side in a
// Region. Two regions take turns: while one region's chunk computes, the
// host stages the next chunk's inputs into the other's pinned memory and its
// copies run on the other's stream, so a batch streamed from the host runs
// at the rate of the slower of the kernels and the host link. The kernels of
// a chunk replay a graph captured for its region and size.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

#include "../kernel_table.h"

#include "ringfuse/gpu/timing_events.cuh"
#include "ringfuse/runtime/parallel.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace ringfuse::runtime::detail {

using cuda::check;
using cuda::mebibytes;

namespace {

/// Instances one launch computes at most: past about a hundred, the kernels
/// of the (13, 120, 60) HMult fill the GPU, and a fused NTT's grid z
/// (sources times instances) must stay below 65536.
constexpr unsigned kMaxInstancesPerLaunch = 256;

/// The share of the device's free memory a batch's two regions may take
/// together: the rest stays for the caller's other work.
constexpr size_t kFreeMemoryShare = 4;

/// A region's pinned staging at most (inputs and outputs of its chunk).
constexpr size_t kMaxStagingBytes = size_t(512) << 20;

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

/// Instances a chunk of a batch of `instances` takes: what two regions fit
/// in a share of the free device memory (the regions this driver holds
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
  const size_t byMemory = (free + held) / kFreeMemoryShare / 2 / layout_.bytes;
  if (byMemory == 0)
    throw OutOfDeviceMemory(
        "not enough GPU memory: one instance of the program needs " +
        mebibytes(layout_.bytes) + " and a batch may take " +
        mebibytes((free + held) / kFreeMemoryShare / 2) +
        " (an eighth of the " + mebibytes(free + held) + " free)");
  const size_t byStaging =
      kMaxStagingBytes /
      (std::max<size_t>(stagingWords_, 1) * sizeof(uint64_t));
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
    region = std::make_unique<Region>(layout_, stagingWords_, capacity);
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

/// One instance's inputs into its place in the region's pinned staging.
void CudaDriver::stageInputs(Region &region,
                             const std::vector<ProgramInput> &inputs,
                             unsigned instance) {
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s_.inputs[v];
    const size_t words = valueWords(s_, layout);
    if (std::holds_alternative<const DeviceCiphertext *>(inputs[v]))
      throw Error("input " + std::to_string(v) +
                  ": a batch's instances take their inputs from the host");
    for (size_t k = 0; k < layout.components; ++k)
      std::memcpy(region.staged(instance, stagingWords_, inputStaging_[v][k]),
                  hostInputWords(layout, inputs[v], k),
                  words * sizeof(uint64_t));
  }
}

/// The staged chunk of the region entered: its inputs in, its constants
/// restored, the schedule (its graph's replay on the region's stream, else
/// eagerly on the program's), its outputs out to the staging, and the
/// region's `done` event after it all.
void CudaDriver::enqueueChunk(Region &region, unsigned count, bool replay) {
  const cudaStream_t stream = replay ? region.stream.get() : stream_.get();
  const size_t stagingPitch = stagingWords_ * sizeof(uint64_t);
  const size_t stride = instances_.stride * sizeof(uint64_t);
  copyWithin(constantCopies(), stream); // in every instance
  for (size_t v = 0; v < s_.inputs.size(); ++v) {
    const ValueLayout &layout = s_.inputs[v];
    const size_t bytes = valueWords(s_, layout) * sizeof(uint64_t);
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpy2DAsync(
                s_.bufferData[layout.buffers[k]], stride,
                region.staged(0, stagingWords_, inputStaging_[v][k]),
                stagingPitch, bytes, count, cudaMemcpyHostToDevice, stream),
            "copying input " + std::to_string(v) + " of a batch to the GPU");
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
  const size_t qBytes = s_.context->q().size() * s_.n * sizeof(uint64_t);
  for (size_t v = 0; v < s_.outputs.size(); ++v) {
    const ValueLayout &layout = s_.outputs[v];
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpy2DAsync(
                region.staged(0, stagingWords_, outputStaging_[v][k]),
                stagingPitch, s_.bufferData[layout.buffers[k]], stride, qBytes,
                count, cudaMemcpyDeviceToHost, stream),
            "copying output " + std::to_string(v) + " of a batch from the GPU");
  }
  check(cudaEventRecord(region.done.get(), stream),
        "recording the end of a batch's chunk");
  region.count = count;
}

/// Waits for the region's chunk and takes its outputs out of the staging,
/// on all cores.
void CudaDriver::collectChunk(Region &region,
                              std::vector<std::vector<Ciphertext>> &outputs) {
  const unsigned count = std::exchange(region.count, 0);
  cudaError_t finished = cudaEventSynchronize(region.done.get());
  if (finished != cudaSuccess)
    throw Error(programLabel(s_) + " failed on the GPU in a batch's chunk: " +
                cuda::describe(finished) +
                "; after a fault in a kernel, the process's CUDA context "
                "stays unusable");
  const size_t qWords = s_.context->q().size() * s_.n;
  parallelFor(
      count, workersFor(count, 0), "instance",
      [&](size_t, size_t i) {
        std::vector<Ciphertext> &instance = outputs[region.first + i];
        for (size_t v = 0; v < s_.outputs.size(); ++v) {
          // A value's components are staged one after another.
          const ValueLayout &layout = s_.outputs[v];
          const uint64_t *words =
              region.staged(i, stagingWords_, outputStaging_[v][0]);
          instance.push_back(
              Ciphertext{s_.context, layout.components,
                         std::vector<uint64_t>(
                             words, words + layout.components * qWords)});
        }
      },
      region.first);
}

std::vector<std::vector<Ciphertext>>
CudaDriver::runBatch(const std::vector<std::vector<ProgramInput>> &instances,
                     const BatchProgress &progress) {
  check(cudaSetDevice(device_), "selecting the CUDA device");
  const size_t total = instances.size();
  std::vector<std::vector<Ciphertext>> outputs(total);
  if (total == 0)
    return outputs;
  const unsigned capacity = chunkCapacity(total);
  const size_t chunks = (total + capacity - 1) / capacity;
  const size_t regions = chunks > 1 ? 2 : 1;
  size_t finished = 0;
  auto collect = [&](Region &region) {
    if (region.count == 0)
      return;
    const unsigned count = region.count;
    collectChunk(region, outputs);
    finished += count;
    if (progress)
      progress(finished);
  };
  try {
    for (size_t c = 0; c < chunks; ++c) {
      Region &region = regionFor(c % regions, capacity);
      collect(region); // chunk c - 2's, which the host's staging overwrites
      region.first = c * capacity;
      const unsigned count = static_cast<unsigned>(
          std::min<size_t>(capacity, total - region.first));
      parallelFor(
          count, workersFor(count, 0), "instance",
          [&](size_t, size_t i) {
            stageInputs(region, instances[region.first + i],
                        static_cast<unsigned>(i));
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
      enqueueChunk(region, count, replay);
      if (!replay) {
        collect(region);
        ++successfulRuns_;
      }
    }
    // The last two chunks, in order.
    std::vector<Region *> pending;
    for (size_t r = 0; r < regions; ++r)
      if (regions_[r]->count)
        pending.push_back(regions_[r].get());
    std::sort(pending.begin(), pending.end(),
              [](Region *a, Region *b) { return a->first < b->first; });
    for (Region *region : pending)
      collect(*region);
  } catch (...) {
    // Nothing of this batch may still write into memory it leaves.
    for (std::unique_ptr<Region> &region : regions_)
      if (region) {
        cudaStreamSynchronize(region->stream.get());
        region->count = 0;
      }
    cudaStreamSynchronize(stream_.get());
    throw;
  }
  successfulRuns_ += chunks;
  return outputs;
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
  const unsigned instances = static_cast<unsigned>(count);
  Region &region = regionFor(0, instances);
  for (unsigned i = 0; i < instances; ++i)
    stageInputs(region, inputs, i);
  region.first = 0;
  std::vector<std::vector<Ciphertext>> outputs(count);
  InRegion entered(*this, region, instances);
  if (successfulRuns_ == 0) {
    enqueueChunk(region, instances, /*replay=*/false);
    collectChunk(region, outputs);
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
  enqueueChunk(region, instances, /*replay=*/true);
  collectChunk(region, outputs);
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
