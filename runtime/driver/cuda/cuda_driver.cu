//===- cuda_driver.cu - the CUDA driver: load, keys, runs, graphs ---------===//
//
// See cuda_driver.h for the layout of a program's allocation and the life of
// a run. Argument checks and the rule for kernel errors are the kernel
// table's (kernel_table.cpp): the first error is recorded, later kernel
// calls do nothing, run() throws it. A failed launch is such an error,
// naming the kernel and the CUDA error.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

#include "../kernel_table.h"

#include "ringfuse/gpu/timing_events.cuh"

#include <algorithm>
#include <cstring>

namespace ringfuse::runtime::detail {

using cuda::check;
using cuda::describe;
using cuda::mebibytes;

DeviceCiphertext allocateDeviceCiphertext(const ContextPtr &context,
                                          size_t components,
                                          cudaStream_t stream) {
  const size_t bytes =
      components * context->q().size() * context->degree() * sizeof(uint64_t);
  cuda::processUsesGpu() = true;
  void *memory = nullptr;
  // From the device's stream-ordered pool: no cudaMalloc, and no cudaFree,
  // which waits for the whole device, per ciphertext. Freed on the null
  // stream when the last holder lets go: every run that read the words had
  // finished before it returned.
  cuda::allocateOrExplain(
      [&] { return cudaMallocAsync(&memory, bytes, stream); }, bytes,
      "a ciphertext");
  return DeviceCiphertext{context, components,
                          std::shared_ptr<uint64_t>(
                              static_cast<uint64_t *>(memory),
                              [](uint64_t *p) { cudaFreeAsync(p, nullptr); })};
}

namespace {

/// The current device, once one is known to be visible.
int currentDevice() {
  int count = 0;
  cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw Error("cannot load the program for CUDA: no CUDA device is visible" +
                (counted != cudaSuccess
                     ? " (cudaGetDeviceCount: " + describe(counted) + ")"
                     : std::string()));
  }
  cuda::processUsesGpu() = true;
  int device = 0;
  check(cudaGetDevice(&device), "reading the current CUDA device");
  check(cudaSetDevice(device), "selecting the CUDA device");
  // The pool of run outputs (allocateDeviceCiphertext) keeps what is freed
  // for the next allocation instead of handing it back at each synchronize,
  // up to an eighth of the device: beyond that (many GPU ciphertexts freed
  // at once), a synchronize gives the rest back, for allocations outside
  // the pool (programs, batches, streams, graphs).
  cudaMemPool_t pool = nullptr;
  check(cudaDeviceGetDefaultMemPool(&pool, device),
        "reading the device's memory pool");
  size_t freeBytes = 0, totalBytes = 0;
  check(cudaMemGetInfo(&freeBytes, &totalBytes), "reading the GPU's memory");
  uint64_t keep = totalBytes / 8;
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
        "keeping the device's memory pool");
  return device;
}

} // namespace

