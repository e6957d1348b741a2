//===- driver.cu - the CUDA driver of compiled circuits -------------------===//
//
// A program loaded for Device::Cuda keeps everything on one GPU, in one
// allocation made at load:
//
//   [ tables: moduli, NTT twiddles, plans, constants | buffers | spare buffer
//     | staging scratch | keys ]
//
// Plans and twiddles are uploaded at load, keys at bind; a run restores the
// constants, copies its inputs in (from pinned staging), runs the schedule,
// copies its outputs out and synchronizes once. Library kernels run by
// dataflow: each on one of the side streams, after only the earlier launches
// whose words it shares (see beginLaunch). The program's stream, which
// RfKernels' stream() hands to emitted CUDA for its generated kernels, waits
// for every library launch. The first run launches the schedule's kernels one
// by one; the second captures the schedule into a CUDA graph, and every later
// run replays it (the copies in and out stay outside the graph).
//
// Argument checks and the rule for kernel errors are the CPU driver's
// (program_internal.h): the first error is recorded, later kernel calls do
// nothing, run() throws it. A failed launch is such an error, naming the
// kernel and the CUDA error.
//
//===----------------------------------------------------------------------===//
#include "../cpu/program_internal.h"
#include "kernels.cuh"
#include "timing_events.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/number_theory.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

using namespace ringfuse::runtime;
using namespace ringfuse::runtime::detail;

namespace {

std::string describe(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" +
         cudaGetErrorString(error) + ")";
}

/// Throws if a CUDA API call failed, saying what the driver was doing.
void check(cudaError_t error, const std::string &what) {
  if (error != cudaSuccess)
    throw Error("CUDA error while " + what + ": " + describe(error));
}

/// Device memory for a ciphertext of `components` components over Q.
DeviceCiphertext allocateDeviceCiphertext(const ContextPtr &context,
                                          size_t components) {
  const size_t bytes =
      components * context->q().size() * context->degree() * sizeof(uint64_t);
  void *memory = nullptr;
  check(cudaMalloc(&memory, bytes), "allocating a ciphertext in GPU memory");
  return DeviceCiphertext{
      context, components,
      std::shared_ptr<uint64_t>(static_cast<uint64_t *>(memory),
                                [](uint64_t *p) { cudaFree(p); })};
}

std::string mebibytes(size_t bytes) {
  return std::to_string((bytes + (size_t(1) << 20) - 1) >> 20) + " MiB";
}

constexpr size_t kAlignment = 256; // bytes: every table and buffer starts here

size_t alignUp(size_t bytes) {
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

/// The tables region, laid out twice: first with base 0 to learn its size,
/// then with the allocation's address, so that the plans' pointers are the
/// device addresses of the words the image puts there.
class TableImage {
public:
  explicit TableImage(uintptr_t base) : base_(base) {}

  template <typename T> const T *put(const T *data, size_t count) {
    const size_t at = alignUp(bytes_.size());
    bytes_.resize(at + count * sizeof(T));
    if (count)
      std::memcpy(bytes_.data() + at, data, count * sizeof(T));
    return reinterpret_cast<const T *>(base_ + at);
  }
  template <typename T> const T *put(const std::vector<T> &values) {
    return put(values.data(), values.size());
  }

  size_t size() const { return alignUp(bytes_.size()); }
  const std::vector<unsigned char> &bytes() const { return bytes_; }

private:
  uintptr_t base_;
  std::vector<unsigned char> bytes_;
};

std::vector<int> asInts(const std::vector<size_t> &values) {
  return std::vector<int>(values.begin(), values.end());
}

} // namespace

namespace ringfuse::runtime::detail {

/// Streams the library kernels go to: as many as kernel-concurrent puts in
/// a group. HMult was up to 3.5% faster with 16 than with 8, and 4 were
/// slower at logN 16 (docs/gpu-results.md).
constexpr int kSideStreams = 16;

/// Launches a schedule tracks before it forks its side streams again from
/// the program's stream (which has waited for them all): each new launch is
/// compared with every tracked one.
constexpr size_t kTrackedLaunches = 64;

/// Words of device memory a library launch reads or writes.
struct Span {
  const uint64_t *data;
  size_t words;
};

struct Accesses {
  std::vector<Span> reads, writes;
};

bool overlapsAny(const std::vector<Span> &a, const std::vector<Span> &b) {
  for (const Span &x : a)
    for (const Span &y : b)
      if (overlaps(x.data, x.words, y.data, y.words))
        return true;
  return false;
}

/// Whether `later` must wait for `earlier`: it reads what earlier writes,
/// or writes what earlier reads or writes.
bool dependsOn(const Accesses &later, const Accesses &earlier) {
  return overlapsAny(later.reads, earlier.writes) ||
         overlapsAny(later.writes, earlier.writes) ||
         overlapsAny(later.writes, earlier.reads);
}

struct CudaState {
  int device = 0;
  cudaStream_t stream = nullptr;
  unsigned char *memory = nullptr; // the one device allocation
  unsigned char *pinned = nullptr; // staging of inputs and outputs

  // The plans, pointing into the tables region.
  std::vector<cuda::NttPlan> ntt; // per basis (limbCount 0: no NTT)
  std::vector<cuda::ConvertPlan> converters;
  std::vector<cuda::ScaleRoundPlanView> scaleRounds;
  std::vector<cuda::ScaleUpPlanView> scaleUps;
  const Modulus *qpModuli = nullptr;
  std::vector<const Modulus *> basisModuli;    // per basis
  std::vector<const uint64_t *> constantWords; // per constant

  // Dataflow: each library kernel goes to a side stream and waits, by their
  // events, only for the earlier launches it depends on (dependsOn), so that
  // independent work overlaps across the compiler's concurrent regions, not
  // only within them. `stream` waits for every launch as it is made, so that
  // the generated kernels emitted CUDA puts on it (it may ask for the stream
  // once, before them all) and the schedule's end come after everything
  // before them. The sides fork from `stream` (the `start` event) at their
  // first launch and again after each generated kernel (checkLaunchKernel).
  struct Launched {
    Accesses accesses;
    size_t side;
  };
  std::vector<cudaStream_t> sides;
  std::vector<Launched> launched; // since the sides last forked
  std::vector<cudaEvent_t> done;  // launched[i] records done[i] (a pool)
  std::vector<size_t> lastOnSide; // index into launched, or kNone
  std::vector<bool> forked;       // the side has waited for `start`
  cudaEvent_t start = nullptr;
  bool startRecorded = false;
  size_t nextSide = 0;
  static constexpr size_t kNone = ~size_t(0);

  uint64_t *scratch = nullptr; // an output staged when it overlaps the input
  uint64_t *keys = nullptr;    // key k at keys + k * keyWords
  size_t keyWords = 0;

  // Pinned staging: word offsets of each input / output component.
  std::vector<std::vector<size_t>> inputStaging, outputStaging;

