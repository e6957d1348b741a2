//===- sum_of_products_test.cpp - sum_of_products on the CPU driver -------===//
//
// The CPU driver's sum_of_products is the kernel's definition (the GPU is
// tested against it); here it is tested against an independent computation,
// one mulMod and one addMod per product (naiveSums), through a program at
// the kernel's bounds that also accumulates; and its word rule
// (sumOfProductsWord, which sums eight products in 128 bits before each
// reduction) against the same, with every word at its largest.
//
//===----------------------------------------------------------------------===//
#include "sum_of_products_program.h"

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/program.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using namespace handwritten;
using testing::randomBelow;

std::vector<ProgramInput> pointersTo(const std::vector<Ciphertext> &inputs) {
  std::vector<ProgramInput> pointers;
  for (const Ciphertext &ct : inputs)
    pointers.push_back(&ct);
  return pointers;
}

/// The program's factors: input v's components are factors 2v and 2v + 1.
std::vector<const uint64_t *> factorsOf(const std::vector<Ciphertext> &inputs) {
  std::vector<const uint64_t *> factors;
  for (const Ciphertext &ct : inputs)
    for (size_t c = 0; c < 2; ++c)
      factors.push_back(ct.component(c));
  return factors;
}

/// Whether output polynomial k (component k % 2 of output k / 2) is
/// `expected`.
bool outputIs(const std::vector<Ciphertext> &outputs, int k,
              const std::vector<uint64_t> &expected) {
  const uint64_t *words = outputs.at(k / 2).component(k % 2);
  return std::equal(expected.begin(), expected.end(), words);
}

TEST(SumOfProducts, TheCpuDriverGivesTheNaiveSums) {
  Program program = Program::fromFunctions(sumsManifest, sumsRun);
  const std::vector<Ciphertext> inputs = sumInputs(program.context(), nearQ);
  const std::vector<std::vector<uint64_t>> expected =
      naiveSums(factorsOf(inputs));
  std::vector<Ciphertext> outputs = program.run(pointersTo(inputs));
  ASSERT_EQ(outputs.size(), size_t(kSumOutputs / 2));
  for (int k = 0; k < kSumOutputs; ++k)
    EXPECT_TRUE(outputIs(outputs, k, expected[k])) << "output " << k;
  // The outputs' buffers hold the last run's sums: the first launch does
  // not accumulate, so a second run writes the same words.
  std::vector<Ciphertext> again = program.run(pointersTo(inputs));
  for (int k = 0; k < kSumOutputs; ++k)
    EXPECT_TRUE(outputIs(again, k, expected[k])) << "output " << k;
}

// (q - 1)^2 = 1 mod q: with every word q - 1, each output word is its
// number of products, the second launch's included; the 128-bit sums of
// the largest products still fold exactly.
TEST(SumOfProducts, WordsOfQMinusOneSumToTheirProductCounts) {
  Program program = Program::fromFunctions(sumsManifest, sumsRun);
  const std::vector<Ciphertext> inputs =
      sumInputs(program.context(), [](uint64_t q) { return q - 1; });
  std::vector<uint64_t> counts(kSumGroups, kSumGroups + kSumOutputs);
  const std::vector<int> &more = accumulatedTriples();
  for (size_t t = 0; t < more.size(); t += 3)
    ++counts[kAccumulatedOutputs[more[t]]];
  std::vector<Ciphertext> outputs = program.run(pointersTo(inputs));
  for (int k = 0; k < kSumOutputs; ++k)
    EXPECT_TRUE(outputIs(outputs, k, std::vector<uint64_t>(kQWords, counts[k])))
        << "output " << k << " is not " << counts[k] << " everywhere";
}

// The word rule alone, for moduli up to 2^62 (the bound its fold assumes),
// from 0 to 40 products around the fold of eight, with every word (the start
// included) at its largest or random: the naive sum's word.
TEST(SumOfProducts, TheWordRuleIsTheNaiveSum) {
  const uint64_t moduli[] = {kQ[0], (uint64_t(1) << 61) - 1,
                             (uint64_t(1) << 62) - 57};
  for (uint64_t value : moduli) {
    const Modulus q(value);
    for (bool largest : {true, false}) {
      auto word = [&] { return largest ? value - 1 : randomBelow(value); };
      std::vector<std::vector<uint64_t>> words(5, std::vector<uint64_t>(1));
      std::vector<const uint64_t *> factors;
      for (std::vector<uint64_t> &w : words) {
        w[0] = word();
        factors.push_back(w.data());
      }
      std::vector<uint8_t> first, second;
      for (int t = 0; t < 40; ++t) {
        first.push_back(static_cast<uint8_t>(t % 5));
        second.push_back(static_cast<uint8_t>((t * 3 + 1) % 5));
      }
      for (int end = 0; end <= 40; ++end) {
        const uint64_t start = word();
        uint64_t expected = start;
        for (int t = 0; t < end; ++t)
          expected =
              addMod(expected,
                     mulMod(words[first[t]][0], words[second[t]][0], q), value);
        EXPECT_EQ(sumOfProductsWord(factors.data(), first.data(), second.data(),
                                    0, end, 0, start, q),
                  expected)
            << "q = " << value << ", " << end << " products"
            << (largest ? " of q - 1" : "");
      }
    }
  }
}

} // namespace
} // namespace ringfuse::runtime
