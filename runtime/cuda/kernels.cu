//===- kernels.cu - the CUDA driver's library kernels ---------------------===//
//
// A tile of coefficients per block (base conversion, scale-and-round), one
// thread per coefficient (scale-up) or per word (automorphism, key
// switching's inner product); the NTT is ntt.cu's. Every formula is the CPU
// reference's, on the same helpers, and the sums are exact, so the words are
// the CPU's.
//
//===----------------------------------------------------------------------===//
#include "kernels.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt.h"

#include <algorithm>
#include <string>
#include <type_traits>

namespace ringfuse::runtime::cuda {

namespace {

constexpr unsigned kThreads = 256;

dim3 gridFor(size_t threads, unsigned rows = 1) {
  return dim3(static_cast<unsigned>((threads + kThreads - 1) / kThreads), rows);
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
/// logN 15: narrower blocks fit the SMs those leave (docs/gpu-results.md).
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
  /// is even).
  template <typename RowStart>
  __device__ void stageRows(uint64_t *to, int rows, RowStart rowStart) const {
    forOwnPairs(rows, [&](unsigned r, unsigned c) {
      stage16(to + (size_t(r) << logWidth) + c, rowStart(r) + c);
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

/// The words of W neighbouring coefficients of a tile row (W = 1 or 2).
template <int W> struct Words {
  uint64_t word[W];

  /// From shared or global memory aligned to 8 W bytes.
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
  __device__ void store(uint64_t *at) const {
    if constexpr (W == 2)
      *reinterpret_cast<ulonglong2 *>(at) = make_ulonglong2(word[0], word[1]);
    else
      *at = word[0];
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
/// together.
template <int W>
__device__ Words<W> dotMod(const uint64_t *column, unsigned tile,
                           const uint64_t *weights, int count, int perSum,
                           const Modulus &m, Words<W> extra = {},
                           uint64_t extraWeight = 0,
                           const uint128_t (&initial)[W] = {}) {
  ProductSum sums[W];
#pragma unroll
  for (int k = 0; k < W; ++k) {
    sums[k] = ProductSum(initial[k]);
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
      sums[k] = ProductSum(reduced.word[k]);
  }
}

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
// the sums wrap modulo 2^128 on the way).

constexpr int kBytePlanes = 8, kPlaneSums = 2 * kBytePlanes - 1, kClasses = 4;
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

/// The B fragments of every byte plane of the tile's rows [row, row + 32)
/// at this lane's coefficient `column`: rows 4 q .. 4 q + 3 and 16 + 4 q ..
/// (q = lane mod 4) in b[k][0] and b[k][1].
__device__ __forceinline__ void loadWordPlanes(const uint64_t *column,
                                               unsigned tile, int row,
                                               unsigned quad,
                                               uint32_t (&b)[kBytePlanes][2]) {
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
    transposeBytes(high, planes);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      b[4 + k][half] = planes[k];
  }
}

/// sum_m sums[4m + r][e] 2^(32m): the sums as the words of one number.
__device__ __forceinline__ uint128_t
concatenateWords(const uint32_t (&sums)[kPlaneSums][4], int r, int e) {
  auto d = [&](int m) {
    return 4 * m + r < kPlaneSums ? static_cast<uint64_t>(sums[4 * m + r][e])
                                  : 0;
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
template <typename Addend, typename Emit>
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
      uint32_t b[kBytePlanes][2];
      loadWordPlanes(t.words + first + group, tile, chunk * kMmaRows, quad, b);
      const uint4 *a =
          fragments + (size_t(outputTile) * chunks + chunk) * kBytePlanes * 32 +
          lane;
      uint32_t sums[kPlaneSums][4] = {};
#pragma unroll
      for (int l = 0; l < kBytePlanes; ++l) {
        const uint4 weightBytes = a[l * 32];
#pragma unroll
        for (int k = 0; k < kBytePlanes; ++k)
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

/// behz.cpp's RedundantConverter: per coefficient c of the tile, the
/// signed multiple v = centered([(sum_i w_i [A/a_i]_r - x_r) f]_r), kept in
/// rounded[c] (two's complement). Ends with a barrier.
__device__ void redundantCorrections(const Tile &t, unsigned tile,
                                     const ConvertPlan &plan) {
  const Modulus r = plan.redundant;
  for (unsigned c = threadIdx.x; c < tile; c += blockDim.x) {
    const uint64_t s =
        dotMod<1>(t.words + c, tile, plan.redundantWeights,
                  paddedRows(plan.fromSize), plan.productsPerSum, r)
            .word[0];
    const uint64_t xr = plan.readsRedundant ? t.extra[c] : 0;
    const int64_t v = centered(
        mulMod(subMod(s, xr, r.value), plan.redundantFactor, r), r.value);
    t.rounded[c] = static_cast<uint128_t>(static_cast<__int128>(v));
  }
  __syncthreads();
}

__device__ int64_t correctionOf(uint128_t stored) {
  return static_cast<int64_t>(static_cast<uint64_t>(stored));
}

/// Once t.words holds a tile's scaled residues [x_i (A/a_i)^{-1}]_{a_i}
/// (behind a barrier): the rounded sums of x_i / a_i (exact) or BEHZ's
/// corrections (from the redundant limb the tile holds, if it reads one),
/// in t.rounded, behind a barrier. Returns whether the conversion is BEHZ's
/// (corrected).
__device__ __forceinline__ bool roundOrCorrect(const Tile &t, unsigned tile,
                                               const ConvertPlan &plan) {
  const bool corrected = plan.method == RF_CONVERT_MONTGOMERY ||
                         plan.method == RF_CONVERT_SHENOY_KUMARESAN;
  if (plan.method == RF_CONVERT_EXACT)
    roundFractionSums(t, tile, plan.inverseOfFrom, plan.fromSize);
  else if (corrected)
    redundantCorrections(t, tile, plan);
  return corrected;
}

/// The end of a conversion once t.words holds a tile's scaled residues
/// (roundOrCorrect), then each missing limb as a dot product of the residues
/// with [A/a_i]_{b_j}.
__device__ void convertScaledTile(const Tile &t, unsigned tile,
                                  const ConvertPlan &plan, uint64_t *out,
                                  size_t first, size_t n) {
  const bool corrected = roundOrCorrect(t, tile, plan);
  const unsigned c = t.ownPair();
  // The multiple of [A]_{b_j} to subtract, added as multiple ([-A]_{b_j}):
  // an exact conversion's rounded sum is at most the number of input limbs
  // (each x_i / a_i < 1), so it is its own residue for every output.
  Words<2> exactMultiple{};
  if (plan.method == RF_CONVERT_EXACT)
    for (int e = 0; e < 2; ++e)
      exactMultiple.word[e] = static_cast<uint64_t>(t.rounded[c + e]);
  for (unsigned j = t.firstOutput(); j < unsigned(plan.missingSize);
       j += t.outputLanes()) {
    const Modulus target = plan.missingModuli[j];
    Words<2> multiple = exactMultiple;
    if (corrected)
      for (int e = 0; e < 2; ++e)
        multiple.word[e] =
            signedResidue(correctionOf(t.rounded[c + e]), target);
    dotMod<2>(t.words + c, tile,
              plan.puncturedModTo + size_t(j) * paddedRows(plan.fromSize),
              paddedRows(plan.fromSize), plan.productsPerSum, target, multiple,
              target.value - plan.productModTo[j])
        .store(out + size_t(plan.missingLimbs[j]) * n + first + c);
  }
}

/// The words of a conversion's input limb i at coefficients c and c + 1 of
/// the tile at `first`, written to the target limb that copies it, if any.
__device__ __forceinline__ void writeCopied(const ConvertPlan &plan, unsigned i,
                                            unsigned c, Words<2> words,
                                            uint64_t *out, size_t first,
                                            size_t n) {
  if (const int to = plan.copyTo[i]; to >= 0)
    words.store(out + size_t(to) * n + first + c);
}

/// A conversion's input words for a tile of coefficients, staged (BEHZ's
/// redundant limb, if it reads one, as the tile's extra row), and its copied
/// limbs written from them; then, if it has missing limbs, its scaled
/// residues [x_i (A/a_i)^{-1}]_{a_i} in t.words, padded with zero rows to
/// `padded`, behind a barrier. Each thread copies and scales the words it
/// staged, so that one barrier follows the loads. Returns whether it has
/// missing limbs.
__device__ __forceinline__ bool
copyAndScaleTile(const Tile &t, unsigned tile, const ConvertPlan &plan,
                 const uint64_t *in, uint64_t *out, size_t first, size_t n,
                 int padded) {
  auto inputRow = [&](unsigned i) { return in + size_t(i) * n + first; };
  t.stageRows(t.words, plan.fromSize, inputRow);
  if (plan.readsRedundant)
    t.stageRows(t.extra, 1,
                [&](unsigned) { return inputRow(unsigned(plan.fromSize)); });
  t.clearPaddingTo(plan.fromSize, padded, tile);
  waitForOwnStaged();
  const bool missing = plan.missingSize > 0;
  t.forOwnPairs(plan.fromSize, [&](unsigned i, unsigned c) {
    uint64_t *at = t.words + size_t(i) * tile + c;
    const Words<2> x = Words<2>::load(at);
    writeCopied(plan, i, c, x, out, first, n);
    if (missing)
      x.times(plan.puncturedInverse[i], plan.fromModuli[i]).store(at);
  });
  if (plan.readsRedundant)
    t.forOwnPairs(1, [&](unsigned, unsigned c) {
      writeCopied(plan, plan.fromSize, c, Words<2>::load(t.extra + c), out,
                  first, n);
    });
  if (!missing)
    return false;
  __syncthreads();
  return true;
}

/// Rows of a scale-and-round's tile besides its divisor words: its kept
/// limbs' words (if it has lambda), then an addend's (`addend`).
__host__ __device__ int keptRows(const ScaleRoundPlanView &plan) {
  return plan.hasLambda ? plan.outputSize : 0;
}
__host__ __device__ TileShape scaleRoundShape(const ScaleRoundPlanView &plan,
                                              bool addend) {
  return {plan.divisorSize, keptRows(plan) + (addend ? plan.outputSize : 0)};
}
__host__ __device__ TileShape conversionShape(const ConvertPlan &plan) {
  return {plan.fromSize, plan.readsRedundant};
}

/// Where a scale-and-round's tile holds the addend's words.
__device__ uint64_t *stagedAddend(const Tile &t, unsigned tile,
                                  const ScaleRoundPlanView &plan) {
  return t.extra + size_t(keptRows(plan)) * tile;
}

/// Starts staging a scale-and-round's divisor words, kept limbs' words and
/// the addend's (if any) for a tile of coefficients.
__device__ __forceinline__ void stageDivisorTile(const Tile &t, unsigned tile,
                                                 const ScaleRoundPlanView &plan,
                                                 const uint64_t *in,
                                                 const uint64_t *addend,
                                                 size_t first, size_t n) {
  t.stageRows(t.words, plan.divisorSize, [&](unsigned i) {
    return in + size_t(plan.divisorLimbs[i]) * n + first;
  });
  if (plan.hasLambda)
    t.stageRows(t.extra, plan.outputSize, [&](unsigned o) {
      return in + size_t(plan.keptLimbs[o]) * n + first;
    });
  if (addend)
    t.stageRows(stagedAddend(t, tile, plan), plan.outputSize,
                [&](unsigned o) { return addend + size_t(o) * n + first; });
}

/// Once a scale-and-round's tile is staging (stageDivisorTile): its divisor
/// words, padded with zero rows to `padded`, scaled for a fast floor, or the
/// rounded sums of their fractions; ends with a barrier. Returns whether it
/// is a fast floor.
__device__ __forceinline__ bool
finishDivisorTile(const Tile &t, unsigned tile, const ScaleRoundPlanView &plan,
                  int padded) {
  t.clearPaddingTo(plan.divisorSize, padded, tile);
  waitForOwnStaged();
  const bool floors = plan.divisorScale != nullptr;
  if (floors)
    t.forOwnPairs(plan.divisorSize, [&](unsigned i, unsigned c) {
      uint64_t *at = t.words + size_t(i) * tile + c;
      Words<2>::load(at)
          .times(plan.divisorScale[i], plan.divisorModuli[i])
          .store(at);
    });
  __syncthreads();
  if (!floors)
    roundFractionSums(t, tile, plan.theta, plan.divisorSize);
  return floors;
}

/// rns.cpp's ScaleRoundPlan::apply (or behz.cpp's FastFloorPlan::apply,
/// which scales the divisor words and has no fractions) for a tile of
/// coefficients (blockIdx.x): the divisor limbs and the rounded sum of
/// their fractions once per coefficient (read where they sit in the input
/// basis), then each output limb from them, handed to
/// emit(output limb, coefficient, word).
template <typename Emit>
__device__ void scaleRoundTile(const Tile &t, unsigned tile,
                               const ScaleRoundPlanView &plan, Emit emit) {
  const bool floors =
      finishDivisorTile(t, tile, plan, paddedRows(plan.divisorSize));
  const unsigned c = t.ownPair();
  uint128_t rounded[2] = {};
  if (!floors)
    for (int e = 0; e < 2; ++e)
      rounded[e] = t.rounded[c + e];
  for (unsigned o = t.firstOutput(); o < unsigned(plan.outputSize);
       o += t.outputLanes()) {
    const Modulus m = plan.outputs[o];
    // The kept limb's term joins the dot product.
    const Words<2> kept = plan.hasLambda
                              ? Words<2>::load(t.extra + size_t(o) * tile + c)
                              : Words<2>{};
    // The rounded sum joins the dot product's one reduction (productsPerSum
    // left room for it).
    emit(o, c,
         dotMod<2>(t.words + c, tile,
                   plan.omega + size_t(o) * paddedRows(plan.divisorSize),
                   paddedRows(plan.divisorSize), plan.productsPerSum, m, kept,
                   plan.hasLambda ? plan.lambda[o] : 0, rounded));
  }
}

/// An emitter of rounded words (scaleRoundTile's) that writes them out,
/// plus the addend's (if any, staged in the tile: stagedAddend).
__device__ __forceinline__ auto writeRounded(const ScaleRoundPlanView &plan,
                                             const uint64_t *addend,
                                             unsigned tile, uint64_t *out,
                                             size_t first, size_t n) {
  return [=, &plan](unsigned o, unsigned c, Words<2> words) {
    if (addend) {
      const Words<2> more = Words<2>::load(addend + size_t(o) * tile + c);
      for (int e = 0; e < 2; ++e)
        words.word[e] =
            addMod(words.word[e], more.word[e], plan.outputs[o].value);
    }
    words.store(out + size_t(o) * n + first + c);
  };
}

/// Where a fused scale-round's conversion tile starts: after its own tile
/// (rounded sums stay 16-byte aligned).
__host__ __device__ size_t conversionTileOffset(const TileShape &rounding,
                                                bool mma, unsigned tile) {
  return (tileBytes(rounding, mma, tile) + 15) / 16 * 16;
}

/// An emitter of rounded words that writes each the conversion copies and
/// keeps each, scaled for the conversion, in the conversion's tile.
__device__ __forceinline__ auto scaleForConversion(const ConvertPlan &convert,
                                                   const Tile &conversion,
                                                   unsigned tile, uint64_t *out,
                                                   size_t first, size_t n) {
  return [=, &convert, &conversion](unsigned o, unsigned c, Words<2> words) {
    writeCopied(convert, o, c, words, out, first, n);
    words.times(convert.puncturedInverse[o], convert.fromModuli[o])
        .store(conversion.words + size_t(o) * tile + c);
  };
}

// The same tiles on the tensor cores ------------------------------------------
//
// For plans with mma weights (mmaPays): the tile's rows are padded to a
// multiple of kMmaRows and its dot products are mmaDotProducts'. Their
// blocks are narrower (kMmaThreads): the tensor cores' accumulators take
// about 120 registers a thread unbounded. Five blocks per SM (96 registers,
// up to 152 bytes spilled), each in its own phase (loads, fractions,
// products), keep it busier than four: HMult 0.2 to 0.9% faster at logN 16.

/// convertScaledTile with the dot products on the tensor cores.
__device__ void convertScaledTileMma(const Tile &t, unsigned tile,
                                     const ConvertPlan &plan, uint64_t *out,
                                     size_t first, size_t n) {
  const bool corrected = roundOrCorrect(t, tile, plan);
  // The multiple of [A]_{b_j} to subtract, added as multiple ([-A]_{b_j}),
  // as convertScaledTile adds it.
  auto correction = [&](unsigned j, unsigned c) -> uint128_t {
    const Modulus &target = plan.missingModuli[j];
    const uint64_t multiple =
        plan.method == RF_CONVERT_EXACT
            ? static_cast<uint64_t>(t.rounded[c])
            : (corrected ? signedResidue(correctionOf(t.rounded[c]), target)
                         : 0);
    return static_cast<uint128_t>(multiple) *
           (target.value - plan.productModTo[j]);
  };
  mmaDotProducts(t, tile, mmaRows(plan.fromSize), plan.missingSize,
                 plan.mmaWeights, plan.missingModuli, correction,
                 [&](unsigned j, unsigned c, Words<2> words) {
                   words.store(out + size_t(plan.missingLimbs[j]) * n + first +
                               c);
                 });
}

/// scaleRoundTile with the dot products on the tensor cores; the rounded
/// sum and the kept limb's term join the one reduction.
template <typename Emit>
__device__ void scaleRoundTileMma(const Tile &t, unsigned tile,
                                  const ScaleRoundPlanView &plan, Emit emit) {
  const bool floors =
      finishDivisorTile(t, tile, plan, mmaRows(plan.divisorSize));
  // The rounded sum is below |divisor| 2^62, far less than a product.
  auto terms = [&](unsigned o, unsigned c) -> uint128_t {
    const uint128_t kept =
        plan.hasLambda ? static_cast<uint128_t>(t.extra[size_t(o) * tile + c]) *
                             plan.lambda[o]
                       : 0;
    return kept + (floors ? 0 : t.rounded[c]);
  };
  mmaDotProducts(t, tile, mmaRows(plan.divisorSize), plan.outputSize,
                 plan.mmaOmega, plan.outputs, terms, emit);
}

// The kernels, on the CUDA cores or (MMA) the tensor cores -------------------

/// Threads per block, and blocks per SM to compile for (none asked of the
/// CUDA cores').
__host__ __device__ constexpr unsigned tileThreads(bool mma) {
  return mma ? kMmaThreads : kTileThreads;
}
__host__ __device__ constexpr unsigned tileBlocksPerSm(bool mma) {
  return mma ? kMmaBlocksPerSm : 0;
}

/// rns.cpp's BaseConverter::convert (or behz.cpp's RedundantConverter),
/// plus the copied limbs, for a tile of coefficients (blockIdx.x).
template <bool MMA>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    convertKernel(ConvertPlan plan, const uint64_t *in, uint64_t *out, size_t n,
                  unsigned tile) {
  extern __shared__ uint128_t tileMemory[];
  const Tile t(tileMemory, tile, conversionShape(plan), MMA);
  const size_t first = size_t(blockIdx.x) * tile;
  awaitPreviousKernel();
  allowNextKernel();
  if (!copyAndScaleTile(t, tile, plan, in, out, first, n,
                        tileRows(plan.fromSize, MMA)))
    return;
  if constexpr (MMA)
    convertScaledTileMma(t, tile, plan, out, first, n);
  else
    convertScaledTile(t, tile, plan, out, first, n);
}

/// The rounding of a staging tile (stageDivisorTile; scaleRoundTile or
/// scaleRoundTileMma), its words handed to emit.
template <bool MMA, typename Emit>
__device__ __forceinline__ void roundTile(const Tile &t, unsigned tile,
                                          const ScaleRoundPlanView &plan,
                                          Emit emit) {
  if constexpr (MMA)
    scaleRoundTileMma(t, tile, plan, emit);
  else
    scaleRoundTile(t, tile, plan, emit);
}

/// The rounded words written out, plus the addend's (if any).
template <bool MMA>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    scaleRoundKernel(ScaleRoundPlanView plan, const uint64_t *addend,
                     const uint64_t *in, uint64_t *out, size_t n,
                     unsigned tile) {
  extern __shared__ uint128_t tileMemory[];
  const Tile t(tileMemory, tile, scaleRoundShape(plan, addend != nullptr), MMA);
  const size_t first = size_t(blockIdx.x) * tile;
  awaitPreviousKernel();
  allowNextKernel();
  stageDivisorTile(t, tile, plan, in, addend, first, n);
  roundTile<MMA>(t, tile, plan,
                 writeRounded(plan,
                              addend ? stagedAddend(t, tile, plan) : nullptr,
                              tile, out, first, n));
}

/// scaleRoundKernel's words for a divisor of one prime d (key switching's
/// division by a one-prime P), read straight from the input: each word is
/// x_d omega_o + lambda_o x_k + round(x_d theta) mod its prime, plus the
/// addend's (if any), and each thread takes a pair of coefficients of one
/// output limb (blockIdx.y). There is no dot product for a tile to share: a
/// tile's staging and barriers would only delay this short launch, which
/// ends a key switch.
__global__ void scaleRoundByOnePrimeKernel(ScaleRoundPlanView plan,
                                           const uint64_t *addend,
                                           const uint64_t *in, uint64_t *out,
                                           size_t n) {
  const size_t c = 2 * (size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  awaitPreviousKernel();
  allowNextKernel();
  if (c >= n)
    return;
  const unsigned o = blockIdx.y;
  const Modulus m = plan.outputs[o];
  const Words<2> divisor =
      Words<2>::load(in + size_t(plan.divisorLimbs[0]) * n + c);
  const Words<2> kept =
      plan.hasLambda ? Words<2>::load(in + size_t(plan.keptLimbs[o]) * n + c)
                     : Words<2>{};
  const Words<2> more =
      addend ? Words<2>::load(addend + size_t(o) * n + c) : Words<2>{};
  const uint64_t omega = plan.omega[size_t(o) * paddedRows(1)];
  const uint64_t lambda = plan.hasLambda ? plan.lambda[o] : 0;
  Words<2> words;
  for (int e = 0; e < 2; ++e) {
    FractionSum fraction;
    fraction.add(divisor.word[e], plan.theta[0].high, plan.theta[0].low);
    // Below 2^124: two products of words below 2^61 and a small sum.
    const uint128_t sum = static_cast<uint128_t>(divisor.word[e]) * omega +
                          static_cast<uint128_t>(kept.word[e]) * lambda +
                          fraction.roundHalfUp();
    words.word[e] = addMod(reduce128Quick(sum, m), more.word[e], m.value);
  }
  words.store(out + size_t(o) * n + c);
}

/// scaleRoundKernel then convertKernel (exact) for a tile of coefficients:
/// each rounded word is written if the conversion copies it, and scaled for
/// the conversion as it is made and kept in shared memory, in a second tile
/// behind the rounding's. On the tensor cores only if both plans are.
template <bool MMA>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    scaleRoundConvertKernel(ScaleRoundPlanView scale, ConvertPlan convert,
                            const uint64_t *in, uint64_t *out, size_t n,
                            unsigned tile) {
  extern __shared__ uint128_t tileMemory[];
  const TileShape roundingShape = scaleRoundShape(scale, false);
  const Tile rounding(tileMemory, tile, roundingShape, MMA);
  const Tile conversion(reinterpret_cast<unsigned char *>(tileMemory) +
                            conversionTileOffset(roundingShape, MMA, tile),
                        tile, conversionShape(convert), MMA);
  const size_t first = size_t(blockIdx.x) * tile;
  awaitPreviousKernel();
  allowNextKernel();
  stageDivisorTile(rounding, tile, scale, in, nullptr, first, n);
  conversion.clearPaddingTo(convert.fromSize, tileRows(convert.fromSize, MMA),
                            tile);
  roundTile<MMA>(rounding, tile, scale,
                 scaleForConversion(convert, conversion, tile, out, first, n));
  __syncthreads();
  if constexpr (MMA)
    convertScaledTileMma(conversion, tile, convert, out, first, n);
  else
    convertScaledTile(conversion, tile, convert, out, first, n);
}

// Narrow bases, one coefficient per thread -----------------------------------
//
// A conversion or rounding from at most kColumnRows limbs (key switching's
// digits and its division by P at the usual sizes of P) does little work per
// output word: the tile's staging, barriers and (output, pair) tasks cost
// more than the dot products they share. There, once N gives enough threads,
// a thread keeps one coefficient's words in registers, scaled once, sums its
// own fractions and forms its output limbs from them, two at a time (two
// independent sums in flight); a warp's weights are one broadcast load.
// Wider bases stay on the tiles, which measured faster (docs/gpu-results.md).

constexpr int kColumnRows = 4;
constexpr size_t kColumnMinCoefficients = size_t(1) << 15;

/// A coefficient's words of a narrow basis of ROWS limbs.
template <int ROWS> struct Column {
  uint64_t word[ROWS];
};

/// (extra[k] extraWeight[k] (if EXTRA) + plus + sum_i x[i] weights_k[i]) mod
/// moduli[k] for the weight rows of two outputs (k = 1 only if `two`).
template <bool EXTRA, int ROWS>
__device__ __forceinline__ void
columnDotMod2(const Column<ROWS> &x, const uint64_t *weights0,
              const uint64_t *weights1, bool two, const Modulus &m0,
              const Modulus &m1, const uint64_t (&extra)[2],
              const uint64_t (&extraWeight)[2], uint128_t plus,
              uint64_t (&out)[2]) {
  ProductSum sum0, sum1;
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

/// convertKernel for a fast or (EXACT) exact conversion from a basis of
/// ROWS limbs: the copied limbs (group 0), then the group's missing limbs.
/// The basis size and method are compile-time constants so that a thread's
/// loads, scaling and sums are straight-line code, and a fast conversion
/// has no correction product.
template <int ROWS, bool EXACT>
__global__ void convertColumnsKernel(ConvertPlan plan, const uint64_t *in,
                                     uint64_t *out, size_t n, int perGroup) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  awaitPreviousKernel();
  allowNextKernel();
  if (c >= n)
    return;
  Column<ROWS> x;
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    x.word[i] = in[size_t(i) * n + c];
    if (blockIdx.y == 0 && plan.copyTo[i] >= 0)
      out[size_t(plan.copyTo[i]) * n + c] = x.word[i];
  }
  const OutputGroup group(plan.missingSize, perGroup);
  FractionSum fraction;
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    x.word[i] =
        mulShoup(x.word[i], plan.puncturedInverse[i], plan.fromModuli[i]);
    if constexpr (EXACT)
      fraction.add(x.word[i], plan.inverseOfFrom[i].high,
                   plan.inverseOfFrom[i].low);
  }
  // The multiple of [A]_{b_j} to subtract, added as a multiple of
  // [-A]_{b_j} (convertScaledTile's): at most the input count, its own
  // residue.
  const uint64_t multiple =
      EXACT ? static_cast<uint64_t>(fraction.roundHalfUp()) : 0;
  constexpr int kRow = paddedRows(ROWS);
  for (int j = group.first; j < group.end; j += 2) {
    const bool two = j + 1 < group.end;
    const int j1 = two ? j + 1 : j;
    const Modulus m0 = plan.missingModuli[j], m1 = plan.missingModuli[j1];
    const uint64_t extra[2] = {multiple, multiple};
    uint64_t extraWeight[2] = {};
    if constexpr (EXACT) {
      extraWeight[0] = m0.value - plan.productModTo[j];
      extraWeight[1] = m1.value - plan.productModTo[j1];
    }
    uint64_t words[2];
    columnDotMod2<EXACT>(x, plan.puncturedModTo + size_t(j) * kRow,
                         plan.puncturedModTo + size_t(j1) * kRow, two, m0, m1,
                         extra, extraWeight, 0, words);
    out[size_t(plan.missingLimbs[j]) * n + c] = words[0];
    if (two)
      out[size_t(plan.missingLimbs[j1]) * n + c] = words[1];
  }
}

/// scaleRoundKernel (not a fast floor) for a divisor of ROWS limbs: the
/// group's output limbs, each with its kept limb's term and the rounded
/// fraction sum in its one reduction, plus the addend's word (if any).
/// A pair of outputs' kept and addend words are fetched one pair ahead (the
/// first pair's with the divisor's words), so that a thread waits on global
/// memory about once, not once per pair.
template <int ROWS>
__global__ void scaleRoundColumnsKernel(ScaleRoundPlanView plan,
                                        const uint64_t *addend,
                                        const uint64_t *in, uint64_t *out,
                                        size_t n, int perGroup) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  awaitPreviousKernel();
  allowNextKernel();
  if (c >= n)
    return;
  const OutputGroup group(plan.outputSize, perGroup);
  // The kept and addend words of outputs o and o + 1 (where it is below
  // the group's end).
  struct PairWords {
    uint64_t kept[2] = {}, addend[2] = {};
  };
  auto fetch = [&](int o) {
    PairWords words;
    for (int k = 0; k < 2 && o + k < group.end; ++k) {
      if (plan.hasLambda)
        words.kept[k] = in[size_t(plan.keptLimbs[o + k]) * n + c];
      if (addend)
        words.addend[k] = addend[size_t(o + k) * n + c];
    }
    return words;
  };
  PairWords next = fetch(group.first);
  Column<ROWS> x;
  FractionSum fraction;
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    x.word[i] = in[size_t(plan.divisorLimbs[i]) * n + c];
    fraction.add(x.word[i], plan.theta[i].high, plan.theta[i].low);
  }
  // Below |divisor| 2^61: room that columnsFit leaves in the sum.
  const uint128_t rounded = fraction.roundHalfUp();
  constexpr int kRow = paddedRows(ROWS);
  for (int o = group.first; o < group.end; o += 2) {
    const PairWords current = next;
    if (o + 2 < group.end)
      next = fetch(o + 2);
    const bool two = o + 1 < group.end;
    const int o1 = two ? o + 1 : o;
    const uint64_t extraWeight[2] = {plan.hasLambda ? plan.lambda[o] : 0,
                                     plan.hasLambda ? plan.lambda[o1] : 0};
    uint64_t words[2];
    columnDotMod2<true>(x, plan.omega + size_t(o) * kRow,
                        plan.omega + size_t(o1) * kRow, two, plan.outputs[o],
                        plan.outputs[o1], current.kept, extraWeight, rounded,
                        words);
    for (int k = 0; k < (two ? 2 : 1); ++k) {
      const int limb = o + k;
      uint64_t word = words[k];
      if (addend)
        word = addMod(word, current.addend[k], plan.outputs[limb].value);
      out[size_t(limb) * n + c] = word;
    }
  }
}

/// program.cpp's scaleUpKernel for coefficient j: floor(Q/t) m +
/// floor((2 (Q mod t) m + t) / 2t) mod each output prime.
__global__ void scaleUpKernel(ScaleUpPlanView plan, const uint64_t *in,
                              uint64_t *out, size_t n) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const uint64_t m = in[j];
  const uint64_t correction = static_cast<uint64_t>(
      (2 * static_cast<uint128_t>(plan.qModT) * m + plan.t) /
      (2 * static_cast<uint128_t>(plan.t)));
  for (int i = 0; i < plan.limbs; ++i) {
    const Modulus q = plan.outputs[i];
    out[size_t(i) * n + j] = addMod(mulMod(plan.deltaModOutput[i], m, q),
                                    reduce(correction, q), q.value);
  }
}

// Automorphism, key switching -------------------------------------------------

/// ntt.cpp's applyAutomorphism for word (limb, i): coefficient i moves to
/// i g mod 2N, negated past N (i g < 2^35 for N <= 2^17, no overflow).
__global__ void automorphismKernel(const Modulus *moduli, uint64_t galois,
                                   const uint64_t *in, uint64_t *out,
                                   size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const size_t limb = blockIdx.y;
  const uint64_t position = (static_cast<uint64_t>(i) * galois) % (2 * n);
  const uint64_t value = in[limb * n + i];
  if (position < n)
    out[limb * n + position] = value;
  else
    out[limb * n + (position - n)] = negateMod(value, moduli[limb].value);
}

/// ntt.cpp's applyEvaluationAutomorphism for word (limb, j): a gather
/// through the index map the CPU reference uses.
__global__ void evaluationAutomorphismKernel(uint64_t galois,
                                             const uint64_t *in, uint64_t *out,
                                             size_t n, unsigned logN) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  const size_t limb = blockIdx.y;
  out[limb * n + j] =
      in[limb * n + evaluationAutomorphismSource(j, logN, galois)];
}

/// program.cpp's keySwitchInnerProductKernel for one word of the basis: both
/// sums in digit order. A digit may be an output's buffer: its word is read
/// before the outputs' word is written, by this thread alone. The products
/// are summed in 128 bits and reduced once per kKeySwitchDigitsPerSum digits,
/// so a thread's loads do not wait on reductions.
__global__ void keySwitchKernel(KeySwitchPlan plan, uint64_t *out0,
                                uint64_t *out1, size_t n) {
  const KeySwitchKeyView &key = plan.key;
  const size_t words = size_t(key.limbs) * n;
  const size_t w = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= words)
    return;
  const int keyLimb = key.keyLimb(int(w / n));
  const size_t keyWord = size_t(keyLimb) * n + w % n;
  const Modulus m = key.moduli[keyLimb];
  uint128_t sum0 = 0, sum1 = 0;
  for (int first = 0; first < plan.digits; first += kKeySwitchDigitsPerSum) {
    const int last = ::min(plan.digits, first + kKeySwitchDigitsPerSum);
#pragma unroll 4
    for (int j = first; j < last; ++j) {
      const uint64_t d = plan.digitData[j][w];
      const uint64_t *b = key.key + size_t(2 * j) * key.componentWords;
      const uint64_t *a = b + key.componentWords;
      sum0 += static_cast<uint128_t>(d) * b[keyWord];
      sum1 += static_cast<uint128_t>(d) * a[keyWord];
    }
    sum0 = reduce128Quick(sum0, m);
    sum1 = reduce128Quick(sum1, m);
  }
  const RfKeySwitchAddend &addend = plan.addend;
  if (int(w / n) < addend.limbs) {
    const uint64_t scale = addend.scales[w / n];
    sum0 = addScaled(sum0, addend.addend0[w], scale, m);
    sum1 = addScaled(sum1, addend.addend1[w], scale, m);
  }
  out0[w] = static_cast<uint64_t>(sum0);
  out1[w] = static_cast<uint64_t>(sum1);
}

} // namespace

void checkLaunch(const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    throw Error(std::string("CUDA kernel ") + kernel +
                " failed to launch: " + cudaGetErrorName(error) + " (" +
                cudaGetErrorString(error) + ")");
}

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
                                         int inputs, int outputs) {
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
  fragments.reserve(size_t(outputTiles) * chunks * kBytePlanes * 32 * 4);
  for (int tileIndex = 0; tileIndex < outputTiles; ++tileIndex)
    for (int chunk = 0; chunk < chunks; ++chunk)
      for (int b = 0; b < kBytePlanes; ++b)
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

// Launchers -------------------------------------------------------------------

/// The widest tile (tileFor) for n coefficients, and the kernel and block
/// width it runs with: the tensor cores' where the plans hold weights for
/// them (`planned`) and such a tile, bytesOf(tile, true), is wide enough for
/// their fragments; the CUDA cores' otherwise.
template <typename Kernel> struct TiledLaunch {
  Kernel kernel;
  unsigned tile, threads;
  size_t bytes;
};
template <typename Kernel, typename BytesOf>
TiledLaunch<Kernel> chooseTiled(Kernel cudaCores, Kernel tensorCores,
                                bool planned, BytesOf bytesOf, size_t n) {
  auto widest = [&](bool mma) {
    return tileFor(n, [&](unsigned tile) { return bytesOf(tile, mma); });
  };
  if (planned) {
    const unsigned tile = widest(true);
    if (tile >= kMmaCoefficients)
      return {tensorCores, tile, tileThreads(true), bytesOf(tile, true)};
  }
  const unsigned tile = widest(false);
  return {cudaCores, tile, tileThreads(false), bytesOf(tile, false)};
}

/// Throws unless a buffer a tiled kernel reads or writes is 16-byte aligned:
/// tiles are staged 16 bytes at a time (cp.async) and written in pairs.
void requireTileAligned(const char *name, const void *buffer) {
  if (reinterpret_cast<uintptr_t>(buffer) % 16 != 0)
    throw Error(std::string(name) + ": buffers must be 16-byte aligned");
}

/// Launches a tiled kernel over n coefficients (its parameters: the plans,
/// in, out, n and the tile's width) as chooseTiled says; `rows` are the
/// words a tile holds per coefficient, named if none fits.
template <typename Kernel, typename BytesOf, typename... Plans>
void launchTiled(const char *name, Kernel cudaCores, Kernel tensorCores,
                 bool planned, int rows, BytesOf bytesOf, size_t n,
                 const uint64_t *in, uint64_t *out, cudaStream_t stream,
                 const Plans &...plans) {
  requireTileAligned(name, in);
  requireTileAligned(name, out);
  const TiledLaunch<Kernel> launch =
      chooseTiled(cudaCores, tensorCores, planned, bytesOf, n);
  if (launch.tile == 0)
    throw Error(std::string(name) + ": a basis of " + std::to_string(rows) +
                " limbs does not fit the kernel's shared memory");
  launchDependent(name, launch.kernel,
                  dim3(static_cast<unsigned>(n / launch.tile)), launch.threads,
                  launch.bytes, stream, plans..., in, out, n, launch.tile);
}

/// A tile of that shape.
auto shapedTile(const TileShape &shape) {
  return
      [shape](unsigned tile, bool mma) { return tileBytes(shape, mma, tile); };
}

/// Whether a dot product of `inputs` words over n coefficients goes to a
/// column kernel: a narrow basis, enough coefficients for the threads, and
/// one 128-bit sum for its products, the extra one and a rounded sum (perSum
/// is productsPerSum's count).
bool columnsFit(int inputs, int perSum, size_t n) {
  return inputs <= kColumnRows && n >= kColumnMinCoefficients &&
         paddedRows(inputs) + kDotUnroll <= perSum;
}

/// f(std::integral_constant<int, rows>) for rows in [1, kColumnRows]: a
/// column kernel's instantiation for its basis.
template <typename F> void withColumnRows(int rows, F f) {
  static_assert(kColumnRows == 4);
  switch (rows) {
  case 1:
    return f(std::integral_constant<int, 1>());
  case 2:
    return f(std::integral_constant<int, 2>());
  case 3:
    return f(std::integral_constant<int, 3>());
  case 4:
    return f(std::integral_constant<int, 4>());
  }
  throw Error("a column kernel takes 1 to 4 limbs, not " +
              std::to_string(rows));
}

/// A column kernel over n coefficients and `outputs` output limbs. Below
/// 2^16 coefficients a thread takes at most four outputs (three times the
/// threads for a digit's nine): at logN 15 that was fastest, at logN 16 all
/// of them in one thread.
template <typename Kernel, typename... Args>
void launchColumns(const char *name, Kernel kernel, size_t n, int outputs,
                   cudaStream_t stream, Args... args) {
  constexpr unsigned kColumnThreads = 128;
  const int perGroup = n >= 65536 ? std::max(outputs, 1) : 4;
  const unsigned groups = unsigned((std::max(outputs, 1) + perGroup - 1) / perGroup);
  launchDependent(name, kernel,
                  dim3(static_cast<unsigned>(n / kColumnThreads), groups),
                  kColumnThreads, 0, stream, args..., perGroup);
}

void launchConvert(const ConvertPlan &plan, size_t n, const uint64_t *in,
                   uint64_t *out, cudaStream_t stream) {
  // BEHZ's corrected conversions stay on the tiles.
  if (plan.mmaWeights == nullptr &&
      (plan.method == RF_CONVERT_FAST || plan.method == RF_CONVERT_EXACT) &&
      columnsFit(plan.fromSize, plan.productsPerSum, n)) {
    auto launch = [&](auto kernel) {
      launchColumns("convertColumnsKernel", kernel, n, plan.missingSize,
                    stream, plan, in, out, n);
    };
    const bool exact = plan.method == RF_CONVERT_EXACT;
    withColumnRows(plan.fromSize, [&](auto rows) {
      if (exact)
        launch(convertColumnsKernel<decltype(rows)::value, true>);
      else
        launch(convertColumnsKernel<decltype(rows)::value, false>);
    });
    return;
  }
  launchTiled("convertKernel", convertKernel<false>, convertKernel<true>,
              plan.mmaWeights != nullptr, plan.fromSize,
              shapedTile(conversionShape(plan)), n, in, out, stream, plan);
}

void launchScaleRound(const ScaleRoundPlanView &plan, size_t n,
                      const uint64_t *in, uint64_t *out, cudaStream_t stream,
                      const uint64_t *addend) {
  requireTileAligned("scaleRoundKernel", addend);
  if (plan.divisorSize == 1 && plan.divisorScale == nullptr && n % 2 == 0) {
    requireTileAligned("scaleRoundByOnePrimeKernel", in);
    requireTileAligned("scaleRoundByOnePrimeKernel", out);
    launchDependent("scaleRoundByOnePrimeKernel", scaleRoundByOnePrimeKernel,
                    gridFor(n / 2, static_cast<unsigned>(plan.outputSize)),
                    kThreads, 0, stream, plan, addend, in, out, n);
    return;
  }
  // A fast floor (BEHZ) stays on the tiles.
  if (plan.mmaOmega == nullptr && plan.divisorScale == nullptr &&
      columnsFit(plan.divisorSize, plan.productsPerSum, n)) {
    withColumnRows(plan.divisorSize, [&](auto rows) {
      launchColumns("scaleRoundColumnsKernel",
                    scaleRoundColumnsKernel<decltype(rows)::value>, n,
                    plan.outputSize, stream, plan, addend, in, out, n);
    });
    return;
  }
  launchTiled("scaleRoundKernel", scaleRoundKernel<false>,
              scaleRoundKernel<true>, plan.mmaOmega != nullptr,
              plan.divisorSize,
              shapedTile(scaleRoundShape(plan, addend != nullptr)), n, in, out,
              stream, plan, addend);
}

void launchScaleRoundConvert(const ScaleRoundPlanView &scale,
                             const ConvertPlan &convert, size_t n,
                             const uint64_t *in, uint64_t *out,
                             cudaStream_t stream) {
  // The rounding's tile, then the conversion's.
  auto bothTiles = [&](unsigned tile, bool mma) {
    return conversionTileOffset(scaleRoundShape(scale, false), mma, tile) +
           tileBytes(conversionShape(convert), mma, tile);
  };
  launchTiled("scaleRoundConvertKernel", scaleRoundConvertKernel<false>,
              scaleRoundConvertKernel<true>,
              scale.mmaOmega != nullptr && convert.mmaWeights != nullptr,
              scale.divisorSize + convert.fromSize, bothTiles, n, in, out,
              stream, scale, convert);
}

void launchScaleUp(const ScaleUpPlanView &plan, size_t n, const uint64_t *in,
                   uint64_t *out, cudaStream_t stream) {
  scaleUpKernel<<<gridFor(n), kThreads, 0, stream>>>(plan, in, out, n);
  checkLaunch("scaleUpKernel");
}

void launchAutomorphism(const Modulus *moduli, int limbs, size_t n,
                        uint64_t galoisElement, const uint64_t *in,
                        uint64_t *out, cudaStream_t stream) {
  automorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs)), kThreads, 0,
                       stream>>>(moduli, galoisElement, in, out, n);
  checkLaunch("automorphismKernel");
}

void launchEvaluationAutomorphism(int limbs, size_t n, uint64_t galoisElement,
                                  const uint64_t *in, uint64_t *out,
                                  cudaStream_t stream) {
  const unsigned logN = static_cast<unsigned>(__builtin_ctzll(n));
  evaluationAutomorphismKernel<<<gridFor(n, static_cast<unsigned>(limbs)),
                                 kThreads, 0, stream>>>(galoisElement, in, out,
                                                        n, logN);
  checkLaunch("evaluationAutomorphismKernel");
}

void launchKeySwitchInnerProduct(const KeySwitchPlan &plan, size_t n,
                                 uint64_t *out0, uint64_t *out1,
                                 cudaStream_t stream) {
  keySwitchKernel<<<gridFor(size_t(plan.key.limbs) * n), kThreads, 0, stream>>>(
      plan, out0, out1, n);
  checkLaunch("keySwitchKernel");
}

} // namespace ringfuse::runtime::cuda