  /// What was uploaded to each key slot: the key object and where its words
  /// were, so that an unchanged binding is not copied again.
  struct UploadedKey {
    const KeySwitchKey *key = nullptr;
    std::vector<const uint64_t *> words;
  };
  std::vector<UploadedKey> uploaded;

  // The schedule as a graph, from the second successful run on.
  size_t successfulRuns = 0;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t graphExec = nullptr;
  bool graphDisabled = false; // capture failed: runs stay eager
  std::string graphProblem;

  ~CudaState() {
    // Errors are ignored: a destructor cannot report them, and at process
    // exit the CUDA runtime may already be gone.
    cudaSetDevice(device);
    if (stream)
      cudaStreamSynchronize(stream);
    if (graphExec)
      cudaGraphExecDestroy(graphExec);
    if (graph)
      cudaGraphDestroy(graph);
    if (memory)
      cudaFree(memory);
    if (pinned)
      cudaFreeHost(pinned);
    for (cudaEvent_t event : done)
      cudaEventDestroy(event);
    if (start)
      cudaEventDestroy(start);
    for (cudaStream_t side : sides)
      cudaStreamDestroy(side);
    if (stream)
      cudaStreamDestroy(stream);
    cudaGetLastError();
  }
};

void CudaStateDeleter::operator()(CudaState *state) const { delete state; }

} // namespace ringfuse::runtime::detail

namespace {

/// Lays out every table of the program in `image` and points the plans of
/// `d` (and the constants' copies) at them; `moduli` receives what moduli()
/// hands out per basis, `spareModuli` what it hands out for a bad index.
void placeTables(const RfRuntime &s,
                 const std::map<uint64_t, const NttTables *> &twiddles,
                 TableImage &image, CudaState &d,
                 std::vector<const RfModulus *> &moduli,
                 const RfModulus *&spareModuli) {
  const Context &c = *s.context;
  std::map<uint64_t, std::pair<const ShoupConstant *, const ShoupConstant *>>
      placed;
  for (const auto &[q, t] : twiddles)
    placed[q] = {image.put(t->rootPowers()), image.put(t->inverseRootPowers())};

  moduli.clear();
  d.ntt.clear();
  d.basisModuli.clear();
  for (const BasisPlan &plan : s.bases) {
    moduli.push_back(image.put(moduliRecords(plan.moduli)));
    // The same table, read as Modulus (modarith.h asserts the layout).
    d.basisModuli.push_back(reinterpret_cast<const Modulus *>(moduli.back()));
    cuda::NttPlan ntt{nullptr, 0};
    if (plan.nttProblem.empty()) {
      std::vector<cuda::NttLimb> limbs;
      for (size_t i = 0; i < plan.moduli.size(); ++i) {
        const uint64_t q = plan.moduli[i];
        limbs.push_back(cuda::makeNttLimb(q, placed.at(q).first,
                                          placed.at(q).second,
                                          twiddles.at(q)->inverseDegree()));
      }
      ntt = {image.put(limbs), static_cast<int>(limbs.size())};
    }
    d.ntt.push_back(ntt);
  }
  spareModuli = image.put(detail::spareModuli(s));

  // Every word a conversion or scale-and-round reads is below one of these.
  uint64_t wordBound = 0;
  for (const BasisPlan &plan : s.bases)
    wordBound = std::max(wordBound, cuda::largestModulus(plan.moduli));

  // A weight matrix for the tensor cores where they pay, else null.
  auto putMmaWeights = [&](const std::vector<uint64_t> &byInput, int inputs,
                           int outputs, int perSum) -> const uint32_t * {
    if (!cuda::mmaPays(inputs, outputs, perSum))
      return nullptr;
    return image.put(cuda::mmaWeightFragments(byInput, inputs, outputs));
  };
  d.converters.clear();
  for (const ConverterPlan &plan : s.converters) {
    cuda::ConvertPlan view{};
    view.method = plan.method;
    view.missingLimbs = image.put(asInts(plan.missingLimbs));
    auto putTargets = [&](const RnsBasis &to) {
      std::vector<Modulus> targets;
      for (size_t j = 0; j < to.size(); ++j)
        targets.push_back(to.modulus(j));
      view.missingSize = static_cast<int>(to.size());
      view.missingModuli = image.put(targets);
    };
    if (plan.missing) {
      const BaseConverter &bc = *plan.missing;
      std::vector<ShoupConstant> inverses;
      for (size_t i = 0; i < bc.from().size(); ++i)
        inverses.push_back(bc.from().puncturedInverse(i));
      putTargets(bc.to());
      view.fromSize = static_cast<int>(bc.from().size());
      view.fromModuli = image.put(bc.from().values());
      view.puncturedInverse = image.put(inverses);
      view.inverseOfFrom = image.put(bc.inverseOfFrom());
      view.puncturedModTo = image.put(cuda::weightRows(
          bc.puncturedModTo(), view.fromSize, view.missingSize));
      view.productModTo = image.put(bc.productModTo());
      view.productsPerSum =
          cuda::productsPerSum(cuda::largestModulus(bc.from().values()),
                               cuda::largestModulus(bc.to().values()));
      view.mmaWeights = putMmaWeights(bc.puncturedModTo(), view.fromSize,
                                      view.missingSize, view.productsPerSum);
    } else if (plan.corrected) {
      const RedundantConverter &rc = *plan.corrected;
      putTargets(rc.to());
      view.fromSize = static_cast<int>(rc.from().size());
      view.fromModuli = image.put(rc.from().values());
      view.puncturedInverse = image.put(rc.scale());
      view.puncturedModTo = image.put(
          cuda::weightRows(rc.weights(), view.fromSize, view.missingSize));
      view.productModTo = image.put(rc.product());
      view.redundant = rc.redundant();
      view.redundantFactor = rc.factor();
      view.redundantWeights =
          image.put(cuda::weightRows(rc.redundantWeights(), view.fromSize, 1));
      view.productsPerSum =
          cuda::productsPerSum(cuda::largestModulus(rc.from().values()),
                               std::max(cuda::largestModulus(rc.to().values()),
                                        rc.redundant().value));
      view.mmaWeights = putMmaWeights(rc.weights(), view.fromSize,
                                      view.missingSize, view.productsPerSum);
      view.readsRedundant = rc.readsRedundant() ? 1 : 0;
    } else {
      view.fromSize = static_cast<int>(s.bases[plan.from].moduli.size());
    }
    // The kernels copy each input limb they stage (the converter's, then a
    // redundant one) to the output limb that is its prime, if any.
    std::vector<int> copyTo(view.fromSize + view.readsRedundant, -1);
    for (size_t j = 0; j < plan.copyFrom.size(); ++j)
      if (plan.copyFrom[j] >= 0)
        copyTo.at(plan.copyFrom[j]) = static_cast<int>(j);
    view.copyTo = image.put(copyTo);
    d.converters.push_back(view);
  }

  d.scaleRounds.clear();
  for (const ScaleRoundEntry &entry : s.scaleRounds) {
    cuda::ScaleRoundPlanView view{};
    view.divisorLimbs = image.put(asInts(entry.divisorLimbs));
    view.keptLimbs = image.put(asInts(entry.keptLimbs));
    if (entry.floor) {
      const FastFloorPlan &plan = *entry.floor;
      std::vector<Modulus> outputs;
      for (size_t k = 0; k < plan.kept().size(); ++k)
        outputs.push_back(plan.kept().modulus(k));
      view.divisorSize = static_cast<int>(plan.divisor().size());
      view.outputSize = static_cast<int>(outputs.size());
      view.hasLambda = 1;
      view.omega = image.put(
          cuda::weightRows(plan.weights(), view.divisorSize, view.outputSize));
      view.lambda = image.put(plan.lambda());
      view.outputs = image.put(outputs);
      view.productsPerSum =
          cuda::productsPerSum(wordBound, cuda::largestModulus(outputs));
      view.mmaOmega = putMmaWeights(plan.weights(), view.divisorSize,
                                    view.outputSize, view.productsPerSum);
      view.divisorScale = image.put(plan.scale());
      view.divisorModuli = image.put(plan.divisor().values());
    } else {
      const ScaleRoundPlan &plan = *entry.plan;
      view.divisorSize = static_cast<int>(plan.divisorSize());
      view.outputSize = static_cast<int>(plan.outputLimbs());
      // A switch's input has no kept limbs: their term is left out.
      view.hasLambda = plan.lambda().empty() || entry.keptLimbs.empty() ? 0 : 1;
      view.theta = image.put(plan.theta());
      view.omega = image.put(
          cuda::weightRows(plan.omega(), view.divisorSize, view.outputSize));
      view.lambda = image.put(plan.lambda());
      view.outputs = image.put(plan.outputModuli());
      view.productsPerSum = cuda::productsPerSum(
          wordBound, cuda::largestModulus(plan.outputModuli()),
          cuda::roundedSumBound(plan.divisorSize(), wordBound));
      view.mmaOmega = putMmaWeights(plan.omega(), view.divisorSize,
                                    view.outputSize, view.productsPerSum);
    }
    d.scaleRounds.push_back(view);
  }

  d.scaleUps.clear();
  for (const ScaleUpPlan &plan : s.scaleUps) {
    cuda::ScaleUpPlanView view{};
    view.limbs = static_cast<int>(plan.outputModuli.size());
    view.t = c.plaintextModulus();
    view.qModT = c.qModT();
    view.deltaModOutput = image.put(plan.deltaModOutput);
    view.outputs = image.put(plan.outputModuli);
    d.scaleUps.push_back(view);
  }

  std::vector<Modulus> qp;
  for (size_t i = 0; i < c.qp().size(); ++i)
    qp.push_back(c.qp().modulus(i));
  d.qpModuli = image.put(qp);

  d.constantWords.clear();
  for (const ConstantData &constant : s.constants)
    d.constantWords.push_back(image.put(constant.words));
}

CudaState &stateOf(RfRuntime *s) { return *s->cuda; }

/// Forgets the launches made so far: what comes next forks from `stream`
/// again, which has waited for all of them (endLaunch).
void forkAgain(CudaState &d) {
  d.launched.clear();
  std::fill(d.lastOnSide.begin(), d.lastOnSide.end(), CudaState::kNone);
  d.startRecorded = false;
}

/// The stream of a library kernel with these accesses, after it has waited
/// for the launches it depends on. It goes behind the latest of them that
/// is still its side's last launch (a chain stays on one stream, where
/// dependent launches overlap their predecessors' tails), else to the next
/// side. endLaunch must follow its launches.
cudaStream_t beginLaunch(RfRuntime *s, Accesses accesses) {
  CudaState &d = stateOf(s);
  if (d.launched.size() == kTrackedLaunches)
    forkAgain(d);
  if (!d.startRecorded) {
    check(cudaEventRecord(d.start, d.stream), "forking the side streams");
    std::fill(d.forked.begin(), d.forked.end(), false);
    d.startRecorded = true;
  }
  std::vector<size_t> dependencies;
  for (size_t i = 0; i < d.launched.size(); ++i)
    if (dependsOn(accesses, d.launched[i].accesses))
      dependencies.push_back(i);
  size_t side = CudaState::kNone;
  for (auto it = dependencies.rbegin(); it != dependencies.rend(); ++it)
    if (d.lastOnSide[d.launched[*it].side] == *it) {
      side = d.launched[*it].side;
      break;
    }
  if (side == CudaState::kNone)
    side = d.nextSide++ % d.sides.size();
  cudaStream_t stream = d.sides[side];
  if (!d.forked[side]) {
    check(cudaStreamWaitEvent(stream, d.start, 0), "forking a side stream");
    d.forked[side] = true;
  }
  for (size_t i : dependencies)
    if (d.launched[i].side != side)
      check(cudaStreamWaitEvent(stream, d.done[i], 0),
            "waiting for an earlier launch");
  const size_t index = d.launched.size();
  if (index == d.done.size()) {
    d.done.emplace_back();
    check(cudaEventCreateWithFlags(&d.done.back(), cudaEventDisableTiming),
          "creating a launch's event");
  }
  d.launched.push_back({std::move(accesses), side});
  d.lastOnSide[side] = index;
  return stream;
}

/// After the launches of the kernel beginLaunch placed: its event, which
/// the program's stream waits for.
void endLaunch(RfRuntime *s) {
  CudaState &d = stateOf(s);
  const size_t index = d.launched.size() - 1;
  check(cudaEventRecord(d.done[index], d.sides[d.launched[index].side]),
        "recording a launch's event");
  check(cudaStreamWaitEvent(d.stream, d.done[index], 0),
        "joining a launch to the program's stream");
}

/// Where a kernel writes `out`: in place, or staged in the scratch buffer
/// when it overlaps the input. Refused inside a concurrent region, whose
/// calls the compiler promises independent: two staged outputs would share
/// the scratch (dataflow would order them, but the promise would be false).
uint64_t *targetOf(RfRuntime *s, bool overlapping, uint64_t *out) {
  if (!overlapping)
    return out;
  if (s->concurrent)
    throw Error("the output overlaps the input inside a concurrent region");
  return stateOf(s).scratch;
}

// The kernels
// -------------------------------------------------------------------

void nttKernel(RfRuntime *s, int basis, uint64_t *data, int logN1, int radix,
               int otStages, bool forward) {
  guarded(s, forward ? "ntt_forward" : "ntt_inverse", [&] {
    checkNtt(s, basis, data);
    // Refuses, naming the shape, what ntt.cu does not instantiate.
    const NttShape shape = checkNttShape(s, logN1, radix, otStages);
    CudaState &d = stateOf(s);
    const Span words{data, basisWords(s, basis)};
    cudaStream_t stream = beginLaunch(s, {{words}, {words}});
    if (forward)
      cuda::launchNttForward(d.ntt[basis], s->n, shape, data, stream);
    else
      cuda::launchNttInverse(d.ntt[basis], s->n, shape, data, stream);
    endLaunch(s);
  });
}

void nttForwardKernel(RfRuntime *s, int basis, uint64_t *data, int logN1,
                      int radix, int otStages) {
  nttKernel(s, basis, data, logN1, radix, otStages, true);
}

void nttInverseKernel(RfRuntime *s, int basis, uint64_t *data, int logN1,
                      int radix, int otStages) {
  nttKernel(s, basis, data, logN1, radix, otStages, false);
}

void nttForwardFromKernel(RfRuntime *s, int basis, int inBasis,
                          const uint64_t *in, uint64_t *out, int logN1,
                          int radix, int otStages) {
  guarded(s, "ntt_forward_from", [&] {
    checkNttFrom(s, basis, inBasis, in, out);
    const NttShape shape = checkNttShape(s, logN1, radix, otStages);
    cudaStream_t stream =
        beginLaunch(s, {{{in, basisWords(s, inBasis)}},
                        {{out, basisWords(s, basis)}}});
    cuda::launchNttForward(stateOf(s).ntt[basis], s->n, shape, out, stream,
                           in);
    endLaunch(s);
  });
}

/// The staged output back where the schedule asked for it.
void copyFromScratch(CudaState &d, uint64_t *out, size_t words,
                     cudaStream_t stream) {
  check(cudaMemcpyAsync(out, d.scratch, words * sizeof(uint64_t),
                        cudaMemcpyDeviceToDevice, stream),
        "copying a staged output into place");
}

/// A launch that reads `in` and writes `out` (through the scratch buffer
/// when they overlap).
Accesses inToOut(const CudaState &d, Span in, Span out, bool overlapping) {
  Accesses accesses{{in}, {out}};
  if (overlapping)
    accesses.writes.push_back({d.scratch, out.words});
  return accesses;
}

void convertKernel(RfRuntime *s, int index, const uint64_t *in, uint64_t *out) {
  guarded(s, "convert", [&] {
    const ConvertCall call = checkConvert(s, index, in, out);
    CudaState &d = stateOf(s);
    uint64_t *target = targetOf(s, call.overlapping, out);
    cudaStream_t stream =
        beginLaunch(s, inToOut(d, {in, call.inWords}, {out, call.outWords},
                               call.overlapping));
    cuda::launchConvert(d.converters[index], s->n, in, target, stream);
    if (call.overlapping)
      copyFromScratch(d, out, call.outWords, stream);
    endLaunch(s);
  });
}

/// A checked scale-and-round call's launch: fused with its conversion (if
/// the plan has one) or plus the addend (if any), through scratch when out
/// overlaps in.
void launchScaleRoundCall(RfRuntime *s, int index, const ScaleRoundCall &call,
                          const uint64_t *in, const uint64_t *addend,
                          uint64_t *out) {
  CudaState &d = stateOf(s);
  uint64_t *target = targetOf(s, call.overlapping, out);
  Accesses accesses = inToOut(d, {in, call.inWords}, {out, call.outWords},
                              call.overlapping);
  if (addend)
    accesses.reads.push_back({addend, call.outWords});
  cudaStream_t stream = beginLaunch(s, std::move(accesses));
  const int converter = call.entry->converter;
  if (converter < 0)
    cuda::launchScaleRound(d.scaleRounds[index], s->n, in, target, stream,
                           addend);
  else
    cuda::launchScaleRoundConvert(d.scaleRounds[index], d.converters[converter],
                                  s->n, in, target, stream);
  if (call.overlapping)
    copyFromScratch(d, out, call.outWords, stream);
  endLaunch(s);
}

void scaleRoundKernel(RfRuntime *s, int index, const uint64_t *in,
                      uint64_t *out) {
  guarded(s, "scale_round", [&] {
    launchScaleRoundCall(s, index, checkScaleRound(s, index, in, out), in,
                         nullptr, out);
  });
}

/// checkScaleRoundAdd refuses a plan that fuses a conversion.
void scaleRoundAddKernel(RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *addend, uint64_t *out) {
  guarded(s, "scale_round_add", [&] {
    launchScaleRoundCall(s, index,
                         checkScaleRoundAdd(s, index, in, addend, out), in,
                         addend, out);
  });
}

void scaleUpKernel(RfRuntime *s, int index, const uint64_t *in, uint64_t *out) {
  guarded(s, "scale_up", [&] {
    const ScaleUpCall call = checkScaleUp(s, index, in, out);
    CudaState &d = stateOf(s);
    uint64_t *target = targetOf(s, call.overlapping, out);
    cudaStream_t stream = beginLaunch(
        s, inToOut(d, {in, s->n}, {out, call.limbs * s->n}, call.overlapping));
    cuda::launchScaleUp(d.scaleUps[index], s->n, in, target, stream);
    if (call.overlapping)
      copyFromScratch(d, out, call.limbs * s->n, stream);
    endLaunch(s);
  });
}

void automorphismKernel(RfRuntime *s, int basis, uint64_t galoisElement,
                        const uint64_t *in, uint64_t *out) {
  guarded(s, "automorphism", [&] {
    const BasisPlan &plan = checkAutomorphism(s, basis, galoisElement, in, out);
    const size_t words = basisWords(s, basis);
    cudaStream_t stream = beginLaunch(s, {{{in, words}}, {{out, words}}});
    cuda::launchAutomorphism(stateOf(s).basisModuli[basis],
                             static_cast<int>(plan.moduli.size()), s->n,
                             galoisElement, in, out, stream);
    endLaunch(s);
  });
}

void automorphismEvaluationKernel(RfRuntime *s, int basis,
                                  uint64_t galoisElement, const uint64_t *in,
                                  uint64_t *out) {
  guarded(s, "automorphism_evaluation", [&] {
    const BasisPlan &plan = checkAutomorphism(s, basis, galoisElement, in, out);
    const size_t words = basisWords(s, basis);
    cudaStream_t stream = beginLaunch(s, {{{in, words}}, {{out, words}}});
    cuda::launchEvaluationAutomorphism(static_cast<int>(plan.moduli.size()),
                                       s->n, galoisElement, in, out, stream);
    endLaunch(s);
  });
}

/// Key `key` on the device, over the call's basis.
cuda::KeySwitchKeyView keyView(RfRuntime *s, int key,
                               const KeySwitchCall &call) {
  const CudaState &d = stateOf(s);
  cuda::KeySwitchKeyView view{};
  view.limbs = static_cast<int>(call.limbs);
  view.qLimbs = static_cast<int>(call.qLimbs);
  view.skippedLimbs = static_cast<int>(call.skippedLimbs);
  view.moduli = d.qpModuli;
  view.key = d.keys + static_cast<size_t>(key) * d.keyWords;
  view.componentWords = s->context->qp().size() * s->n;
  return view;
}

/// What key switching's addend has it read.
void addendAccesses(const RfRuntime *s, const RfKeySwitchAddend &addend,
                    Accesses &accesses) {
  if (addend.limbs == 0)
    return;
  const size_t words = size_t(addend.limbs) * s->n;
  accesses.reads.push_back({addend.addend0, words});
  accesses.reads.push_back({addend.addend1, words});
  accesses.reads.push_back({addend.scales, size_t(addend.limbs)});
}

void keySwitchInnerProductKernel(RfRuntime *s, int key, int basis,
                                 const uint64_t *const *digits, int digitCount,
                                 uint64_t *out0, uint64_t *out1,
                                 const RfKeySwitchAddend *addend) {
  guarded(s, "key_switch_inner_product", [&] {
    const KeySwitchCall call = checkKeySwitch(s, key, basis, digits,
                                              digitCount, out0, out1, addend);
    CudaState &d = stateOf(s);
    cuda::KeySwitchPlan plan{};
    plan.key = keyView(s, key, call);
    plan.digits = static_cast<int>(call.digits);
    plan.addend = call.addend;
    // By value: a captured graph keeps the pointers, not the host array.
    const size_t words = call.limbs * s->n;
    Accesses accesses{{}, {{out0, words}, {out1, words}}};
    for (int j = 0; j < plan.digits; ++j) {
      plan.digitData[j] = digits[j];
      accesses.reads.push_back({digits[j], words});
    }
    addendAccesses(s, call.addend, accesses);
    cudaStream_t stream = beginLaunch(s, std::move(accesses));
    cuda::launchKeySwitchInnerProduct(plan, s->n, out0, out1, stream);
    endLaunch(s);
  });
}

/// What a fused NTT's sources (`words` each, or n if one limb) and their
/// scratch polynomials (`words` each) have it read and write.
Accesses sourceAccesses(const RfRuntime *s, const uint64_t *const *sources,
                        uint64_t *const *scratch,
                        const std::vector<bool> &oneLimb, size_t words) {
  Accesses accesses;
  for (size_t j = 0; j < oneLimb.size(); ++j) {
    accesses.reads.push_back({sources[j], oneLimb[j] ? s->n : words});
    accesses.writes.push_back({scratch[j], words});
  }
  return accesses;
}

/// A fused NTT's sources, by value: a captured graph keeps the pointers,
/// not the host arrays.
cuda::NttSources sourcesOf(const uint64_t *const *sources,
                           uint64_t *const *scratch,
                           const std::vector<bool> &oneLimb) {
  cuda::NttSources batch{};
  batch.count = static_cast<int>(oneLimb.size());
  for (int j = 0; j < batch.count; ++j) {
    batch.sources[j] = sources[j];
    batch.scratch[j] = scratch[j];
    batch.oneLimb[j] = oneLimb[j];
  }
  return batch;
}

void nttKeySwitchKernel(RfRuntime *s, int key, int basis, const int *digitBases,
                        const uint64_t *const *digits, uint64_t *const *scratch,
                        int digitCount, uint64_t *out0, uint64_t *out1,
                        const RfKeySwitchAddend *addend, int logN1, int radix,
                        int otStages) {
  guarded(s, "ntt_key_switch", [&] {
    const NttKeySwitchCall call = checkNttKeySwitch(
        s, key, basis, digitBases, digits, scratch, digitCount, out0, out1,
        addend, logN1, radix, otStages);
    const size_t words = call.keySwitch.limbs * s->n;
    Accesses accesses =
        sourceAccesses(s, digits, scratch, call.oneLimb, words);
    accesses.writes.push_back({out0, words});
    accesses.writes.push_back({out1, words});
    addendAccesses(s, call.keySwitch.addend, accesses);
    cudaStream_t stream = beginLaunch(s, std::move(accesses));
    cuda::launchNttKeySwitch(keyView(s, key, call.keySwitch),
                             stateOf(s).ntt[basis], s->n, call.shape,
                             sourcesOf(digits, scratch, call.oneLimb), out0,
                             out1, call.keySwitch.addend, stream);
    endLaunch(s);
  });
}

void nttProductsKernel(RfRuntime *s, int basis, const int *factorBases,
                       const uint64_t *const *factors, uint64_t *const *scratch,
                       int factorCount, const int *pairs, int pairCount,
                       uint64_t *const *outputs, int outputCount, int logN1,
                       int radix, int otStages) {
  guarded(s, "ntt_products", [&] {
    const NttProductsCall call = checkNttProducts(
        s, basis, factorBases, factors, scratch, factorCount, pairs, pairCount,
        outputs, outputCount, logN1, radix, otStages);
    const CudaState &d = stateOf(s);
    cuda::NttProducts products{};
    products.outputCount = outputCount;
    products.moduli = d.basisModuli[basis];
    Accesses accesses =
        sourceAccesses(s, factors, scratch, call.oneLimb, call.words);
    for (int k = 0; k < outputCount; ++k) {
      products.outputs[k] = outputs[k];
      accesses.writes.push_back({outputs[k], call.words});
    }
    for (int p = 0; p < pairCount; ++p) {
      products.firstPair[pairs[3 * p] + 1] = p + 1;
      products.first[p] = pairs[3 * p + 1];
      products.second[p] = pairs[3 * p + 2];
    }
    cudaStream_t stream = beginLaunch(s, std::move(accesses));
    cuda::launchNttProducts(d.ntt[basis], s->n, call.shape,
                            sourcesOf(factors, scratch, call.oneLimb), products,
                            stream);
    endLaunch(s);
  });
}

/// Emitted CUDA's stream for its generated kernels: each runs after every
/// library kernel before it (endLaunch) and before every one after it
/// (checkLaunchKernel).
void *streamKernel(RfRuntime *s) { return stateOf(s).stream; }

/// After each launch of emitted CUDA: a failed launch is the run's error
/// (the first one), named after the generated kernel. The program reports its
/// own cudaGetLastError(): it may link a CUDA runtime of its own.
void checkLaunchKernel(RfRuntime *s, const char *kernel, int cudaError) {
  // A generated kernel went to the program's stream: later library kernels
  // fork behind it.
  forkAgain(stateOf(s));
  cudaError_t error = static_cast<cudaError_t>(cudaError);
  if (error != cudaSuccess)
    fail(s, std::string(kernel ? kernel : "(unnamed kernel)") +
                ": CUDA kernel failed to launch: " + describe(error));
}

/// A schedule's end: a region left open is an error. The program's stream
/// has waited for every launch (a capture ends on it).
void finishSchedule(RfRuntime &s) {
  closeOpenRegion(s);
  forkAgain(*s.cuda);
}

const RfKernels kCudaKernels = {
    bufferKernel,
    moduliKernel,
    nttForwardKernel,
    nttInverseKernel,
    convertKernel,
    scaleRoundKernel,
    scaleRoundAddKernel,
    scaleUpKernel,
    automorphismKernel,
    automorphismEvaluationKernel,
    keySwitchInnerProductKernel,
    streamKernel,
    checkLaunchKernel,
    // Regions need nothing beyond the common checks: dataflow (beginLaunch)
    // already runs their launches side by side.
    concurrentBeginKernel,
    concurrentEndKernel,
    nttForwardFromKernel,
    nttKeySwitchKernel,
    nttProductsKernel,
};

// Running
// -----------------------------------------------------------------------

/// The schedule into a graph (on the second successful run). Any failure
/// (a call the emitted code makes that capture does not allow, say) leaves
/// the program running eagerly, as on its first run.
void captureSchedule(RfRuntime &s) {
  CudaState &d = *s.cuda;
  cudaGetLastError(); // nothing stale may be blamed on a captured launch
  cudaError_t begin =
      cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeThreadLocal);
  if (begin != cudaSuccess) {
    cudaGetLastError();
    d.graphDisabled = true;
    d.graphProblem = "cudaStreamBeginCapture: " + describe(begin);
    return;
  }
  s.failed = false;
  s.error.clear();
  s.runFunction(&s, &kCudaKernels);
  finishSchedule(s);
  cudaGraph_t graph = nullptr;
  cudaError_t end = cudaStreamEndCapture(d.stream, &graph);
  std::string problem;
  if (s.failed)
    problem = "capturing the schedule: " + s.error;
  else if (end != cudaSuccess || !graph)
    problem = "cudaStreamEndCapture: " + describe(end);
  cudaGraphExec_t exec = nullptr;
  if (problem.empty()) {
    cudaError_t instantiate = cudaGraphInstantiate(&exec, graph, 0);
    if (instantiate != cudaSuccess)
      problem = "cudaGraphInstantiate: " + describe(instantiate);
  }
  if (!problem.empty()) {
    if (graph)
      cudaGraphDestroy(graph);
    cudaGetLastError();
    s.failed = false;
    s.error.clear();
    d.graphDisabled = true;
    d.graphProblem = problem;
    return;
  }
  d.graph = graph;
  d.graphExec = exec;
}

/// Runs the schedule on the stream: eagerly, or by replaying its graph.
void runSchedule(RfRuntime &s) {
  CudaState &d = *s.cuda;
  s.failed = false;
  s.error.clear();
  if (!d.graphExec && !d.graphDisabled && d.successfulRuns > 0)
    captureSchedule(s);
  if (d.graphExec) {
    cudaError_t launch = cudaGraphLaunch(d.graphExec, d.stream);
    if (launch != cudaSuccess)
      fail(&s, "cudaGraphLaunch: the schedule's graph failed to launch: " +
                   describe(launch));
    return;
  }
  s.runFunction(&s, &kCudaKernels);
  finishSchedule(s);
}

} // namespace

