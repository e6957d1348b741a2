//===- tile.cuh - tiles of coefficients and exact dot products -*- CUDA -*-===//
//
// A block's tile of neighbouring coefficients in shared memory, staged with
// cp.async, and the exact 128-bit dot products (ProductSum, dotMod) that base
// conversion and scale-and-round take of a tile column and a row of weights.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each kernel file that includes it compiles what it uses.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_TILE_CUH
#define RINGFUSE_GPU_TILE_CUH

#include "dependent_launch.cuh"
#include "ringfuse/gpu/kernels.cuh"

#include "ringfuse/runtime/fixed_point.h"

#include <algorithm>
#include <type_traits>

namespace ringfuse::runtime::cuda {
namespace {

constexpr unsigned kThreads = 256;

dim3 gridFor(size_t threads, unsigned rows, Instances instances) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads), rows,
              instances.count);
}

// Base conversion, scale-and-round, scale-up ----------------------------------

// Both kernels below work on a tile of neighbouring coefficients per block:
// the words they read for it go to shared memory once (each read coalesced)
// with the rounded fraction sum each coefficient needs, then each thread
// takes an output limb and a pair of neighbouring coefficients, the pairs
// fastest, so that a warp shares its output limb's weights and writes one
// row. Every output word is a dot product of a tile column with a row of
// weights (dotMod, weightRows), summed exactly in 128 bits.

/// Coefficients per tile (at most), threads per block on the CUDA cores, and
/// the shared memory a block gets without opting in. 128 threads, not 256:
/// alone such a conversion at logN 15 is up to 15% slower, but HMult, whose
/// conversions run beside its NTTs (kernel-concurrent), is 2 to 3% faster at
/// logN 15: narrower blocks fit the SMs those leave (docs/experiments.md).
constexpr unsigned kTileCoefficients = 64, kTileThreads = 128;
// A tile's output loops (Tile::ownPair) need every tile's pairs to divide
// the block: tiles are powers of two up to kTileCoefficients.
static_assert(kTileThreads % (kTileCoefficients / 2) == 0);
constexpr size_t kTileSharedLimit = 48 * 1024;

/// Rows of a tile of `rows` words per coefficient: padded for the CUDA
/// cores' dot products, or for the tensor cores' (mma).
__host__ __device__ constexpr int tileRows(int rows, bool mma) {
  return mma ? mmaRows(rows) : paddedRows(rows);
}

/// The words a block keeps in shared memory per coefficient besides its
/// rounded sum: those its dot products read (`rows`) and the others it reads
/// (`extraRows`: kept limbs, an addend).
struct TileShape {
  int rows, extraRows;
};

/// A block's shared memory: per coefficient its rounded sum, its `rows`
/// words padded to tileRows (the dot products read the padding), then its
/// extra rows. Every part starts 16-byte aligned (the tile is even).
__host__ __device__ size_t tileBytes(const TileShape &shape, bool mma,
                                     unsigned tile) {
  return (sizeof(uint128_t) +
          sizeof(uint64_t) * (tileRows(shape.rows, mma) + shape.extraRows)) *
         tile;
}

/// The widest tile (up to kTileCoefficients and n, both powers of two, at
/// least two: threads take pairs of coefficients) whose shared memory,
/// bytesOf(tile), fits, or 0 if none does.
template <typename BytesOf> unsigned tileFor(size_t n, BytesOf bytesOf) {
  for (unsigned tile = unsigned(std::min<size_t>(kTileCoefficients, n));
       tile >= 2; tile /= 2)
    if (bytesOf(tile) <= kTileSharedLimit)
      return tile;
  return 0;
}

/// Two neighbouring 32-bit words (8-byte aligned) as 64-bit ones.
__device__ __forceinline__ ulonglong2 widenPair(const uint32_t *at) {
  const uint2 pair = *reinterpret_cast<const uint2 *>(at);
  return make_ulonglong2(pair.x, pair.y);
}

/// Starts an asynchronous copy of 16 bytes from global to shared memory
/// (cp.async: no registers hold them, so a thread issues all of its copies
/// before any lands).
__device__ __forceinline__ void stage16(void *shared, const void *global) {
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to),
               "l"(global)
               : "memory");
}

