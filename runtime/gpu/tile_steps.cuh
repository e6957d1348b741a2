//===- tile_steps.cuh - conversion and rounding steps on a tile -*- CUDA -*-===//
//
// The per-tile steps of base conversion (rns.cpp's BaseConverter, behz.cpp's
// RedundantConverter) and scale-and-round (ScaleRoundPlan, FastFloorPlan),
// on the CUDA cores and the tensor cores, and the launch helpers that pick
// a tile for them.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each kernel file that includes it compiles what it uses.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_TILE_STEPS_CUH
#define RINGFUSE_GPU_TILE_STEPS_CUH

#include "tile_mma.cuh"

#include "ringfuse/gpu/resources.cuh"

namespace ringfuse::runtime::cuda {
namespace {

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
/// with [A/a_i]_{b_j}. (Word: the program's buffers' words, here and below;
/// tiles hold 64-bit words.)
template <typename Word>
__device__ void convertScaledTile(const Tile &t, unsigned tile,
                                  const ConvertPlan &plan, Word *out,
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
    dotMod<2, sizeof(Word) == 4>(
        t.words + c, tile,
        plan.puncturedModTo + size_t(j) * paddedRows(plan.fromSize),
        paddedRows(plan.fromSize), plan.productsPerSum, target, multiple,
        target.value - plan.productModTo[j])
        .store(out + size_t(plan.missingLimbs[j]) * n + first + c);
  }
}

/// The words of a conversion's input limb i at coefficients c and c + 1 of
/// the tile at `first`, written to the target limb that copies it, if any.
template <typename Word>
__device__ __forceinline__ void writeCopied(const ConvertPlan &plan, unsigned i,
                                            unsigned c, Words<2> words,
                                            Word *out, size_t first, size_t n) {
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
template <typename Word>
__device__ __forceinline__ bool
copyAndScaleTile(const Tile &t, unsigned tile, const ConvertPlan &plan,
                 const Word *in, Word *out, size_t first, size_t n,
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
template <typename Word>
__device__ __forceinline__ void
stageDivisorTile(const Tile &t, unsigned tile, const ScaleRoundPlanView &plan,
                 const Word *in, const Word *addend, size_t first, size_t n) {
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
template <typename Word, typename Emit>
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
         dotMod<2, sizeof(Word) == 4>(
             t.words + c, tile,
             plan.omega + size_t(o) * paddedRows(plan.divisorSize),
             paddedRows(plan.divisorSize), plan.productsPerSum, m, kept,
             plan.hasLambda ? plan.lambda[o] : 0, rounded));
  }
}

/// An emitter of rounded words (scaleRoundTile's) that writes them out,
/// plus the addend's (if any, staged in the tile: stagedAddend).
template <typename Word>
__device__ __forceinline__ auto
writeRounded(const ScaleRoundPlanView &plan, const uint64_t *addend,
             unsigned tile, Word *out, size_t first, size_t n) {
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
template <typename Word>
__device__ __forceinline__ auto
scaleForConversion(const ConvertPlan &convert, const Tile &conversion,
                   unsigned tile, Word *out, size_t first, size_t n) {
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
template <typename Word>
__device__ void convertScaledTileMma(const Tile &t, unsigned tile,
                                     const ConvertPlan &plan, Word *out,
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
  mmaDotProducts<sizeof(Word)>(
      t, tile, mmaRows(plan.fromSize), plan.missingSize, plan.mmaWeights,
      plan.missingModuli, correction,
      [&](unsigned j, unsigned c, Words<2> words) {
        words.store(out + size_t(plan.missingLimbs[j]) * n + first + c);
      });
}

/// scaleRoundTile with the dot products on the tensor cores; the rounded
/// sum and the kept limb's term join the one reduction.
template <typename Word, typename Emit>
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
  mmaDotProducts<sizeof(Word)>(t, tile, mmaRows(plan.divisorSize),
                               plan.outputSize, plan.mmaOmega, plan.outputs,
                               terms, emit);
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

/// Launches a tiled kernel over n coefficients for each instance (its
/// parameters: the plans, in, out, n, the tile's width and the instances'
/// stride) as chooseTiled says; `rows` are the words a tile holds per
/// coefficient, named if none fits.
template <typename Kernel, typename BytesOf, typename Word, typename... Plans>
void launchTiled(const char *name, Kernel cudaCores, Kernel tensorCores,
                 bool planned, int rows, BytesOf bytesOf, size_t n,
                 const Word *in, Word *out, cudaStream_t stream,
                 Instances instances, const Plans &...plans) {
  requireTileAligned(name, in);
  requireTileAligned(name, out);
  const TiledLaunch<Kernel> launch =
      chooseTiled(cudaCores, tensorCores, planned, bytesOf, n);
  if (launch.tile == 0)
    throw Error(std::string(name) + ": a basis of " + std::to_string(rows) +
                " limbs does not fit the kernel's shared memory");
  launchDependent(
      name, launch.kernel,
      dim3(static_cast<unsigned>(n / launch.tile), 1, instances.count),
      launch.threads, launch.bytes, stream, plans..., in, out, n, launch.tile,
      instances.stride);
}

/// A tile of that shape.
auto shapedTile(const TileShape &shape) {
  return
      [shape](unsigned tile, bool mma) { return tileBytes(shape, mma, tile); };
}

/// Whether a dot product of `inputs` words of Word over n coefficients goes
/// to a column kernel: a narrow basis, enough coefficients for the threads,
/// and one 128-bit sum for its products, the extra one and a rounded sum
/// (perSum is productsPerSum's count).
template <typename Word> bool columnsFit(int inputs, int perSum, size_t n) {
  return inputs <= columnRows<Word>() && n >= kColumnMinCoefficients &&
         paddedRows(inputs) + kDotUnroll <= perSum;
}

/// f(std::integral_constant<int, rows>) for rows in [1, columnRows<Word>()]:
/// a column kernel's instantiation for its basis.
template <typename Word, typename F> void withColumnRows(int rows, F f) {
  static_assert(columnRows<Word>() == 4 || columnRows<Word>() == 8);
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
  if constexpr (columnRows<Word>() == 8) {
    switch (rows) {
    case 5:
      return f(std::integral_constant<int, 5>());
    case 6:
      return f(std::integral_constant<int, 6>());
    case 7:
      return f(std::integral_constant<int, 7>());
    case 8:
      return f(std::integral_constant<int, 8>());
    }
  }
  throw Error("a column kernel takes 1 to " +
              std::to_string(columnRows<Word>()) + " limbs, not " +
              std::to_string(rows));
}

/// A column kernel over n coefficients and `outputs` output limbs for each
/// instance (its last parameters: perGroup, the instances' stride). Below
/// 2^16 coefficients a thread takes at most four outputs (three times the
/// threads for a digit's nine): at logN 15 that was fastest, at logN 16 all
/// of them in one thread.
template <typename Kernel, typename... Args>
void launchColumns(const char *name, Kernel kernel, size_t n, int outputs,
                   cudaStream_t stream, Instances instances, Args... args) {
  constexpr unsigned kColumnThreads = 128;
  const int perGroup = n >= 65536 ? std::max(outputs, 1) : 4;
  const unsigned groups = unsigned((std::max(outputs, 1) + perGroup - 1) / perGroup);
  launchDependent(
      name, kernel,
      dim3(static_cast<unsigned>(n / kColumnThreads), groups, instances.count),
      kColumnThreads, 0, stream, args..., perGroup, instances.stride);
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_TILE_STEPS_CUH
