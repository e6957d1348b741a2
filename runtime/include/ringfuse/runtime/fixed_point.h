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

/// A 256-bit accumulator of x * fraction, read back as round(sum). The carry
/// chains run in full, without data-dependent branches (GPU threads of a
/// warp then stay together).
struct FractionSum {
  uint64_t word[4] = {0, 0, 0, 0};

  RF_HOST_DEVICE void add(uint64_t x, uint64_t fractionHigh,
                          uint64_t fractionLow) {
    const uint128_t low = static_cast<uint128_t>(x) * fractionLow;
    const uint128_t high = static_cast<uint128_t>(x) * fractionHigh;
    uint128_t column = static_cast<uint128_t>(word[0]) + uint64_t(low);
    word[0] = uint64_t(column);
    // Three words and a carry below 2: no overflow of 128 bits.
    column = (column >> 64) + word[1] + uint64_t(low >> 64) + uint64_t(high);
    word[1] = uint64_t(column);
    column = (column >> 64) + word[2] + uint64_t(high >> 64);
    word[2] = uint64_t(column);
    word[3] += uint64_t(column >> 64);
  }

  /// floor(sum + 1/2): the integer part after adding 2^127.
  RF_HOST_DEVICE uint128_t roundHalfUp() const {
    const uint128_t half =
        (static_cast<uint128_t>(word[1]) + (uint64_t(1) << 63)) >> 64;
    const uint128_t integer =
        ((static_cast<uint128_t>(word[3]) << 64) | word[2]);
    return integer + half;
  }
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_FIXED_POINT_H