CudaDriver::CudaDriver(RfRuntime &s) : s_(s), device_(currentDevice()) {
  const Context &c = *s.context;
  const size_t n = s.n, qWords = c.q().size() * n, qpWords = c.qp().size() * n;
  if (c.dnum() > static_cast<size_t>(cuda::kMaxDigits))
    throw Error("the parameter set has dnum = " + std::to_string(c.dnum()) +
                " key-switching digits; the CUDA driver handles at most " +
                std::to_string(cuda::kMaxDigits));
  for (size_t b = 0; b < s.bases.size(); ++b)
    if (s.bases[b].moduli.size() > 65535)
      throw Error("basis " + std::to_string(b) + " has too many moduli");

  // The tables: twiddles once per prime that some transformable basis has.
  std::map<uint64_t, const NttTables *> twiddles;
  for (const BasisPlan &plan : s.bases)
    if (plan.nttProblem.empty())
      for (size_t i = 0; i < plan.moduli.size(); ++i)
        twiddles.emplace(plan.moduli[i], plan.ntt[i]);
  TableImage measure(0);
  placeTables(s, twiddles, measure);

  // The rest of the allocation, after the tables: the buffers, spare and
  // scratch (one instance's region), then the keys.
  const size_t regionStart = measure.size();
  size_t offset = regionStart;
  std::vector<size_t> bufferOffsets;
  for (size_t words : s.bufferWords) {
    bufferOffsets.push_back(offset);
    offset = alignUp(offset + words * sizeof(uint64_t));
  }
  const size_t spareOffset = offset;
  offset = alignUp(offset + s.largestBuffer * sizeof(uint64_t));
  size_t scratchWords = 1;
  for (size_t k = 0; k < s.converters.size(); ++k)
    scratchWords = std::max(scratchWords, s.converters[k].copyFrom.size() * n);
  for (const ScaleRoundEntry &entry : s.scaleRounds)
    scratchWords = std::max(scratchWords, basisWords(&s, entry.output));
  for (const ScaleUpPlan &plan : s.scaleUps)
    scratchWords = std::max(scratchWords, plan.outputModuli.size() * n);
  const size_t scratchOffset = offset;
  offset = alignUp(offset + scratchWords * sizeof(uint64_t));
  for (size_t at : bufferOffsets)
    layout_.buffers.push_back(at - regionStart);
  layout_.spare = spareOffset - regionStart;
  layout_.scratch = scratchOffset - regionStart;
  layout_.bytes = offset - regionStart;
  keyWords_ = 2 * c.dnum() * qpWords;
  const size_t keysOffset = offset;
  offset =
      alignUp(offset + s.keyElements.size() * keyWords_ * sizeof(uint64_t));
  const size_t totalBytes = offset;

  for (size_t i = 0; i < kSideStreams; ++i)
    sides_.emplace_back();
  lastOnSide_.assign(sides_.size(), kNone);
  forked_.assign(sides_.size(), false);
  memory_ = cuda::DeviceMemory(totalBytes, "the program");

  // The tables again, now at their device addresses, and up they go.
  TableImage image(reinterpret_cast<uintptr_t>(memory_.get()));
  plans_ = placeTables(s, twiddles, image);
  check(cudaMemcpyAsync(memory_.get(), image.bytes().data(),
                        image.bytes().size(), cudaMemcpyHostToDevice,
                        stream_.get()),
        "uploading the program's tables");
  check(cudaMemsetAsync(memory_.get() + measure.size(), 0,
                        totalBytes - measure.size(), stream_.get()),
        "clearing the program's buffers");

  std::vector<uint64_t *> bufferData;
  for (size_t at : bufferOffsets)
    bufferData.push_back(reinterpret_cast<uint64_t *>(memory_.get() + at));
  scratch_ = reinterpret_cast<uint64_t *>(memory_.get() + scratchOffset);
  keys_ = reinterpret_cast<uint64_t *>(memory_.get() + keysOffset);
  for (size_t k = 0; k < s.constants.size(); ++k)
    if (!s.constants[k].words.empty())
      check(cudaMemcpyAsync(bufferData[s.constants[k].buffer],
                            plans_.constantWords[k],
                            s.constants[k].words.size() * sizeof(uint64_t),
                            cudaMemcpyDeviceToDevice, stream_.get()),
            "placing constant " + std::to_string(k));

  // Pinned staging for the inputs and outputs of a run.
  size_t stagingWords = 0;
  for (const ValueLayout &layout : s.inputs) {
    inputStaging_.emplace_back();
    for (size_t k = 0; k < layout.components; ++k) {
      inputStaging_.back().push_back(stagingWords);
      stagingWords += valueWords(s, layout);
    }
  }
  for (const ValueLayout &layout : s.outputs) {
    outputStaging_.emplace_back();
    for (size_t k = 0; k < layout.components; ++k) {
      outputStaging_.back().push_back(stagingWords);
      stagingWords += qWords;
    }
  }
  qPrimes_ = cuda::DeviceArray<uint64_t>(c.q().values(), stream_.get(),
                                         "the program's primes");
  // A batch stages only its plaintexts: ciphertexts are copied straight
  // from and into their batches.
  for (const ValueLayout &layout : s.inputs) {
    batchStaging_.push_back(batchStagingWords_);
    if (layout.plaintext)
      batchStagingWords_ += valueWords(s, layout);
  }
  pinned_ =
      cuda::PinnedMemory(std::max<size_t>(stagingWords, 1) * sizeof(uint64_t),
                         "the program's inputs and outputs");
  check(cudaStreamSynchronize(stream_.get()),
        "loading the program onto the GPU");

  uploaded_.assign(s.keyElements.size(), {});
  s.bufferData = std::move(bufferData);
  s.moduliData = plans_.moduli;
  s.spareBuffer = reinterpret_cast<uint64_t *>(memory_.get() + spareOffset);
  s.spareModuli = plans_.spareModuli;
}

