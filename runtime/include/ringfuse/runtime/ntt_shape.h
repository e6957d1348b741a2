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
/// for: a row of 2^11 words is one block of 2^11 / radix threads.
constexpr unsigned kNttMaxColumnLog = 9;
constexpr unsigned kNttMaxRowLog = 11;
/// On-the-fly twiddling pays a second Shoup product per butterfly; past the
/// last two stages that costs more than the twiddle loads it saves (the
/// paper's Fig. 11c and the H200 sweep), so no more are built or tested.
constexpr unsigned kNttMaxOtStages = 2;

/// The GPU transform's lazy input bound on words of `wordBytes` bytes, in
/// multiples of q: 8q for 64-bit words, 4q for 32-bit ones.
inline uint64_t lazyNttInputFactor(unsigned wordBytes) {
  return wordBytes == 4 ? 4 : 8;
}

/// Whether residues of `inputPrime` are inputs the forward NTT mod q on
/// words of `wordBytes` bytes takes as they are (ntt_forward_from's one-limb
/// input): below its lazy bound.
inline bool isLazyNttInput(unsigned wordBytes, uint64_t inputPrime,
                           uint64_t q) {
  return inputPrime / lazyNttInputFactor(wordBytes) < q;
}

/// Shared memory of a column-step block: the step's twiddles (value and
/// Shoup quotient) and kNttBlockColumns columns of N1 words.
inline size_t nttColumnSharedBytes(unsigned wordBytes, unsigned logN1) {
  const size_t m = size_t(1) << logN1;
  return m * 2 * wordBytes + m * kNttBlockColumns * wordBytes;
}

inline unsigned nttColumnThreads(unsigned logN1, unsigned radix) {
  return kNttBlockColumns * (1u << logN1) / radix;
}

/// The rules that do not depend on N; nullptr when `shape` satisfies them,
/// else the reason.
inline const char *nttShapeProblem(unsigned wordBytes, const NttShape &shape) {
  if (wordBytes != 4 && wordBytes != 8)
    return "words must be 4 or 8 bytes";
  if (shape.radix != 4 && shape.radix != 8 && shape.radix != 16)
    return "the radix must be 4, 8 or 16";
  if (shape.otStages > kNttMaxOtStages)
    return "at most 2 stages twiddle on the fly";
  if (shape.logN1 == 0)
    return nullptr;
  if (shape.logN1 < 4 || shape.logN1 > kNttMaxColumnLog)
    return "logN1 must be 0 or in [4, 9]";
  if (nttColumnThreads(shape.logN1, shape.radix) > 1024)
    return "the column step would need more than 1024 threads";
  if (nttColumnSharedBytes(wordBytes, shape.logN1) > kNttSharedLimit)
    return "the column step would need more than 48 KiB of shared memory";
  return nullptr;
}

/// Every rule, for N = 2^logN; nullptr when `shape` is supported.
inline const char *nttShapeProblem(unsigned wordBytes, unsigned logN,
                                   const NttShape &shape) {
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
  return nttShapeProblem(wordBytes, shape);
}

/// Whether `shape` is one cuda/ntt.cu instantiates for `wordBytes`-byte words
/// and N = 2^logN; if not, `why` says what is wrong and names the shape.
inline bool isSupportedNttShape(unsigned wordBytes, unsigned logN,
                                const NttShape &shape,
                                std::string *why = nullptr) {
  const char *problem = nttShapeProblem(wordBytes, logN, shape);
  // The description is built only on refusal: launches call this too.
  if (problem && why)
    *why = std::string(problem) + " (logN1 = " + std::to_string(shape.logN1) +
           ", radix " + std::to_string(shape.radix) + ", " +
           std::to_string(shape.otStages) + " OT stages, " +
           std::to_string(wordBytes) + "-byte words, logN = " +
           std::to_string(logN) + ")";
  return problem == nullptr;
}

/// The forward NTTs fused with what reads their words (ntt_key_switch's
/// inner product, ntt_products' pairwise products) run 64-bit words at
/// radix 4, the radix every tuned 64-bit shape takes: their row steps are
/// instantiated for that radix alone.
inline bool isSupportedFusedNttShape(unsigned logN, const NttShape &shape,
                                     std::string *why = nullptr) {
  if (!isSupportedNttShape(8, logN, shape, why))
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
inline NttShape defaultNttShape(unsigned wordBytes, unsigned logN) {
  // A simple rule within 4% of the fastest shape of bench/tune_transforms.py's
  // sweep on an H200 (21 limbs of 60-bit primes, 42 of 30-bit primes) for
  // every logN and direction but four (64-bit forward at logN 12, 12%;
  // 64-bit inverse at logN 17, 6%; 32-bit inverse at logN 15 and 17, 5% and
  // 15%, where radix 8 wins): one block per limb up to 2^10 words of 8 bytes
  // or 2^11 of 4 bytes, then rows of at most 2^10 words under a column step
  // of at least 2^5 (8-byte words) or 2^6 (4-byte words); radix 4, no
  // on-the-fly twiddling. Compiled programs use rns-choose-transform's
  // choice from the measured table instead.
  if (logN <= (wordBytes == 8 ? 10u : 11u))
    return {0, 4, 0};
  const unsigned minColumnLog = wordBytes == 8 ? 5 : 6;
  return {logN - 10 > minColumnLog ? logN - 10 : minColumnLog, 4, 0};
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_NTT_SHAPE_H
