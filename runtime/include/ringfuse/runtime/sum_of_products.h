//===- sum_of_products.h - the sum_of_products kernel's word rule -*- C++
//-*-===//
//
// sum_of_products (kernel_catalog.def) adds many products word by word: a
// giant step of a matrix-vector product sums 64 or more plaintext-times-
// ciphertext products, which generated code would spell out term by term
// (and the host compiler would take seconds per program to compile). Its
// bounds and the one rule both drivers compute each word by live here.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_SUM_OF_PRODUCTS_H
#define RINGFUSE_RUNTIME_SUM_OF_PRODUCTS_H

#include "ringfuse/runtime/modarith.h"

#include <cstdint>

namespace ringfuse::runtime {

/// One launch's most factors, products and outputs: the GPU kernel takes
/// its pointers and index pairs by value, within the 4 KiB of a launch's
/// parameters. A longer sum is several launches, the later ones
/// accumulating into the outputs.
constexpr int kMaxSumFactors = 256;
constexpr int kMaxSumProducts = 256;
constexpr int kMaxSumOutputs = 8;

/// Products added in 128 bits before one reduction: each is below 2^124
/// (words below q < 2^62), so eight of them and a reduced word fit.
constexpr int kSumProductsPerFold = 8;

/// Word `i` of one output: `start` (0, or the output's word when
/// accumulating) plus the products of factors first[t] and second[t] for t
/// in [begin, end), reduced mod q. Any order of additions gives the same
/// word, so both drivers agree bit for bit.
template <typename Factors>
RF_HOST_DEVICE inline uint64_t
sumOfProductsWord(const Factors &factors, const uint8_t *first,
                  const uint8_t *second, int begin, int end, size_t i,
                  uint64_t start, const Modulus &q) {
  uint128_t sum = start;
  int pending = 0;
  for (int t = begin; t < end; ++t) {
    sum += static_cast<uint128_t>(factors[first[t]][i]) * factors[second[t]][i];
    if (++pending == kSumProductsPerFold) {
      sum = reduce128(sum, q);
      pending = 0;
    }
  }
  return reduce128(sum, q);
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_SUM_OF_PRODUCTS_H