CudaDriver::~CudaDriver() {
  // Work still queued must finish before the memory under it goes.
  cudaSetDevice(device_);
  cudaStreamSynchronize(stream_.get());
  cudaGetLastError();
}

void CudaDriver::placeKeys(bool force) {
  if (s_.keyElements.empty() || !s_.boundKeys.front())
    return;
  check(cudaSetDevice(device_), "selecting the CUDA device");
  const size_t qpWords = s_.context->qp().size() * s_.n;
  auto wordsOf = [](const KeySwitchKey *key) {
    std::vector<const uint64_t *> words;
    for (size_t j = 0; j < key->b.size(); ++j) {
      words.push_back(key->b[j].data());
      words.push_back(key->a[j].data());
    }
    return words;
  };
  bool copied = false;
  for (size_t k = 0; k < s_.keyElements.size(); ++k) {
    const KeySwitchKey *key = s_.boundKeys[k];
    std::vector<const uint64_t *> words = wordsOf(key);
    UploadedKey &slot = uploaded_[k];
    if (!force && slot.key == key && slot.words == words)
      continue;
    slot = {}; // until the copy is known to have succeeded
    uint64_t *target = keys_ + k * keyWords_;
    for (size_t j = 0; j < words.size(); ++j)
      check(cudaMemcpyAsync(target + j * qpWords, words[j],
                            qpWords * sizeof(uint64_t), cudaMemcpyHostToDevice,
                            stream_.get()),
            "uploading key " + std::to_string(k));
    copied = true;
  }
  if (!copied)
    return;
  check(cudaStreamSynchronize(stream_.get()), "uploading the keys");
  for (size_t k = 0; k < s_.keyElements.size(); ++k)
    uploaded_[k] = {s_.boundKeys[k], wordsOf(s_.boundKeys[k])};
}

/// Each constant's words into its buffer, zeros after them: a schedule may
/// reuse a constant's buffer as scratch.
std::vector<WordCopy> CudaDriver::constantCopies() const {
  std::vector<WordCopy> copies;
  for (size_t k = 0; k < s_.constants.size(); ++k) {
    const ConstantData &constant = s_.constants[k];
    copies.push_back({plans_.constantWords[k], s_.bufferData[constant.buffer],
                      constant.words.size(), s_.bufferWords[constant.buffer]});
  }
  return copies;
}

/// The constants and the inputs onto the device (on the stream; not waited
/// for): host inputs through pinned memory, so the copies are asynchronous;
/// the constants and the inputs already on the GPU in one launch.
void CudaDriver::bindInputs(const std::vector<ProgramInput> &inputs) {
  check(cudaSetDevice(device_), "selecting the CUDA device");
  uint64_t *pinned = reinterpret_cast<uint64_t *>(pinned_.get());
  const cudaStream_t stream = stream_.get();
  std::vector<WordCopy> copies = constantCopies();
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s_.inputs[v];
    for (size_t k = 0; k < layout.components; ++k) {
      const size_t words = valueWords(s_, layout);
      if (const auto *onDevice =
              std::get_if<const DeviceCiphertext *>(&inputs[v])) {
        copies.push_back({(*onDevice)->words.get() + k * words,
                          s_.bufferData[layout.buffers[k]], words});
        continue;
      }
      if (layout.prepared) {
        const Plaintext &given = *std::get<const Plaintext *>(inputs[v]);
        if (const uint64_t *kept = keptOnDevice(v, given)) {
          copies.push_back({kept, s_.bufferData[layout.buffers[k]], words});
          continue;
        }
      }
      uint64_t *staged = pinned + inputStaging_[v][k];
      std::memcpy(staged, hostInputWords(layout, inputs[v], k),
                  words * sizeof(uint64_t));
      check(cudaMemcpyAsync(s_.bufferData[layout.buffers[k]], staged,
                            words * sizeof(uint64_t), cudaMemcpyHostToDevice,
                            stream),
            "copying input " + std::to_string(v) + " to the GPU");
    }
  }
  copyWithin(copies, stream);
}

