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
template <typename Rows>
void launchFusedNtt(const NttPlan &plan, size_t n, const NttShape &shape,
                    const NttSources &sources, Rows rows, const char *what,
                    cudaStream_t stream, Instances instances) {
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
    const ColumnLauncher<uint64_t, true, SourceColumns> column{
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
  const RowLauncher<uint64_t, true, Rows> row{
      plan, shape.logN1, shape.otStages, rows, instances.count, stream};
  dispatch(kRowLogs, logN - shape.logN1, shape.radix, row, kRadix4);
}

} // namespace

void launchNttKeySwitch(const KeySwitchKeyView &key, const NttPlan &plan,
                        size_t n, const NttShape &shape,
                        const NttSources &digits, uint64_t *out0,
                        uint64_t *out1, const RfKeySwitchAddend &addend,
                        cudaStream_t stream, Instances instances) {
  KeySwitchRows rows{};
  rows.key = key;
  rows.out0 = out0;
  rows.out1 = out1;
  rows.addend = addend;
  launchFusedNtt(plan, n, shape, digits, rows, "key switching", stream,
                 instances);
}

void launchNttProducts(const NttPlan &plan, size_t n, const NttShape &shape,
                       const NttSources &factors, const NttProducts &products,
                       cudaStream_t stream, Instances instances) {
  ProductRows rows{};
  rows.products = products;
  launchFusedNtt(plan, n, shape, factors, rows, "products", stream, instances);
}

} // namespace ringfuse::runtime::cuda
