//===- fixed_point.h - exact sums of integer * fraction -----------*- C++ -*-===//
//
// HPS's rounding terms sum x_i * theta_i with x_i < 2^62 and theta_i in [0, 1).
// With theta_i in 128-bit fixed point each product has 190 bits; four words
// hold the sum of up to 2^66 of them. Integer-only, so the CPU and GPU agree.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_FIXED_POINT_H
#define RINGFUSE_RUNTIME_FIXED_POINT_H

#include "ringfuse/runtime/config.h"
#include "ringfuse/runtime/number_theory.h"

#include <cstdint>

namespace ringfuse::runtime {

struct Fraction128;

/// A 256-bit accumulator of x * fraction, read back as round(sum).
struct FractionSum {
  uint64_t word[4] = {0, 0, 0, 0};

  RF_HOST_DEVICE void add(uint64_t x, uint64_t fractionHigh,
                          uint64_t fractionLow) {
    uint128_t lowProduct = static_cast<uint128_t>(x) * fractionLow;
    uint128_t highProduct = static_cast<uint128_t>(x) * fractionHigh;
    addAt(0, static_cast<uint64_t>(lowProduct));
    addAt(1, static_cast<uint64_t>(lowProduct >> 64));
    addAt(1, static_cast<uint64_t>(highProduct));
    addAt(2, static_cast<uint64_t>(highProduct >> 64));
  }

  /// floor(sum + 1/2): the integer part after adding 2^127.
  RF_HOST_DEVICE uint128_t roundHalfUp() const {
    FractionSum copy = *this;
    copy.addAt(1, uint64_t(1) << 63);
    return (static_cast<uint128_t>(copy.word[3]) << 64) | copy.word[2];
  }

private:
  RF_HOST_DEVICE void addAt(int index, uint64_t value) {
    for (; index < 4 && value; ++index) {
      uint64_t before = word[index];
      word[index] = before + value;
      value = word[index] < before ? 1 : 0;
    }
  }
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_FIXED_POINT_H
