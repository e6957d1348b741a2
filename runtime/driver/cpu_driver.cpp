//===- cpu_driver.cpp - the CPU driver: host buffers, reference kernels ---===//
//
// Every library kernel is the reference code of this runtime, so a program
// that computes what evaluation.cpp computes gives the same words, bit for
// bit; the CUDA driver is tested against it. Buffers are host vectors that
// the schedule's generated loops touch directly.
//
//===----------------------------------------------------------------------===//
#include "driver.h"
#include "run_checks.h"

#include "kernel_table.h"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/host_memory.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/sum_of_products.h"

#include <algorithm>
#include <chrono>
#include <new>

namespace ringfuse::runtime::detail {
namespace {

/// Every limb of data (over plan's basis), in place.
void transformLimbs(const BasisPlan &plan, size_t n, uint64_t *data,
                    bool forward) {
  for (size_t i = 0; i < plan.ntt.size(); ++i) {
    if (forward)
      plan.ntt[i]->forward(data + i * n);
    else
      plan.ntt[i]->inverse(data + i * n);
  }
}

/// Every limb of out (over plan's basis) the forward NTT of in's n words
/// reduced mod its prime.
void transformOneLimb(const BasisPlan &plan, size_t n, const uint64_t *in,
                      uint64_t *out) {
  for (size_t i = 0; i < plan.ntt.size(); ++i) {
    uint64_t *limb = out + i * n;
    std::transform(in, in + n, limb,
                   [q = plan.moduli[i]](uint64_t x) { return x % q; });
    plan.ntt[i]->forward(limb);
  }
}

/// The plan's conversion of in (n coefficients) into out, which it does not
/// overlap: copied limbs, then the missing ones.
void convertWith(const ConverterPlan &plan, const uint64_t *in, size_t n,
                 uint64_t *out) {
  for (size_t j = 0; j < plan.copyFrom.size(); ++j)
    if (plan.copyFrom[j] >= 0)
      std::copy(in + plan.copyFrom[j] * n, in + (plan.copyFrom[j] + 1) * n,
                out + j * n);
  if (plan.missingLimbs.empty())
    return;
  // Contiguous missing limbs (Q -> Q u B) are written in place; others (a
  // digit's complement in QP) go through a scratch and are scattered, as
  // evaluation.cpp's keySwitch does.
  std::vector<uint64_t> converted;
  uint64_t *dest = out + plan.missingLimbs.front() * n;
  if (!plan.missingContiguous) {
    converted.resize(plan.missingLimbs.size() * n);
    dest = converted.data();
  }
  if (plan.corrected)
    plan.corrected->apply(in, n, dest);
  else if (plan.method == RF_CONVERT_EXACT)
    plan.missing->convertExact(in, n, dest);
  else
    plan.missing->convertFast(in, n, dest);
  if (!plan.missingContiguous)
    for (size_t k = 0; k < plan.missingLimbs.size(); ++k)
      std::copy(dest + k * n, dest + (k + 1) * n,
                out + plan.missingLimbs[k] * n);
}

/// The entry's rounding of in (and its conversion) into out, which does not
/// overlap it.
void roundInto(const RfRuntime *s, const ScaleRoundEntry &entry,
               const uint64_t *in, uint64_t *out) {
  const size_t n = s->n;
  // ScaleRoundPlan::apply takes the divisor and kept limbs as two
  // contiguous runs; gather them when the input basis interleaves them.
  auto limbRun = [&](const std::vector<size_t> &limbs, bool contiguous,
                     std::vector<uint64_t> &gathered) -> const uint64_t * {
    if (limbs.empty()) // a modulus switch keeps nothing
      return nullptr;
    if (contiguous)
      return in + limbs.front() * n;
    gathered.resize(limbs.size() * n);
    for (size_t k = 0; k < limbs.size(); ++k)
      std::copy(in + limbs[k] * n, in + (limbs[k] + 1) * n,
                gathered.data() + k * n);
    return gathered.data();
  };
  std::vector<uint64_t> divisorScratch, keptScratch;
  const uint64_t *divisor =
      limbRun(entry.divisorLimbs, entry.divisorContiguous, divisorScratch);
  const uint64_t *kept =
      limbRun(entry.keptLimbs, entry.keptContiguous, keptScratch);
  if (entry.floor) {
    entry.floor->apply(divisor, kept, n, out);
  } else if (entry.converter < 0) {
    entry.plan->apply(divisor, kept, n, out);
  } else {
    // Over the kept basis, which a modulus switch's input lacks.
    std::vector<uint64_t> rounded(basisWords(s, entry.kept));
    entry.plan->apply(divisor, kept, n, rounded.data());
    convertWith(s->converters[entry.converter], rounded.data(), n, out);
  }
}

/// out0 = sum_j digits[j] * b_j, out1 = sum_j digits[j] * a_j over the
/// call's basis, summed in digit order as evaluation.cpp's keySwitch
/// accumulates them.
void innerProduct(const RfRuntime *s, const KeySwitchCall &call,
                  const uint64_t *const *digits, uint64_t *out0,
                  uint64_t *out1) {
  const Context &context = *s->context;
  const size_t n = s->n;
  for (size_t i = 0; i < call.limbs; ++i) {
    const size_t keyLimb = call.keyLimb(i);
    const Modulus &m = context.qp().modulus(keyLimb);
    const size_t base = i * n, keyBase = keyLimb * n;
    for (size_t c = 0; c < n; ++c) {
      uint64_t sum0 = 0, sum1 = 0;
      for (size_t j = 0; j < call.digits; ++j) {
        uint64_t d = digits[j][base + c];
        sum0 = addMod(sum0, mulMod(d, call.key->b[j][keyBase + c], m), m.value);
        sum1 = addMod(sum1, mulMod(d, call.key->a[j][keyBase + c], m), m.value);
      }
      out0[base + c] = sum0;
      out1[base + c] = sum1;
    }
  }
  const RfKeySwitchAddend &addend = call.addend;
  for (size_t i = 0; i < size_t(addend.limbs); ++i) {
    const Modulus &m = context.qp().modulus(call.keyLimb(i));
    const uint64_t scale = addend.scales[i];
    if (scale >= m.value)
      throw Error("the addend's scale " + std::to_string(scale) +
                  " is not below its prime " + std::to_string(m.value));
    const size_t base = i * n;
    for (size_t c = 0; c < n; ++c) {
      out0[base + c] = addMod(
          out0[base + c], mulMod(addend.addend0[base + c], scale, m), m.value);
      out1[base + c] = addMod(
          out1[base + c], mulMod(addend.addend1[base + c], scale, m), m.value);
    }
  }
}

/// Each source of a fused forward NTT transformed into its scratch buffer
/// (checkNttSources' arguments).
void transformSources(const RfRuntime *s, int basis,
                      const std::vector<bool> &oneLimb,
                      const uint64_t *const *sources,
                      uint64_t *const *scratch) {
  const BasisPlan &plan = s->bases[basis]; // checked
  const size_t n = s->n, words = plan.moduli.size() * n;
  for (size_t j = 0; j < oneLimb.size(); ++j) {
    if (oneLimb[j]) {
      transformOneLimb(plan, n, sources[j], scratch[j]);
      continue;
    }
    if (sources[j] != scratch[j])
      std::copy(sources[j], sources[j] + words, scratch[j]);
    transformLimbs(plan, n, scratch[j], /*forward=*/true);
  }
}

class CpuDriver final : public Driver {
public:
  explicit CpuDriver(RfRuntime &s) : s_(s) { placeBuffers(); }

