//===- program_internal.h - a loaded program's state ------------*- C++ -*-===//
//
// What Program::fromFunctions builds from a manifest (program_abi.h) once,
// for every driver: the plans the schedule refers to by index, the layout of
// the buffers, inputs, outputs, constants and keys, and the checks each
// RfKernels entry makes of its arguments. The drivers differ only in where
// the buffers live and how the kernels run: program.cpp is the CPU driver,
// runtime/cuda/driver.cu the CUDA driver.
//
// Internal to the runtime library: not installed, not part of any API.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_CPU_PROGRAM_INTERNAL_H
#define RINGFUSE_RUNTIME_CPU_PROGRAM_INTERNAL_H

#include "ringfuse/runtime/behz.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/program.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ringfuse::runtime::detail {

/// The NTT tables of each limb of a basis, or why it has none.
struct BasisPlan {
  RnsBasis rns;
  std::vector<uint64_t> moduli;
  std::vector<const NttTables *> ntt;
  std::string nttProblem; // empty if every limb has tables
};

/// RfConverter: residues of `to` moduli found in `from` are copied (source
/// limb in `copyFrom`, -1 where converted); the others come from one
/// converter from -> (the missing moduli, in `to` order): a BaseConverter
/// (fast, exact) or BEHZ's RedundantConverter (Montgomery, Shenoy-Kumaresan).
struct ConverterPlan {
  int from = 0, to = 0;
  int method = RF_CONVERT_FAST;
  std::vector<int> copyFrom;
  std::vector<size_t> missingLimbs; // limbs of `to` the converter fills
  std::unique_ptr<BaseConverter> missing;
  std::unique_ptr<RedundantConverter> corrected;
  bool missingContiguous = true;
};

/// RfScaleRound: the limbs of the divisor and of the kept moduli inside the
/// input basis, in divisor / kept order (no kept limbs for a modulus switch,
/// whose outputs lie outside the input).
struct ScaleRoundEntry {
  int input = 0, divisor = 0, kept = 0;
  std::vector<size_t> divisorLimbs, keptLimbs;
  bool divisorContiguous = true, keptContiguous = true;
  std::unique_ptr<ScaleRoundPlan> plan;  // rounding (HPS)
  std::unique_ptr<FastFloorPlan> floor; // or BEHZ's fast floor
  int converter = -1; // the exact conversion of the result, if fused
  int output = 0;     // the output's basis: kept, or the converter's `to`
};

/// RfScaleUp: [floor(Q/t)]_{q} per output limb and Q mod t, as Context keeps
/// them for encryption.
struct ScaleUpPlan {
  int from = 0, to = 0;
  std::vector<uint64_t> deltaModOutput;
  std::vector<Modulus> outputModuli;
};

struct ValueLayout {
  bool plaintext = false;
  size_t components = 0;
  int buffers[3] = {-1, -1, -1};
};

struct ConstantData {
  int buffer = 0;
  std::vector<uint64_t> words;
};

/// The CUDA driver's state (runtime/cuda/driver.cu): device memory, stream,
/// graph. Destroyed through the deleter, which is defined where the type is.
struct CudaState;
struct CudaStateDeleter {
  void operator()(CudaState *state) const;
};

} // namespace ringfuse::runtime::detail

/// The loaded program's state: what the schedule's RfRuntime * points to.
struct RfRuntime {
  // First, so destroyed last: the schedule's code lives in the library.
  std::shared_ptr<void> library;
  RfRunFunction runFunction = nullptr;
  std::string name;
  std::string variant; // the manifest's, or empty
  ringfuse::runtime::Device device = ringfuse::runtime::Device::Cpu;
  ringfuse::runtime::ContextPtr context;
  size_t n = 0;

  std::map<uint64_t, std::unique_ptr<ringfuse::runtime::NttTables>>
      ownNttTables;
  std::vector<ringfuse::runtime::detail::BasisPlan> bases;
  std::vector<ringfuse::runtime::detail::ConverterPlan> converters;
  std::vector<ringfuse::runtime::detail::ScaleRoundEntry> scaleRounds;
  std::vector<ringfuse::runtime::detail::ScaleUpPlan> scaleUps;
  std::vector<ringfuse::runtime::detail::ValueLayout> inputs, outputs;
  std::vector<ringfuse::runtime::detail::ConstantData> constants;
  std::vector<uint64_t> keyElements;
  std::vector<const ringfuse::runtime::KeySwitchKey *> boundKeys; // per key

  // The buffers as the driver placed them (host or device memory), and what
  // moduli() returns per basis. buffer() and moduli() hand out the spares
  // for a bad index, so that the schedule's own loops stay in bounds until
  // run() reports the error.
  std::vector<size_t> bufferWords;
  std::vector<uint64_t *> bufferData;
  std::vector<const RfModulus *> moduliData;
  uint64_t *spareBuffer = nullptr;
  const RfModulus *spareModuli = nullptr;
  size_t largestBuffer = 1, widestBasis = 1;