/// Waits for this thread's staged copies: their words are then its to read
/// (other threads' after a barrier).
__device__ __forceinline__ void waitForOwnStaged() {
  asm volatile("cp.async.wait_all;" ::: "memory");
}

/// The block's shared memory, laid out as tileBytes says.
struct Tile {
  uint128_t *rounded;
  uint64_t *words; // word (row i, coefficient c) at [i tile + c]
  uint64_t *extra; // extra row r at [r tile + c]

  unsigned logWidth; // the tile is 2^logWidth coefficients (tileFor)

  __device__ Tile(void *shared, unsigned tile, const TileShape &shape, bool mma)
      : rounded(static_cast<uint128_t *>(shared)),
        words(reinterpret_cast<uint64_t *>(rounded + tile)),
        extra(words + size_t(tileRows(shape.rows, mma)) * tile) {
    // Set here: nvcc's host pass compiles member initializers, and __ffs is
    // device-only.
    logWidth = __ffs(tile) - 1;
  }

  /// f(r, c) for each pair of neighbouring coefficients c, c + 1 of rows
  /// [0, rows) that this thread stages (the same pairs every call).
  template <typename F> __device__ void forOwnPairs(int rows, F f) const {
    const unsigned pairsLog = logWidth - 1;
    for (unsigned k = threadIdx.x; k < unsigned(rows) << pairsLog;
         k += blockDim.x)
      f(k >> pairsLog, 2 * (k & ((1u << pairsLog) - 1)));
  }

  /// The pair of neighbouring coefficients c, c + 1 this thread takes in a
  /// tile's outputs, and the first output it takes: blockDim.x is a multiple
  /// of the tile's pairs (both powers of two), so a thread keeps its pair and
  /// steps through the outputs by outputLanes().
  __device__ unsigned ownPair() const {
    return 2 * (threadIdx.x & ((1u << (logWidth - 1)) - 1));
  }
  __device__ unsigned firstOutput() const {
    return threadIdx.x >> (logWidth - 1);
  }
  __device__ unsigned outputLanes() const {
    return blockDim.x >> (logWidth - 1);
  }

  /// Starts staging `rows` rows of the tile's coefficients into `to` (row r
  /// at to + r tile), row r read from rowStart(r) (16-byte aligned: the tile
  /// is even). Rows of 32-bit words are widened as they are copied (loads,
  /// not cp.async: those copy bytes as they are).
  template <typename RowStart>
  __device__ void stageRows(uint64_t *to, int rows, RowStart rowStart) const {
    forOwnPairs(rows, [&](unsigned r, unsigned c) {
      uint64_t *at = to + (size_t(r) << logWidth) + c;
      if constexpr (sizeof(*rowStart(0)) == sizeof(uint64_t))
        stage16(at, rowStart(r) + c);
      else
        *reinterpret_cast<ulonglong2 *>(at) = widenPair(rowStart(r) + c);
    });
  }

  /// Zeroes rows [rows, padded) (their weights are zero too, but the
  /// products must be of defined words).
  __device__ void clearPaddingTo(int rows, int padded, unsigned tile) const {
    for (unsigned k = rows * tile + threadIdx.x; k < padded * tile;
         k += blockDim.x)
      words[k] = 0;
  }
};

/// rounded[c] = round(sum_i words[i tile + c] fractions[i]) for every
/// coefficient c of the tile. Ends with a barrier.
__device__ void roundFractionSums(const Tile &t, unsigned tile,
                                  const Fraction128 *fractions, int rows) {
  for (unsigned c = threadIdx.x; c < tile; c += blockDim.x) {
    FractionSum sum;
    for (int i = 0; i < rows; ++i)
      sum.add(t.words[size_t(i) * tile + c], fractions[i].high,
              fractions[i].low);
    t.rounded[c] = sum.roundHalfUp();
  }
  __syncthreads();
}