  // The reference computes the same words for every shape, so the shape is
  // only checked: a program refused on the GPU is refused here too.
  void ntt_forward(const NttCall &call, RfRuntime *, int, uint64_t *data, int,
                   int, int) override {
    transformLimbs(*call.basis, s_.n, data, /*forward=*/true);
  }

  void ntt_inverse(const NttCall &call, RfRuntime *, int, uint64_t *data, int,
                   int, int) override {
    transformLimbs(*call.basis, s_.n, data, /*forward=*/false);
  }

  void dgt_forward(const DgtCall &call, RfRuntime *, int,
                   uint64_t *data) override {
    for (size_t i = 0; i < call.basis->dgt.size(); ++i)
      call.basis->dgt[i]->forwardAsNtt(data + i * s_.n);
  }

  void dgt_inverse(const DgtCall &call, RfRuntime *, int,
                   uint64_t *data) override {
    for (size_t i = 0; i < call.basis->dgt.size(); ++i)
      call.basis->dgt[i]->inverseAsNtt(data + i * s_.n);
  }

  void ntt_forward_from(const NttCall &call, RfRuntime *, int, int,
                        const uint64_t *in, uint64_t *out, int, int,
                        int) override {
    transformOneLimb(*call.basis, s_.n, in, out);
  }

