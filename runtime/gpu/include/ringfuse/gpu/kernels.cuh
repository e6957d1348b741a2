//===- kernels.cuh - the GPU's library kernels: plans and launchers -*- CUDA -*-===//
//
// The device side of every RfKernels entry, as plans (plain structs of device
// pointers into the program's one allocation, passed to kernels by value) and
// host launchers that enqueue the kernels on a stream. Each kernel computes
// exactly what the CPU reference computes (runtime/core/ntt.cpp, rns.cpp,
// runtime/driver/cpu_driver.cpp), with the same RF_HOST_DEVICE arithmetic of modarith.h and
// fixed_point.h, so the words are the same, bit for bit.
//
// A launcher throws Error naming the kernel and the CUDA error when a launch
// fails (cudaGetLastError right after it); kernels themselves cannot fail:
// the driver checked every argument on the host first.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_KERNELS_CUH
#define RINGFUSE_GPU_KERNELS_CUH

#include "ringfuse/gpu/ntt.cuh"

#include "ringfuse/runtime/fixed_point.h"
#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/program_abi.h"
#include "ringfuse/runtime/program_words.h"
#include "ringfuse/runtime/rns.h"
#include "ringfuse/runtime/sum_of_products.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime::cuda {

/// Base conversion and scale-and-round are dot products of a tile column
/// with a row of weights, taken this many products at a time: weight rows
/// (and the tile's rows) are padded with zeros to a multiple of it.
constexpr int kDotUnroll = 2;

/// rows rounded up to a multiple of kDotUnroll.
RF_HOST_DEVICE constexpr int paddedRows(int rows) {
  return (rows + kDotUnroll - 1) / kDotUnroll * kDotUnroll;
}

/// The tensor cores take dot products (mmaDotProducts in tile_mma.cuh) over
/// chunks of this many inputs: the tile's rows are then zero-padded to a
/// multiple of it, and the weights laid out by mmaWeightFragments.
constexpr int kMmaRows = 32;

/// Rows of a tile of `rows` words per coefficient for the tensor cores.
RF_HOST_DEVICE constexpr int mmaRows(int rows) {
  return (rows + kMmaRows - 1) / kMmaRows * kMmaRows;
}

/// Whether a dot product of `inputs` words of `wordBits` bits per output,
/// for `outputs` outputs, goes to the tensor cores: only when both are wide
/// enough that their fixed tiles (32 inputs, 16 outputs) are not mostly
/// zeros and the inputs hold at least 1024 bits (16 64-bit words, 32 32-bit
/// ones: a 32-bit word's product on the CUDA cores is a quarter of a 64-bit
/// one's, its tensor-core product half), and when a chunk's sum, the sum
/// carried from the chunks before and one more product fit 128 bits (perSum
/// is productsPerSum's count).
inline bool mmaPays(int inputs, int outputs, int perSum, int wordBits) {
  return inputs * wordBits >= 1024 && outputs >= 8 &&
         perSum >= kMmaRows + kDotUnroll;
}

/// A weight matrix stored by input, [i * outputs + o], as the tensor cores'
/// A fragments of mma.sync.m16n8k32 over unsigned bytes: for each tile of
/// 16 outputs, chunk of kMmaRows inputs and byte b < `planes` of the weights
/// (8, or 4 for a program of 32-bit words), 32 lanes of four registers
/// (tile_mma.cuh's mmaDotProducts says which bytes).
std::vector<uint32_t> mmaWeightFragments(const std::vector<uint64_t> &byInput,
                                         int inputs, int outputs, int planes);

/// The largest of a list of moduli, given as primes or as Modulus records.
inline uint64_t primeOf(uint64_t q) { return q; }
inline uint64_t primeOf(const Modulus &m) { return m.value; }
template <typename Moduli> uint64_t largestModulus(const Moduli &moduli) {
  uint64_t largest = 0;
  for (const auto &m : moduli)
    largest = std::max(largest, primeOf(m));
  return largest;
}