/// Prepared plaintext input `input`'s words in device memory, uploaded
/// when they were prepared anew since the last run (RfRuntime's
/// preparedInputs); null for words that are not the program's kept ones, or
/// past the memory the kept inputs may take.
const uint64_t *CudaDriver::keptOnDevice(size_t input, const Plaintext &given) {
  constexpr size_t kMaxDeviceInputBytes = size_t(1) << 30;
  auto prepared = s_.preparedInputs.find(input);
  if (prepared == s_.preparedInputs.end() ||
      &prepared->second.prepared != &given)
    return nullptr;
  const std::vector<uint64_t> &words = given.coefficients;
  DeviceInput &kept = deviceInputs_[input];
  if (kept.words.size() != words.size()) {
    const size_t bytes = words.size() * sizeof(uint64_t);
    if (deviceInputBytes_ + bytes > kMaxDeviceInputBytes)
      return nullptr;
    kept.words = cuda::DeviceArray<uint64_t>(words.size(), stream_.get(),
                                             "a prepared plaintext input");
    kept.generation = 0;
    deviceInputBytes_ += bytes;
  }
  if (kept.generation != prepared->second.generation) {
    kept.words.upload(words.data(), words.size(), "a prepared plaintext input");
    kept.generation = prepared->second.generation;
  }
  return kept.words.data();
}

/// A schedule's end: a region left open is an error. The program's stream
/// has waited for every launch (a capture ends on it).
void CudaDriver::finishSchedule() {
  closeOpenRegion(s_);
  forkAgain();
}

/// The schedule into a graph (on the second successful run). Any failure
/// (a call the emitted code makes that capture does not allow, say) leaves
/// the program running eagerly, as on its first run.
void CudaDriver::captureSchedule() {
  cuda::Graph captured = captureGraph(graphProblem_);
  if (!captured) {
    graphDisabled_ = true;
    return;
  }
  graph_ = std::move(captured);
}

/// The schedule, as the buffers and instances now are, captured into a
/// graph; an empty one and the reason when that fails.
cuda::Graph CudaDriver::captureGraph(std::string &problem) {
  cudaGetLastError(); // nothing stale may be blamed on a captured launch
  cudaError_t begin =
      cudaStreamBeginCapture(stream_.get(), cudaStreamCaptureModeThreadLocal);
  if (begin != cudaSuccess) {
    cudaGetLastError();
    problem = "cudaStreamBeginCapture: " + describe(begin);
    return {};
  }
  s_.failed = false;
  s_.error.clear();
  s_.runFunction(&s_, &kernelTable());
  finishSchedule();
  cudaGraph_t graph = nullptr;
  cudaError_t end = cudaStreamEndCapture(stream_.get(), &graph);
  problem.clear();
  if (s_.failed)
    problem = "capturing the schedule: " + s_.error;
  else if (end != cudaSuccess || !graph)
    problem = "cudaStreamEndCapture: " + describe(end);
  cudaGraphExec_t exec = nullptr;
  if (problem.empty()) {
    cudaError_t instantiate = cudaGraphInstantiate(&exec, graph, 0);
    if (instantiate != cudaSuccess)
      problem = "cudaGraphInstantiate: " + describe(instantiate);
  }
  cuda::Graph captured(graph, exec);
  if (!problem.empty()) {
    cudaGetLastError();
    s_.failed = false;
    s_.error.clear();
    return {};
  }
  return captured;
}