  void convert(const ConvertCall &call, RfRuntime *, int, const uint64_t *in,
               uint64_t *out) override {
    Staged target(call.overlapping, call.outWords, out);
    convertWith(*call.plan, in, s_.n, target.words());
  }

  void scale_round(const ScaleRoundCall &call, RfRuntime *rt, int,
                   const uint64_t *in, uint64_t *out) override {
    scaleRound(rt, call, in, out);
  }

  void scale_round_add(const ScaleRoundCall &call, RfRuntime *rt, int,
                       const uint64_t *in, const uint64_t *addend,
                       uint64_t *out) override {
    scaleRound(rt, call, in, out);
    const std::vector<uint64_t> &moduli = s_.bases[call.entry->output].moduli;
    for (size_t k = 0; k < moduli.size(); ++k)
      for (size_t j = k * s_.n; j < (k + 1) * s_.n; ++j)
        out[j] = addMod(out[j], addend[j], moduli[k]);
  }

  /// round(Q m / t) = floor(Q/t) m + floor((2 (Q mod t) m + t) / 2t) mod
  /// each output prime: encryption.cpp's addScaledPlaintext, written, not
  /// added.
  void scale_up(const ScaleUpCall &call, RfRuntime *, int, const uint64_t *in,
                uint64_t *out) override {
    const ScaleUpPlan &plan = *call.plan;
    const Context &context = *s_.context;
    const size_t n = s_.n, limbs = call.limbs;
    Staged target(call.overlapping, limbs * n, out);
    const uint64_t t = context.plaintextModulus(), r = context.qModT();
    for (size_t j = 0; j < n; ++j) {
      uint64_t m = in[j];
      uint64_t correction =
          static_cast<uint64_t>((2 * static_cast<uint128_t>(r) * m + t) /
                                (2 * static_cast<uint128_t>(t)));
      for (size_t i = 0; i < limbs; ++i) {
        const Modulus &q = plan.outputModuli[i];
        target.words()[i * n + j] = addMod(mulMod(plan.deltaModOutput[i], m, q),
                                           reduce(correction, q), q.value);
      }
    }
  }

  void automorphism(const AutomorphismCall &call, RfRuntime *, int,
                    uint64_t galoisElement, const uint64_t *in,
                    uint64_t *out) override {
    const size_t n = s_.n;
    for (size_t i = 0; i < call.basis->moduli.size(); ++i)
      applyAutomorphism(in + i * n, n, galoisElement, call.basis->moduli[i],
                        out + i * n);
  }

  void automorphism_evaluation(const AutomorphismCall &call, RfRuntime *, int,
                               uint64_t galoisElement, const uint64_t *in,
                               uint64_t *out) override {
    const size_t n = s_.n;
    for (size_t i = 0; i < call.basis->moduli.size(); ++i)
      applyEvaluationAutomorphism(in + i * n, n, galoisElement, out + i * n);
  }

  void key_switch_inner_product(const KeySwitchCall &call, RfRuntime *rt, int,
                                int, const uint64_t *const *digits, int,
                                uint64_t *out0, uint64_t *out1,
                                const RfKeySwitchAddend *) override {
    innerProduct(rt, call, digits, out0, out1);
  }

  /// The digits transformed into their scratch buffers, then the inner
  /// product of those.
  void ntt_key_switch(const NttKeySwitchCall &call, RfRuntime *rt, int,
                      int basis, const int *, const uint64_t *const *digits,
                      uint64_t *const *scratch, int, uint64_t *out0,
                      uint64_t *out1, const RfKeySwitchAddend *, int, int,
                      int) override {
    transformSources(rt, basis, call.oneLimb, digits, scratch);
    innerProduct(rt, call.keySwitch, scratch, out0, out1);
  }

