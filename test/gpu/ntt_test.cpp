//===- ntt_test.cpp - the GPU NTT against the CPU reference ---------------===//
//
// Every decomposition ntt.cu supports (every ring degree of the runtime,
// every N1, radix and number of on-the-fly stages) transforms several limbs
// in one launch and must give NttTables::forward / inverse word for word.
// The primes are the widest the GPU takes (61 bits), where the lazy bounds
// are tightest, and a quarter of each limb holds the largest residue q - 1.
//
// Compiled by nvcc (CUDA source despite the .cpp name: see CMakeLists.txt).
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/ntt.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/number_theory.h"

#include "device_buffer.h"
#include "test_support.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;

bool haveDevice() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
}

using testing::DeviceBuffer;

/// `limbs` primes, their CPU tables and a device plan.
template <typename Word> class LimbSet {
public:
  using Tables = typename NttTablesFor<Word>::type;

  /// Primes below 2^bits (0: the widest the GPU takes).
  LimbSet(unsigned logN, size_t limbs, unsigned bits = 0)
      : n_(size_t(1) << logN) {
    if (bits == 0)
      bits = 61;
    for (uint64_t q : findPrimesBelow(bits, limbs, 2 * n_,
                                      [](uint64_t) { return false; }))
      primes_.push_back(static_cast<Word>(q));
    std::vector<cuda::BasicNttLimb<Word>> plan;
    for (Word q : primes_) {
      tables_.push_back(std::make_unique<Tables>(q, n_));
      powers_.push_back(
          std::make_unique<DeviceBuffer<Shoup>>(tables_.back()->rootPowers()));
      inversePowers_.push_back(std::make_unique<DeviceBuffer<Shoup>>(
          tables_.back()->inverseRootPowers()));
      plan.push_back(cuda::makeNttLimb<Word>(q, powers_.back()->data(),
                                             inversePowers_.back()->data(),
                                             tables_.back()->inverseDegree()));
    }
    limbs_ = std::make_unique<DeviceBuffer<cuda::BasicNttLimb<Word>>>(plan);
  }

  cuda::BasicNttPlan<Word> plan() const {
    return {limbs_->data(), static_cast<int>(tables_.size())};
  }
  size_t limbCount() const { return tables_.size(); }
  const Tables &tables(size_t limb) const { return *tables_[limb]; }

  std::vector<Word> randomWords() const {
    std::vector<Word> words(limbCount() * n_);
    for (size_t limb = 0; limb < limbCount(); ++limb)
      for (size_t i = 0; i < n_; ++i)
        words[limb * n_ + i] =
            i < n_ / 4 ? primes_[limb] - 1
                       : static_cast<Word>(randomBelow(primes_[limb]));
    return words;
  }

  std::vector<Word> cpuForward(std::vector<Word> words) const {
    for (size_t limb = 0; limb < limbCount(); ++limb)
      tables(limb).forward(words.data() + limb * n_);
    return words;
  }

private:
  using Shoup = cuda::Shoup<Word>;
  size_t n_;
  std::vector<Word> primes_;
  std::vector<std::unique_ptr<Tables>> tables_;
  std::vector<std::unique_ptr<DeviceBuffer<Shoup>>> powers_, inversePowers_;
  std::unique_ptr<DeviceBuffer<cuda::BasicNttLimb<Word>>> limbs_;
};

std::string describe(unsigned logN, const cuda::NttShape &shape) {
  return "logN " + std::to_string(logN) + ", logN1 " +
         std::to_string(shape.logN1) + ", radix " +
         std::to_string(shape.radix) + ", OT " +
         std::to_string(shape.otStages);
}

