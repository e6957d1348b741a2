//===- dgt_gpu_test.cpp - the CUDA hierarchical DGT against the CPU -----===//
//
// For N = 2^10 ... 2^17, several limbs (each its own prime) go through one
// launch per pass; the GPU's forward output must be DgtTables::forward's,
// word for word, and its inverse DgtTables::inverse's,
// both on the forward's output (giving back the input) and on arbitrary
// words of the DGT domain. What programs launch (forward and inverse in the
// NTT's order) must give NttTables::forward's words and back.
//
// Compiled by nvcc (CUDA source despite the .cpp name: see CMakeLists.txt).
// Without a CUDA device every test fails: it cannot check anything there.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/dgt.cuh"
#include "ringfuse/runtime/dgt.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/number_theory.h"

#include "device_buffer.h"
#include "test_support.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace ringfuse::runtime {
namespace {
using cuda::DgtDeviceTables;
using testing::randomBelow;

using testing::DeviceBuffer;
using testing::checkCuda;

class GpuDgtTest : public ::testing::Test {
protected:
  void SetUp() override {
    int devices = 0;
    ASSERT_EQ(cudaGetDeviceCount(&devices), cudaSuccess)
        << "no CUDA device is visible; gpu_tests runs on a GPU machine";
    ASSERT_GT(devices, 0) << "no CUDA device is visible";
  }
};

/// The first index where two limbs' words differ, for a readable failure.
template <typename Word>
std::string firstDifference(const std::vector<Word> &gpu,
                            const std::vector<Word> &cpu, size_t n) {
  for (size_t i = 0; i < gpu.size(); ++i)
    if (gpu[i] != cpu[i])
      return "limb " + std::to_string(i / n) + ", word " +
             std::to_string(i % n) + ": GPU " + std::to_string(gpu[i]) +
             ", CPU " + std::to_string(cpu[i]);
  return "none";
}

template <typename Word> void checkAgainstCpu(unsigned bits) {
  for (unsigned logN = 10; logN <= 17; ++logN) {
    const size_t n = size_t(1) << logN;
    const size_t limbs = logN >= 16 ? 2 : 4;
    const std::vector<uint64_t> primes =
        findPrimesBelow(bits, limbs, 2 * n, [](uint64_t) { return false; });
    ASSERT_EQ(primes.size(), limbs);
    std::vector<std::unique_ptr<DgtTables<Word>>> tables;
    std::vector<const DgtTables<Word> *> views;
    for (uint64_t p : primes) {
      tables.push_back(std::make_unique<DgtTables<Word>>(p, n));
      views.push_back(tables.back().get());
    }
    DgtDeviceTables<Word> device(views);

    std::vector<Word> input(limbs * n), domain(limbs * n);
    for (size_t l = 0; l < limbs; ++l)
      for (size_t i = 0; i < n; ++i) {
        input[l * n + i] = static_cast<Word>(randomBelow(primes[l]));
        domain[l * n + i] = static_cast<Word>(randomBelow(primes[l]));
      }
    std::vector<Word> cpuForward = input, cpuInverse = domain;
    for (size_t l = 0; l < limbs; ++l) {
      tables[l]->forward(cpuForward.data() + l * n);
      tables[l]->inverse(cpuInverse.data() + l * n);
    }

    DeviceBuffer<Word> words(limbs * n);
    words.upload(input);
    cuda::launchDgtForward(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the forward DGT");
    std::vector<Word> gpuForward = words.download();
    ASSERT_EQ(gpuForward, cpuForward)
        << bits << "-bit primes, N = " << n << ": first difference at "
        << firstDifference(gpuForward, cpuForward, n);

    cuda::launchDgtInverse(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the inverse DGT");
    std::vector<Word> roundTrip = words.download();
    ASSERT_EQ(roundTrip, input)
        << bits << "-bit primes, N = " << n << ": first difference at "
        << firstDifference(roundTrip, input, n);

    words.upload(domain);
    cuda::launchDgtInverse(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the inverse DGT");
    std::vector<Word> gpuInverse = words.download();
    ASSERT_EQ(gpuInverse, cpuInverse)
        << bits << "-bit primes, N = " << n << ": first difference at "
        << firstDifference(gpuInverse, cpuInverse, n);
  }
}

TEST_F(GpuDgtTest, ForwardAndInverseMatchTheCpuWith64BitWords) {
  checkAgainstCpu<uint64_t>(60);
}

/// Small rings (one tile per limb, R = 1 at N = 4) go through the same
/// kernels.
TEST_F(GpuDgtTest, SmallRingsMatchTheCpu) {
  for (size_t n : {size_t(4), size_t(8), size_t(32), size_t(256)}) {
    const uint64_t p =
        findPrimesBelow(60, 1, 2 * n, [](uint64_t) { return false; })[0];
    DgtTables64 tables(p, n);
    DgtDeviceTables<uint64_t> device({&tables});
    std::vector<uint64_t> input(n);
    for (uint64_t &v : input)
      v = randomBelow(p);
    std::vector<uint64_t> cpu = input;
    tables.forward(cpu.data());
    DeviceBuffer<uint64_t> words(n);
    words.upload(input);
    cuda::launchDgtForward(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the forward DGT");
    EXPECT_EQ(words.download(), cpu) << "N = " << n;
    cuda::launchDgtInverse(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the inverse DGT");
    EXPECT_EQ(words.download(), input) << "N = " << n;
  }
}

/// What compiled programs launch as their dgt transform: the NTT's words
/// (NttTables::forward's) and back, at the degrees programs use.
TEST_F(GpuDgtTest, AsNttGivesTheCpuNttsWordsAndBack) {
  for (unsigned logN = 10; logN <= 17; ++logN) {
    const size_t n = size_t(1) << logN, limbs = 3;
    const std::vector<uint64_t> primes =
        findPrimesBelow(60, limbs, 2 * n, [](uint64_t) { return false; });
    std::vector<std::unique_ptr<DgtTables64>> tables;
    std::vector<const DgtTables64 *> views;
    std::vector<uint64_t> input(limbs * n), cpu(limbs * n);
    for (size_t l = 0; l < limbs; ++l) {
      tables.push_back(std::make_unique<DgtTables64>(primes[l], n));
      views.push_back(tables.back().get());
      for (size_t i = 0; i < n; ++i)
        input[l * n + i] = randomBelow(primes[l]);
      std::copy(input.begin() + l * n, input.begin() + (l + 1) * n,
                cpu.begin() + l * n);
      NttTables(primes[l], n).forward(cpu.data() + l * n);
    }
    DgtDeviceTables<uint64_t> device(views);
    DeviceBuffer<uint64_t> words(limbs * n);
    words.upload(input);
    cuda::launchDgtForwardAsNtt(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the DGT in the NTT's order");
    const std::vector<uint64_t> gpu = words.download();
    ASSERT_EQ(gpu, cpu) << "N = " << n << ": first difference at "
                        << firstDifference(gpu, cpu, n);
    cuda::launchDgtInverseAsNtt(device.plan(), words.data(), nullptr);
    checkCuda(cudaDeviceSynchronize(), "the inverse DGT from the NTT's order");
    const std::vector<uint64_t> back = words.download();
    ASSERT_EQ(back, input) << "N = " << n << ": first difference at "
                           << firstDifference(back, input, n);
  }
}

TEST_F(GpuDgtTest, DeviceTablesRefuseLimbsOfDifferentDegrees) {
  const uint64_t p =
      findPrimesBelow(60, 1, 4096, [](uint64_t) { return false; })[0];
  DgtTables64 small(p, 1024), large(p, 2048);
  try {
    DgtDeviceTables<uint64_t> device({&small, &large});
    FAIL() << "limbs of N = 1024 and 2048 were accepted together";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("share N"), std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace ringfuse::runtime
