//===- sum_of_products_program.h - sums of products -------------*- C++ -*-===//
//
// A program written by hand (handwritten_programs.h's parameters) whose
// schedule is two sum_of_products launches: the first at the kernel's
// bounds (256 factors, the components of 128 input ciphertexts; 256 triples
// over 8 outputs, the components of 4 output ciphertexts, in groups shorter
// than, as long as and longer than kSumProductsPerFold), the second
// accumulating into two of the outputs. naiveSums computes what it must
// write, product by product with mulMod and addMod, independently of the
// kernel's word rule. test/cpp/sum_of_products_test.cpp runs it on the CPU
// driver against naiveSums; test/gpu/sum_of_products_gpu_test.cpp on both
// drivers, word for word.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_TEST_CPP_SUM_OF_PRODUCTS_PROGRAM_H
#define RINGFUSE_TEST_CPP_SUM_OF_PRODUCTS_PROGRAM_H

#include "handwritten_programs.h"

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/sum_of_products.h"
#include "test_support.h"

#include <vector>

namespace ringfuse::runtime::handwritten {

constexpr int kSumInputs = kMaxSumFactors / 2; // ciphertexts of 2 components
constexpr int kSumOutputs = kMaxSumOutputs;    // components of 4 ciphertexts

/// Output k's products in the first launch: 1 to 100, around a fold
/// (kSumProductsPerFold = 8) and past several, kMaxSumProducts in all.
constexpr int kSumGroups[kSumOutputs] = {100, 1, 7, 8, 9, 16, 17, 98};

/// The first launch's triples: output k's kSumGroups[k] products, their
/// factors spread over all 256 (the first: factors 0 and 255), every tenth
/// a square.
inline const std::vector<int> &sumTriples() {
  static const std::vector<int> triples = [] {
    std::vector<int> t;
    int product = 0;
    for (int k = 0; k < kSumOutputs; ++k)
      for (int p = 0; p < kSumGroups[k]; ++p, ++product) {
        const int a = (73 * product + k) % kMaxSumFactors;
        const int b = product % 10 == 9
                          ? a
                          : (151 * product + 5 * k + 255) % kMaxSumFactors;
        t.insert(t.end(), {k, a, b});
      }
    return t;
  }();
  return triples;
}

/// The second launch: into outputs 7 and 2 (its outputs 0 and 1), 11 and 9
/// products of factors 255, 0 and 17 (its factors 0, 1 and 2), accumulated.
const int kAccumulatedOutputs[] = {7, 2};
const int kAccumulatedFactors[] = {255, 0, 17};
inline const std::vector<int> &accumulatedTriples() {
  static const std::vector<int> triples = [] {
    std::vector<int> t;
    for (int p = 0; p < 20; ++p)
      t.insert(t.end(), {p < 11 ? 0 : 1, p % 3, (p / 3) % 3});
    return t;
  }();
  return triples;
}

/// 2 * kSumInputs input buffers, then kSumOutputs output buffers, over Q.
inline const RfManifest *sumsManifest() {
  static const std::vector<size_t> buffers(2 * kSumInputs + kSumOutputs,
                                           kQWords);
  static const std::vector<RfValue> inputs = [] {
    std::vector<RfValue> values;
    for (int v = 0; v < kSumInputs; ++v)
      values.push_back({RF_VALUE_CIPHERTEXT, 2, {2 * v, 2 * v + 1, -1}, 0});
    return values;
  }();
  static const std::vector<RfValue> outputs = [] {
    std::vector<RfValue> values;
    for (int v = 0; v < kSumOutputs / 2; ++v)
      values.push_back(
          {RF_VALUE_CIPHERTEXT,
           2,
           {2 * kSumInputs + 2 * v, 2 * kSumInputs + 2 * v + 1, -1},
           0});
    return values;
  }();
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("sums");
    m.buffer_words = buffers.data();
    m.buffer_count = static_cast<int>(buffers.size());
    m.inputs = inputs.data();
    m.input_count = static_cast<int>(inputs.size());
    m.outputs = outputs.data();
    m.output_count = static_cast<int>(outputs.size());
    return m;
  }();
  return &manifest;
}

