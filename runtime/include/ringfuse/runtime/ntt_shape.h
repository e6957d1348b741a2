//===- ntt_shape.h - the decompositions the GPU NTT supports ---*- C++ -*-===//
//
// How the hierarchical GPU NTT (cuda/ntt.cuh) splits one transform, and the
// rules for which splits it instantiates. Host-only C++ with no CUDA, so that
// the compiler (which chooses a shape per transform), the CPU driver (which
// validates the shape a program asks for) and the CUDA driver (which runs
// it) all apply one set of rules.
//
// N = N1 x N2: a column step runs the first log N1 stages on N2 columns of
// N1 words, a row step the last log N2 stages on N1 rows of N2 words; each
// thread holds `radix` words; the last `otStages` stages twiddle on the fly.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_NTT_SHAPE_H
#define RINGFUSE_RUNTIME_NTT_SHAPE_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringfuse::runtime {

/// How one transform is decomposed: log N1 (0: the row step alone, the whole
/// limb in one block), the words each thread holds, and how many of the last
/// stages twiddle on the fly.
struct NttShape {
  unsigned logN1 = 0;
  unsigned radix = 8;
  unsigned otStages = 0;
};

/// Columns per column-step block: 16 neighbouring words of each row, so every
/// load and store of the step fills whole 32-byte sectors.
constexpr unsigned kNttBlockColumns = 16;
/// The shared memory a block may use without opting in.
constexpr size_t kNttSharedLimit = 48 * 1024;
/// The largest column (N1) and row (N2) steps the kernels are instantiated
/// for: a column step of 2^8 words fits kNttSharedLimit (nttColumnSharedBytes)
/// and 1024 threads at radix 4 (nttColumnThreads), a row of 2^11 words is one
/// block of 2^11 / radix threads.
constexpr unsigned kNttMaxColumnLog = 8;
constexpr unsigned kNttMaxRowLog = 11;
/// On-the-fly twiddling pays a second Shoup product per butterfly; past the
/// last two stages that costs more than the twiddle loads it saves (the
/// paper's Fig. 11c and the H200 sweep), so no more are built or tested.
constexpr unsigned kNttMaxOtStages = 2;

/// Whether residues of `inputPrime` are inputs the forward NTT mod q takes
/// as they are (ntt_forward_from's one-limb input): below 8q, the GPU
/// transform's lazy bound for 64-bit words.
inline bool isLazyNttInput(uint64_t inputPrime, uint64_t q) {
  return inputPrime / 8 < q;
}

/// Shared memory of a column-step block: the step's twiddles (value and
/// Shoup quotient) and kNttBlockColumns columns of N1 8-byte words.
constexpr size_t nttColumnSharedBytes(unsigned logN1) {
  const size_t m = size_t(1) << logN1;
  return m * 2 * 8 + m * kNttBlockColumns * 8;
}

constexpr unsigned nttColumnThreads(unsigned logN1, unsigned radix) {
  return kNttBlockColumns * (1u << logN1) / radix;
}

// Every column step the rules admit fits a block: no shape is refused for
// its shared memory or threads.
static_assert(nttColumnSharedBytes(kNttMaxColumnLog) <= kNttSharedLimit);
static_assert(nttColumnThreads(kNttMaxColumnLog, 4) <= 1024);

/// The rules that do not depend on N; nullptr when `shape` satisfies them,
/// else the reason.
inline const char *nttShapeProblem(const NttShape &shape) {
  if (shape.radix != 4 && shape.radix != 8 && shape.radix != 16)
    return "the radix must be 4, 8 or 16";
  if (shape.otStages > kNttMaxOtStages)
    return "at most 2 stages twiddle on the fly";
  if (shape.logN1 == 0)
    return nullptr;
  if (shape.logN1 < 4 || shape.logN1 > kNttMaxColumnLog)
    return "logN1 must be 0 or in [4, 8]";
  return nullptr;
}

/// Every rule, for N = 2^logN; nullptr when `shape` is supported.
inline const char *nttShapeProblem(unsigned logN, const NttShape &shape) {
  if (logN < 1 || logN > 17)
    return "logN must be in [1, 17]";
  if (shape.logN1 >= logN)
    return "logN1 must leave a row step";
  const unsigned logN2 = logN - shape.logN1;
  if (logN2 > kNttMaxRowLog)
    return "rows above 2^11 words do not fit one block";
  if (shape.otStages > logN2)
    return "more OT stages than row-step stages";
  if (shape.logN1 > 0 && logN2 < 4)
    return "the column step needs rows of at least 16 words";
  return nttShapeProblem(shape);
}

