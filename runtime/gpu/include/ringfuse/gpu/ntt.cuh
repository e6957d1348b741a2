//===- ntt.cuh - the hierarchical GPU NTT -----------------------*- CUDA -*-===//
//
// The negacyclic NTT of every limb of a polynomial in one launch per step,
// after ntt-gpu-on-the-fly-twiddling: N = N1 x N2, where a column step runs
// the first log N1 Cooley-Tukey stages on N2 columns of N1 words (stride N2,
// coalesced because each block takes 16 neighbouring columns), and a row step
// runs the last log N2 stages on N1 contiguous rows of N2 words. Inside a
// step each thread holds `radix` words in registers and runs log(radix)
// stages on them before exchanging through shared memory. The inverse runs
// the same steps backwards with Gentleman-Sande butterflies.
//
// On-the-fly twiddling (OT) for the last `otStages` stages of the row step:
// the twiddle of stage s = log N1 + s', row r, group h < 2^s' factors as
// rootPowers[2^s + r 2^s'] * rootPowers[h] (both psi^bitrev), so the product
// y * w is taken as two Shoup products with tabulated constants, and the
// row step reads log N2 twiddles per row plus a table of N2 / 2 words that
// every row shares, instead of N2 - 1 per row.
//
// Both steps are launched with programmatic dependent launch: a step fetches
// its twiddles while the stream's previous kernel finishes, and waits for it
// before touching the data.
//
// Every variant computes ntt.cpp's transform (natural order in, bit-reversed
// out; canonical residues), so the words equal NttTables::forward / inverse
// whatever the shape.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_NTT_CUH
#define RINGFUSE_GPU_NTT_CUH

#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/ntt_shape.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringfuse::runtime::cuda {

template <typename Word> using Shoup = ShoupOfWord<Word>;

/// One limb of an NTT-capable basis: its prime and the twiddles NttTables
/// builds (psi^bitrev(k) and psi^-bitrev(k) with Shoup companions, N^{-1}).
template <typename Word> struct BasicNttLimb {
  Word q;
  const Shoup<Word> *rootPowers;
  const Shoup<Word> *inverseRootPowers;
  Shoup<Word> inverseDegree;
  /// 64-bit words: floor(x / q) for a lazy x < 8q, estimated as
  /// ((x >> quotientInputShift) * quotientRatio) >> (32 + quotientShift)
  /// (see makeNttLimb).
  uint32_t quotientInputShift, quotientRatio, quotientShift;
};

/// The limb of prime q, its twiddle tables already on the device. Throws
/// Error for a prime the GPU butterflies cannot take: 64-bit words keep
/// values below 8q (ntt.cu), so q must be below 2^61.
template <typename Word>
BasicNttLimb<Word> makeNttLimb(Word q, const Shoup<Word> *rootPowers,
                               const Shoup<Word> *inverseRootPowers,
                               Shoup<Word> inverseDegree);

template <typename Word> struct BasicNttPlan {
  const BasicNttLimb<Word> *limbs; // one per limb of the basis, on the device
  int limbCount;
};

using NttLimb = BasicNttLimb<uint64_t>;
using NttPlan = BasicNttPlan<uint64_t>;

// The shapes and their rules are host code shared with the compiler and the
// CPU driver (ntt_shape.h); cuda:: names them too for this file's callers.
using runtime::defaultNttShape;
using runtime::isSupportedNttShape;
using runtime::NttShape;

/// The instances one launch runs (its grid's z): a program run for many
/// instances at once keeps one copy of its buffers per instance, instance z's
/// `stride` words after instance z - 1's, so a kernel finds instance z's
/// words at instance 0's address plus z * stride. Tables, plans and keys are
/// shared. The default is one instance, the buffers as given.
struct Instances {
  unsigned count = 1;
  size_t stride = 0; // words
};

#ifdef __CUDACC__
/// `words` (instance 0's) of the block's instance (blockIdx.z); null stays
/// null.
template <typename T>
__device__ __forceinline__ T *ofInstance(T *words, size_t stride) {
  return words ? words + size_t(blockIdx.z) * stride : words;
}
#endif

/// In place on plan.limbCount limbs of n words each (limb i at data + i n).
/// Throws Error for an unsupported shape or a failed launch. Given oneLimb
/// (n words, overlapping no limb of data), the forward transform reads it
/// for every limb instead of the limb's own words: each limb transforms
/// oneLimb's words mod its prime. They must be below the lazy bound, 8q.
template <typename Word>
void launchNttForward(const BasicNttPlan<Word> &plan, size_t n,
                      const NttShape &shape, Word *data, cudaStream_t stream,
                      const Word *oneLimb = nullptr, Instances instances = {});
template <typename Word>
void launchNttInverse(const BasicNttPlan<Word> &plan, size_t n,
                      const NttShape &shape, Word *data, cudaStream_t stream,
                      Instances instances = {});

/// The default shape for n.
void launchNttForward(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream);
void launchNttInverse(const NttPlan &plan, size_t n, uint64_t *data,
                      cudaStream_t stream);

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_NTT_CUH