namespace ringfuse::runtime {

bool cudaAvailable() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

DeviceCiphertext uploadCiphertext(const Ciphertext &ciphertext) {
  if (!cudaAvailable())
    throw Error("no usable CUDA device: a ciphertext cannot be copied to the "
                "GPU here");
  if (ciphertext.size < 2 ||
      ciphertext.data.size() != ciphertext.size * ciphertext.componentWords())
    throw Error("malformed ciphertext: " + std::to_string(ciphertext.size) +
                " components in " + std::to_string(ciphertext.data.size()) +
                " words");
  DeviceCiphertext copy =
      allocateDeviceCiphertext(ciphertext.context, ciphertext.size);
  check(cudaMemcpy(copy.words.get(), ciphertext.data.data(),
                   ciphertext.data.size() * sizeof(uint64_t),
                   cudaMemcpyHostToDevice),
        "copying a ciphertext to the GPU");
  return copy;
}

Ciphertext downloadCiphertext(const DeviceCiphertext &ciphertext) {
  if (!ciphertext.words)
    throw Error("the GPU ciphertext holds no memory");
  Ciphertext copy{ciphertext.context, ciphertext.size, {}};
  copy.data.resize(copy.size * copy.componentWords());
  check(cudaMemcpy(copy.data.data(), ciphertext.words.get(),
                   copy.data.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost),
        "copying a ciphertext from the GPU");
  return copy;
}

} // namespace ringfuse::runtime

