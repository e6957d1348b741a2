//===- ntt_fused.cu - forward NTTs fused with what reads them -------------===//
//
// Key switching's inner product and ntt_products' sums taken in the forward
// NTT's last (row) step of the sources, which are never written out
// transformed: the column step over every source, then the row step whose
// rows sum (KeySwitchRows, ProductRows in ntt_steps.cuh).
//
//===----------------------------------------------------------------------===//
#include "ntt_launch.cuh"

namespace ringfuse::runtime::cuda {
namespace {


/// A fused forward NTT of `sources`: the column step over every source
/// (grid z), then the row step `rows` (an Io whose SourceRows the caller
/// leaves to this).
template <typename Word, typename Rows>
void launchFusedNtt(const BasicNttPlan<Word> &plan, size_t n,
                    const NttShape &shape, const NttSourcesOf<Word> &sources,
                    Rows rows, const char *what, cudaStream_t stream,
                    Instances instances) {
  if (plan.limbCount == 0 || sources.count == 0)
    return;
  const unsigned logN = log2Exact(n);
  std::string why;
  if (!isSupportedFusedNttShape(logN, shape, &why))
    throw Error(std::string("NTT shape not supported for ") + what + ": " +
                why);
  if (size_t(sources.count) * instances.count > 65535)
    throw Error(std::string("a fused NTT for ") + what + " of " +
                std::to_string(sources.count) + " sources takes at most " +
                std::to_string(65535 / sources.count) + " instances a launch");
  constexpr auto kRadix4 = std::integer_sequence<unsigned, 4>{};
  if (shape.logN1 > 0) {
    const ColumnLauncher<Word, true, SourceColumns<Word>> column{
        plan,
        logN,
        {sources, instances.stride},
        static_cast<unsigned>(sources.count) * instances.count,
        stream};
    dispatch(kColumnLogs, shape.logN1, shape.radix, column, kRadix4);
  }
  rows.sources = sources;
  rows.afterColumns = shape.logN1 > 0;
  rows.stride = instances.stride;
  const RowLauncher<Word, true, Rows> row{plan, shape.logN1,     shape.otStages,
                                          rows, instances.count, stream};
  dispatch(kRowLogs, logN - shape.logN1, shape.radix, row, kRadix4);
}

} // namespace

template <typename Word>
void launchNttKeySwitch(const KeySwitchKeyViewOf<Word> &key,
                        const BasicNttPlan<Word> &plan, size_t n,
                        const NttShape &shape, const NttSourcesOf<Word> &digits,
                        Word *out0, Word *out1,
                        const KeySwitchAddendOf<Word> &addend,
                        cudaStream_t stream, Instances instances) {
  KeySwitchRows<Word> rows{};
  rows.key = key;
  rows.out0 = out0;
  rows.out1 = out1;
  rows.addend = addend;
  launchFusedNtt(plan, n, shape, digits, rows, "key switching", stream,
                 instances);
}

template <typename Word>
void launchNttProducts(const BasicNttPlan<Word> &plan, size_t n,
                       const NttShape &shape, const NttSourcesOf<Word> &factors,
                       const NttProductsOf<Word> &products, cudaStream_t stream,
                       Instances instances) {
  ProductRows<Word> rows{};
  rows.products = products;
  launchFusedNtt(plan, n, shape, factors, rows, "products", stream, instances);
}

#define RF_FUSED_NTT_LAUNCHERS(Word)                                           \
  template void launchNttKeySwitch(                                            \
      const KeySwitchKeyViewOf<Word> &, const BasicNttPlan<Word> &, size_t,    \
      const NttShape &, const NttSourcesOf<Word> &, Word *, Word *,            \
      const KeySwitchAddendOf<Word> &, cudaStream_t, Instances);               \
  template void launchNttProducts(                                             \
      const BasicNttPlan<Word> &, size_t, const NttShape &,                    \
      const NttSourcesOf<Word> &, const NttProductsOf<Word> &, cudaStream_t,   \
      Instances);
RF_FUSED_NTT_LAUNCHERS(uint64_t)
RF_FUSED_NTT_LAUNCHERS(uint32_t)
#undef RF_FUSED_NTT_LAUNCHERS

} // namespace ringfuse::runtime::cuda
