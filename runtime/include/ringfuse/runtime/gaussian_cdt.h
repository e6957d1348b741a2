//===- gaussian_cdt.h - discrete Gaussian inversion table -------*- C++ -*-===//
//
// GENERATED FILE, do not edit. Regenerate with:
//   python3 scripts/gen_gaussian_cdt.py --sigma 3.19 --bound 19 --digits 100
//       --output runtime/include/ringfuse/runtime/gaussian_cdt.h
//
// Target distribution: P(x) proportional to exp(-x^2 / (2 * 3.19^2)) for
// integers |x| <= 19, normalised to sum 1 over that range (the truncation
// SEAL and the HE Standard use). T_k = round(2^64 * CDF(-bound + k)), computed
// in decimal arithmetic at 100 significant digits, then rounded once.
//
// Quantisation: sampleGaussian returns x with probability
// (T_{x+bound} - T_{x+bound-1}) / 2^64, with T_{-1} = 0, T_{2*bound} = 2^64,
// so every probability is a multiple of 2^-64 and differs from the exact one
// by at most 2^-64. For this table:
//   statistical distance to the exact distribution = 4.029e-19
//   smallest probability (that of x = +-19)        = 2.476e-09
//   largest relative error of any probability      = 1.023e-11
// The table is exactly symmetric: T_k + T_{2*bound-1-k} = 2^64 for every k.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_GAUSSIAN_CDT_H
#define RINGFUSE_RUNTIME_GAUSSIAN_CDT_H

#include "ringfuse/runtime/config.h"

#include <cstdint>

namespace ringfuse::runtime {

/// The inversion table of sampleGaussian (prng.h).
struct GaussianCdt {
  /// The standard deviation the table was generated for.
  static constexpr double kSigma = 3.19;
  /// Samples lie in [-kBound, kBound].
  static constexpr int kBound = 19;
  static constexpr int kThresholdCount = 2 * kBound;

  /// T_k = round(2^64 * CDF(-kBound + k)), k = 0 .. kThresholdCount - 1.
  uint64_t thresholds[kThresholdCount];
};

/// A constexpr function rather than a namespace-scope array because device
/// code may not read host arrays; nvcc folds the literals into the kernel.
RF_HOST_DEVICE constexpr GaussianCdt gaussianCdt() {
  return GaussianCdt{{
      0x0000000aa27349e7ULL, // T_0  = 2^64 * P(x <= -19)
      0x0000004c2335c8e5ULL, // T_1  = 2^64 * P(x <= -18)
      0x000001b9d63763eaULL, // T_2  = 2^64 * P(x <= -17)
      0x000008f46c36ca75ULL, // T_3  = 2^64 * P(x <= -16)
      0x00002a1ca4312acbULL, // T_4  = 2^64 * P(x <= -15)
      0x0000b3f62de5bd44ULL, // T_5  = 2^64 * P(x <= -14)
      0x0002bb6d991e8044ULL, // T_6  = 2^64 * P(x <= -13)
      0x0009a9beb1c42aa8ULL, // T_7  = 2^64 * P(x <= -12)
      0x001f1ef6b8315ce1ULL, // T_8  = 2^64 * P(x <= -11)
      0x005b5601d55424bfULL, // T_9  = 2^64 * P(x <= -10)
      0x00f47ee97a7ca978ULL, // T_10 = 2^64 * P(x <= -9)
      0x02559a67e8ceaebeULL, // T_11 = 2^64 * P(x <= -8)
      0x05377df8e3d8bd97ULL, // T_12 = 2^64 * P(x <= -7)
      0x0aad236dd8aee2fdULL, // T_13 = 2^64 * P(x <= -6)
      0x140caa6625ee5ff4ULL, // T_14 = 2^64 * P(x <= -5)
      0x22a2ae87200dd556ULL, // T_15 = 2^64 * P(x <= -4)
      0x373581792174ce53ULL, // T_16 = 2^64 * P(x <= -3)
      0x51830c1050f1a646ULL, // T_17 = 2^64 * P(x <= -2)
      0x6ffe065e13845af0ULL, // T_18 = 2^64 * P(x <= -1)
      0x9001f9a1ec7ba510ULL, // T_19 = 2^64 * P(x <= 0)
      0xae7cf3efaf0e59baULL, // T_20 = 2^64 * P(x <= 1)
      0xc8ca7e86de8b31adULL, // T_21 = 2^64 * P(x <= 2)
      0xdd5d5178dff22aaaULL, // T_22 = 2^64 * P(x <= 3)
      0xebf35599da11a00cULL, // T_23 = 2^64 * P(x <= 4)
      0xf552dc9227511d03ULL, // T_24 = 2^64 * P(x <= 5)
      0xfac882071c274269ULL, // T_25 = 2^64 * P(x <= 6)
      0xfdaa659817315142ULL, // T_26 = 2^64 * P(x <= 7)
      0xff0b811685835688ULL, // T_27 = 2^64 * P(x <= 8)
      0xffa4a9fe2aabdb41ULL, // T_28 = 2^64 * P(x <= 9)
      0xffe0e10947cea31fULL, // T_29 = 2^64 * P(x <= 10)
      0xfff656414e3bd558ULL, // T_30 = 2^64 * P(x <= 11)
      0xfffd449266e17fbcULL, // T_31 = 2^64 * P(x <= 12)
      0xffff4c09d21a42bcULL, // T_32 = 2^64 * P(x <= 13)
      0xffffd5e35bced535ULL, // T_33 = 2^64 * P(x <= 14)
      0xfffff70b93c9358bULL, // T_34 = 2^64 * P(x <= 15)
      0xfffffe4629c89c16ULL, // T_35 = 2^64 * P(x <= 16)
      0xffffffb3dcca371bULL, // T_36 = 2^64 * P(x <= 17)
      0xfffffff55d8cb619ULL, // T_37 = 2^64 * P(x <= 18)
  }};
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_GAUSSIAN_CDT_H