namespace ringfuse::runtime::detail {

void cudaAttach(RfRuntime &s) {
  int count = 0;
  cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw Error("cannot load the program for CUDA: no CUDA device is visible" +
                (counted != cudaSuccess
                     ? " (cudaGetDeviceCount: " + describe(counted) + ")"
                     : std::string()));
  }
  auto state = std::unique_ptr<CudaState, CudaStateDeleter>(new CudaState);
  CudaState &d = *state;
  check(cudaGetDevice(&d.device), "reading the current CUDA device");
  check(cudaSetDevice(d.device), "selecting the CUDA device");

  const Context &c = *s.context;
  const size_t n = s.n, qWords = c.q().size() * n, qpWords = c.qp().size() * n;
  if (c.dnum() > static_cast<size_t>(cuda::kMaxDigits))
    throw Error("the parameter set has dnum = " + std::to_string(c.dnum()) +
                " key-switching digits; the CUDA driver handles at most " +
                std::to_string(cuda::kMaxDigits));
  for (size_t b = 0; b < s.bases.size(); ++b)
    if (s.bases[b].moduli.size() > 65535)
      throw Error("basis " + std::to_string(b) + " has too many moduli");

  // The tables: twiddles once per prime that some transformable basis has.
  std::map<uint64_t, const NttTables *> twiddles;
  for (const BasisPlan &plan : s.bases)
    if (plan.nttProblem.empty())
      for (size_t i = 0; i < plan.moduli.size(); ++i)
        twiddles.emplace(plan.moduli[i], plan.ntt[i]);
  std::vector<const RfModulus *> moduli;
  const RfModulus *spareModuli = nullptr;
  TableImage measure(0);
  placeTables(s, twiddles, measure, d, moduli, spareModuli);