/// A weight matrix stored by input, [i * outputs + o] (as the CPU reference
/// keeps it), as the kernels read it: per output o a row of paddedRows(inputs)
/// words, input i at [o * paddedRows(inputs) + i], the padding zero.
std::vector<uint64_t> weightRows(const std::vector<uint64_t> &byInput,
                                 int inputs, int outputs);

/// How many products of a word below `wordBound` and a weight below
/// `weightBound` one exact 128-bit sum takes, with room for one more product
/// of a word below max(wordBound, weightBound) (the kernels' correction or
/// kept-limb term, or the reduced sum carried between such sums): a multiple
/// of kDotUnroll, and for an initial value below `initialBound` (a
/// scale-and-round's rounded sum of fractions, which the CUDA cores' sums
/// start from). Throws
/// Error if moduli that wide leave no room, or if the weights' moduli, which
/// the sums are reduced by, are not below kQuickReductionBound
/// (reduce128Quick).
int productsPerSum(uint64_t wordBound, uint64_t weightBound,
                   uint128_t initialBound = 0);

/// A bound on the rounded sum of a scale-and-round's fractions, round(sum_i
/// x_i theta_i) with every theta_i below 1: divisorSize words below
/// wordBound.
inline uint128_t roundedSumBound(size_t divisorSize, uint64_t wordBound) {
  return static_cast<uint128_t>(divisorSize) * wordBound + 1;
}

/// Key switching's digits travel in the kernel's parameters (by value, so a
/// captured graph keeps them): at most this many.
constexpr int kMaxDigits = 128;

/// RfConverter from basis A to basis T (BaseConverter's formula for the
/// moduli of T missing from A, a copy for the others).
/// BEHZ's conversions (RF_CONVERT_MONTGOMERY, RF_CONVERT_SHENOY_KUMARESAN)
/// fill the same tables with RedundantConverter's (behz.h): the scales s_i,
/// the weights c_ij and products p_j, and the redundant modulus r.
struct ConvertPlan {
  int fromSize, missingSize;
  int method;                            // RF_CONVERT_*
  const uint64_t *fromModuli;            // a_i
  const ShoupConstant *puncturedInverse; // [(A/a_i)^{-1}]_{a_i}, or s_i
  const Fraction128 *inverseOfFrom;      // 1 / a_i (exact only)
  const Modulus *missingModuli;          // b_j, per missing modulus
  const uint64_t *puncturedModTo; // [A/a_i]_{b_j}, rows per b_j (weightRows)
  const uint32_t *mmaWeights;     // the same, as mmaWeightFragments, or null
  const uint64_t *productModTo;          // [A]_{b_j}
  const int *missingLimbs;               // the limb of T that b_j is
  const int *copyTo; // per limb of A (and r): the limb of T it is, or -1
  Modulus redundant;                     // r
  uint64_t redundantFactor;              // f
  const uint64_t *redundantWeights;      // [A/a_i]_r, one row (weightRows)
  int readsRedundant;                    // r's residue is input limb |A|
  int productsPerSum;                    // productsPerSum(max a_i, max b_j)
};

/// RfScaleRound: ScaleRoundPlan's tables and where its divisor and kept
/// limbs sit in the input basis.
/// BEHZ's fast floor (FastFloorPlan) has no fractions: its divisor words are
/// scaled first (divisorScale, non-null) and omega holds its weights.
struct ScaleRoundPlanView {
  int divisorSize, outputSize;
  int hasLambda;
  const int *divisorLimbs;  // per divisor modulus: limb of the input
  const int *keptLimbs;     // per output modulus: limb of the input
  const Fraction128 *theta; // frac(W_i)
  const uint64_t *omega;    // [floor(W_i)]_o, rows per o (weightRows)
  const uint32_t *mmaOmega; // the same, as mmaWeightFragments, or null
  const uint64_t *lambda;   // per output modulus
  const Modulus *outputs;
  const ShoupConstant *divisorScale; // fast floor: [a (D/d_i)^{-1}]_{d_i}
  const uint64_t *divisorModuli;     // fast floor: d_i
  int productsPerSum; // productsPerSum(the input's moduli, the outputs')
};