/// A sum of products of words below 2^62, kept as 32-bit partial products
/// in three 64-bit columns so that no product needs its 128-bit carry chain:
/// with a = a1 2^32 + a0 and b likewise, a0 b0 goes to `low`, a0 b1 + a1 b0
/// to `middle` (2^32) and a1 b1 (below 2^60) to `high` (2^64), and the
/// carries out of low and middle are counted. A product is then four wide
/// multiply-adds and three carry counts (eight instructions) where a 128-bit
/// product and sum took fourteen. The total is exact while below 2^128
/// (high is then below 2^64): productsPerSum says for how many products.
class ProductSum {
public:
  __device__ explicit ProductSum(uint128_t start = 0)
      : low_(static_cast<uint64_t>(start)),
        high_(static_cast<uint64_t>(start >> 64)) {}

  __device__ __forceinline__ void add(uint64_t a, uint64_t b) {
    asm("{\n\t.reg .u32 a0, a1, b0, b1, l0, l1, m0, m1;\n\t"
        "mov.b64 {a0, a1}, %5;\n\t"
        "mov.b64 {b0, b1}, %6;\n\t"
        "mov.b64 {l0, l1}, %0;\n\t"
        "mov.b64 {m0, m1}, %1;\n\t"
        "mad.lo.cc.u32 l0, a0, b0, l0;\n\t"
        "madc.hi.cc.u32 l1, a0, b0, l1;\n\t"
        "addc.u32 %3, %3, 0;\n\t"
        "mad.lo.cc.u32 m0, a0, b1, m0;\n\t"
        "madc.hi.cc.u32 m1, a0, b1, m1;\n\t"
        "addc.u32 %4, %4, 0;\n\t"
        "mad.lo.cc.u32 m0, a1, b0, m0;\n\t"
        "madc.hi.cc.u32 m1, a1, b0, m1;\n\t"
        "addc.u32 %4, %4, 0;\n\t"
        "mad.wide.u32 %2, a1, b1, %2;\n\t"
        "mov.b64 %0, {l0, l1};\n\t"
        "mov.b64 %1, {m0, m1};\n\t}"
        : "+l"(low_), "+l"(middle_), "+l"(high_), "+r"(lowCarries_),
          "+r"(middleCarries_)
        : "l"(a), "l"(b));
  }

  /// The sum: low + middle 2^32 + (high + carries) 2^64, where the upper
  /// word, the sum's floor over 2^64 less what low + middle 2^32 carries
  /// into it, fits 64 bits because the sum does 128.
  __device__ __forceinline__ uint128_t value() const {
    const uint64_t upper = high_ + lowCarries_ +
                           (static_cast<uint64_t>(middleCarries_) << 32);
    return low_ + (static_cast<uint128_t>(middle_) << 32) +
           (static_cast<uint128_t>(upper) << 64);
  }

private:
  uint64_t low_, middle_ = 0, high_;
  uint32_t lowCarries_ = 0, middleCarries_ = 0;
};

/// ProductSum for words and weights below 2^32 (a program of 32-bit words):
/// each product is one wide multiply-add into the low 64 bits, its carry
/// counted (three instructions, not eight). Exact while the sum is below
/// 2^128 and fewer than 2^32 products are added (productsPerSum's bound).
class NarrowProductSum {
public:
  __device__ explicit NarrowProductSum(uint128_t start = 0)
      : low_(static_cast<uint64_t>(start)),
        high_(static_cast<uint64_t>(start >> 64)) {}

  __device__ __forceinline__ void add(uint64_t a, uint64_t b) {
    asm("{\n\t.reg .u32 l0, l1;\n\t"
        "mov.b64 {l0, l1}, %0;\n\t"
        "mad.lo.cc.u32 l0, %2, %3, l0;\n\t"
        "madc.hi.cc.u32 l1, %2, %3, l1;\n\t"
        "addc.u32 %1, %1, 0;\n\t"
        "mov.b64 %0, {l0, l1};\n\t}"
        : "+l"(low_), "+r"(carries_)
        : "r"(static_cast<uint32_t>(a)), "r"(static_cast<uint32_t>(b)));
  }

  __device__ __forceinline__ uint128_t value() const {
    return low_ + (static_cast<uint128_t>(high_ + carries_) << 64);
  }

private:
  uint64_t low_, high_;
  uint32_t carries_ = 0;
};