  // The rest of the allocation, after the tables.
  size_t offset = measure.size();
  std::vector<size_t> bufferOffsets;
  for (size_t words : s.bufferWords) {
    bufferOffsets.push_back(offset);
    offset = alignUp(offset + words * sizeof(uint64_t));
  }
  const size_t spareOffset = offset;
  offset = alignUp(offset + s.largestBuffer * sizeof(uint64_t));
  size_t scratchWords = 1;
  for (size_t k = 0; k < s.converters.size(); ++k)
    scratchWords = std::max(scratchWords, s.converters[k].copyFrom.size() * n);
  for (const ScaleRoundEntry &entry : s.scaleRounds)
    scratchWords = std::max(scratchWords, basisWords(&s, entry.output));
  for (const ScaleUpPlan &plan : s.scaleUps)
    scratchWords = std::max(scratchWords, plan.outputModuli.size() * n);
  const size_t scratchOffset = offset;
  offset = alignUp(offset + scratchWords * sizeof(uint64_t));
  d.keyWords = 2 * c.dnum() * qpWords;
  const size_t keysOffset = offset;
  offset =
      alignUp(offset + s.keyElements.size() * d.keyWords * sizeof(uint64_t));
  const size_t totalBytes = offset;

  check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking),
        "creating the program's stream");
  check(cudaEventCreateWithFlags(&d.start, cudaEventDisableTiming),
        "creating the side streams' fork event");
  for (int i = 0; i < kSideStreams; ++i) {
    d.sides.emplace_back();
    check(cudaStreamCreateWithFlags(&d.sides.back(), cudaStreamNonBlocking),
          "creating a side stream");
  }
  d.lastOnSide.assign(d.sides.size(), CudaState::kNone);
  d.forked.assign(d.sides.size(), false);
  cudaError_t allocated =
      cudaMalloc(reinterpret_cast<void **>(&d.memory), totalBytes);
  if (allocated != cudaSuccess) {
    cudaGetLastError(); // out of memory is not sticky: clear it
    size_t freeBytes = 0, totalDevice = 0;
    std::string available;
    if (cudaMemGetInfo(&freeBytes, &totalDevice) == cudaSuccess)
      available = " (the GPU has " + mebibytes(freeBytes) + " free of " +
                  mebibytes(totalDevice) + ")";
    cudaGetLastError();
    if (allocated == cudaErrorMemoryAllocation)
      throw Error("not enough GPU memory: the program needs " +
                  mebibytes(totalBytes) + available);
    check(allocated, "allocating " + mebibytes(totalBytes) + " of GPU memory");
  }

  // The tables again, now at their device addresses, and up they go.
  TableImage image(reinterpret_cast<uintptr_t>(d.memory));
  placeTables(s, twiddles, image, d, moduli, spareModuli);
  check(cudaMemcpyAsync(d.memory, image.bytes().data(), image.bytes().size(),
                        cudaMemcpyHostToDevice, d.stream),
        "uploading the program's tables");
  check(cudaMemsetAsync(d.memory + measure.size(), 0,
                        totalBytes - measure.size(), d.stream),
        "clearing the program's buffers");

  std::vector<uint64_t *> bufferData;
  for (size_t offset : bufferOffsets)
    bufferData.push_back(reinterpret_cast<uint64_t *>(d.memory + offset));
  d.scratch = reinterpret_cast<uint64_t *>(d.memory + scratchOffset);
  d.keys = reinterpret_cast<uint64_t *>(d.memory + keysOffset);
  for (size_t k = 0; k < s.constants.size(); ++k)
    if (!s.constants[k].words.empty())
      check(cudaMemcpyAsync(bufferData[s.constants[k].buffer],
                            d.constantWords[k],
                            s.constants[k].words.size() * sizeof(uint64_t),
                            cudaMemcpyDeviceToDevice, d.stream),
            "placing constant " + std::to_string(k));

  // Pinned staging for the inputs and outputs of a run.
  size_t stagingWords = 0;
  for (const ValueLayout &layout : s.inputs) {
    d.inputStaging.emplace_back();
    for (size_t k = 0; k < layout.components; ++k) {
      d.inputStaging.back().push_back(stagingWords);
      stagingWords += valueWords(s, layout);
    }
  }
  for (const ValueLayout &layout : s.outputs) {
    d.outputStaging.emplace_back();
    for (size_t k = 0; k < layout.components; ++k) {
      d.outputStaging.back().push_back(stagingWords);
      stagingWords += qWords;
    }
  }
  check(cudaMallocHost(reinterpret_cast<void **>(&d.pinned),
                       std::max<size_t>(stagingWords, 1) * sizeof(uint64_t)),
        "allocating " + mebibytes(stagingWords * sizeof(uint64_t)) +
            " of pinned host memory for inputs and outputs");
  check(cudaStreamSynchronize(d.stream), "loading the program onto the GPU");

  d.uploaded.assign(s.keyElements.size(), {});
  s.bufferData = std::move(bufferData);
  s.moduliData = std::move(moduli);
  s.spareBuffer = reinterpret_cast<uint64_t *>(d.memory + spareOffset);
  s.spareModuli = spareModuli;
  s.cuda = std::move(state);
}