/// RfScaleUp: round(Q m / t) mod each output prime.
struct ScaleUpPlanView {
  int limbs;
  uint64_t t, qModT;
  const uint64_t *deltaModOutput; // [floor(Q/t)]_q per output limb
  const Modulus *outputs;
};

/// A key-switching key over Q_l P (Q's first qLimbs primes, then P), in
/// the program's words: digit j's b_j at key + 2j * componentWords, a_j at
/// key + (2j + 1) * componentWords (|QP| * N); limb i of the basis is the
/// key's limb i, or i + skippedLimbs past Q_l.
template <typename Word> struct KeySwitchKeyViewOf {
  int limbs, qLimbs, skippedLimbs;
  const Modulus *moduli; // QP
  const Word *key;
  size_t componentWords;

  __host__ __device__ int keyLimb(int limb) const {
    return limb < qLimbs ? limb : limb + skippedLimbs;
  }
};
using KeySwitchKeyView = KeySwitchKeyViewOf<uint64_t>;

/// key_switch_inner_product: the digits in evaluation form over Q_l P, and
/// what the sums add (addend.limbs 0: nothing).
template <typename Word> struct KeySwitchPlanOf {
  KeySwitchKeyViewOf<Word> key;
  int digits;
  const Word *digitData[kMaxDigits];
  KeySwitchAddendOf<Word> addend;
};
using KeySwitchPlan = KeySwitchPlanOf<uint64_t>;

#ifdef __CUDACC__
/// a b in the narrowest integer that holds it: 64 bits for 32-bit words
/// (one wide multiply, added to a 128-bit sum with a carry), 128 for 64-bit.
template <typename Word>
__device__ __forceinline__ auto wideProduct(Word a, Word b) {
  if constexpr (sizeof(Word) == sizeof(uint32_t))
    return static_cast<uint64_t>(a) * b;
  else
    return static_cast<uint128_t>(a) * b;
}
#endif

/// sum (reduced, below 2^64) plus scale times the addend's word, mod m.
__device__ __forceinline__ uint64_t addScaled(uint128_t sum, uint64_t word,
                                              uint64_t scale,
                                              const Modulus &m) {
  return reduce128Quick(sum + static_cast<uint128_t>(word) * scale, m);
}

/// Products of a word below 4q and a canonical one (below 2^124: primes
/// below 2^61) that a 128-bit sum takes before it is reduced.
constexpr int kKeySwitchDigitsPerSum = 15;

/// The sources of a fused forward NTT (ntt_key_switch's digits,
/// ntt_products' factors) in coefficient form: source j is sources[j], a
/// polynomial over the NTT's basis, or (oneLimb[j]) one limb whose words
/// every limb transforms (below the lazy bound, as launchNttForward's
/// oneLimb); its NTT's first step writes scratch[j], a polynomial over the
/// basis (sources[j] itself may be, when it is a whole polynomial).
template <typename Word> struct NttSourcesOf {
  int count;
  const Word *sources[kMaxDigits];
  Word *scratch[kMaxDigits];
  bool oneLimb[kMaxDigits];
};
using NttSources = NttSourcesOf<uint64_t>;

/// ntt_products' sums: output k (outputs[k], over the NTT's basis, whose
/// primes `moduli` has) is the sum over pairs p in [firstPair[k],
/// firstPair[k + 1]) of the transformed factors first[p] and second[p].
template <typename Word> struct NttProductsOf {
  int outputCount;
  int firstPair[kMaxProductOutputs + 1];
  int first[kMaxProducts], second[kMaxProducts];
  Word *outputs[kMaxProductOutputs];
  const Modulus *moduli;
};
using NttProducts = NttProductsOf<uint64_t>;

/// sum_of_products, by value (a captured graph keeps a kernel's parameters,
/// not the schedule's arrays): output k (outputs[k], over a basis of `limbs`
/// primes, whose Modulus records `moduli` holds) is the sum over products t
/// in [firstProduct[k], firstProduct[k + 1]) of factors[first[t]] times
/// factors[second[t]], from 0 or (accumulate) its own word.
template <typename Word> struct SumOfProductsOf {
  const Word *factors[kMaxSumFactors];
  Word *outputs[kMaxSumOutputs];
  const Modulus *moduli;
  int limbs, outputCount, accumulate;
  int firstProduct[kMaxSumOutputs + 1];
  uint8_t first[kMaxSumProducts], second[kMaxSumProducts];
};
using SumOfProducts = SumOfProductsOf<uint64_t>;
// A kernel's parameters (this and the ring degree) must fit 4 KiB.
static_assert(sizeof(SumOfProducts) + sizeof(size_t) <= 4096,
              "sum_of_products' parameters exceed 4 KiB: lower its bounds "
              "(sum_of_products.h)");

