//===- scale_round.cu - scale-and-round and scale-up on the GPU ===//
//
// rns.cpp's ScaleRoundPlan::apply and behz.cpp's FastFloorPlan::apply on
// tiles, for a one-prime divisor straight from the input, for narrow bases
// one coefficient per thread, fused with an exact conversion of the result;
// and round(Q m / t) (scale-up). Exact sums: the CPU reference's words.
//
//===----------------------------------------------------------------------===//
#include "columns.cuh"
#include "tile_steps.cuh"

namespace ringfuse::runtime::cuda {
namespace {

/// The rounding of a staging tile (stageDivisorTile; scaleRoundTile or
/// scaleRoundTileMma), its words handed to emit.
template <bool MMA, typename Word, typename Emit>
__device__ __forceinline__ void roundTile(const Tile &t, unsigned tile,
                                          const ScaleRoundPlanView &plan,
                                          Emit emit) {
  if constexpr (MMA)
    scaleRoundTileMma<Word>(t, tile, plan, emit);
  else
    scaleRoundTile<Word>(t, tile, plan, emit);
}

/// The rounded words written out, plus the addend's (if any).
template <bool MMA, typename Word>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    scaleRoundKernel(ScaleRoundPlanView plan, const Word *addend,
                     const Word *in, Word *out, size_t n, unsigned tile,
                     size_t stride) {
  extern __shared__ uint128_t tileMemory[];
  addend = ofInstance(addend, stride);
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  const Tile t(tileMemory, tile, scaleRoundShape(plan, addend != nullptr), MMA);
  const size_t first = size_t(blockIdx.x) * tile;
  awaitPreviousKernel();
  allowNextKernel();
  stageDivisorTile(t, tile, plan, in, addend, first, n);
  roundTile<MMA, Word>(
      t, tile, plan,
      writeRounded(plan, addend ? stagedAddend(t, tile, plan) : nullptr, tile,
                   out, first, n));
}

/// scaleRoundKernel's words for a divisor of one prime d (key switching's
/// division by a one-prime P), read straight from the input: each word is
/// x_d omega_o + lambda_o x_k + round(x_d theta) mod its prime, plus the
/// addend's (if any), and each thread takes a pair of coefficients of one
/// output limb (blockIdx.y). There is no dot product for a tile to share: a
/// tile's staging and barriers would only delay this short launch, which
/// ends a key switch.
template <typename Word>
__global__ void scaleRoundByOnePrimeKernel(ScaleRoundPlanView plan,
                                           const Word *addend, const Word *in,
                                           Word *out, size_t n, size_t stride) {
  const size_t c = 2 * (size_t(blockIdx.x) * blockDim.x + threadIdx.x);
  addend = ofInstance(addend, stride);
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
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
template <bool MMA, typename Word>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    scaleRoundConvertKernel(ScaleRoundPlanView scale, ConvertPlan convert,
                            const Word *in, Word *out, size_t n, unsigned tile,
                            size_t stride) {
  extern __shared__ uint128_t tileMemory[];
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  const TileShape roundingShape = scaleRoundShape(scale, false);
  const Tile rounding(tileMemory, tile, roundingShape, MMA);
  const Tile conversion(reinterpret_cast<unsigned char *>(tileMemory) +
                            conversionTileOffset(roundingShape, MMA, tile),
                        tile, conversionShape(convert), MMA);
  const size_t first = size_t(blockIdx.x) * tile;
  awaitPreviousKernel();
  allowNextKernel();
  stageDivisorTile(rounding, tile, scale, in,
                   static_cast<const Word *>(nullptr), first, n);
  conversion.clearPaddingTo(convert.fromSize, tileRows(convert.fromSize, MMA),
                            tile);
  roundTile<MMA, Word>(
      rounding, tile, scale,
      scaleForConversion(convert, conversion, tile, out, first, n));
  __syncthreads();
  if constexpr (MMA)
    convertScaledTileMma(conversion, tile, convert, out, first, n);
  else
    convertScaledTile(conversion, tile, convert, out, first, n);
}

/// scaleRoundKernel (not a fast floor) for a divisor of ROWS limbs: the
/// group's output limbs, each with its kept limb's term and the rounded
/// fraction sum in its one reduction, plus the addend's word (if any).
/// A pair of outputs' kept and addend words are fetched one pair ahead (the
/// first pair's with the divisor's words), so that a thread waits on global
/// memory about once, not once per pair.
template <int ROWS, typename Word>
__global__ void scaleRoundColumnsKernel(ScaleRoundPlanView plan,
                                        const Word *addend, const Word *in,
                                        Word *out, size_t n, int perGroup,
                                        size_t stride) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  addend = ofInstance(addend, stride);
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
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
    columnDotMod2<true, ROWS, sizeof(Word) == 4>(
        x, plan.omega + size_t(o) * kRow, plan.omega + size_t(o1) * kRow, two,
        plan.outputs[o], plan.outputs[o1], current.kept, extraWeight, rounded,
        words);
    for (int k = 0; k < (two ? 2 : 1); ++k) {
      const int limb = o + k;
      uint64_t word = words[k];
      if (addend)
        word = addMod(word, current.addend[k], plan.outputs[limb].value);
      out[size_t(limb) * n + c] = static_cast<Word>(word);
    }
  }
}

/// The CPU driver's scale_up for coefficient j: floor(Q/t) m +
/// floor((2 (Q mod t) m + t) / 2t) mod each output prime.
template <typename Word>
__global__ void scaleUpKernel(ScaleUpPlanView plan, const Word *in, Word *out,
                              size_t n, size_t stride) {
  const size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n)
    return;
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  const uint64_t m = in[j];
  const uint64_t correction = static_cast<uint64_t>(
      (2 * static_cast<uint128_t>(plan.qModT) * m + plan.t) /
      (2 * static_cast<uint128_t>(plan.t)));
  for (int i = 0; i < plan.limbs; ++i) {
    const Modulus q = plan.outputs[i];
    out[size_t(i) * n + j] = static_cast<Word>(addMod(
        mulMod(plan.deltaModOutput[i], m, q), reduce(correction, q), q.value));
  }
}

} // namespace

