//===- cuda_kernels.cu - the CUDA driver's library kernels, by dataflow ---===//
//
// Each catalog entry's method: the checked call's launch (runtime/gpu) on a
// side stream picked by dataflow, after only the earlier launches whose
// words it shares, and its event joined to the program's stream.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

namespace ringfuse::runtime::detail {
namespace {

/// Launches a schedule tracks before it forks its side streams again from
/// the program's stream (which has waited for them all): each new launch is
/// compared with every tracked one.
constexpr size_t kTrackedLaunches = 64;

bool overlapsAny(const std::vector<Span> &a, const std::vector<Span> &b) {
  for (const Span &x : a)
    for (const Span &y : b)
      if (overlaps(static_cast<const unsigned char *>(x.data), x.bytes,
                   static_cast<const unsigned char *>(y.data), y.bytes))
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

/// A fused NTT's sources, by value: a captured graph keeps the pointers,
/// not the host arrays.
template <typename Word>
cuda::NttSourcesOf<Word> sourcesOf(const Word *const *sources,
                                   Word *const *scratch,
                                   const std::vector<bool> &oneLimb) {
  cuda::NttSourcesOf<Word> batch{};
  batch.count = static_cast<int>(oneLimb.size());
  for (int j = 0; j < batch.count; ++j) {
    batch.sources[j] = sources[j];
    batch.scratch[j] = scratch[j];
    batch.oneLimb[j] = oneLimb[j];
  }
  return batch;
}

} // namespace

/// Forgets the launches made so far: what comes next forks from the
/// program's stream again, which has waited for all of them (endLaunch).
void CudaDriver::forkAgain() {
  launched_.clear();
  std::fill(lastOnSide_.begin(), lastOnSide_.end(), kNone);
  startRecorded_ = false;
}

/// The stream of a library kernel with these accesses, after it has waited
/// for the launches it depends on. It goes behind the latest of them that
/// is still its side's last launch (a chain stays on one stream, where
/// dependent launches overlap their predecessors' tails), else to the next
/// side. endLaunch must follow its launches.
cudaStream_t CudaDriver::beginLaunch(Accesses accesses) {
  if (launched_.size() == kTrackedLaunches)
    forkAgain();
  if (!startRecorded_) {
    cuda::check(cudaEventRecord(start_.get(), stream_.get()),
                "forking the side streams");
    std::fill(forked_.begin(), forked_.end(), false);
    startRecorded_ = true;
  }
  std::vector<size_t> dependencies;
  for (size_t i = 0; i < launched_.size(); ++i)
    if (dependsOn(accesses, launched_[i].accesses))
      dependencies.push_back(i);
  size_t side = kNone;
  for (auto it = dependencies.rbegin(); it != dependencies.rend(); ++it)
    if (lastOnSide_[launched_[*it].side] == *it) {
      side = launched_[*it].side;
      break;
    }
  if (side == kNone)
    side = nextSide_++ % sides_.size();
  cudaStream_t stream = sides_[side].get();
  if (!forked_[side]) {
    cuda::check(cudaStreamWaitEvent(stream, start_.get(), 0),
                "forking a side stream");
    forked_[side] = true;
  }
  for (size_t i : dependencies)
    if (launched_[i].side != side)
      cuda::check(cudaStreamWaitEvent(stream, done_[i].get(), 0),
                  "waiting for an earlier launch");
  const size_t index = launched_.size();
  if (index == done_.size())
    done_.emplace_back();
  launched_.push_back({std::move(accesses), side});
  lastOnSide_[side] = index;
  return stream;
}

/// After the launches of the kernel beginLaunch placed: its event, which
/// the program's stream waits for.
void CudaDriver::endLaunch() {
  const size_t index = launched_.size() - 1;
  cuda::check(cudaEventRecord(done_[index].get(),
                              sides_[launched_[index].side].get()),
              "recording a launch's event");
  cuda::check(cudaStreamWaitEvent(stream_.get(), done_[index].get(), 0),
              "joining a launch to the program's stream");
}

/// Where a kernel writes `out`: in place, or staged in the scratch buffer
/// when it overlaps the input. Refused inside a concurrent region, whose
/// calls the compiler promises independent: two staged outputs would share
/// the scratch (dataflow would order them, but the promise would be false).
template <typename Word>
Word *CudaDriver::targetOf(bool overlapping, Word *out) {
  if (!overlapping)
    return out;
  if (s_.concurrent)
    throw Error("the output overlaps the input inside a concurrent region");
  return static_cast<Word *>(scratch_);
}

/// A launch that reads `in` and writes `out` (through the scratch buffer
/// when they overlap).
Accesses CudaDriver::inToOut(Span in, Span out, bool overlapping) const {
  Accesses accesses{{in}, {out}};
  if (overlapping)
    accesses.writes.push_back(
        {static_cast<const unsigned char *>(scratch_), out.bytes});
  return accesses;
}

/// The staged output back where the schedule asked for it.
template <typename Word>
void CudaDriver::copyFromScratch(Word *out, size_t words, cudaStream_t stream) {
  // Each instance's: the instances' buffers and scratch are equally apart.
  const size_t pitch =
      std::max<size_t>(instances_.stride, words) * sizeof(Word);
  cuda::check(cudaMemcpy2DAsync(out, pitch, scratch_, pitch,
                                words * sizeof(Word), instances_.count,
                                cudaMemcpyDeviceToDevice, stream),
              "copying a staged output into place");
}

// The kernels -----------------------------------------------------------------

template <typename Word>
void CudaDriver::nttLaunch(const NttCall &call, int basis, Word *data,
                           bool forward) {
  const Span words{data, basisWords(&s_, basis)};
  cudaStream_t stream = beginLaunch({{words}, {words}});
  if (forward)
    cuda::launchNttForward(plans_.nttOf<Word>(basis), s_.n, call.shape, data,
                           stream, static_cast<const Word *>(nullptr),
                           instances_);
  else
    cuda::launchNttInverse(plans_.nttOf<Word>(basis), s_.n, call.shape, data,
                           stream, instances_);
  endLaunch();
}

template <typename Word>
void CudaDriver::ntt_forwardOn(const NttCall &call, RfRuntime *, int basis,
                               Word *data, int, int, int) {
  nttLaunch(call, basis, data, /*forward=*/true);
}

template <typename Word>
void CudaDriver::ntt_inverseOn(const NttCall &call, RfRuntime *, int basis,
                               Word *data, int, int, int) {
  nttLaunch(call, basis, data, /*forward=*/false);
}

template <typename Word>
void CudaDriver::dgtLaunch(int basis, Word *data, bool forward) {
  if (instances_.count != 1)
    throw Error("the DGT transforms one instance a launch"); // runsInstances
  const Span words{data, basisWords(&s_, basis)};
  cudaStream_t stream = beginLaunch({{words}, {words}});
  if (forward)
    cuda::launchDgtForwardAsNtt(plans_.dgtOf<Word>(basis), data, stream);
  else
    cuda::launchDgtInverseAsNtt(plans_.dgtOf<Word>(basis), data, stream);
  endLaunch();
}

template <typename Word>
void CudaDriver::dgt_forwardOn(const DgtCall &, RfRuntime *, int basis,
                               Word *data) {
  dgtLaunch(basis, data, /*forward=*/true);
}

template <typename Word>
void CudaDriver::dgt_inverseOn(const DgtCall &, RfRuntime *, int basis,
                               Word *data) {
  dgtLaunch(basis, data, /*forward=*/false);
}

template <typename Word>
void CudaDriver::ntt_forward_fromOn(const NttCall &call, RfRuntime *, int basis,
                                    int in_basis, const Word *in, Word *out,
                                    int, int, int) {
  cudaStream_t stream = beginLaunch({{{in, basisWords(&s_, in_basis)}},
                                     {{out, basisWords(&s_, basis)}}});
  cuda::launchNttForward(plans_.nttOf<Word>(basis), s_.n, call.shape, out,
                         stream, in, instances_);
  endLaunch();
}

template <typename Word>
void CudaDriver::convertOn(const ConvertCall &call, RfRuntime *, int plan,
                           const Word *in, Word *out) {
  Word *target = targetOf(call.overlapping, out);
  cudaStream_t stream = beginLaunch(
      inToOut({in, call.inWords}, {out, call.outWords}, call.overlapping));
  cuda::launchConvert(plans_.converters[plan], s_.n, in, target, stream,
                      instances_);
  if (call.overlapping)
    copyFromScratch(out, call.outWords, stream);
  endLaunch();
}

/// A checked scale-and-round call's launch: fused with its conversion (if
/// the plan has one) or plus the addend (if any), through scratch when out
/// overlaps in.
template <typename Word>
void CudaDriver::launchScaleRoundCall(int index, const ScaleRoundCall &call,
                                      const Word *in, const Word *addend,
                                      Word *out) {
  Word *target = targetOf(call.overlapping, out);
  Accesses accesses =
      inToOut({in, call.inWords}, {out, call.outWords}, call.overlapping);
  if (addend)
    accesses.reads.push_back({addend, call.outWords});
  cudaStream_t stream = beginLaunch(std::move(accesses));
  const int converter = call.entry->converter;
  if (converter < 0)
    cuda::launchScaleRound(plans_.scaleRounds[index], s_.n, in, target, stream,
                           addend, instances_);
  else
    cuda::launchScaleRoundConvert(plans_.scaleRounds[index],
                                  plans_.converters[converter], s_.n, in,
                                  target, stream, instances_);
  if (call.overlapping)
    copyFromScratch(out, call.outWords, stream);
  endLaunch();
}

template <typename Word>
void CudaDriver::scale_roundOn(const ScaleRoundCall &call, RfRuntime *,
                               int plan, const Word *in, Word *out) {
  launchScaleRoundCall(plan, call, in, static_cast<const Word *>(nullptr), out);
}

/// The check refuses a plan that fuses a conversion.
template <typename Word>
void CudaDriver::scale_round_addOn(const ScaleRoundCall &call, RfRuntime *,
                                   int plan, const Word *in, const Word *addend,
                                   Word *out) {
  launchScaleRoundCall(plan, call, in, addend, out);
}

template <typename Word>
void CudaDriver::scale_upOn(const ScaleUpCall &call, RfRuntime *, int plan,
                            const Word *in, Word *out) {
  Word *target = targetOf(call.overlapping, out);
  cudaStream_t stream = beginLaunch(
      inToOut({in, s_.n}, {out, call.limbs * s_.n}, call.overlapping));
  cuda::launchScaleUp(plans_.scaleUps[plan], s_.n, in, target, stream,
                      instances_);
  if (call.overlapping)
    copyFromScratch(out, call.limbs * s_.n, stream);
  endLaunch();
}

template <typename Word>
void CudaDriver::automorphismOn(const AutomorphismCall &call, RfRuntime *,
                                int basis, uint64_t galois_element,
                                const Word *in, Word *out) {
  const size_t words = basisWords(&s_, basis);
  cudaStream_t stream = beginLaunch({{{in, words}}, {{out, words}}});
  cuda::launchAutomorphism(plans_.basisModuli[basis],
                           static_cast<int>(call.basis->moduli.size()), s_.n,
                           galois_element, in, out, stream, instances_);
  endLaunch();
}

template <typename Word>
void CudaDriver::automorphism_evaluationOn(const AutomorphismCall &call,
                                           RfRuntime *, int basis,
                                           uint64_t galois_element,
                                           const Word *in, Word *out) {
  const size_t words = basisWords(&s_, basis);
  cudaStream_t stream = beginLaunch({{{in, words}}, {{out, words}}});
  cuda::launchEvaluationAutomorphism(
      static_cast<int>(call.basis->moduli.size()), s_.n, galois_element, in,
      out, stream, instances_);
  endLaunch();
}

/// Key `key` on the device, over the call's basis.
template <typename Word>
cuda::KeySwitchKeyViewOf<Word>
CudaDriver::keyView(int key, const KeySwitchCall &call) const {
  cuda::KeySwitchKeyViewOf<Word> view{};
  view.limbs = static_cast<int>(call.limbs);
  view.qLimbs = static_cast<int>(call.qLimbs);
  view.skippedLimbs = static_cast<int>(call.skippedLimbs);
  view.moduli = plans_.qpModuli;
  view.key =
      static_cast<const Word *>(keys_) + static_cast<size_t>(key) * keyWords_;
  view.componentWords = s_.context->qp().size() * s_.n;
  return view;
}

/// What key switching's addend has it read.
template <typename Word>
void CudaDriver::addendAccesses(const KeySwitchAddendOf<Word> &addend,
                                Accesses &accesses) const {
  if (addend.limbs == 0)
    return;
  const size_t words = size_t(addend.limbs) * s_.n;
  accesses.reads.push_back({addend.addend0, words});
  accesses.reads.push_back({addend.addend1, words});
  accesses.reads.push_back({addend.scales, size_t(addend.limbs)});
}

template <typename Word>
void CudaDriver::key_switch_inner_productOn(const KeySwitchCall &call,
                                            RfRuntime *, int key, int,
                                            const Word *const *digits, int,
                                            Word *out0, Word *out1,
                                            const KeySwitchAddendOf<Word> *) {
  cuda::KeySwitchPlanOf<Word> plan{};
  plan.key = keyView<Word>(key, call);
  plan.digits = static_cast<int>(call.digits);
  plan.addend = call.addend<Word>();
  // By value: a captured graph keeps the pointers, not the host array.
  const size_t words = call.limbs * s_.n;
  Accesses accesses{{}, {{out0, words}, {out1, words}}};
  for (int j = 0; j < plan.digits; ++j) {
    plan.digitData[j] = digits[j];
    accesses.reads.push_back({digits[j], words});
  }
  addendAccesses<Word>(plan.addend, accesses);
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchKeySwitchInnerProduct(plan, s_.n, out0, out1, stream, instances_);
  endLaunch();
}

/// What a fused NTT's sources (`words` each, or n if one limb) and their
/// scratch polynomials (`words` each) have it read and write.
template <typename Word>
Accesses CudaDriver::sourceAccesses(const Word *const *sources,
                                    Word *const *scratch,
                                    const std::vector<bool> &oneLimb,
                                    size_t words) const {
  Accesses accesses;
  for (size_t j = 0; j < oneLimb.size(); ++j) {
    accesses.reads.push_back({sources[j], oneLimb[j] ? s_.n : words});
    accesses.writes.push_back({scratch[j], words});
  }
  return accesses;
}

template <typename Word>
void CudaDriver::ntt_key_switchOn(const NttKeySwitchCall &call, RfRuntime *,
                                  int key, int basis, const int *,
                                  const Word *const *digits,
                                  Word *const *scratch, int, Word *out0,
                                  Word *out1, const KeySwitchAddendOf<Word> *,
                                  int, int, int) {
  const size_t words = call.keySwitch.limbs * s_.n;
  const KeySwitchAddendOf<Word> addend = call.keySwitch.addend<Word>();
  Accesses accesses = sourceAccesses(digits, scratch, call.oneLimb, words);
  accesses.writes.push_back({out0, words});
  accesses.writes.push_back({out1, words});
  addendAccesses<Word>(addend, accesses);
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchNttKeySwitch(keyView<Word>(key, call.keySwitch),
                           plans_.nttOf<Word>(basis), s_.n, call.shape,
                           sourcesOf(digits, scratch, call.oneLimb), out0, out1,
                           addend, stream, instances_);
  endLaunch();
}

template <typename Word>
void CudaDriver::ntt_productsOn(const NttProductsCall &call, RfRuntime *,
                                int basis, const int *,
                                const Word *const *factors,
                                Word *const *scratch, int, const int *pairs,
                                int pair_count, Word *const *outputs,
                                int output_count, int, int, int) {
  cuda::NttProductsOf<Word> products{};
  products.outputCount = output_count;
  products.moduli = plans_.basisModuli[basis];
  Accesses accesses =
      sourceAccesses(factors, scratch, call.oneLimb, call.words);
  for (int k = 0; k < output_count; ++k) {
    products.outputs[k] = outputs[k];
    accesses.writes.push_back({outputs[k], call.words});
  }
  for (int p = 0; p < pair_count; ++p) {
    products.firstPair[pairs[3 * p] + 1] = p + 1;
    products.first[p] = pairs[3 * p + 1];
    products.second[p] = pairs[3 * p + 2];
  }
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchNttProducts(plans_.nttOf<Word>(basis), s_.n, call.shape,
                          sourcesOf(factors, scratch, call.oneLimb), products,
                          stream, instances_);
  endLaunch();
}

/// Reads every factor (and, accumulating, the outputs), writes the outputs.
template <typename Word>
void CudaDriver::sum_of_productsOn(const SumOfProductsCall &call, RfRuntime *,
                                   int basis, const Word *const *factors,
                                   int factor_count, const int *,
                                   int pair_count, Word *const *outputs, int,
                                   int) {
  cuda::SumOfProductsOf<Word> sums{};
  sums.moduli = plans_.basisModuli[basis];
  sums.limbs = static_cast<int>(call.basis->moduli.size());
  sums.outputCount = call.outputCount;
  sums.accumulate = call.accumulate;
  Accesses accesses;
  for (int j = 0; j < factor_count; ++j) {
    sums.factors[j] = factors[j];
    accesses.reads.push_back({factors[j], call.words});
  }
  for (int k = 0; k < call.outputCount; ++k) {
    sums.outputs[k] = outputs[k];
    accesses.writes.push_back({outputs[k], call.words});
    if (call.accumulate)
      accesses.reads.push_back({outputs[k], call.words});
  }
  for (int k = 0; k <= call.outputCount; ++k)
    sums.firstProduct[k] = call.firstProduct[k];
  for (int t = 0; t < pair_count; ++t) {
    sums.first[t] = call.first[t];
    sums.second[t] = call.second[t];
  }
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchSumOfProducts(sums, s_.n, stream, instances_);
  endLaunch();
}

// Both word sizes' entries: each calls its template.
#define RF_CUDA_ENTRY(name, Call, parameters, arguments, ...)                  \
  void CudaDriver::name(const Call &call, RF_UNPAREN parameters) {             \
    name##On(call, RF_UNPAREN arguments);                                      \
  }
#define RF_KERNEL RF_CUDA_ENTRY
#define RF_WORD uint64_t
#define RF_ADDEND RfKeySwitchAddend
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#define RF_KERNEL RF_CUDA_ENTRY
#define RF_WORD uint32_t
#define RF_ADDEND RfKeySwitchAddend32
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#undef RF_CUDA_ENTRY

/// After each launch of emitted CUDA: a failed launch is the run's error
/// (the first one), named after the generated kernel. The program reports
/// its own cudaGetLastError(): it may link a CUDA runtime of its own.
void CudaDriver::checkLaunch(const char *kernel, int cudaError) {
  // A generated kernel went to the program's stream: later library kernels
  // fork behind it.
  forkAgain();
  cudaError_t error = static_cast<cudaError_t>(cudaError);
  if (error != cudaSuccess)
    fail(&s_, std::string(kernel ? kernel : "(unnamed kernel)") +
                  ": CUDA kernel failed to launch: " + cuda::describe(error));
}

} // namespace ringfuse::runtime::detail
