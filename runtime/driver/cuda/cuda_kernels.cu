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
uint64_t *CudaDriver::targetOf(bool overlapping, uint64_t *out) {
  if (!overlapping)
    return out;
  if (s_.concurrent)
    throw Error("the output overlaps the input inside a concurrent region");
  return scratch_;
}

/// A launch that reads `in` and writes `out` (through the scratch buffer
/// when they overlap).
Accesses CudaDriver::inToOut(Span in, Span out, bool overlapping) const {
  Accesses accesses{{in}, {out}};
  if (overlapping)
    accesses.writes.push_back({scratch_, out.words});
  return accesses;
}

/// The staged output back where the schedule asked for it.
void CudaDriver::copyFromScratch(uint64_t *out, size_t words,
                                 cudaStream_t stream) {
  // Each instance's: the instances' buffers and scratch are equally apart.
  const size_t pitch =
      std::max<size_t>(instances_.stride, words) * sizeof(uint64_t);
  cuda::check(cudaMemcpy2DAsync(out, pitch, scratch_, pitch,
                                words * sizeof(uint64_t), instances_.count,
                                cudaMemcpyDeviceToDevice, stream),
              "copying a staged output into place");
}

// The kernels -----------------------------------------------------------------

void CudaDriver::nttLaunch(const NttCall &call, int basis, uint64_t *data,
                           bool forward) {
  const Span words{data, basisWords(&s_, basis)};
  cudaStream_t stream = beginLaunch({{words}, {words}});
  if (forward)
    cuda::launchNttForward(plans_.ntt[basis], s_.n, call.shape, data, stream,
                           static_cast<const uint64_t *>(nullptr), instances_);
  else
    cuda::launchNttInverse(plans_.ntt[basis], s_.n, call.shape, data, stream,
                           instances_);
  endLaunch();
}

void CudaDriver::ntt_forward(const NttCall &call, RfRuntime *, int basis,
                             uint64_t *data, int, int, int) {
  nttLaunch(call, basis, data, /*forward=*/true);
}

void CudaDriver::ntt_inverse(const NttCall &call, RfRuntime *, int basis,
                             uint64_t *data, int, int, int) {
  nttLaunch(call, basis, data, /*forward=*/false);
}

void CudaDriver::dgtLaunch(int basis, uint64_t *data, bool forward) {
  if (instances_.count != 1)
    throw Error("the DGT transforms one instance a launch"); // runsInstances
  const Span words{data, basisWords(&s_, basis)};
  cudaStream_t stream = beginLaunch({{words}, {words}});
  if (forward)
    cuda::launchDgtForwardAsNtt(plans_.dgt[basis], data, stream);
  else
    cuda::launchDgtInverseAsNtt(plans_.dgt[basis], data, stream);
  endLaunch();
}

void CudaDriver::dgt_forward(const DgtCall &, RfRuntime *, int basis,
                             uint64_t *data) {
  dgtLaunch(basis, data, /*forward=*/true);
}

void CudaDriver::dgt_inverse(const DgtCall &, RfRuntime *, int basis,
                             uint64_t *data) {
  dgtLaunch(basis, data, /*forward=*/false);
}

void CudaDriver::ntt_forward_from(const NttCall &call, RfRuntime *, int basis,
                                  int in_basis, const uint64_t *in,
                                  uint64_t *out, int, int, int) {
  cudaStream_t stream = beginLaunch({{{in, basisWords(&s_, in_basis)}},
                                     {{out, basisWords(&s_, basis)}}});
  cuda::launchNttForward(plans_.ntt[basis], s_.n, call.shape, out, stream, in,
                         instances_);
  endLaunch();
}