/// The words of W neighbouring coefficients of a tile row (W = 1 or 2), as
/// 64-bit words whatever the memory holds.
template <int W> struct Words {
  uint64_t word[W];

  /// From shared or global memory of 64-bit words aligned to 8 W bytes.
  __device__ static Words load(const uint64_t *at) {
    Words words;
    if constexpr (W == 2) {
      const ulonglong2 pair = *reinterpret_cast<const ulonglong2 *>(at);
      words.word[0] = pair.x;
      words.word[1] = pair.y;
    } else {
      words.word[0] = *at;
    }
    return words;
  }
  /// From a program's 32-bit words, aligned to 4 W bytes.
  __device__ static Words load(const uint32_t *at) {
    Words words;
    if constexpr (W == 2) {
      const uint2 pair = *reinterpret_cast<const uint2 *>(at);
      words.word[0] = pair.x;
      words.word[1] = pair.y;
    } else {
      words.word[0] = *at;
    }
    return words;
  }
  __device__ void store(uint64_t *at) const {
    if constexpr (W == 2)
      *reinterpret_cast<ulonglong2 *>(at) = make_ulonglong2(word[0], word[1]);
    else
      *at = word[0];
  }
  /// Into a program's 32-bit words: each word is below a modulus below 2^30.
  __device__ void store(uint32_t *at) const {
    if constexpr (W == 2)
      *reinterpret_cast<uint2 *>(at) = make_uint2(
          static_cast<uint32_t>(word[0]), static_cast<uint32_t>(word[1]));
    else
      *at = static_cast<uint32_t>(word[0]);
  }
  /// Each word times w mod q (a conversion's or fast floor's scaling).
  __device__ Words times(ShoupConstant w, uint64_t q) const {
    Words scaled;
    for (int k = 0; k < W; ++k)
      scaled.word[k] = mulShoup(word[k], w, q);
    return scaled;
  }
};

/// Per coefficient k of W neighbours (column[k]): (initial_k + extra_k
/// extraWeight + sum_i column[i tile + k] weights[i]) mod m, over a padded
/// row (count a multiple of kDotUnroll). A ProductSum takes `perSum`
/// products (productsPerSum), the extra one and the initial value, and the
/// sum is reduced between such runs. The extra product folds a correction
/// (a multiple to subtract, a kept limb to add) into the one reduction at
/// the end, and the initial value a scale-and-round's rounded sum. Two
/// coefficients per thread share each weight they load and load their words
/// together. NARROW: every word, weight and extra below 2^32 (a program of
/// 32-bit words), summed by NarrowProductSum.
template <int W, bool NARROW = false>
__device__ Words<W>
dotMod(const uint64_t *column, unsigned tile, const uint64_t *weights,
       int count, int perSum, const Modulus &m, Words<W> extra = {},
       uint64_t extraWeight = 0, const uint128_t (&initial)[W] = {}) {
  using Sum = std::conditional_t<NARROW, NarrowProductSum, ProductSum>;
  Sum sums[W];
#pragma unroll
  for (int k = 0; k < W; ++k) {
    sums[k] = Sum(initial[k]);
    sums[k].add(extra.word[k], extraWeight);
  }
  for (int start = 0;; start += perSum) {
    const int end = min(count, start + perSum);
    // Not unrolled further: more carries in flight than predicates.
#pragma unroll 1
    for (int i = start; i < end; i += kDotUnroll) {
      // Rows are 16-byte aligned and kDotUnroll is even: pairs of weights.
      const auto *pairs = reinterpret_cast<const ulonglong2 *>(weights + i);
#pragma unroll
      for (int u = 0; u < kDotUnroll; ++u) {
        const ulonglong2 w = pairs[u / 2];
        const Words<W> x = Words<W>::load(column + size_t(i + u) * tile);
#pragma unroll
        for (int k = 0; k < W; ++k)
          sums[k].add(x.word[k], u % 2 ? w.y : w.x);
      }
    }
    Words<W> reduced;
#pragma unroll
    for (int k = 0; k < W; ++k)
      reduced.word[k] = reduce128Quick(sums[k].value(), m);
    if (end == count)
      return reduced;
#pragma unroll
    for (int k = 0; k < W; ++k)
      sums[k] = Sum(reduced.word[k]);
  }
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_TILE_CUH
