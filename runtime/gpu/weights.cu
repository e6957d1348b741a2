//===- weights.cu - weight matrices as the GPU kernels read them ----------===//
//
// Host code: the layouts of conversion and rounding weights for the CUDA
// cores (padded rows per output) and the tensor cores (mma fragments), and
// how many products one exact 128-bit sum takes.
//
//===----------------------------------------------------------------------===//
#include "tile_mma.cuh"

#include "ringfuse/runtime/error.h"

#include <string>

namespace ringfuse::runtime::cuda {

std::vector<uint64_t> weightRows(const std::vector<uint64_t> &byInput,
                                 int inputs, int outputs) {
  const size_t row = paddedRows(inputs);
  std::vector<uint64_t> rows(row * outputs, 0);
  for (int i = 0; i < inputs; ++i)
    for (int o = 0; o < outputs; ++o)
      rows[o * row + i] = byInput[size_t(i) * outputs + o];
  return rows;
}

std::vector<uint32_t> mmaWeightFragments(const std::vector<uint64_t> &byInput,
                                         int inputs, int outputs, int planes) {
  const int outputTiles = (outputs + kMmaOutputs - 1) / kMmaOutputs;
  const int chunks = (inputs + kMmaRows - 1) / kMmaRows;
  auto byteOf = [&](int o, int i, int b) -> uint32_t {
    if (o >= outputs || i >= inputs)
      return 0;
    return (byInput[size_t(i) * outputs + o] >> (8 * b)) & 0xff;
  };
  // mma.sync's A fragment (16 x 32 bytes, row-major): lane g * 4 + q holds
  // in register r the bytes of row g + 8 (r mod 2), columns 4 q + 16 (r / 2)
  // and the three after it, the first in the lowest byte.
  std::vector<uint32_t> fragments;
  fragments.reserve(size_t(outputTiles) * chunks * planes * 32 * 4);
  for (int tileIndex = 0; tileIndex < outputTiles; ++tileIndex)
    for (int chunk = 0; chunk < chunks; ++chunk)
      for (int b = 0; b < planes; ++b)
        for (int lane = 0; lane < 32; ++lane)
          for (int r = 0; r < 4; ++r) {
            const int o = tileIndex * kMmaOutputs + lane / 4 + 8 * (r % 2);
            const int i = chunk * kMmaRows + 4 * (lane % 4) + 16 * (r / 2);
            uint32_t reg = 0;
            for (int u = 0; u < 4; ++u)
              reg |= byteOf(o, i + u, b) << (8 * u);
            fragments.push_back(reg);
          }
  return fragments;
}

int productsPerSum(uint64_t wordBound, uint64_t weightBound,
                   uint128_t initialBound) {
  if (weightBound >= kQuickReductionBound)
    throw Error("GPU dot products reduce modulo moduli below 2^62, not " +
                std::to_string(weightBound));
  if (wordBound == 0 || weightBound == 0)
    return kDotUnroll; // no words or no weights: no dot products
  const uint128_t product =
      static_cast<uint128_t>(wordBound - 1) * (weightBound - 1);
  const uint128_t extra =
      static_cast<uint128_t>(std::max(wordBound, weightBound) - 1) *
      (weightBound - 1);
  const uint128_t room = ~uint128_t(0) - extra - initialBound;
  const uint128_t fits = product ? room / product : room;
  const int perSum = static_cast<int>(std::min<uint128_t>(fits, 1 << 20)) /
                     kDotUnroll * kDotUnroll;
  if (perSum == 0)
    throw Error("GPU dot products of words below " + std::to_string(wordBound) +
                " and weights below " + std::to_string(weightBound) +
                " do not fit 128 bits");
  return perSum;
}

} // namespace ringfuse::runtime::cuda