/// Whether `shape` is one cuda/ntt.cu instantiates for N = 2^logN; if not,
/// `why` says what is wrong and names the shape.
inline bool isSupportedNttShape(unsigned logN, const NttShape &shape,
                                std::string *why = nullptr) {
  const char *problem = nttShapeProblem(logN, shape);
  // The description is built only on refusal: launches call this too.
  if (problem && why)
    *why = std::string(problem) + " (logN1 = " + std::to_string(shape.logN1) +
           ", radix " + std::to_string(shape.radix) + ", " +
           std::to_string(shape.otStages) +
           " OT stages, logN = " + std::to_string(logN) + ")";
  return problem == nullptr;
}

/// The forward NTTs fused with what reads their words (ntt_key_switch's
/// inner product, ntt_products' pairwise products) run radix 4, the radix
/// every tuned shape takes: their row steps are
/// instantiated for that radix alone.
inline bool isSupportedFusedNttShape(unsigned logN, const NttShape &shape,
                                     std::string *why = nullptr) {
  if (!isSupportedNttShape(logN, shape, why))
    return false;
  if (shape.radix == 4)
    return true;
  if (why)
    *why = "a fused NTT runs radix 4, not " + std::to_string(shape.radix);
  return false;
}

/// Rows of a fused forward NTT's row step are at most 2^kFusedMaxRowLog
/// words. Its threads hold the inner product's sums or every factor's words
/// beside the transform, which limits its blocks per SM, so stages moved to
/// the column step cost less there: on an H200, HMult with both fused NTTs'
/// rows cut from 2^10 to 2^8 words took 262.1 us instead of 268.8 at
/// (logN, log Q, log P) = (15, 660, 60), 210.7 instead of 216.7 at
/// (15, 540, 180) and 1000.7 instead of 1020.3 at (16, 1440, 240), while
/// rows of 2^7 at logN 13 and 14 were slower than 2^8 (docs/experiments.md).
constexpr unsigned kFusedMaxRowLog = 8;

/// The shape a fused forward NTT runs for a transform chosen as `shape`: its
/// column step lengthened towards rows of 2^kFusedMaxRowLog words, as far as
/// the column step allows. A one-step shape (logN1 = 0) is kept.
inline NttShape fusedNttShape(unsigned logN, const NttShape &shape) {
  if (shape.logN1 == 0)
    return shape;
  NttShape fused = shape;
  for (unsigned logN1 = shape.logN1 + 1;
       logN1 < logN && logN - logN1 >= kFusedMaxRowLog; ++logN1) {
    NttShape longer = shape;
    longer.logN1 = logN1;
    if (!isSupportedFusedNttShape(logN, longer))
      break;
    fused = longer;
  }
  return fused;
}

/// ntt_products' bounds: a row-step thread keeps every factor's words in
/// registers, and a sum of products of canonical words (below 2^122) fits
/// 128 bits for up to 64 of them.
constexpr int kMaxProductFactors = 4;
constexpr int kMaxProductOutputs = 4;
constexpr int kMaxProducts = 8;

/// The shape used when nothing chose one (tuned on an H200 for 21 limbs).
inline NttShape defaultNttShape(unsigned logN) {
  // A simple rule within 4% of the fastest shape of bench/tune_transforms.py's
  // sweep on an H200 (21 limbs of 60-bit primes) for every logN and direction
  // but two (forward at logN 12, 12%; inverse at logN 17, 6%): one block per
  // limb up to 2^10 words, then rows of at most 2^10 words under a column
  // step of at least 2^5; radix 4, no on-the-fly twiddling. Compiled
  // programs use rns-choose-transform's choice from the measured table
  // instead.
  if (logN <= 10)
    return {0, 4, 0};
  constexpr unsigned kMinColumnLog = 5;
  return {logN - 10 > kMinColumnLog ? logN - 10 : kMinColumnLog, 4, 0};
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_NTT_SHAPE_H
