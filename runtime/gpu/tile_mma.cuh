//===- tile_mma.cuh - dot products on the tensor cores -*- CUDA -*-===//
//
// tile.cuh's dot products taken as byte-plane integer matrix products by
// mma.sync, for conversions and roundings wide enough to pay (mmaPays).
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each kernel file that includes it compiles what it uses.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_TILE_MMA_CUH
#define RINGFUSE_GPU_TILE_MMA_CUH

#include "tile.cuh"

namespace ringfuse::runtime::cuda {
namespace {

// Tensor-core dot products ---------------------------------------------------
//
// A dot product of words and weights is split into bytes: with
// x = sum_k x_k 2^(8k) and w = sum_l w_l 2^(8l), sum_i x_i w_i is
// sum_s 2^(8s) D_s where D_s = sum_(k + l = s) sum_i x_ik w_il. Each D_s is
// an integer matrix product over bytes, which mma.sync takes 16 outputs by
// 8 coefficients by 32 inputs at a time (A: the weights' byte l, B: the
// words' byte k), the (at most eight) (k, l) of one s summed in one
// accumulator. Over 32 inputs D_s <= 8 * 32 * 255^2 < 2^24 < 2^32, so the
// D_s with s = r mod 4, 32 bits apart, are the 32-bit words of one 128-bit
// number with no instruction at all, and the dot product is the sum of the
// four shifted by 8r (exact while it is below 2^128, which mmaPays checks;
// the sums wrap modulo 2^128 on the way). A program of 32-bit words has
// words and weights below 2^30: four byte planes each, a quarter of the
// products (PLANES = 4; the weights laid out so by mmaWeightFragments).

constexpr int kBytePlanes = 8, kClasses = 4;
/// The byte-plane sums D_s of PLANES planes a side.
template <int PLANES> __host__ __device__ constexpr int planeSums() {
  return 2 * PLANES - 1;
}
constexpr unsigned kMmaOutputs = 16, kMmaCoefficients = 8;
/// Threads of the tensor cores' blocks, and blocks per SM they are compiled
/// for (see the kernels below).
constexpr unsigned kMmaThreads = 128, kMmaBlocksPerSm = 5;

/// d += a b over unsigned bytes, a 16 x 32 (row-major), b 32 x 8
/// (column-major), d 16 x 8 (mma.sync's fragments, per lane).
__device__ __forceinline__ void mmaBytes(uint32_t (&d)[4], const uint4 &a,
                                         uint32_t b0, uint32_t b1) {
  asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b0), "r"(b1));
}

/// planes[k] = byte k of each of four words, word u's in byte u.
__device__ __forceinline__ void transposeBytes(const uint32_t (&w)[4],
                                               uint32_t (&planes)[4]) {
  const uint32_t low01 = __byte_perm(w[0], w[1], 0x5140),
                 high01 = __byte_perm(w[0], w[1], 0x7362),
                 low23 = __byte_perm(w[2], w[3], 0x5140),
                 high23 = __byte_perm(w[2], w[3], 0x7362);
  planes[0] = __byte_perm(low01, low23, 0x5410);
  planes[1] = __byte_perm(low01, low23, 0x7632);
  planes[2] = __byte_perm(high01, high23, 0x5410);
  planes[3] = __byte_perm(high01, high23, 0x7632);
}

/// The B fragments of the PLANES byte planes of the tile's rows [row, row +
/// 32) at this lane's coefficient `column`: rows 4 q .. 4 q + 3 and 16 + 4 q
/// .. (q = lane mod 4) in b[k][0] and b[k][1].
template <int PLANES>
__device__ __forceinline__ void
loadWordPlanes(const uint64_t *column, unsigned tile, int row, unsigned quad,
               uint32_t (&b)[PLANES][2]) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    uint32_t low[4], high[4], planes[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      const uint64_t word =
          column[size_t(row + 16 * half + 4 * quad + u) * tile];
      low[u] = static_cast<uint32_t>(word);
      high[u] = static_cast<uint32_t>(word >> 32);
    }
    transposeBytes(low, planes);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      b[k][half] = planes[k];
    if constexpr (PLANES == 8) {
      transposeBytes(high, planes);
#pragma unroll
      for (int k = 0; k < 4; ++k)
        b[4 + k][half] = planes[k];
    }
  }
}

