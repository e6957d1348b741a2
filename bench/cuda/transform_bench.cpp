//===- transform_bench.cpp - times the GPU transforms ---------------------===//
//
// Reads one configuration per line on stdin:
//   <ntt|dgt> <logN> <limbs> <forward|inverse> <logN1> <radix> <otStages>
// (the DGT's split is fixed by N: its last three fields are ignored)
// and prints one JSON object per line: the median time of one transform of
// all limbs, in microseconds, and whether the output equals the CPU
// reference. Method: random residues, a
// rotation over enough input sets to exceed the L2 cache (each timed batch
// transforms every set once; it is captured as a CUDA graph and its replays
// are timed between two CUDA events), warm-up batches, the
// median over timed batches; every CUDA call checked. bench/tune_transforms.py
// drives it and keeps the cost table.
//
// Compiled by nvcc (CUDA source despite the .cpp name).
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/dgt.cuh"
#include "ringfuse/gpu/ntt.cuh"

#include "ringfuse/runtime/dgt.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/number_theory.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace rt = ringfuse::runtime;
namespace cuda = ringfuse::runtime::cuda;

namespace {

void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    throw rt::Error(std::string(what) + ": " + cudaGetErrorString(error));
}

/// L2 on an H200 is 50 MB: the rotation covers at least twice that.
constexpr size_t kRotationBytes = size_t(100) << 20;
constexpr int kWarmupBatches = 3, kTimedBatches = 15;

struct Config {
  std::string transform, direction;
  unsigned logN = 0, limbs = 0;
  cuda::NttShape shape;
};

/// Device copies of host vectors, all freed with the holder (also when a
/// configuration fails part way, so failures do not pile up allocations).
class DeviceAllocations {
public:
  DeviceAllocations() = default;
  DeviceAllocations(const DeviceAllocations &) = delete;
  DeviceAllocations &operator=(const DeviceAllocations &) = delete;
  ~DeviceAllocations() {
    for (void *p : pointers_)
      cudaFree(p);
  }

  template <typename T> T *copy(const std::vector<T> &host) {
    T *device = nullptr;
    check(cudaMalloc(&device, sizeof(T) * host.size()), "cudaMalloc");
    pointers_.push_back(device);
    check(cudaMemcpy(device, host.data(), sizeof(T) * host.size(),
                     cudaMemcpyHostToDevice),
          "cudaMemcpy");
    return device;
  }

private:
  std::vector<void *> pointers_;
};

/// Runs `release` when the scope ends, however it ends.
template <typename Release> struct ScopeExit {
  Release release;
  ~ScopeExit() { release(); }
};
template <typename Release> ScopeExit(Release) -> ScopeExit<Release>;


/// The NTT of `limbs` primes at one shape: CPU tables, device plan.
template <typename Word> class NttCase {
public:
  NttCase(const std::vector<uint64_t> &primes, size_t n,
          const cuda::NttShape &shape)
      : n_(n), shape_(shape) {
    std::vector<cuda::BasicNttLimb<Word>> limbs;
    for (uint64_t q : primes) {
      tables_.push_back(std::make_unique<Tables>(static_cast<Word>(q), n));
      auto *powers = allocations_.copy(tables_.back()->rootPowers());
      auto *inverse = allocations_.copy(tables_.back()->inverseRootPowers());
      limbs.push_back(cuda::makeNttLimb(static_cast<Word>(q), powers, inverse,
                                        tables_.back()->inverseDegree()));
    }
    auto *limbArray = allocations_.copy(limbs);
    plan_ = {limbArray, static_cast<int>(primes.size())};
  }
  NttCase(const NttCase &) = delete;

  void gpu(bool forward, Word *data, cudaStream_t stream) const {
    if (forward)
      cuda::launchNttForward<Word>(plan_, n_, shape_, data, stream);
    else
      cuda::launchNttInverse<Word>(plan_, n_, shape_, data, stream);
  }
  void cpu(bool forward, size_t limb, Word *words) const {
    if (forward)
      tables_[limb]->forward(words);
    else
      tables_[limb]->inverse(words);
  }

private:
  using Tables = typename rt::NttTablesFor<Word>::type;
  size_t n_;
  cuda::NttShape shape_;
  std::vector<std::unique_ptr<Tables>> tables_;
  DeviceAllocations allocations_;
  cuda::BasicNttPlan<Word> plan_{};
};

/// The hierarchical DGT of `limbs` primes (its split is fixed by N).
template <typename Word> class DgtCase {
public:
  DgtCase(const std::vector<uint64_t> &primes, size_t n) {
    std::vector<const rt::DgtTables<Word> *> limbs;
    for (uint64_t p : primes) {
      tables_.push_back(std::make_unique<rt::DgtTables<Word>>(p, n));
      limbs.push_back(tables_.back().get());
    }
    device_ = std::make_unique<cuda::DgtDeviceTables<Word>>(limbs);
  }

  void gpu(bool forward, Word *data, cudaStream_t stream) const {
    if (forward)
      cuda::launchDgtForward(device_->plan(), data, stream);
    else
      cuda::launchDgtInverse(device_->plan(), data, stream);
  }
  void cpu(bool forward, size_t limb, Word *words) const {
    if (forward)
      tables_[limb]->forward(words);
    else
      tables_[limb]->inverse(words);
  }

private:
  std::vector<std::unique_ptr<rt::DgtTables<Word>>> tables_;
  std::unique_ptr<cuda::DgtDeviceTables<Word>> device_;
};