/// Every supported shape at logN, forward and inverse, against the CPU, with
/// primes below 2^bits (0: the widest).
template <typename Word> void checkEveryShape(unsigned logN, unsigned bits = 0) {
  const LimbSet<Word> limbs(logN, logN >= 16 ? 3 : 4, bits);
  const size_t n = size_t(1) << logN;
  const std::vector<Word> input = limbs.randomWords();
  const std::vector<Word> expected = limbs.cpuForward(input);
  unsigned shapes = 0;
  for (unsigned logN1 : {0u, 4u, 5u, 6u, 7u, 8u})
    for (unsigned radix : {4u, 8u, 16u})
      for (unsigned ot = 0; ot <= kNttMaxOtStages; ++ot) {
        const cuda::NttShape shape{logN1, radix, ot};
        if (!cuda::isSupportedNttShape(logN, shape))
          continue;
        ++shapes;
        DeviceBuffer<Word> data(input);
        cuda::launchNttForward<Word>(limbs.plan(), n, shape, data.data(), 0);
        testing::checkCuda(cudaDeviceSynchronize(), "the forward NTT");
        ASSERT_EQ(data.download(), expected)
            << sizeof(Word) * 8 << "-bit forward, " << describe(logN, shape);
        cuda::launchNttInverse<Word>(limbs.plan(), n, shape, data.data(), 0);
        testing::checkCuda(cudaDeviceSynchronize(), "the inverse NTT");
        ASSERT_EQ(data.download(), input)
            << sizeof(Word) * 8 << "-bit inverse, " << describe(logN, shape);
      }
  EXPECT_GT(shapes, 0u) << "no shape at logN " << logN;
}

TEST(GpuNtt, EveryShapeMatchesTheCpuReferenceWith64BitWords) {
  ASSERT_TRUE(haveDevice()) << "no CUDA device";
  for (unsigned logN = 1; logN <= 17; ++logN)
    checkEveryShape<uint64_t>(logN);
}

// 64-bit words hold primes of any width below 2^61: the lazy bounds are
// multiples of q, and makeNttLimb's quotient constants (which ntt_products
// uses) take another form below 30 bits.
TEST(GpuNtt, NarrowPrimesIn64BitWordsMatchTheCpuReference) {
  ASSERT_TRUE(haveDevice()) << "no CUDA device";
  for (unsigned bits : {20u, 29u, 30u, 31u, 45u, 60u})
    for (unsigned logN : {5u, 12u, 15u}) {
      SCOPED_TRACE("primes below 2^" + std::to_string(bits));
      checkEveryShape<uint64_t>(logN, bits);
    }
}

TEST(GpuNtt, PrimesTooWideForTheLazyBoundsAreRefused) {
  const uint64_t tooWide = findPrimesBelow(62, 1, 2, [](uint64_t) {
                             return false;
                           }).front(); // between 2^61 and 2^62
  try {
    cuda::makeNttLimb<uint64_t>(tooWide, nullptr, nullptr, {});
    FAIL() << "a 62-bit prime was taken";
  } catch (const Error &error) {
    EXPECT_NE(std::string(error.what()).find("below 2^61"), std::string::npos)
        << error.what();
  }
  const uint64_t widest = (uint64_t(1) << 61) - 1; // a prime
  EXPECT_EQ(cuda::makeNttLimb<uint64_t>(widest, nullptr, nullptr, {}).q,
            widest);
}

TEST(GpuNtt, DefaultShapesAreSupportedAndUnsupportedShapesAreRefused) {
  for (unsigned logN = 1; logN <= 17; ++logN)
    EXPECT_TRUE(cuda::isSupportedNttShape(logN, cuda::defaultNttShape(logN)))
        << "logN " << logN;
  std::string why;
  EXPECT_FALSE(cuda::isSupportedNttShape(17, {0, 8, 0}, &why));
  EXPECT_NE(why.find("2^11"), std::string::npos) << why;
  EXPECT_FALSE(cuda::isSupportedNttShape(16, {8, 6, 0}, &why));
  EXPECT_NE(why.find("radix"), std::string::npos) << why;
  EXPECT_FALSE(cuda::isSupportedNttShape(16, {9, 8, 0}, &why));
  EXPECT_NE(why.find("[4, 8]"), std::string::npos) << why;
}

} // namespace
} // namespace ringfuse::runtime
