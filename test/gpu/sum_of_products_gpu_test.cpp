//===- sum_of_products_gpu_test.cpp - sum_of_products, CUDA against CPU ---===//
//
// The program of sum_of_products_program.h (two launches: 256 factors, 256
// triples and 8 outputs, then one that accumulates) on both drivers: every
// output word of the CUDA driver must be the CPU driver's, on the first
// (eager) run, the second (captured into a CUDA graph, which keeps the
// kernel's parameters, not the schedule's arrays) and a replay; and both
// must be naiveSums'. Then the kernel alone at small rings, where the last
// block is partly past the words, against the same naive sums.
//
// Compiled by nvcc (CUDA source despite the .cpp name: see CMakeLists.txt).
// Every test skips where no CUDA device is visible.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/kernels.cuh"
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/program.h"

#include "device_buffer.h"
#include "sum_of_products_program.h"
#include "test_support.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ringfuse::runtime {
namespace {
using namespace handwritten;
using testing::checkCuda;
using testing::DeviceBuffer;
using testing::randomBelow;

class GpuSumOfProductsTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!cudaAvailable())
      GTEST_SKIP() << "no CUDA device is visible";
  }
};

/// "" if the words are equal; else the first difference and how many.
std::string differences(const std::vector<uint64_t> &gpu,
                        const std::vector<uint64_t> &cpu) {
  if (gpu.size() != cpu.size())
    return std::to_string(gpu.size()) + " words on the GPU, " +
           std::to_string(cpu.size()) + " on the CPU";
  size_t mismatches = 0, first = 0;
  for (size_t w = 0; w < cpu.size(); ++w)
    if (gpu[w] != cpu[w] && mismatches++ == 0)
      first = w;
  if (!mismatches)
    return "";
  return std::to_string(mismatches) + " of " + std::to_string(cpu.size()) +
         " words differ; the first is word " + std::to_string(first) +
         ": GPU " + std::to_string(gpu[first]) + ", CPU " +
         std::to_string(cpu[first]);
}

/// Output polynomial k of a run of the sums program (component k % 2 of
/// output k / 2).
std::vector<uint64_t> outputWords(const std::vector<Ciphertext> &outputs,
                                  int k) {
  const uint64_t *words = outputs.at(k / 2).component(k % 2);
  return std::vector<uint64_t>(words, words + kQWords);
}

TEST_F(GpuSumOfProductsTest, ProgramMatchesTheCpuDriverAndTheNaiveSums) {
  Program cpu = Program::fromFunctions(sumsManifest, sumsRun, Device::Cpu);
  Program gpu = Program::fromFunctions(sumsManifest, sumsRun, Device::Cuda);
  auto largest = [](uint64_t q) { return q - 1; };
  const std::vector<Ciphertext> datasets[] = {
      sumInputs(cpu.context(), nearQ), sumInputs(cpu.context(), largest)};
  const char *runs[] = {"the first (eager) run", "the second run (captured)",
                        "the third run (replayed)"};
  for (const std::vector<Ciphertext> &inputs : datasets) {
    std::vector<ProgramInput> pointers;
    std::vector<const uint64_t *> factors;
    for (const Ciphertext &ct : inputs) {
      pointers.push_back(&ct);
      factors.push_back(ct.component(0));
      factors.push_back(ct.component(1));
    }
    const std::vector<std::vector<uint64_t>> naive = naiveSums(factors);
    const std::vector<Ciphertext> expected = cpu.run(pointers);
    for (int k = 0; k < kSumOutputs; ++k)
      EXPECT_EQ(differences(outputWords(expected, k), naive[k]), "")
          << "the CPU driver's output " << k << " against the naive sums";
    for (const char *run : runs) {
      const std::vector<Ciphertext> out = gpu.run(pointers);
      for (int k = 0; k < kSumOutputs; ++k)
        EXPECT_EQ(differences(outputWords(out, k), outputWords(expected, k)),
                  "")
            << "output " << k << ", " << run;
    }
    EXPECT_TRUE(gpu.replaysGraph());
  }
}