/// Runs the schedule on the stream: eagerly, or by replaying its graph.
void CudaDriver::runSchedule() {
  s_.failed = false;
  s_.error.clear();
  if (!graph_ && !graphDisabled_ && successfulRuns_ > 0)
    captureSchedule();
  if (graph_) {
    cudaError_t launch = cudaGraphLaunch(graph_.exec(), stream_.get());
    if (launch != cudaSuccess)
      fail(&s_, "cudaGraphLaunch: the schedule's graph failed to launch: " +
                    describe(launch));
    return;
  }
  s_.runFunction(&s_, &kernelTable());
  finishSchedule();
}

/// The schedule once on the stream (not waited for); throws a kernel's error.
void CudaDriver::runScheduleChecked() {
  runSchedule();
  if (s_.failed) {
    // Let the launches made before the error finish before the staging
    // memory is written again.
    cudaError_t drained = cudaStreamSynchronize(stream_.get());
    throw Error(programLabel(s_) + " failed in kernel " + s_.error +
                (drained != cudaSuccess
                     ? "; then the GPU reported " + describe(drained)
                     : std::string()));
  }
}

/// Waits for the stream; throws what the GPU reported (`when`: "" or, say,
/// " in a timed run").
void CudaDriver::finishRun(const std::string &when) {
  cudaError_t finished = cudaStreamSynchronize(stream_.get());
  if (finished != cudaSuccess)
    throw Error(programLabel(s_) + " failed on the GPU" +
                (graph_ ? " (replaying its captured graph)" : "") + when +
                ": " + describe(finished) +
                "; after a fault in a kernel, the process's CUDA context "
                "stays unusable");
}

std::vector<Ciphertext>
CudaDriver::run(const std::vector<ProgramInput> &inputs) {
  const size_t qWords = s_.context->q().size() * s_.n;
  uint64_t *pinned = reinterpret_cast<uint64_t *>(pinned_.get());
  bindInputs(inputs);
  runScheduleChecked();

  for (size_t v = 0; v < s_.outputs.size(); ++v) {
    const ValueLayout &layout = s_.outputs[v];
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpyAsync(pinned + outputStaging_[v][k],
                            s_.bufferData[layout.buffers[k]],
                            qWords * sizeof(uint64_t), cudaMemcpyDeviceToHost,
                            stream_.get()),
            "copying output " + std::to_string(v) + " from the GPU");
  }
  finishRun("");
  ++successfulRuns_;

  std::vector<Ciphertext> outputs;
  for (size_t v = 0; v < s_.outputs.size(); ++v) {
    const ValueLayout &layout = s_.outputs[v];
    Ciphertext ct{s_.context, layout.components,
                  std::vector<uint64_t>(layout.components * qWords)};
    for (size_t k = 0; k < layout.components; ++k)
      std::memcpy(ct.component(k), pinned + outputStaging_[v][k],
                  qWords * sizeof(uint64_t));
    outputs.push_back(std::move(ct));
  }
  return outputs;
}

std::vector<DeviceCiphertext>
CudaDriver::runOnDevice(const std::vector<ProgramInput> &inputs) {
  const size_t qWords = s_.context->q().size() * s_.n;
  // The outputs' own memory, made before the schedule runs (the program's
  // buffers are reused by the next run).
  std::vector<DeviceCiphertext> outputs;
  for (const ValueLayout &layout : s_.outputs)
    outputs.push_back(
        allocateDeviceCiphertext(s_.context, layout.components, stream_.get()));
  bindInputs(inputs);
  runScheduleChecked();
  std::vector<WordCopy> copies;
  for (size_t v = 0; v < s_.outputs.size(); ++v) {
    const ValueLayout &layout = s_.outputs[v];
    for (size_t k = 0; k < layout.components; ++k)
      copies.push_back({s_.bufferData[layout.buffers[k]],
                        outputs[v].words.get() + k * qWords, qWords});
  }
  copyWithin(copies, stream_.get());
  finishRun("");
  ++successfulRuns_;
  return outputs;
}