/// The second launch's factors and outputs, picked from the first's.
struct AccumulatedOperands {
  const uint64_t *factors[3];
  uint64_t *outputs[2];
  AccumulatedOperands(const uint64_t *const *all, uint64_t *const *sums) {
    for (int i = 0; i < 3; ++i)
      factors[i] = all[kAccumulatedFactors[i]];
    for (int o = 0; o < 2; ++o)
      outputs[o] = sums[kAccumulatedOutputs[o]];
  }
};

/// kSumInputs ciphertexts over the program's Q, each word given by
/// word(q).
template <typename Word>
std::vector<Ciphertext> sumInputs(const ContextPtr &context, Word word) {
  std::vector<Ciphertext> inputs;
  for (int v = 0; v < kSumInputs; ++v) {
    Ciphertext ct{context, 2, std::vector<uint64_t>(2 * kQWords)};
    for (size_t w = 0; w < ct.data.size(); ++w)
      ct.data[w] = word(kQ[w % kQWords / kN]);
    inputs.push_back(std::move(ct));
  }
  return inputs;
}

/// A random word below q, half the time one of the four largest.
inline uint64_t nearQ(uint64_t q) {
  return testing::randomBelow(2) ? q - 1 - testing::randomBelow(4)
                                 : testing::randomBelow(q);
}

/// The same schedule on both drivers: it calls library kernels only.
inline void sumsRun(RfRuntime *rt, const RfKernels *k) {
  const uint64_t *factors[kMaxSumFactors];
  uint64_t *outputs[kSumOutputs];
  for (int i = 0; i < kMaxSumFactors; ++i)
    factors[i] = k->buffer(rt, i);
  for (int o = 0; o < kSumOutputs; ++o)
    outputs[o] = k->buffer(rt, kMaxSumFactors + o);
  k->sum_of_products(rt, Q, factors, kMaxSumFactors, sumTriples().data(),
                     kMaxSumProducts, outputs, kSumOutputs, 0);
  AccumulatedOperands second(factors, outputs);
  const std::vector<int> &more = accumulatedTriples();
  k->sum_of_products(rt, Q, second.factors, 3, more.data(),
                     static_cast<int>(more.size() / 3), second.outputs, 2, 1);
}

/// outputs[k] (over Q) plus, or (not accumulating) set to, the sum of its
/// triples' products, one mulMod and one addMod per product.
inline void addNaiveProducts(const uint64_t *const *factors,
                             const std::vector<int> &triples,
                             uint64_t *const *outputs, int outputCount,
                             bool accumulate) {
  if (!accumulate)
    for (int k = 0; k < outputCount; ++k)
      std::fill(outputs[k], outputs[k] + kQWords, 0);
  for (size_t t = 0; t < triples.size(); t += 3) {
    uint64_t *out = outputs[triples[t]];
    const uint64_t *a = factors[triples[t + 1]], *b = factors[triples[t + 2]];
    for (size_t limb = 0; limb < 3; ++limb) {
      const Modulus q(kQ[limb]);
      for (size_t i = limb * kN; i < (limb + 1) * kN; ++i)
        out[i] = addMod(out[i], mulMod(a[i], b[i], q), q.value);
    }
  }
}

/// What sumsRun writes into its kSumOutputs output buffers, from its 256
/// factors' words (kQWords each).
inline std::vector<std::vector<uint64_t>>
naiveSums(const std::vector<const uint64_t *> &factors) {
  std::vector<std::vector<uint64_t>> sums(kSumOutputs,
                                          std::vector<uint64_t>(kQWords));
  uint64_t *outputs[kSumOutputs];
  for (int k = 0; k < kSumOutputs; ++k)
    outputs[k] = sums[k].data();
  addNaiveProducts(factors.data(), sumTriples(), outputs, kSumOutputs, false);
  AccumulatedOperands second(factors.data(), outputs);
  addNaiveProducts(second.factors, accumulatedTriples(), second.outputs, 2,
                   true);
  return sums;
}

} // namespace ringfuse::runtime::handwritten

#endif // RINGFUSE_TEST_CPP_SUM_OF_PRODUCTS_PROGRAM_H
