//===- columns.cuh - narrow bases, one coefficient per thread -*- CUDA -*-===//
//
// What the column kernels of conversion.cu and scale_round.cu share: a
// coefficient's words of a narrow basis in registers, and two outputs' dot
// products at a time.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each kernel file that includes it compiles what it uses.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_COLUMNS_CUH
#define RINGFUSE_GPU_COLUMNS_CUH

#include "tile.cuh"

namespace ringfuse::runtime::cuda {
namespace {

// Narrow bases, one coefficient per thread -----------------------------------
//
// A conversion or rounding from a basis of at most kColumnBits bits of words
// (four 64-bit limbs or eight 32-bit ones: key switching's digits and its
// division by P at the usual sizes of P) does little work per
// output word: the tile's staging, barriers and (output, pair) tasks cost
// more than the dot products they share. There, once N gives enough threads,
// a thread keeps one coefficient's words in registers, scaled once, sums its
// own fractions and forms its output limbs from them, two at a time (two
// independent sums in flight); a warp's weights are one broadcast load.
// Wider bases stay on the tiles, which measured faster (docs/experiments.md).

constexpr int kColumnBits = 256;
/// The most limbs of a basis a column kernel of Word takes.
template <typename Word> constexpr int columnRows() {
  return kColumnBits / (8 * int(sizeof(Word)));
}
constexpr size_t kColumnMinCoefficients = size_t(1) << 15;

/// A coefficient's words of a narrow basis of ROWS limbs.
template <int ROWS> struct Column {
  uint64_t word[ROWS];
};

/// (extra[k] extraWeight[k] (if EXTRA) + plus + sum_i x[i] weights_k[i]) mod
/// moduli[k] for the weight rows of two outputs (k = 1 only if `two`).
/// NARROW: every word, weight and extra below 2^32 (NarrowProductSum).
template <bool EXTRA, int ROWS, bool NARROW = false>
__device__ __forceinline__ void columnDotMod2(
    const Column<ROWS> &x, const uint64_t *weights0, const uint64_t *weights1,
    bool two, const Modulus &m0, const Modulus &m1, const uint64_t (&extra)[2],
    const uint64_t (&extraWeight)[2], uint128_t plus, uint64_t (&out)[2]) {
  std::conditional_t<NARROW, NarrowProductSum, ProductSum> sum0, sum1;
  if constexpr (EXTRA) {
    sum0.add(extra[0], extraWeight[0]);
    sum1.add(extra[1], extraWeight[1]);
  }
  // Weights are read in pairs (rows are padded to paddedRows(ROWS)); the
  // padding's products are left out.
#pragma unroll
  for (int i = 0; i < ROWS; i += kDotUnroll) {
    const ulonglong2 w0 = *reinterpret_cast<const ulonglong2 *>(weights0 + i);
    sum0.add(x.word[i], w0.x);
    if (i + 1 < ROWS)
      sum0.add(x.word[i + 1], w0.y);
    if (two) {
      const ulonglong2 w1 = *reinterpret_cast<const ulonglong2 *>(weights1 + i);
      sum1.add(x.word[i], w1.x);
      if (i + 1 < ROWS)
        sum1.add(x.word[i + 1], w1.y);
    }
  }
  out[0] = reduce128Quick(sum0.value() + plus, m0);
  out[1] = two ? reduce128Quick(sum1.value() + plus, m1) : 0;
}

/// The first output limb and the count a column kernel's thread takes
/// (blockIdx.y's group of perGroup).
struct OutputGroup {
  int first, end;

  __device__ OutputGroup(int outputs, int perGroup)
      : first(int(blockIdx.y) * perGroup),
        end(::min(outputs, first + perGroup)) {}
};

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_COLUMNS_CUH