  // The CPU driver's storage behind those pointers.
  std::vector<std::vector<uint64_t>> hostBuffers;
  std::vector<uint64_t> hostSpareBuffer;
  std::vector<std::vector<RfModulus>> hostModuli; // per basis
  std::vector<RfModulus> hostSpareModuli;
  // The CUDA driver's, when the program was loaded for Device::Cuda.
  std::unique_ptr<ringfuse::runtime::detail::CudaState,
                  ringfuse::runtime::detail::CudaStateDeleter>
      cuda;

  std::mutex mutex; // one run at a time: the buffers are shared
  bool concurrent = false; // between concurrent_begin and concurrent_end
  bool failed = false;
  std::string error;
};

namespace ringfuse::runtime::detail {

std::string programLabel(const RfRuntime &s);

/// Records the first error of a run; later ones are dropped.
void fail(RfRuntime *s, const std::string &message);

/// concurrent_begin and concurrent_end, the same for every driver (the CUDA
/// driver orders launches by dataflow, inside regions or not): the run's
/// error is recorded when regions nest or an end has no begin. They run
/// even after a kernel failed.
void concurrentBeginKernel(RfRuntime *s);
void concurrentEndKernel(RfRuntime *s);
/// After a schedule: the run's error recorded if it ended inside a region,
/// which is then closed.
void closeOpenRegion(RfRuntime &s);

/// Runs a kernel body unless an earlier kernel failed; turns anything it
/// throws into the recorded error (nothing may unwind through the schedule).
template <typename Body>
void guarded(RfRuntime *s, const char *kernel, Body &&body) {
  if (s->failed)
    return;
  try {
    body();
  } catch (const std::exception &e) {
    fail(s, std::string(kernel) + ": " + e.what());
  }
}

bool overlaps(const uint64_t *a, size_t aWords, const uint64_t *b,
              size_t bWords);

/// A polynomial's words over basis `basis`, an index the manifest's loader
/// has checked (a call's own basis argument goes through its check first).
inline size_t basisWords(const RfRuntime *s, int basis) {
  return s->bases[basis].moduli.size() * s->n;
}

// The argument checks of each kernel, the same for every driver. Each throws
// an Error that says what was wrong.

/// The basis of an NTT over `data`, which must hold all its limbs.
const BasisPlan &checkNtt(const RfRuntime *s, int basis, const uint64_t *data);

/// The decomposition a program asked for (log_n1, radix, ot_stages of
/// RfKernels' ntt entries), or the driver's default for 0, 0, 0. Throws an
/// Error naming the shape unless the GPU NTT supports it for 64-bit words
/// and the program's N: a program that runs on the CPU must run on the GPU.
NttShape checkNttShape(const RfRuntime *s, int logN1, int radix, int otStages);

/// ntt_forward_from's arguments: checkNtt of out, and in one limb of the
/// one-prime basis `inBasis`, its prime below 8 times each of `basis`'s,
/// not overlapping out.
const BasisPlan &checkNttFrom(const RfRuntime *s, int basis, int inBasis,
                              const uint64_t *in, const uint64_t *out);

struct ConvertCall {
  const ConverterPlan *plan;
  size_t inWords, outWords;
  bool overlapping; // in and out share words: stage the output
};
ConvertCall checkConvert(const RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *out);

struct ScaleRoundCall {
  const ScaleRoundEntry *entry;
  size_t inWords, outWords;
  bool overlapping;
};
ScaleRoundCall checkScaleRound(const RfRuntime *s, int index,
                               const uint64_t *in, const uint64_t *out);
/// checkScaleRound, and an addend over the output's basis that overlaps
/// neither the input nor the output, for a plan that fuses no conversion.
ScaleRoundCall checkScaleRoundAdd(const RfRuntime *s, int index,
                                  const uint64_t *in, const uint64_t *addend,
                                  const uint64_t *out);

struct ScaleUpCall {
  const ScaleUpPlan *plan;
  size_t limbs;
  bool overlapping;
};
ScaleUpCall checkScaleUp(const RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *out);

/// The basis of X -> X^g from `in` to `out` (which must not overlap).
const BasisPlan &checkAutomorphism(const RfRuntime *s, int basis,
                                   uint64_t galoisElement, const uint64_t *in,
                                   const uint64_t *out);

/// A key-switching inner product over Q_l P (Q's first l primes, then P):
/// limb i of the basis is the key's limb keyLimb(i).
struct KeySwitchCall {
  const KeySwitchKey *key;
  size_t limbs, qLimbs, skippedLimbs, digits;
  RfKeySwitchAddend addend; // limbs 0: none
  size_t keyLimb(size_t i) const { return i < qLimbs ? i : i + skippedLimbs; }
};

/// The bound key and the layout of its level; the digits and outputs span
/// the basis' limbs * N words each; the addend (or null) covers some of the
/// level's primes of Q and overlaps neither output.
KeySwitchCall checkKeySwitch(const RfRuntime *s, int key, int basis,
                             const uint64_t *const *digits, int digitCount,
                             const uint64_t *out0, const uint64_t *out1,
                             const RfKeySwitchAddend *addend);

/// The sources of a fused forward NTT (ntt_key_switch's digits,
/// ntt_products' factors, named `what` in errors): each a polynomial over
/// `basis` (its scratch buffer or disjoint from it) or, over a one-prime
/// basis, checkNttFrom's input into its scratch buffer; no scratch buffer
/// overlapping another source's buffers, and no output (a polynomial over
/// `basis` each) overlapping a source or a scratch buffer. Which sources are
/// one prime's limb.
std::vector<bool> checkNttSources(const RfRuntime *s, int basis,
                                  const int *sourceBases,
                                  const uint64_t *const *sources,
                                  uint64_t *const *scratch, int count,
                                  const char *what,
                                  const std::vector<const uint64_t *> &outputs);

/// ntt_key_switch's arguments: a shape the fused NTT takes; checkKeySwitch
/// with the scratch buffers as the digits; checkNttSources of the digits.
struct NttKeySwitchCall {
  KeySwitchCall keySwitch;
  NttShape shape;
  std::vector<bool> oneLimb; // digit j is one prime's limb
};
NttKeySwitchCall checkNttKeySwitch(const RfRuntime *s, int key, int basis,
                                   const int *digitBases,
                                   const uint64_t *const *digits,
                                   uint64_t *const *scratch, int digitCount,
                                   const uint64_t *out0, const uint64_t *out1,
                                   const RfKeySwitchAddend *addend, int logN1,
                                   int radix, int otStages);

/// ntt_products' arguments: a shape the fused NTT takes; factor, output and
/// pair counts within ntt_shape.h's bounds; pairs grouped by output, every
/// output named, every factor index in range; outputs spanning the basis
/// and disjoint; checkNttSources of the factors.
struct NttProductsCall {
  NttShape shape;
  std::vector<bool> oneLimb; // factor i is one prime's limb
  size_t words;              // of a polynomial over the basis
};
NttProductsCall checkNttProducts(const RfRuntime *s, int basis,
                                 const int *factorBases,
                                 const uint64_t *const *factors,
                                 uint64_t *const *scratch, int factorCount,
                                 const int *pairs, int pairCount,
                                 uint64_t *const *outputs, int outputCount,
                                 int logN1, int radix, int otStages);

/// RfKernels::moduli's records of a basis's moduli.
inline std::vector<RfModulus>
moduliRecords(const std::vector<uint64_t> &moduli) {
  std::vector<RfModulus> records;
  for (uint64_t q : moduli)
    records.push_back(Modulus(q).record());
  return records;
}

/// What RfKernels::moduli hands out for a bad basis index: as many records
/// as the widest basis has, of a valid modulus.
inline std::vector<RfModulus> spareModuli(const RfRuntime &s) {
  return std::vector<RfModulus>(
      s.widestBasis, Modulus(s.context->q().values().front()).record());
}

/// buffer() and moduli(): the same for every driver (they hand out
/// bufferData / moduliData).
uint64_t *bufferKernel(RfRuntime *s, int buffer);
const RfModulus *moduliKernel(RfRuntime *s, int basis);

/// Words of a value's buffer that an input or output occupies: N for a
/// plaintext, |Q| * N for a ciphertext component.
size_t valueWords(const RfRuntime &s, const ValueLayout &layout);

// The CUDA driver (runtime/cuda/driver.cu; without CUDA, stubs that throw).

/// Places the buffers and uploads the plans, twiddles and constants.
void cudaAttach(RfRuntime &s);
/// Copies the bound keys to the device; unless `force`, only the keys that
/// are other objects (or whose words moved) since their last upload.
void cudaUploadKeys(RfRuntime &s, bool force);
/// Inputs in, the schedule, outputs out; throws a kernel's error.
std::vector<DeviceCiphertext> cudaRunOnDevice(RfRuntime &s,
                                              const std::vector<ProgramInput> &inputs);
std::vector<Ciphertext> cudaRun(RfRuntime &s,
                                const std::vector<ProgramInput> &inputs);
bool cudaReplaysGraph(const RfRuntime &s);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_CPU_PROGRAM_INTERNAL_H
