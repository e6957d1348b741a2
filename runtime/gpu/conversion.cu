//===- conversion.cu - base conversion on the GPU ===//
//
// rns.cpp's BaseConverter and behz.cpp's RedundantConverter, plus the
// copied limbs: on tiles of coefficients (CUDA cores or tensor cores) or, for
// narrow bases, one coefficient per thread. The sums are exact, so the words
// are the CPU reference's.
//
//===----------------------------------------------------------------------===//
#include "columns.cuh"
#include "tile_steps.cuh"

namespace ringfuse::runtime::cuda {
namespace {

/// rns.cpp's BaseConverter::convert (or behz.cpp's RedundantConverter),
/// plus the copied limbs, for a tile of coefficients (blockIdx.x).
template <bool MMA, typename Word>
__global__ void __launch_bounds__(tileThreads(MMA), tileBlocksPerSm(MMA))
    convertKernel(ConvertPlan plan, const Word *in, Word *out, size_t n,
                  unsigned tile, size_t stride) {
  extern __shared__ uint128_t tileMemory[];
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
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

/// convertKernel for a fast or (EXACT) exact conversion from a basis of
/// ROWS limbs: the copied limbs (group 0), then the group's missing limbs.
/// The basis size and method are compile-time constants so that a thread's
/// loads, scaling and sums are straight-line code, and a fast conversion
/// has no correction product.
template <int ROWS, bool EXACT, typename Word>
__global__ void convertColumnsKernel(ConvertPlan plan, const Word *in,
                                     Word *out, size_t n, int perGroup,
                                     size_t stride) {
  const size_t c = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  in = ofInstance(in, stride);
  out = ofInstance(out, stride);
  awaitPreviousKernel();
  allowNextKernel();
  if (c >= n)
    return;
  Column<ROWS> x;
#pragma unroll
  for (int i = 0; i < ROWS; ++i) {
    x.word[i] = in[size_t(i) * n + c];
    if (blockIdx.y == 0 && plan.copyTo[i] >= 0)
      out[size_t(plan.copyTo[i]) * n + c] = static_cast<Word>(x.word[i]);
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
    columnDotMod2<EXACT, ROWS, sizeof(Word) == 4>(
        x, plan.puncturedModTo + size_t(j) * kRow,
        plan.puncturedModTo + size_t(j1) * kRow, two, m0, m1, extra,
        extraWeight, 0, words);
    out[size_t(plan.missingLimbs[j]) * n + c] = static_cast<Word>(words[0]);
    if (two)
      out[size_t(plan.missingLimbs[j1]) * n + c] = static_cast<Word>(words[1]);
  }
}

} // namespace

template <typename Word>
void launchConvert(const ConvertPlan &plan, size_t n, const Word *in, Word *out,
                   cudaStream_t stream, Instances instances) {
  // BEHZ's corrected conversions stay on the tiles.
  if (plan.mmaWeights == nullptr &&
      (plan.method == RF_CONVERT_FAST || plan.method == RF_CONVERT_EXACT) &&
      columnsFit<Word>(plan.fromSize, plan.productsPerSum, n)) {
    auto launch = [&](auto kernel) {
      launchColumns("convertColumnsKernel", kernel, n, plan.missingSize, stream,
                    instances, plan, in, out, n);
    };
    const bool exact = plan.method == RF_CONVERT_EXACT;
    withColumnRows<Word>(plan.fromSize, [&](auto rows) {
      if (exact)
        launch(convertColumnsKernel<decltype(rows)::value, true, Word>);
      else
        launch(convertColumnsKernel<decltype(rows)::value, false, Word>);
    });
    return;
  }
  launchTiled("convertKernel", convertKernel<false, Word>,
              convertKernel<true, Word>, plan.mmaWeights != nullptr,
              plan.fromSize, shapedTile(conversionShape(plan)), n, in, out,
              stream, instances, plan);
}

template void launchConvert(const ConvertPlan &, size_t, const uint64_t *,
                            uint64_t *, cudaStream_t, Instances);
template void launchConvert(const ConvertPlan &, size_t, const uint32_t *,
                            uint32_t *, cudaStream_t, Instances);

} // namespace ringfuse::runtime::cuda