template <typename Word>
void launchScaleRound(const ScaleRoundPlanView &plan, size_t n, const Word *in,
                      Word *out, cudaStream_t stream,
                      const typename NonDeduced<Word>::type *addend,
                      Instances instances) {
  requireTileAligned("scaleRoundKernel", addend);
  if (plan.divisorSize == 1 && plan.divisorScale == nullptr && n % 2 == 0) {
    requireTileAligned("scaleRoundByOnePrimeKernel", in);
    requireTileAligned("scaleRoundByOnePrimeKernel", out);
    launchDependent(
        "scaleRoundByOnePrimeKernel", scaleRoundByOnePrimeKernel<Word>,
        gridFor(n / 2, static_cast<unsigned>(plan.outputSize), instances),
        kThreads, 0, stream, plan, addend, in, out, n, instances.stride);
    return;
  }
  // A fast floor (BEHZ) stays on the tiles.
  if (plan.mmaOmega == nullptr && plan.divisorScale == nullptr &&
      columnsFit<Word>(plan.divisorSize, plan.productsPerSum, n)) {
    withColumnRows<Word>(plan.divisorSize, [&](auto rows) {
      launchColumns("scaleRoundColumnsKernel",
                    scaleRoundColumnsKernel<decltype(rows)::value, Word>, n,
                    plan.outputSize, stream, instances, plan, addend, in, out,
                    n);
    });
    return;
  }
  launchTiled("scaleRoundKernel", scaleRoundKernel<false, Word>,
              scaleRoundKernel<true, Word>, plan.mmaOmega != nullptr,
              plan.divisorSize,
              shapedTile(scaleRoundShape(plan, addend != nullptr)), n, in, out,
              stream, instances, plan, addend);
}

template <typename Word>
void launchScaleRoundConvert(const ScaleRoundPlanView &scale,
                             const ConvertPlan &convert, size_t n,
                             const Word *in, Word *out, cudaStream_t stream,
                             Instances instances) {
  // The rounding's tile, then the conversion's.
  auto bothTiles = [&](unsigned tile, bool mma) {
    return conversionTileOffset(scaleRoundShape(scale, false), mma, tile) +
           tileBytes(conversionShape(convert), mma, tile);
  };
  launchTiled("scaleRoundConvertKernel", scaleRoundConvertKernel<false, Word>,
              scaleRoundConvertKernel<true, Word>,
              scale.mmaOmega != nullptr && convert.mmaWeights != nullptr,
              scale.divisorSize + convert.fromSize, bothTiles, n, in, out,
              stream, instances, scale, convert);
}

template <typename Word>
void launchScaleUp(const ScaleUpPlanView &plan, size_t n, const Word *in,
                   Word *out, cudaStream_t stream, Instances instances) {
  scaleUpKernel<Word><<<gridFor(n, 1, instances), kThreads, 0, stream>>>(
      plan, in, out, n, instances.stride);
  checkLaunch("scaleUpKernel");
}

// Both word sizes' launchers.
#define RF_SCALE_ROUND_LAUNCHERS(Word)                                         \
  template void launchScaleRound<Word>(const ScaleRoundPlanView &, size_t,     \
                                       const Word *, Word *, cudaStream_t,     \
                                       const Word *, Instances);               \
  template void launchScaleRoundConvert(                                       \
      const ScaleRoundPlanView &, const ConvertPlan &, size_t, const Word *,   \
      Word *, cudaStream_t, Instances);                                        \
  template void launchScaleUp(const ScaleUpPlanView &, size_t, const Word *,   \
                              Word *, cudaStream_t, Instances);
RF_SCALE_ROUND_LAUNCHERS(uint64_t)
RF_SCALE_ROUND_LAUNCHERS(uint32_t)
#undef RF_SCALE_ROUND_LAUNCHERS

} // namespace ringfuse::runtime::cuda