/// Binds the inputs once, makes sure the schedule is captured, then times
/// each graph replay with CUDA events.
std::vector<double>
CudaDriver::timeRuns(const std::vector<ProgramInput> &inputs, size_t warmup,
                     size_t iterations) {
  bindInputs(inputs);
  finishRun(" while its inputs were copied in");
  // The graph first (an eager run, then the capture), as run() makes it.
  while (!graph_ && !graphDisabled_) {
    runScheduleChecked();
    finishRun(" in a run before the timed ones");
    ++successfulRuns_;
  }
  for (size_t i = 0; i < warmup; ++i)
    runScheduleChecked();
  // Every timed run queued behind the last, then one wait: the events see
  // the replays back to back, not the host's launch latency.
  cuda::TimingEvents events(iterations);
  for (size_t i = 0; i < iterations; ++i) {
    events.recordStart(i, stream_.get());
    runScheduleChecked();
    events.recordStop(i, stream_.get());
  }
  finishRun(" in a timed run");
  successfulRuns_ += warmup + iterations;
  return events.microseconds();
}

std::unique_ptr<Driver> makeCudaDriver(RfRuntime &s) {
  try {
    return std::make_unique<CudaDriver>(s);
  } catch (const OutOfDeviceMemory &) {
    // Its streams, events and memory may fit once the pool of run outputs
    // hands back what it keeps: try once more, then it is the user's error.
    cuda::releasePooledMemory();
    return std::make_unique<CudaDriver>(s);
  }
}

} // namespace ringfuse::runtime::detail

namespace ringfuse::runtime {

bool cudaAvailable() { return cuda::deviceVisible(); }

int cudaDeviceCount() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError(); // no driver or no device: none visible
    return 0;
  }
  return count;
}

DeviceMemoryUse cudaMemory() {
  if (!cudaAvailable())
    throw Error("no usable CUDA device: no GPU memory to read");
  DeviceMemoryUse use;
  use.available = cuda::availableDeviceBytes(&use.total);
  return use;
}

DeviceCiphertext uploadCiphertext(const Ciphertext &ciphertext) {
  if (!cudaAvailable())
    throw Error("no usable CUDA device: a ciphertext cannot be copied to the "
                "GPU here");
  if (ciphertext.size < 2 ||
      ciphertext.data.size() != ciphertext.size * ciphertext.componentWords())
    throw Error("malformed ciphertext: " + std::to_string(ciphertext.size) +
                " components in " + std::to_string(ciphertext.data.size()) +
                " words");
  DeviceCiphertext copy = detail::allocateDeviceCiphertext(
      ciphertext.context, ciphertext.size, nullptr);
  cuda::check(cudaMemcpy(copy.words.get(), ciphertext.data.data(),
                         ciphertext.data.size() * sizeof(uint64_t),
                         cudaMemcpyHostToDevice),
              "copying a ciphertext to the GPU");
  // A copy from pageable memory may return before its DMA ends, and runs
  // read the words from non-blocking streams that the null stream does not
  // order: wait for it here.
  cuda::check(cudaStreamSynchronize(nullptr),
              "copying a ciphertext to the GPU");
  return copy;
}

Ciphertext downloadCiphertext(const DeviceCiphertext &ciphertext) {
  if (!ciphertext.words)
    throw Error("the GPU ciphertext holds no memory");
  Ciphertext copy{ciphertext.context, ciphertext.size, {}};
  copy.data.resize(copy.size * copy.componentWords());
  cuda::check(cudaMemcpy(copy.data.data(), ciphertext.words.get(),
                         copy.data.size() * sizeof(uint64_t),
                         cudaMemcpyDeviceToHost),
              "copying a ciphertext from the GPU");
  return copy;
}

} // namespace ringfuse::runtime
