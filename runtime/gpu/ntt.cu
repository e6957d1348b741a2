//===- ntt.cu - the hierarchical GPU NTT ----------------------------------===//
//
// The plain transforms of ntt.cuh: in place, or a forward transform of one
// given limb into every limb (ntt_forward_from).
// The steps are ntt_steps.cuh's; ntt_fused.cu has the fused transforms.
//
//===----------------------------------------------------------------------===//
#include "ntt_launch.cuh"

namespace ringfuse::runtime::cuda {
namespace {

/// n words of `from` into each of `limbs` limbs of `to`.
template <typename Word>
__global__ void broadcastLimb(const Word *from, Word *to, size_t n,
                              unsigned limbs, size_t stride) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  from = ofInstance(from, stride);
  to = ofInstance(to, stride);
  if (i < n)
    for (unsigned limb = 0; limb < limbs; ++limb)
      to[limb * n + i] = from[i];
}

/// In place, or (a forward transform given oneLimb) every limb from
/// oneLimb's words: its column step reads them, or without one (N1 = 1, small
/// N) they are copied into every limb first.
template <typename Word, bool FORWARD>
void launchNtt(const BasicNttPlan<Word> &plan, size_t n, const NttShape &shape,
               Word *data, cudaStream_t stream, const Word *oneLimb,
               Instances instances) {
  if (plan.limbCount == 0)
    return;
  const unsigned logN = log2Exact(n);
  std::string why;
  if (!isSupportedNttShape(logN, shape, &why))
    throw Error("NTT shape not supported: " + why);
  if (oneLimb && shape.logN1 == 0) {
    constexpr unsigned kThreads = 256;
    broadcastLimb<<<dim3(static_cast<unsigned>((n + kThreads - 1) / kThreads),
                         1, instances.count),
                    kThreads, 0, stream>>>(
        oneLimb, data, n, static_cast<unsigned>(plan.limbCount),
        instances.stride);
    checkLaunch("broadcastLimb");
    oneLimb = nullptr;
  }
  const unsigned logN2 = logN - shape.logN1;
  const size_t stride = instances.stride;
  const RowLauncher<Word, FORWARD, InPlaceRows<Word>> row{
      plan,           shape.logN1,     shape.otStages,
      {data, stride}, instances.count, stream};
  if constexpr (FORWARD) {
    if (oneLimb) {
      const ColumnLauncher<Word, true, OneLimbColumns<Word>> column{
          plan, logN, {data, oneLimb, stride}, instances.count, stream};
      dispatch(kColumnLogs, shape.logN1, shape.radix, column, kEveryRadix);
    } else if (shape.logN1 > 0) {
      const ColumnLauncher<Word, true, InPlaceColumns<Word>> column{
          plan, logN, {data, stride}, instances.count, stream};
      dispatch(kColumnLogs, shape.logN1, shape.radix, column, kEveryRadix);
    }
    dispatch(kRowLogs, logN2, shape.radix, row, kEveryRadix);
  } else {
    dispatch(kRowLogs, logN2, shape.radix, row, kEveryRadix);
    const ColumnLauncher<Word, false, InPlaceColumns<Word>> column{
        plan, logN, {data, stride}, instances.count, stream};
    if (shape.logN1 > 0)
      dispatch(kColumnLogs, shape.logN1, shape.radix, column, kEveryRadix);
  }
}

} // namespace

template <typename Word>
BasicNttLimb<Word> makeNttLimb(Word q, const Shoup<Word> *rootPowers,
                               const Shoup<Word> *inverseRootPowers,
                               Shoup<Word> inverseDegree) {
  if (sizeof(Word) == 8 && uint64_t(q) >= uint64_t(1) << kMaxRnsPrimeBits)
    throw Error("the GPU NTT takes 64-bit primes below 2^" +
                std::to_string(kMaxRnsPrimeBits) + ", not " +
                std::to_string(q));
  BasicNttLimb<Word> limb{q, rootPowers, inverseRootPowers, inverseDegree,
                          0, 0, 0};
  if constexpr (sizeof(Word) == 8) {
    // With q of L bits and x < 8q < 2^(L+3): t = x >> s keeps x's top 32
    // bits (s = max(L - 29, 0)), and r = floor(2^(s+E) / q) with E = L + 31 - s
    // is below 2^32. t r / 2^E never exceeds x / q and falls short of it by
    // less than 2^-27 (2^-28 for the bits of x below s, 2^-28 for r's
    // truncation), so its floor is floor(x / q) or one less.
    const unsigned bits = 64 - static_cast<unsigned>(__builtin_clzll(q));
    const unsigned inputShift = bits > 29 ? bits - 29 : 0;
    const unsigned exponent = bits + 31 - inputShift;
    limb.quotientInputShift = inputShift;
    limb.quotientRatio = static_cast<uint32_t>(
        (static_cast<uint128_t>(1) << (inputShift + exponent)) / q);
    limb.quotientShift = exponent - 32;
  }
  return limb;
}

template NttLimb makeNttLimb<uint64_t>(uint64_t, const ShoupConstant *,
                                       const ShoupConstant *, ShoupConstant);

template <typename Word>
void launchNttForward(const BasicNttPlan<Word> &plan, size_t n,
                      const NttShape &shape, Word *data, cudaStream_t stream,
                      const Word *oneLimb, Instances instances) {
  launchNtt<Word, true>(plan, n, shape, data, stream, oneLimb, instances);
}

template <typename Word>
void launchNttInverse(const BasicNttPlan<Word> &plan, size_t n,
                      const NttShape &shape, Word *data, cudaStream_t stream,
                      Instances instances) {
  launchNtt<Word, false>(plan, n, shape, data, stream, nullptr, instances);
}

template void launchNttForward<uint64_t>(const NttPlan &, size_t,
                                         const NttShape &, uint64_t *,
                                         cudaStream_t, const uint64_t *,
                                         Instances);
template void launchNttInverse<uint64_t>(const NttPlan &, size_t,
                                         const NttShape &, uint64_t *,
                                         cudaStream_t, Instances);

void launchNttForward(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream) {
  launchNtt<uint64_t, true>(plan, n, defaultNttShape(log2Exact(n)), data,
                            stream, nullptr, {});
}

void launchNttInverse(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream) {
  launchNtt<uint64_t, false>(plan, n, defaultNttShape(log2Exact(n)), data,
                             stream, nullptr, {});
}

} // namespace ringfuse::runtime::cuda