void cudaUploadKeys(RfRuntime &s, bool force) {
  CudaState &d = *s.cuda;
  if (s.keyElements.empty() || !s.boundKeys.front())
    return;
  check(cudaSetDevice(d.device), "selecting the CUDA device");
  const size_t qpWords = s.context->qp().size() * s.n;
  bool copied = false;
  for (size_t k = 0; k < s.keyElements.size(); ++k) {
    const KeySwitchKey *key = s.boundKeys[k];
    std::vector<const uint64_t *> words;
    for (size_t j = 0; j < key->b.size(); ++j) {
      words.push_back(key->b[j].data());
      words.push_back(key->a[j].data());
    }
    CudaState::UploadedKey &slot = d.uploaded[k];
    if (!force && slot.key == key && slot.words == words)
      continue;
    slot = {}; // until the copy is known to have succeeded
    uint64_t *target = d.keys + k * d.keyWords;
    for (size_t j = 0; j < words.size(); ++j)
      check(cudaMemcpyAsync(target + j * qpWords, words[j],
                            qpWords * sizeof(uint64_t), cudaMemcpyHostToDevice,
                            d.stream),
            "uploading key " + std::to_string(k));
    copied = true;
  }
  if (!copied)
    return;
  check(cudaStreamSynchronize(d.stream), "uploading the keys");
  for (size_t k = 0; k < s.keyElements.size(); ++k) {
    const KeySwitchKey *key = s.boundKeys[k];
    CudaState::UploadedKey &slot = d.uploaded[k];
    slot.key = key;
    slot.words.clear();
    for (size_t j = 0; j < key->b.size(); ++j) {
      slot.words.push_back(key->b[j].data());
      slot.words.push_back(key->a[j].data());
    }
  }
}

} // namespace ringfuse::runtime::detail