void CudaDriver::convert(const ConvertCall &call, RfRuntime *, int plan,
                         const uint64_t *in, uint64_t *out) {
  uint64_t *target = targetOf(call.overlapping, out);
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
void CudaDriver::launchScaleRoundCall(int index, const ScaleRoundCall &call,
                                      const uint64_t *in,
                                      const uint64_t *addend, uint64_t *out) {
  uint64_t *target = targetOf(call.overlapping, out);
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

void CudaDriver::scale_round(const ScaleRoundCall &call, RfRuntime *, int plan,
                             const uint64_t *in, uint64_t *out) {
  launchScaleRoundCall(plan, call, in, nullptr, out);
}

/// The check refuses a plan that fuses a conversion.
void CudaDriver::scale_round_add(const ScaleRoundCall &call, RfRuntime *,
                                 int plan, const uint64_t *in,
                                 const uint64_t *addend, uint64_t *out) {
  launchScaleRoundCall(plan, call, in, addend, out);
}

void CudaDriver::scale_up(const ScaleUpCall &call, RfRuntime *, int plan,
                          const uint64_t *in, uint64_t *out) {
  uint64_t *target = targetOf(call.overlapping, out);
  cudaStream_t stream = beginLaunch(
      inToOut({in, s_.n}, {out, call.limbs * s_.n}, call.overlapping));
  cuda::launchScaleUp(plans_.scaleUps[plan], s_.n, in, target, stream,
                      instances_);
  if (call.overlapping)
    copyFromScratch(out, call.limbs * s_.n, stream);
  endLaunch();
}

void CudaDriver::automorphism(const AutomorphismCall &call, RfRuntime *,
                              int basis, uint64_t galois_element,
                              const uint64_t *in, uint64_t *out) {
  const size_t words = basisWords(&s_, basis);
  cudaStream_t stream = beginLaunch({{{in, words}}, {{out, words}}});
  cuda::launchAutomorphism(plans_.basisModuli[basis],
                           static_cast<int>(call.basis->moduli.size()), s_.n,
                           galois_element, in, out, stream, instances_);
  endLaunch();
}

void CudaDriver::automorphism_evaluation(const AutomorphismCall &call,
                                         RfRuntime *, int basis,
                                         uint64_t galois_element,
                                         const uint64_t *in, uint64_t *out) {
  const size_t words = basisWords(&s_, basis);
  cudaStream_t stream = beginLaunch({{{in, words}}, {{out, words}}});
  cuda::launchEvaluationAutomorphism(
      static_cast<int>(call.basis->moduli.size()), s_.n, galois_element, in,
      out, stream, instances_);
  endLaunch();
}

/// Key `key` on the device, over the call's basis.
cuda::KeySwitchKeyView CudaDriver::keyView(int key,
                                           const KeySwitchCall &call) const {
  cuda::KeySwitchKeyView view{};
  view.limbs = static_cast<int>(call.limbs);
  view.qLimbs = static_cast<int>(call.qLimbs);
  view.skippedLimbs = static_cast<int>(call.skippedLimbs);
  view.moduli = plans_.qpModuli;
  view.key = keys_ + static_cast<size_t>(key) * keyWords_;
  view.componentWords = s_.context->qp().size() * s_.n;
  return view;
}

/// What key switching's addend has it read.
void CudaDriver::addendAccesses(const RfKeySwitchAddend &addend,
                                Accesses &accesses) const {
  if (addend.limbs == 0)
    return;
  const size_t words = size_t(addend.limbs) * s_.n;
  accesses.reads.push_back({addend.addend0, words});
  accesses.reads.push_back({addend.addend1, words});
  accesses.reads.push_back({addend.scales, size_t(addend.limbs)});
}

void CudaDriver::key_switch_inner_product(const KeySwitchCall &call,
                                          RfRuntime *, int key, int,
                                          const uint64_t *const *digits, int,
                                          uint64_t *out0, uint64_t *out1,
                                          const RfKeySwitchAddend *) {
  cuda::KeySwitchPlan plan{};
  plan.key = keyView(key, call);
  plan.digits = static_cast<int>(call.digits);
  plan.addend = call.addend;
  // By value: a captured graph keeps the pointers, not the host array.
  const size_t words = call.limbs * s_.n;
  Accesses accesses{{}, {{out0, words}, {out1, words}}};
  for (int j = 0; j < plan.digits; ++j) {
    plan.digitData[j] = digits[j];
    accesses.reads.push_back({digits[j], words});
  }
  addendAccesses(call.addend, accesses);
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchKeySwitchInnerProduct(plan, s_.n, out0, out1, stream, instances_);
  endLaunch();
}

/// What a fused NTT's sources (`words` each, or n if one limb) and their
/// scratch polynomials (`words` each) have it read and write.
Accesses CudaDriver::sourceAccesses(const uint64_t *const *sources,
                                    uint64_t *const *scratch,
                                    const std::vector<bool> &oneLimb,
                                    size_t words) const {
  Accesses accesses;
  for (size_t j = 0; j < oneLimb.size(); ++j) {
    accesses.reads.push_back({sources[j], oneLimb[j] ? s_.n : words});
    accesses.writes.push_back({scratch[j], words});
  }
  return accesses;
}

void CudaDriver::ntt_key_switch(const NttKeySwitchCall &call, RfRuntime *,
                                int key, int basis, const int *,
                                const uint64_t *const *digits,
                                uint64_t *const *scratch, int, uint64_t *out0,
                                uint64_t *out1, const RfKeySwitchAddend *, int,
                                int, int) {
  const size_t words = call.keySwitch.limbs * s_.n;
  Accesses accesses = sourceAccesses(digits, scratch, call.oneLimb, words);
  accesses.writes.push_back({out0, words});
  accesses.writes.push_back({out1, words});
  addendAccesses(call.keySwitch.addend, accesses);
  cudaStream_t stream = beginLaunch(std::move(accesses));
  cuda::launchNttKeySwitch(keyView(key, call.keySwitch), plans_.ntt[basis],
                           s_.n, call.shape,
                           sourcesOf(digits, scratch, call.oneLimb), out0, out1,
                           call.keySwitch.addend, stream, instances_);
  endLaunch();
}

void CudaDriver::ntt_products(const NttProductsCall &call, RfRuntime *,
                              int basis, const int *,
                              const uint64_t *const *factors,
                              uint64_t *const *scratch, int, const int *pairs,
                              int pair_count, uint64_t *const *outputs,
                              int output_count, int, int, int) {
  cuda::NttProducts products{};
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
  cuda::launchNttProducts(plans_.ntt[basis], s_.n, call.shape,
                          sourcesOf(factors, scratch, call.oneLimb), products,
                          stream, instances_);
  endLaunch();
}

/// Reads every factor (and, accumulating, the outputs), writes the outputs.
void CudaDriver::sum_of_products(const SumOfProductsCall &call, RfRuntime *,
                                 int basis, const uint64_t *const *factors,
                                 int factor_count, const int *, int pair_count,
                                 uint64_t *const *outputs, int, int) {
  cuda::SumOfProducts sums{};
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