/// sum_m sums[4m + r][e] 2^(32m): the sums as the words of one number.
template <int SUMS>
__device__ __forceinline__ uint128_t
concatenateWords(const uint32_t (&sums)[SUMS][4], int r, int e) {
  auto d = [&](int m) {
    return 4 * m + r < SUMS ? static_cast<uint64_t>(sums[4 * m + r][e]) : 0;
  };
  return (static_cast<uint128_t>(d(2) | d(3) << 32) << 64) |
         (d(0) | d(1) << 32);
}

/// dotMod on the tensor cores for every output j < outputs and coefficient
/// c of the tile: (addend(j, c) + sum_i w_ji words[i tile + c]) mod
/// moduli[j], where the addend (a correction, at most one product more:
/// mmaPays leaves room for it) joins the one reduction, handed to
/// emit(j, c, words) for c and c + 1 (c even). The weights are
/// mmaWeightFragments; the tile's rows are zero-padded to `rows`, a multiple
/// of kMmaRows. Each warp takes 16 outputs by 8 coefficients at a time; a
/// lane ends with outputs g and g + 8 (g = lane / 4) of coefficients 2 q and
/// 2 q + 1 (q = lane mod 4). Chunks of 32 inputs past the first are summed
/// reduced.
template <int PLANES, typename Addend, typename Emit>
__device__ void mmaDotProducts(const Tile &t, unsigned tile, int rows,
                               int outputs, const uint32_t *weights,
                               const Modulus *moduli, Addend addend,
                               Emit emit) {
  const unsigned lane = threadIdx.x % 32, group = lane / 4, quad = lane % 4;
  const unsigned outputTiles = (outputs + kMmaOutputs - 1) / kMmaOutputs;
  const unsigned coefficientTiles = tile / kMmaCoefficients;
  const int chunks = rows / kMmaRows;
  const auto *fragments = reinterpret_cast<const uint4 *>(weights);
  for (unsigned unit = threadIdx.x / 32; unit < outputTiles * coefficientTiles;
       unit += blockDim.x / 32) {
    // Coefficient tiles fastest: t.logWidth - 3 bits of the unit.
    const unsigned outputTile = unit >> (t.logWidth - 3);
    const unsigned first = (unit & (coefficientTiles - 1)) * kMmaCoefficients;
    const unsigned j[2] = {outputTile * kMmaOutputs + group,
                           outputTile * kMmaOutputs + group + 8};
    // A chunk's sums start from the reduced sums of the chunks before.
    uint128_t sum[4] = {};
    for (int chunk = 0; chunk < chunks; ++chunk) {
      uint32_t b[PLANES][2];
      loadWordPlanes<PLANES>(t.words + first + group, tile, chunk * kMmaRows,
                             quad, b);
      const uint4 *a = fragments +
                       (size_t(outputTile) * chunks + chunk) * PLANES * 32 +
                       lane;
      uint32_t sums[planeSums<PLANES>()][4] = {};
#pragma unroll
      for (int l = 0; l < PLANES; ++l) {
        const uint4 weightBytes = a[l * 32];
#pragma unroll
        for (int k = 0; k < PLANES; ++k)
          mmaBytes(sums[k + l], weightBytes, b[k][0], b[k][1]);
      }
#pragma unroll
      for (int e = 0; e < 4; ++e)
#pragma unroll
        for (int r = 0; r < kClasses; ++r)
          sum[e] += concatenateWords(sums, r, e) << (8 * r);
      if (chunk + 1 < chunks) {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (int(j[e / 2]) < outputs)
            sum[e] = reduce128Quick(sum[e], moduli[j[e / 2]]);
        continue;
      }
      const unsigned c = first + 2 * quad;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        if (int(j[h]) >= outputs)
          continue;
        const Modulus m = moduli[j[h]];
        Words<2> reduced;
#pragma unroll
        for (int w = 0; w < 2; ++w)
          reduced.word[w] =
              reduce128Quick(sum[2 * h + w] + addend(j[h], c + w), m);
        emit(j[h], c, reduced);
      }
    }
  }
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_TILE_MMA_CUH
