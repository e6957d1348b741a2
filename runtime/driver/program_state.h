//===- program_state.h - a loaded program's state ---------------*- C++ -*-===//
//
// What Program::fromFunctions builds from a manifest (program_abi.h) once,
// for every driver (manifest_loader.cpp): the plans the schedule refers to by
// index and the layout of the buffers, inputs, outputs, constants and keys;
// and the driver the program was loaded for (driver.h), which places the
// buffers and runs the kernels. The RfRuntime * a schedule receives points
// here.
//
// Internal to the driver component: not installed, not part of any API.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DRIVER_PROGRAM_STATE_H
#define RINGFUSE_RUNTIME_DRIVER_PROGRAM_STATE_H

#include "ringfuse/runtime/behz.h"
#include "ringfuse/runtime/dgt.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/program.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ringfuse::runtime::detail {

/// The NTT tables of each limb of a basis, or why it has none; and the DGT
/// tables of each limb of a basis the manifest marks `dgt` (else empty).
struct BasisPlan {
  RnsBasis rns;
  std::vector<uint64_t> moduli;
  std::vector<const NttTables *> ntt;
  std::string nttProblem; // empty if every limb has tables
  std::vector<const DgtTables64 *> dgt;
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
  /// A plaintext input the program takes prepared
  /// (RF_VALUE_PREPARED_PLAINTEXT): rotated by X -> X^galois (0: not), lifted
  /// to Q, in evaluation form.
  bool prepared = false;
  uint64_t galois = 0;
  size_t components = 0;
  int buffers[3] = {-1, -1, -1};
};

struct ConstantData {
  int buffer = 0;
  std::vector<uint64_t> words;
};

class Driver;
} // namespace ringfuse::runtime::detail

/// The loaded program's state: what the schedule's RfRuntime * points to.
struct RfRuntime {
  // First, so destroyed last: the schedule's code lives in the library.
  std::shared_ptr<void> library;
  RfManifestFunction manifestFunction = nullptr; // to load replicas
  RfRunFunction runFunction = nullptr;
  std::string name;
  std::string variant; // the manifest's, or empty
  ringfuse::runtime::Device device = ringfuse::runtime::Device::Cpu;
  ringfuse::runtime::ContextPtr context;
  size_t n = 0;

  std::map<uint64_t, std::unique_ptr<ringfuse::runtime::NttTables>>
      ownNttTables;
  std::map<uint64_t, std::unique_ptr<ringfuse::runtime::DgtTables64>> dgtTables;
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

  // Where the buffers live and how the kernels run (driver.h); destroyed
  // before the plans it points into.
  std::unique_ptr<ringfuse::runtime::detail::Driver> driver;

  // Program::runBatch's other workers on the CPU driver: states of their own
  // (buffers, driver) loaded from the same manifest and run function, for
  // the same device, made on first need and kept for later batches. A null
  // entry is one not made yet. Declared after `library`, so destroyed
  // before the code they point into goes.
  std::vector<std::unique_ptr<RfRuntime>> replicas;

  // Per prepared plaintext input (DriverInputs): the coefficients it was
  // last given and their prepared words, which a run given the same
  // coefficients again reuses (a matrix-vector product's diagonals, say).
  struct PreparedInput {
    std::vector<uint64_t> given;
    ringfuse::runtime::Plaintext prepared;
    uint64_t generation = 0; // one more each time it is prepared anew
  };
  std::map<size_t, PreparedInput> preparedInputs;

  std::mutex mutex; // one run at a time: the buffers are shared
  bool concurrent = false; // between concurrent_begin and concurrent_end
  bool failed = false;
  std::string error;
};

namespace ringfuse::runtime::detail {

std::string programLabel(const RfRuntime &s);

/// Records the first error of a run; later ones are dropped.
void fail(RfRuntime *s, const std::string &message);

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

/// Words of a value's buffer that an input or output occupies: N for a
/// plaintext, |Q| * N for a ciphertext component.
size_t valueWords(const RfRuntime &s, const ValueLayout &layout);

/// The host words of component `component` of an input in host memory (a
/// plaintext's coefficients or prepared words, a ciphertext's component):
/// what a driver copies into the input's buffer.
const uint64_t *hostInputWords(const ValueLayout &layout,
                               const ringfuse::runtime::ProgramInput &input,
                               size_t component);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_PROGRAM_STATE_H