namespace {

/// The keys that changed, the constants and the inputs, onto the device (on
/// the stream; not waited for).
void bindInputs(RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  CudaState &d = *s.cuda;
  check(cudaSetDevice(d.device), "selecting the CUDA device");
  cudaUploadKeys(s, /*force=*/false);
  uint64_t *pinned = reinterpret_cast<uint64_t *>(d.pinned);

  // Constants again (a schedule may reuse a constant's buffer as scratch),
  // then the inputs, through pinned memory so the copies are asynchronous.
  for (size_t k = 0; k < s.constants.size(); ++k) {
    const ConstantData &constant = s.constants[k];
    uint64_t *buffer = s.bufferData[constant.buffer];
    const size_t count = constant.words.size();
    if (count)
      check(cudaMemcpyAsync(buffer, d.constantWords[k],
                            count * sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                            d.stream),
            "restoring constant " + std::to_string(k));
    check(cudaMemsetAsync(buffer + count, 0,
                          (s.bufferWords[constant.buffer] - count) *
                              sizeof(uint64_t),
                          d.stream),
          "restoring constant " + std::to_string(k));
  }
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    for (size_t k = 0; k < layout.components; ++k) {
      const size_t words = valueWords(s, layout);
      if (const auto *onDevice = std::get_if<const DeviceCiphertext *>(&inputs[v])) {
        // Already on the GPU: one device-to-device copy, no host round trip.
        check(cudaMemcpyAsync(s.bufferData[layout.buffers[k]],
                              (*onDevice)->words.get() + k * words,
                              words * sizeof(uint64_t), cudaMemcpyDeviceToDevice,
                              d.stream),
              "copying input " + std::to_string(v) + " within the GPU");
        continue;
      }
      const uint64_t *source =
          layout.plaintext
              ? std::get<const Plaintext *>(inputs[v])->coefficients.data()
              : std::get<const Ciphertext *>(inputs[v])->component(k);
      uint64_t *staged = pinned + d.inputStaging[v][k];
      std::memcpy(staged, source, words * sizeof(uint64_t));
      check(cudaMemcpyAsync(s.bufferData[layout.buffers[k]], staged,
                            words * sizeof(uint64_t), cudaMemcpyHostToDevice,
                            d.stream),
            "copying input " + std::to_string(v) + " to the GPU");
    }
  }
}

