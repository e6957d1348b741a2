//===- dgt.cuh - the hierarchical DGT on the GPU ---------------*- CUDA -*-===//
//
// The four-step DGT of dgt.h (Algorithms 4 and 5 of the hierarchical-DGT
// paper) over every limb of a basis at once: limb l of a launch is the N
// words at data + l * N, transformed in place with its own tables. Each
// direction is two launches, one per matrix pass:
//   forward: columns (twist, R-point Gentleman-Sande, step-2 twiddles),
//            rows (C-point Gentleman-Sande, reduction to [0, p));
//   inverse: rows (C-point Cooley-Tukey, inverse step-2 twiddles),
//            columns (R-point Cooley-Tukey, untwist times M^{-1}, reduction).
// Every element step is dgt.h's RF_HOST_DEVICE helper on DgtTables' very
// constants, so the output is the CPU reference's, word for word.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_DGT_CUH
#define RINGFUSE_GPU_DGT_CUH

#include "ringfuse/runtime/dgt.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime::cuda {

/// One limb's prime and device copies of its DgtTables.
template <typename Word> struct DgtLimb {
  using Shoup = typename DgtWord<Word>::Shoup;
  Word p;
  const GaussianShoup<Word> *twist;   // h^j
  const GaussianShoup<Word> *untwist; // h^-j M^-1
  const Shoup *twiddles;              // [len + j] = g^(j M / 2len)
  const Shoup *inverseTwiddles;
  const Shoup *stepTwiddles; // [r C + c] = g^(c bitrev_R(r))
  const Shoup *inverseStepTwiddles;
  Shoup nttOrderFactor, half, halfOverFactor; // DgtTables' forwardAsNtt map
};

/// Every limb shares N and hence the R x C matrix (dgtShape(N/2)).
template <typename Word> struct DgtPlan {
  const DgtLimb<Word> *limbs; // device array, one per limb
  int limbCount;
  unsigned logN;
  unsigned logRows, logColumns;
};

// Launchers: enqueue on `stream`; throw Error if a launch fails.

void launchDgtForward(const DgtPlan<uint64_t> &plan, uint64_t *data,
                      cudaStream_t stream);
void launchDgtInverse(const DgtPlan<uint64_t> &plan, uint64_t *data,
                      cudaStream_t stream);

/// DgtTables::forwardAsNtt / inverseAsNtt on every limb: the DGT with its
/// Gaussian pairs mapped to (from) the NTT's words, one more pass over the
/// data; the words are NttTables::forward's (compiled programs' `dgt`).
void launchDgtForwardAsNtt(const DgtPlan<uint64_t> &plan, uint64_t *data,
                           cudaStream_t stream);
void launchDgtInverseAsNtt(const DgtPlan<uint64_t> &plan, uint64_t *data,
                           cudaStream_t stream);

/// The tables of a basis as one image of `bytes` to be copied to device
/// address `base` (16-byte aligned), and the plan that points into it: what
/// DgtDeviceTables uploads, and what a program places among its own tables.
/// Throws Error when the limbs disagree on N or there are none.
template <typename Word>
DgtPlan<Word> layOutDgtTables(const std::vector<const DgtTables<Word> *> &limbs,
                              uintptr_t base,
                              std::vector<unsigned char> &bytes);

/// The tables of a basis uploaded once (one allocation, freed with the
/// object), and the plan that points into them. Throws Error when the limbs
/// disagree on N or a CUDA call fails.
template <typename Word> class DgtDeviceTables {
public:
  explicit DgtDeviceTables(const std::vector<const DgtTables<Word> *> &limbs);
  ~DgtDeviceTables();
  DgtDeviceTables(const DgtDeviceTables &) = delete;
  DgtDeviceTables &operator=(const DgtDeviceTables &) = delete;

  const DgtPlan<Word> &plan() const { return plan_; }

private:
  void *storage_ = nullptr;
  DgtPlan<Word> plan_{};
};

extern template class DgtDeviceTables<uint64_t>;

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_DGT_CUH