template <typename Word, typename Case>
std::string time(const Config &c, const std::vector<uint64_t> &primes,
                 const Case &transform, std::mt19937_64 &rng) {
  const size_t n = size_t(1) << c.logN;
  DeviceAllocations allocations;
  const size_t words = n * c.limbs;
  const size_t sets =
      std::max<size_t>(2, kRotationBytes / (words * sizeof(Word)) + 1);
  std::vector<Word> input(words);
  for (size_t limb = 0; limb < c.limbs; ++limb)
    for (size_t i = 0; i < n; ++i)
      input[limb * n + i] = static_cast<Word>(rng() % primes[limb]);
  std::vector<Word *> data;
  for (size_t s = 0; s < sets; ++s) {
    data.push_back(allocations.copy(input));
  }

  const bool forward = c.direction == "forward";
  auto launch = [&](Word *words, cudaStream_t stream) {
    transform.gpu(forward, words, stream);
  };

  // Correctness on set 0, before any timing touches it.
  launch(data[0], 0);
  check(cudaDeviceSynchronize(), "transform");
  std::vector<Word> output(words), expected = input;
  check(cudaMemcpy(output.data(), data[0], sizeof(Word) * words,
                   cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  for (size_t limb = 0; limb < c.limbs; ++limb)
    transform.cpu(forward, limb, expected.data() + limb * n);
  const bool correct = output == expected;

  // One batch (every input set once) as a CUDA graph, as the driver runs
  // programs: replays time the GPU, not the host's launch calls.
  cudaStream_t stream = nullptr;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t batch = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  ScopeExit release{[&] {
    if (start)
      cudaEventDestroy(start);
    if (stop)
      cudaEventDestroy(stop);
    if (batch)
      cudaGraphExecDestroy(batch);
    if (graph)
      cudaGraphDestroy(graph);
    if (stream)
      cudaStreamDestroy(stream);
  }};
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "cudaStreamCreate");
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
        "cudaStreamBeginCapture");
  for (Word *set : data)
    launch(set, stream);
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&batch, graph, 0), "cudaGraphInstantiate");

  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> perTransform;
  for (int round = 0; round < kWarmupBatches + kTimedBatches; ++round) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(cudaGraphLaunch(batch, stream), "cudaGraphLaunch");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (round >= kWarmupBatches)
      perTransform.push_back(ms * 1000.0f / static_cast<float>(sets));
  }
  std::sort(perTransform.begin(), perTransform.end());


  std::ostringstream json;
  json << "\"median_us\": " << perTransform[perTransform.size() / 2]
       << ", \"min_us\": " << perTransform.front()
       << ", \"max_us\": " << perTransform.back()
       << ", \"input_sets\": " << sets
       << ", \"correct\": " << (correct ? "true" : "false");
  return json.str();
}

template <typename Word>
std::string run(const Config &c, std::mt19937_64 &rng) {
  const size_t n = size_t(1) << c.logN;
  const std::vector<uint64_t> primes =
      rt::findPrimesBelow(60, c.limbs, 2 * n, [](uint64_t) { return false; });
  if (primes.size() != c.limbs)
    throw rt::Error("not enough primes");
  if (c.transform == "dgt")
    return time<Word>(c, primes, DgtCase<Word>(primes, n), rng);
  return time<Word>(c, primes, NttCase<Word>(primes, n, c.shape), rng);
}

} // namespace

int main() {
  std::mt19937_64 rng(std::random_device{}());
  std::string line;
  int failures = 0;
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    Config c;
    fields >> c.transform >> c.logN >> c.limbs >> c.direction >>
        c.shape.logN1 >> c.shape.radix >> c.shape.otStages;
    std::printf("{\"config\": \"%s\", ", line.c_str());
    try {
      if (!fields || (c.transform != "ntt" && c.transform != "dgt") ||
          (c.direction != "forward" && c.direction != "inverse"))
        throw rt::Error("expected: <ntt|dgt> <logN> <limbs> "
                        "<forward|inverse> <logN1> <radix> <otStages>");
      std::string why;
      if (c.transform == "ntt" &&
          !cuda::isSupportedNttShape(c.logN, c.shape, &why))
        throw rt::Error(why);
      const std::string result = run<uint64_t>(c, rng);
      std::printf("%s}\n", result.c_str());
      if (result.find("\"correct\": false") != std::string::npos)
        ++failures;
    } catch (const std::exception &e) {
      std::string message = e.what();
      std::replace(message.begin(), message.end(), '"', '\'');
      std::printf("\"error\": \"%s\"}\n", message.c_str());
      ++failures;
    }
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}