/// The kernel launched alone over `limbs` primes of N = n words each: three
/// outputs of 3, 9 and 28 products of five factors (some squares), from 0
/// or accumulated onto random words, against mulMod and addMod per product.
void expectNaiveSumsAt(size_t n, int limbs, bool accumulate) {
  const std::vector<uint64_t> primes =
      findPrimesBelow(61, limbs, 2 * n, [](uint64_t) { return false; });
  const size_t words = size_t(limbs) * n;
  auto randomPolynomial = [&] {
    std::vector<uint64_t> p(words);
    for (size_t w = 0; w < words; ++w)
      p[w] = randomBelow(2) ? primes[w / n] - 1 : randomBelow(primes[w / n]);
    return p;
  };
  constexpr int kFactors = 5, kOutputs = 3;
  const int groups[kOutputs] = {3, 9, 28};
  std::vector<std::vector<uint64_t>> factors, outputs;
  for (int j = 0; j < kFactors; ++j)
    factors.push_back(randomPolynomial());
  for (int k = 0; k < kOutputs; ++k)
    outputs.push_back(randomPolynomial());

  std::vector<Modulus> moduli;
  for (uint64_t q : primes)
    moduli.push_back(Modulus(q));
  DeviceBuffer<Modulus> deviceModuli(moduli);
  std::vector<std::unique_ptr<DeviceBuffer<uint64_t>>> deviceFactors,
      deviceOutputs;
  cuda::SumOfProducts sums{};
  sums.moduli = deviceModuli.data();
  sums.limbs = limbs;
  sums.outputCount = kOutputs;
  sums.accumulate = accumulate;
  for (int j = 0; j < kFactors; ++j) {
    deviceFactors.push_back(
        std::make_unique<DeviceBuffer<uint64_t>>(factors[j]));
    sums.factors[j] = deviceFactors.back()->data();
  }
  for (int k = 0; k < kOutputs; ++k) {
    deviceOutputs.push_back(
        std::make_unique<DeviceBuffer<uint64_t>>(outputs[k]));
    sums.outputs[k] = deviceOutputs.back()->data();
  }
  int t = 0;
  for (int k = 0; k < kOutputs; ++k) {
    sums.firstProduct[k] = t;
    for (int p = 0; p < groups[k]; ++p, ++t) {
      sums.first[t] = static_cast<uint8_t>(t % kFactors);
      sums.second[t] = static_cast<uint8_t>((t * 2 + k) % kFactors);
    }
  }
  sums.firstProduct[kOutputs] = t;
  cuda::launchSumOfProducts(sums, n, nullptr);
  checkCuda(cudaDeviceSynchronize(), "the sums of products");

  for (int k = 0; k < kOutputs; ++k) {
    std::vector<uint64_t> expected(words);
    for (size_t w = 0; w < words; ++w) {
      const Modulus q(primes[w / n]);
      uint64_t sum = accumulate ? outputs[k][w] : 0;
      for (int p = sums.firstProduct[k]; p < sums.firstProduct[k + 1]; ++p)
        sum = addMod(
            sum,
            mulMod(factors[sums.first[p]][w], factors[sums.second[p]][w], q),
            q.value);
      expected[w] = sum;
    }
    EXPECT_EQ(differences(deviceOutputs[k]->download(), expected), "")
        << "N = " << n << ", " << limbs << " limbs, output " << k
        << (accumulate ? ", accumulating" : "");
  }
}

TEST_F(GpuSumOfProductsTest, KernelGivesTheNaiveSumsAtSmallRings) {
  for (size_t n : {size_t(2), size_t(64), size_t(4096)})
    for (int limbs : {1, 3})
      for (bool accumulate : {false, true})
        expectNaiveSumsAt(n, limbs, accumulate);
}

} // namespace
} // namespace ringfuse::runtime
