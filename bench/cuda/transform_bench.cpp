//===- transform_bench.cpp - times the GPU transforms ---------------------===//
//
// Reads one configuration per line on stdin:
//   <ntt|dgt> <word bits 32|64> <logN> <limbs> <forward|inverse> <logN1> <radix> <otStages>
// and prints one JSON object per line: the median time of one transform of
// all limbs, in microseconds, and whether the output equals the CPU
// reference. Method (/work/.library/device/METHOD.md): random residues, a
// rotation over enough input sets to exceed the L2 cache (each timed batch
// transforms every set once; it is captured as a CUDA graph and its replays
// are timed between two CUDA events), warm-up batches, the
// median over timed batches; every CUDA call checked. bench/tune_transforms.py
// drives it and keeps the cost table.
//
// Compiled by nvcc (CUDA source despite the .cpp name).
//
//===----------------------------------------------------------------------===//
#include "ntt.cuh"

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
  unsigned wordBits = 64, logN = 0, limbs = 0;
  cuda::NttShape shape;
};

template <typename Word> struct TablesOf;
template <> struct TablesOf<uint64_t> { using type = rt::NttTables; };
template <> struct TablesOf<uint32_t> { using type = rt::NttTables32; };
uint64_t modulusOf(const rt::NttTables &t) { return t.modulus().value; }
uint64_t modulusOf(const rt::NttTables32 &t) { return t.modulus(); }

template <typename T> T *deviceCopy(const std::vector<T> &host) {
  T *device = nullptr;
  check(cudaMalloc(&device, sizeof(T) * host.size()), "cudaMalloc");
  check(cudaMemcpy(device, host.data(), sizeof(T) * host.size(),
                   cudaMemcpyHostToDevice),
        "cudaMemcpy");
  return device;
}

template <typename Word> std::string run(const Config &c, std::mt19937_64 &rng) {
  using Tables = typename TablesOf<Word>::type;
  const size_t n = size_t(1) << c.logN;
  const unsigned bits = sizeof(Word) == 8 ? 60 : 30;
  std::vector<std::unique_ptr<Tables>> tables;
  for (uint64_t q : rt::findPrimesBelow(bits, c.limbs, 2 * n,
                                        [](uint64_t) { return false; }))
    tables.push_back(std::make_unique<Tables>(static_cast<Word>(q), n));
  if (tables.size() != c.limbs)
    throw rt::Error("not enough primes");

  std::vector<void *> allocations;
  std::vector<cuda::BasicNttLimb<Word>> limbs;
  for (const auto &t : tables) {
    auto *powers = deviceCopy(t->rootPowers());
    auto *inverse = deviceCopy(t->inverseRootPowers());
    allocations.push_back(powers);
    allocations.push_back(inverse);
    limbs.push_back({static_cast<Word>(modulusOf(*t)), powers, inverse,
                     t->inverseDegree()});
  }
  auto *limbArray = deviceCopy(limbs);
  allocations.push_back(limbArray);
  const cuda::BasicNttPlan<Word> plan{limbArray, static_cast<int>(c.limbs)};

  const size_t words = n * c.limbs;
  const size_t sets =
      std::max<size_t>(2, kRotationBytes / (words * sizeof(Word)) + 1);
  std::vector<Word> input(words);
  for (size_t limb = 0; limb < c.limbs; ++limb)
    for (size_t i = 0; i < n; ++i)
      input[limb * n + i] = static_cast<Word>(rng() % modulusOf(*tables[limb]));
  std::vector<Word *> data;
  for (size_t s = 0; s < sets; ++s) {
    data.push_back(deviceCopy(input));
    allocations.push_back(data.back());
  }

  const bool forward = c.direction == "forward";
  auto launch = [&](Word *words, cudaStream_t stream) {
    if (forward)
      cuda::launchNttForward<Word>(plan, n, c.shape, words, stream);
    else
      cuda::launchNttInverse<Word>(plan, n, c.shape, words, stream);
  };

  // Correctness on set 0, before any timing touches it.
  launch(data[0], 0);
  check(cudaDeviceSynchronize(), "transform");
  std::vector<Word> output(words), expected = input;
  check(cudaMemcpy(output.data(), data[0], sizeof(Word) * words,
                   cudaMemcpyDeviceToHost),
        "cudaMemcpy");
  for (size_t limb = 0; limb < c.limbs; ++limb) {
    if (forward)
      tables[limb]->forward(expected.data() + limb * n);
    else
      tables[limb]->inverse(expected.data() + limb * n);
  }
  const bool correct = output == expected;

  // One batch (every input set once) as a CUDA graph, as the driver runs
  // programs: replays time the GPU, not the host's launch calls.
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "cudaStreamCreate");
  cudaGraph_t graph;
  cudaGraphExec_t batch;
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
        "cudaStreamBeginCapture");
  for (Word *set : data)
    launch(set, stream);
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  check(cudaGraphInstantiate(&batch, graph, 0), "cudaGraphInstantiate");

  cudaEvent_t start, stop;
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
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  check(cudaGraphExecDestroy(batch), "cudaGraphExecDestroy");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  for (void *p : allocations)
    check(cudaFree(p), "cudaFree");
  std::sort(perTransform.begin(), perTransform.end());

  std::ostringstream json;
  json << "\"median_us\": " << perTransform[perTransform.size() / 2]
       << ", \"min_us\": " << perTransform.front()
       << ", \"max_us\": " << perTransform.back()
       << ", \"input_sets\": " << sets
       << ", \"correct\": " << (correct ? "true" : "false");
  return json.str();
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
    fields >> c.transform >> c.wordBits >> c.logN >> c.limbs >> c.direction >>
        c.shape.logN1 >> c.shape.radix >> c.shape.otStages;
    std::printf("{\"config\": \"%s\", ", line.c_str());
    try {
      if (!fields || c.transform != "ntt" ||
          (c.direction != "forward" && c.direction != "inverse") ||
          (c.wordBits != 32 && c.wordBits != 64))
        throw rt::Error("expected: ntt <32|64> <logN> <limbs> "
                        "<forward|inverse> <logN1> <radix> <otStages>");
      std::string why;
      if (!cuda::isSupportedNttShape(c.wordBits / 8, c.logN, c.shape, &why))
        throw rt::Error(why);
      const std::string result =
          c.wordBits == 64 ? run<uint64_t>(c, rng) : run<uint32_t>(c, rng);
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