/// The schedule once on the stream (not waited for); throws a kernel's error.
void runScheduleChecked(RfRuntime &s) {
  runSchedule(s);
  if (s.failed) {
    // Let the launches made before the error finish before the staging
    // memory is written again.
    cudaError_t drained = cudaStreamSynchronize(s.cuda->stream);
    throw Error(programLabel(s) + " failed in kernel " + s.error +
                (drained != cudaSuccess
                     ? "; then the GPU reported " + describe(drained)
                     : std::string()));
  }
}

/// Waits for the stream; throws what the GPU reported (`when`: "" or, say,
/// " in a timed run").
void finishRun(RfRuntime &s, const std::string &when) {
  CudaState &d = *s.cuda;
  cudaError_t finished = cudaStreamSynchronize(d.stream);
  if (finished != cudaSuccess)
    throw Error(programLabel(s) + " failed on the GPU" +
                (d.graphExec ? " (replaying its captured graph)" : "") + when +
                ": " + describe(finished) +
                "; after a fault in a kernel, the process's CUDA context "
                "stays unusable");
}

} // namespace

namespace ringfuse::runtime::detail {

std::vector<Ciphertext> cudaRun(RfRuntime &s,
                                const std::vector<ProgramInput> &inputs) {
  CudaState &d = *s.cuda;
  const size_t qWords = s.context->q().size() * s.n;
  uint64_t *pinned = reinterpret_cast<uint64_t *>(d.pinned);
  bindInputs(s, inputs);
  runScheduleChecked(s);

  for (size_t v = 0; v < s.outputs.size(); ++v) {
    const ValueLayout &layout = s.outputs[v];
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpyAsync(
                pinned + d.outputStaging[v][k], s.bufferData[layout.buffers[k]],
                qWords * sizeof(uint64_t), cudaMemcpyDeviceToHost, d.stream),
            "copying output " + std::to_string(v) + " from the GPU");
  }
  finishRun(s, "");
  ++d.successfulRuns;

  std::vector<Ciphertext> outputs;
  for (size_t v = 0; v < s.outputs.size(); ++v) {
    const ValueLayout &layout = s.outputs[v];
    Ciphertext ct{s.context, layout.components,
                  std::vector<uint64_t>(layout.components * qWords)};
    for (size_t k = 0; k < layout.components; ++k)
      std::memcpy(ct.component(k), pinned + d.outputStaging[v][k],
                  qWords * sizeof(uint64_t));
    outputs.push_back(std::move(ct));
  }
  return outputs;
}

std::vector<DeviceCiphertext> cudaRunOnDevice(RfRuntime &s,
                                              const std::vector<ProgramInput> &inputs) {
  CudaState &d = *s.cuda;
  const size_t qWords = s.context->q().size() * s.n;
  // The outputs' own memory, made before the schedule runs (the program's
  // buffers are reused by the next run).
  std::vector<DeviceCiphertext> outputs;
  for (const ValueLayout &layout : s.outputs)
    outputs.push_back(allocateDeviceCiphertext(s.context, layout.components));
  bindInputs(s, inputs);
  runScheduleChecked(s);
  for (size_t v = 0; v < s.outputs.size(); ++v) {
    const ValueLayout &layout = s.outputs[v];
    for (size_t k = 0; k < layout.components; ++k)
      check(cudaMemcpyAsync(outputs[v].words.get() + k * qWords,
                            s.bufferData[layout.buffers[k]], qWords * sizeof(uint64_t),
                            cudaMemcpyDeviceToDevice, d.stream),
            "keeping output " + std::to_string(v) + " on the GPU");
  }
  finishRun(s, "");
  ++d.successfulRuns;
  return outputs;
}

std::vector<double> cudaTimeRuns(RfRuntime &s,
                                 const std::vector<ProgramInput> &inputs,
                                 size_t warmup, size_t iterations) {
  CudaState &d = *s.cuda;
  bindInputs(s, inputs);
  finishRun(s, " while its inputs were copied in");
  // The graph first (an eager run, then the capture), as run() makes it.
  while (!d.graphExec && !d.graphDisabled) {
    runScheduleChecked(s);
    finishRun(s, " in a run before the timed ones");
    ++d.successfulRuns;
  }
  for (size_t i = 0; i < warmup; ++i)
    runScheduleChecked(s);
  // Every timed run queued behind the last, then one wait: the events see
  // the replays back to back, not the host's launch latency.
  ringfuse::runtime::cuda::TimingEvents events(iterations);
  for (size_t i = 0; i < iterations; ++i) {
    events.recordStart(i, d.stream);
    runScheduleChecked(s);
    events.recordStop(i, d.stream);
  }
  finishRun(s, " in a timed run");
  d.successfulRuns += warmup + iterations;
  return events.microseconds();
}

bool cudaReplaysGraph(const RfRuntime &s) {
  return s.cuda && s.cuda->graphExec != nullptr;
}

} // namespace ringfuse::runtime::detail