  /// The factors transformed into their scratch buffers, then each output's
  /// products of those (canonical words, so the order of the sum is not
  /// seen).
  void ntt_products(const NttProductsCall &call, RfRuntime *rt, int basis,
                    const int *, const uint64_t *const *factors,
                    uint64_t *const *scratch, int, const int *pairs,
                    int pairCount, uint64_t *const *outputs, int outputCount,
                    int, int, int) override {
    transformSources(rt, basis, call.oneLimb, factors, scratch);
    const BasisPlan &plan = s_.bases[basis];
    const size_t n = s_.n;
    for (int k = 0; k < outputCount; ++k)
      std::fill(outputs[k], outputs[k] + call.words, 0);
    for (int p = 0; p < pairCount; ++p) {
      const uint64_t *a = scratch[pairs[3 * p + 1]];
      const uint64_t *b = scratch[pairs[3 * p + 2]];
      uint64_t *out = outputs[pairs[3 * p]];
      for (size_t i = 0; i < plan.moduli.size(); ++i) {
        const Modulus m(plan.moduli[i]);
        for (size_t c = i * n; c < (i + 1) * n; ++c)
          out[c] = addMod(out[c], mulMod(a[c], b[c], m), m.value);
      }
    }
  }

  /// Every output's words by the word rule the GPU computes too
  /// (sum_of_products.h), from 0 or (accumulating) the output's own word:
  /// the same words on both drivers, bit for bit.
  void sum_of_products(const SumOfProductsCall &call, RfRuntime *, int,
                       const uint64_t *const *factors, int, const int *, int,
                       uint64_t *const *outputs, int, int) override {
    const size_t n = s_.n;
    for (size_t limb = 0; limb < call.basis->moduli.size(); ++limb) {
      const Modulus q(call.basis->moduli[limb]);
      for (int k = 0; k < call.outputCount; ++k) {
        uint64_t *out = outputs[k];
        for (size_t i = limb * n; i < (limb + 1) * n; ++i)
          out[i] =
              sumOfProductsWord(factors, call.first.data(), call.second.data(),
                                call.firstProduct[k], call.firstProduct[k + 1],
                                i, call.accumulate ? out[i] : 0, q);
      }
    }
  }

  /// No stream and no launches to check: generated loops run on the host.
  void *stream() override { return nullptr; }
  void checkLaunch(const char *, int) override {}

  bool takesDeviceInputs() const override { return false; }
  void placeKeys(bool) override {} // the kernels read the bound keys

  std::vector<Ciphertext>
  run(const std::vector<ProgramInput> &inputs) override {
    const size_t qWords = s_.context->q().size() * s_.n;
    bindInputs(inputs);
    runSchedule();
    std::vector<Ciphertext> outputs;
    for (const ValueLayout &layout : s_.outputs) {
      Ciphertext ct{s_.context, layout.components,
                    std::vector<uint64_t>(layout.components * qWords)};
      for (size_t k = 0; k < layout.components; ++k) {
        const uint64_t *source = buffers_[layout.buffers[k]].data();
        std::copy(source, source + qWords, ct.component(k));
      }
      outputs.push_back(std::move(ct));
    }
    return outputs;
  }

  std::vector<DeviceCiphertext>
  runOnDevice(const std::vector<ProgramInput> &) override {
    throw Error(programLabel(s_) +
                " runs on the CPU; only a program loaded for the GPU keeps "
                "its outputs in GPU memory");
  }

  /// steady_clock around each run of the schedule.
  std::vector<double> timeRuns(const std::vector<ProgramInput> &inputs,
                               size_t warmup, size_t iterations) override {
    bindInputs(inputs);
    for (size_t i = 0; i < warmup; ++i)
      runSchedule();
    std::vector<double> microseconds;
    microseconds.reserve(iterations);
    for (size_t i = 0; i < iterations; ++i) {
      const auto start = std::chrono::steady_clock::now();
      runSchedule();
      const auto stop = std::chrono::steady_clock::now();
      microseconds.push_back(
          std::chrono::duration<double, std::micro>(stop - start).count());
    }
    return microseconds;
  }