// Launchers: enqueue on `stream`, throw Error if a launch fails. Word is the
// program's words, uint64_t or uint32_t (each launcher is instantiated for
// both): the kernels read and write buffers of those words and compute on
// 64-bit values, except where they say otherwise.

/// T in a parameter that takes no part in deducing the template's arguments
/// (a null addend).
template <typename T> struct NonDeduced { using type = T; };

/// out must not overlap in (the driver stages overlapping outputs).
template <typename Word>
void launchConvert(const ConvertPlan &plan, size_t n, const Word *in, Word *out,
                   cudaStream_t stream, Instances instances = {});
/// With an addend (over the output's basis, overlapping neither in nor
/// out), out = the rounding + addend.
template <typename Word>
void launchScaleRound(const ScaleRoundPlanView &plan, size_t n, const Word *in,
                      Word *out, cudaStream_t stream,
                      const typename NonDeduced<Word>::type *addend = nullptr,
                      Instances instances = {});
/// launchScaleRound into the kept basis, then launchConvert (exact, every
/// target limb missing) of the result, in one kernel.
template <typename Word>
void launchScaleRoundConvert(const ScaleRoundPlanView &scale,
                             const ConvertPlan &convert, size_t n,
                             const Word *in, Word *out, cudaStream_t stream,
                             Instances instances = {});
template <typename Word>
void launchScaleUp(const ScaleUpPlanView &plan, size_t n, const Word *in,
                   Word *out, cudaStream_t stream, Instances instances = {});
template <typename Word>
void launchAutomorphism(const Modulus *moduli, int limbs, size_t n,
                        uint64_t galoisElement, const Word *in, Word *out,
                        cudaStream_t stream, Instances instances = {});
/// The automorphism in evaluation form (a permutation; no moduli needed).
template <typename Word>
void launchEvaluationAutomorphism(int limbs, size_t n, uint64_t galoisElement,
                                  const Word *in, Word *out,
                                  cudaStream_t stream,
                                  Instances instances = {});
template <typename Word>
void launchKeySwitchInnerProduct(const KeySwitchPlanOf<Word> &plan, size_t n,
                                 Word *out0, Word *out1, cudaStream_t stream,
                                 Instances instances = {});
/// key_switch_inner_product of the digits' forward NTTs (plan: the key's
/// basis), its sums taken in the NTT's last step instead of from NTT outputs
/// written out (ntt.cu). out0 and out1 overlap no source or scratch.
template <typename Word>
void launchNttKeySwitch(const KeySwitchKeyViewOf<Word> &key,
                        const BasicNttPlan<Word> &plan, size_t n,
                        const NttShape &shape, const NttSourcesOf<Word> &digits,
                        Word *out0, Word *out1,
                        const KeySwitchAddendOf<Word> &addend,
                        cudaStream_t stream, Instances instances = {});
/// The products of the factors' forward NTTs, taken in the NTT's last step
/// instead of from NTT outputs written out (ntt.cu). No output overlaps a
/// source or scratch.
template <typename Word>
void launchNttProducts(const BasicNttPlan<Word> &plan, size_t n,
                       const NttShape &shape, const NttSourcesOf<Word> &factors,
                       const NttProductsOf<Word> &products, cudaStream_t stream,
                       Instances instances = {});
/// One thread per word of the basis, every output's word by
/// sumOfProductsWord, as the CPU driver computes it. No output overlaps a
/// factor or another output.
template <typename Word>
void launchSumOfProducts(const SumOfProductsOf<Word> &sums, size_t n,
                         cudaStream_t stream, Instances instances = {});

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_KERNELS_CUH