  bool replaysGraph() const override { return false; }

private:
  /// Where a kernel writes `out`: in place, or staged in a vector of its own
  /// when out overlaps the input, copied into place when it goes.
  class Staged {
  public:
    Staged(bool overlapping, size_t words, uint64_t *out) : out_(out) {
      if (overlapping)
        staging_.resize(words);
    }
    ~Staged() { std::copy(staging_.begin(), staging_.end(), out_); }
    uint64_t *words() { return staging_.empty() ? out_ : staging_.data(); }

  private:
    uint64_t *out_;
    std::vector<uint64_t> staging_;
  };

  /// The plan's rounding of in (and its conversion) into out.
  void scaleRound(RfRuntime *rt, const ScaleRoundCall &call,
                  const uint64_t *in, uint64_t *out) {
    Staged target(call.overlapping, call.outWords, out);
    roundInto(rt, *call.entry, in, target.words());
  }

  /// Host vectors, the constants in place.
  void placeBuffers() {
    // Refused up front: vectors this large are touched as they are zeroed,
    // and the system would end the process rather than fail an allocation.
    uint64_t words = s_.largestBuffer;
    for (size_t bufferWords : s_.bufferWords)
      words += bufferWords;
    requireHostBytes(words * sizeof(uint64_t),
                     "a run of the program (its " +
                         std::to_string(s_.bufferWords.size()) + " buffers)");
    for (size_t b = 0; b < s_.bufferWords.size(); ++b) {
      try {
        buffers_.emplace_back(s_.bufferWords[b], 0);
      } catch (const std::bad_alloc &) {
        throw OutOfHostMemory("buffer " + std::to_string(b) + " of " +
                              std::to_string(s_.bufferWords[b]) +
                              " words cannot be allocated");
      }
      s_.bufferData.push_back(buffers_.back().data());
    }
    spareBuffer_.assign(s_.largestBuffer, 0);
    spareModuli_ = spareModuli(s_);
    s_.spareBuffer = spareBuffer_.data();
    s_.spareModuli = spareModuli_.data();
    for (const BasisPlan &plan : s_.bases) {
      moduli_.push_back(moduliRecords(plan.moduli));
      s_.moduliData.push_back(moduli_.back().data());
    }
    for (const ConstantData &constant : s_.constants)
      std::copy(constant.words.begin(), constant.words.end(),
                buffers_[constant.buffer].begin());
  }

  /// Constants and inputs into the host buffers.
  void bindInputs(const std::vector<ProgramInput> &inputs) {
    const size_t qWords = s_.context->q().size() * s_.n;
    // Constants again, so that a schedule that reuses a constant's buffer as
    // scratch still finds the constant there on its next run.
    for (const ConstantData &constant : s_.constants) {
      std::vector<uint64_t> &buffer = buffers_[constant.buffer];
      std::copy(constant.words.begin(), constant.words.end(), buffer.begin());
      std::fill(buffer.begin() + constant.words.size(), buffer.end(), 0);
    }
    for (size_t v = 0; v < inputs.size(); ++v) {
      const ValueLayout &layout = s_.inputs[v];
      if (layout.plaintext) {
        const auto &coefficients =
            std::get<const Plaintext *>(inputs[v])->coefficients;
        std::copy(coefficients.begin(), coefficients.end(),
                  buffers_[layout.buffers[0]].begin());
      } else {
        const Ciphertext &ct = *std::get<const Ciphertext *>(inputs[v]);
        for (size_t k = 0; k < layout.components; ++k)
          std::copy(ct.component(k), ct.component(k) + qWords,
                    buffers_[layout.buffers[k]].begin());
      }
    }
  }

  /// The schedule once, on the host buffers; throws a kernel's error.
  void runSchedule() {
    s_.failed = false;
    s_.error.clear();
    s_.runFunction(&s_, &kernelTable());
    closeOpenRegion(s_);
    if (s_.failed)
      throw Error(programLabel(s_) + " failed in kernel " + s_.error);
  }

  RfRuntime &s_;
  std::vector<std::vector<uint64_t>> buffers_;
  std::vector<uint64_t> spareBuffer_;
  std::vector<std::vector<RfModulus>> moduli_; // per basis
  std::vector<RfModulus> spareModuli_;
};

} // namespace

std::unique_ptr<Driver> makeCpuDriver(RfRuntime &s) {
  return std::make_unique<CpuDriver>(s);
}

} // namespace ringfuse::runtime::detail
