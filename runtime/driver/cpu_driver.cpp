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
#include <functional>
#include <new>
#include <optional>
#include <type_traits>

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
                  const RfKeySwitchAddend &addend,
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

/// A span of a buffer of the program's words as the 64-bit words the
/// reference code takes: the span itself for 64-bit words; for 32-bit words
/// a widened copy (of a span the kernel reads), narrowed back into the span
/// by commit() (a span it writes). Words below 2^32 (the moduli of a 32-bit
/// program are below 2^30) convert both ways exactly.
template <typename Word> class WideSpan;

template <> class WideSpan<uint64_t> {
public:
  WideSpan(const uint64_t *span, size_t)
      : span_(const_cast<uint64_t *>(span)) {}
  WideSpan(uint64_t *span, size_t, bool) : span_(span) {}
  uint64_t *words() { return span_; }
  void commit() {}

private:
  uint64_t *span_;
};

template <> class WideSpan<uint32_t> {
public:
  /// A span the kernel reads.
  WideSpan(const uint32_t *span, size_t words) : wide_(span, span + words) {}
  /// A span the kernel writes, and reads first where `read`.
  WideSpan(uint32_t *span, size_t words, bool read) : out_(span) {
    if (read)
      wide_.assign(span, span + words);
    else
      wide_.resize(words);
  }
  uint64_t *words() { return wide_.data(); }
  void commit() {
    if (out_)
      std::copy(wide_.begin(), wide_.end(), out_);
  }

private:
  uint32_t *out_ = nullptr;
  std::vector<uint64_t> wide_;
};

/// WideSpans of several spans of `words` each (digits, factors, outputs),
/// and their 64-bit pointers.
template <typename Word> class WideSpans {
public:
  template <typename Pointer>
  WideSpans(const Pointer *spans, size_t count,
            const std::function<size_t(size_t)> &words, bool read = true) {
    for (size_t j = 0; j < count; ++j) {
      if constexpr (std::is_const_v<std::remove_pointer_t<Pointer>>)
        spans_.emplace_back(spans[j], words(j));
      else
        spans_.emplace_back(spans[j], words(j), read);
    }
    for (WideSpan<Word> &span : spans_)
      pointers_.push_back(span.words());
  }
  uint64_t *const *pointers() const { return pointers_.data(); }
  void commit() {
    for (WideSpan<Word> &span : spans_)
      span.commit();
  }

private:
  std::vector<WideSpan<Word>> spans_;
  std::vector<uint64_t *> pointers_;
};

class CpuDriver final : public Driver, public WordKernels<uint32_t> {
public:
  explicit CpuDriver(RfRuntime &s) : s_(s) { placeBuffers(); }

  WordKernels<uint32_t> *narrowKernels() override { return this; }

  // Each kernel on both word sizes: the reference code on 64-bit words,
  // which a program of 32-bit words reaches through WideSpans.
#define RF_CPU_ENTRY(name, Call, parameters, arguments, ...)                   \
  void name(const Call &call, RF_UNPAREN parameters) override {                \
    name##On(call, RF_UNPAREN arguments);                                      \
  }
#define RF_KERNEL RF_CPU_ENTRY
#define RF_WORD uint64_t
#define RF_ADDEND RfKeySwitchAddend
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#define RF_KERNEL RF_CPU_ENTRY
#define RF_WORD uint32_t
#define RF_ADDEND RfKeySwitchAddend32
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#undef RF_CPU_ENTRY

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
      for (size_t k = 0; k < layout.components; ++k)
        loadWords(s_, s_.bufferData[layout.buffers[k]], qWords,
                  ct.component(k));
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
  // The kernels, on either word size. The reference computes the same words
  // for every NTT shape, so the shape is only checked: a program refused on
  // the GPU is refused here too.

  /// f on `words` words of data as 64-bit words, read and written in place.
  template <typename Word, typename F>
  static void inPlace(Word *data, size_t words, F f) {
    WideSpan<Word> wide(data, words, true);
    f(wide.words());
    wide.commit();
  }

  template <typename Word>
  void ntt_forwardOn(const NttCall &call, RfRuntime *, int, Word *data, int,
                     int, int) {
    inPlace(data, call.basis->ntt.size() * s_.n, [&](uint64_t *words) {
      transformLimbs(*call.basis, s_.n, words, /*forward=*/true);
    });
  }

  template <typename Word>
  void ntt_inverseOn(const NttCall &call, RfRuntime *, int, Word *data, int,
                     int, int) {
    inPlace(data, call.basis->ntt.size() * s_.n, [&](uint64_t *words) {
      transformLimbs(*call.basis, s_.n, words, /*forward=*/false);
    });
  }

  template <typename Word>
  void dgt_forwardOn(const DgtCall &call, RfRuntime *, int, Word *data) {
    inPlace(data, call.basis->dgt.size() * s_.n, [&](uint64_t *words) {
      for (size_t i = 0; i < call.basis->dgt.size(); ++i)
        call.basis->dgt[i]->forwardAsNtt(words + i * s_.n);
    });
  }

  template <typename Word>
  void dgt_inverseOn(const DgtCall &call, RfRuntime *, int, Word *data) {
    inPlace(data, call.basis->dgt.size() * s_.n, [&](uint64_t *words) {
      for (size_t i = 0; i < call.basis->dgt.size(); ++i)
        call.basis->dgt[i]->inverseAsNtt(words + i * s_.n);
    });
  }

  template <typename Word>
  void ntt_forward_fromOn(const NttCall &call, RfRuntime *, int, int,
                          const Word *in, Word *out, int, int, int) {
    WideSpan<Word> wideIn(in, s_.n);
    WideSpan<Word> wideOut(out, call.basis->moduli.size() * s_.n, false);
    transformOneLimb(*call.basis, s_.n, wideIn.words(), wideOut.words());
    wideOut.commit();
  }

  template <typename Word>
  void convertOn(const ConvertCall &call, RfRuntime *, int, const Word *in,
                 Word *out) {
    WideSpan<Word> wideIn(in, call.inWords);
    WideSpan<Word> wideOut(out, call.outWords, false);
    {
      Staged target(call.overlapping, call.outWords, wideOut.words());
      convertWith(*call.plan, wideIn.words(), s_.n, target.words());
    }
    wideOut.commit();
  }

  template <typename Word>
  void scale_roundOn(const ScaleRoundCall &call, RfRuntime *rt, int,
                     const Word *in, Word *out) {
    WideSpan<Word> wideIn(in, call.inWords);
    WideSpan<Word> wideOut(out, call.outWords, false);
    scaleRound(rt, call, wideIn.words(), wideOut.words());
    wideOut.commit();
  }

  template <typename Word>
  void scale_round_addOn(const ScaleRoundCall &call, RfRuntime *rt, int,
                         const Word *in, const Word *addend, Word *out) {
    WideSpan<Word> wideIn(in, call.inWords);
    WideSpan<Word> wideAddend(addend, call.outWords);
    WideSpan<Word> wideOut(out, call.outWords, false);
    uint64_t *sum = wideOut.words();
    const uint64_t *added = wideAddend.words();
    scaleRound(rt, call, wideIn.words(), sum);
    const std::vector<uint64_t> &moduli = s_.bases[call.entry->output].moduli;
    for (size_t k = 0; k < moduli.size(); ++k)
      for (size_t j = k * s_.n; j < (k + 1) * s_.n; ++j)
        sum[j] = addMod(sum[j], added[j], moduli[k]);
    wideOut.commit();
  }

  /// round(Q m / t) = floor(Q/t) m + floor((2 (Q mod t) m + t) / 2t) mod
  /// each output prime: encryption.cpp's addScaledPlaintext, written, not
  /// added.
  template <typename Word>
  void scale_upOn(const ScaleUpCall &call, RfRuntime *, int, const Word *in,
                  Word *out) {
    const ScaleUpPlan &plan = *call.plan;
    const Context &context = *s_.context;
    const size_t n = s_.n, limbs = call.limbs;
    WideSpan<Word> wideIn(in, n);
    WideSpan<Word> wideOut(out, limbs * n, false);
    {
      Staged target(call.overlapping, limbs * n, wideOut.words());
      const uint64_t t = context.plaintextModulus(), r = context.qModT();
      for (size_t j = 0; j < n; ++j) {
        uint64_t m = wideIn.words()[j];
        uint64_t correction =
            static_cast<uint64_t>((2 * static_cast<uint128_t>(r) * m + t) /
                                  (2 * static_cast<uint128_t>(t)));
        for (size_t i = 0; i < limbs; ++i) {
          const Modulus &q = plan.outputModuli[i];
          target.words()[i * n + j] =
              addMod(mulMod(plan.deltaModOutput[i], m, q),
                     reduce(correction, q), q.value);
        }
      }
    }
    wideOut.commit();
  }

  template <typename Word>
  void automorphismOn(const AutomorphismCall &call, RfRuntime *, int,
                      uint64_t galoisElement, const Word *in, Word *out) {
    const size_t n = s_.n, words = call.basis->moduli.size() * n;
    WideSpan<Word> wideIn(in, words);
    WideSpan<Word> wideOut(out, words, false);
    for (size_t i = 0; i < call.basis->moduli.size(); ++i)
      applyAutomorphism(wideIn.words() + i * n, n, galoisElement,
                        call.basis->moduli[i], wideOut.words() + i * n);
    wideOut.commit();
  }

  template <typename Word>
  void automorphism_evaluationOn(const AutomorphismCall &call, RfRuntime *, int,
                                 uint64_t galoisElement, const Word *in,
                                 Word *out) {
    const size_t n = s_.n, words = call.basis->moduli.size() * n;
    WideSpan<Word> wideIn(in, words);
    WideSpan<Word> wideOut(out, words, false);
    for (size_t i = 0; i < call.basis->moduli.size(); ++i)
      applyEvaluationAutomorphism(wideIn.words() + i * n, n, galoisElement,
                                  wideOut.words() + i * n);
    wideOut.commit();
  }

  template <typename Word>
  void key_switch_inner_productOn(const KeySwitchCall &call, RfRuntime *rt, int,
                                  int, const Word *const *digits, int,
                                  Word *out0, Word *out1,
                                  const KeySwitchAddendOf<Word> *) {
    const size_t words = call.limbs * s_.n;
    WideSpans<Word> wideDigits(digits, call.digits,
                               [&](size_t) { return words; });
    innerProductOn<Word>(rt, call, wideDigits.pointers(), out0, out1);
  }

  /// The digits transformed into their scratch buffers, then the inner
  /// product of those.
  template <typename Word>
  void ntt_key_switchOn(const NttKeySwitchCall &call, RfRuntime *rt, int,
                        int basis, const int *, const Word *const *digits,
                        Word *const *scratch, int, Word *out0, Word *out1,
                        const KeySwitchAddendOf<Word> *, int, int, int) {
    const size_t count = call.oneLimb.size(),
                 words = s_.bases[basis].moduli.size() * s_.n;
    WideSpans<Word> wideDigits(digits, count, [&](size_t j) {
      return call.oneLimb[j] ? s_.n : words;
    });
    WideSpans<Word> wideScratch(
        scratch, count, [&](size_t) { return words; }, false);
    transformSources(rt, basis, call.oneLimb, wideDigits.pointers(),
                     wideScratch.pointers());
    wideScratch.commit();
    innerProductOn<Word>(rt, call.keySwitch, wideScratch.pointers(), out0,
                         out1);
  }

  /// The factors transformed into their scratch buffers, then each output's
  /// products of those (canonical words, so the order of the sum is not
  /// seen).
  template <typename Word>
  void ntt_productsOn(const NttProductsCall &call, RfRuntime *rt, int basis,
                      const int *, const Word *const *factors,
                      Word *const *scratch, int factorCount, const int *pairs,
                      int pairCount, Word *const *outputs, int outputCount, int,
                      int, int) {
    const size_t count = size_t(factorCount);
    WideSpans<Word> wideFactors(factors, count, [&](size_t j) {
      return call.oneLimb[j] ? s_.n : call.words;
    });
    WideSpans<Word> wideScratch(
        scratch, count, [&](size_t) { return call.words; }, false);
    WideSpans<Word> wideOutputs(
        outputs, size_t(outputCount), [&](size_t) { return call.words; },
        false);
    transformSources(rt, basis, call.oneLimb, wideFactors.pointers(),
                     wideScratch.pointers());
    const BasisPlan &plan = s_.bases[basis];
    const size_t n = s_.n;
    for (int k = 0; k < outputCount; ++k)
      std::fill(wideOutputs.pointers()[k],
                wideOutputs.pointers()[k] + call.words, 0);
    for (int p = 0; p < pairCount; ++p) {
      const uint64_t *a = wideScratch.pointers()[pairs[3 * p + 1]];
      const uint64_t *b = wideScratch.pointers()[pairs[3 * p + 2]];
      uint64_t *out = wideOutputs.pointers()[pairs[3 * p]];
      for (size_t i = 0; i < plan.moduli.size(); ++i) {
        const Modulus m(plan.moduli[i]);
        for (size_t c = i * n; c < (i + 1) * n; ++c)
          out[c] = addMod(out[c], mulMod(a[c], b[c], m), m.value);
      }
    }
    wideScratch.commit();
    wideOutputs.commit();
  }

  /// Every output's words by the word rule the GPU computes too
  /// (sum_of_products.h), from 0 or (accumulating) the output's own word:
  /// the same words on both drivers, bit for bit. (The rule takes either
  /// word size.)
  template <typename Word>
  void sum_of_productsOn(const SumOfProductsCall &call, RfRuntime *, int,
                         const Word *const *factors, int, const int *, int,
                         Word *const *outputs, int, int) {
    const size_t n = s_.n;
    for (size_t limb = 0; limb < call.basis->moduli.size(); ++limb) {
      const Modulus q(call.basis->moduli[limb]);
      for (int k = 0; k < call.outputCount; ++k) {
        Word *out = outputs[k];
        for (size_t i = limb * n; i < (limb + 1) * n; ++i)
          out[i] = static_cast<Word>(
              sumOfProductsWord(factors, call.first.data(), call.second.data(),
                                call.firstProduct[k], call.firstProduct[k + 1],
                                i, call.accumulate ? out[i] : 0, q));
      }
    }
  }

  /// innerProduct of widened digits into out0 and out1 (with the call's
  /// addend, widened too).
  template <typename Word>
  void innerProductOn(const RfRuntime *rt, const KeySwitchCall &call,
                      const uint64_t *const *digits, Word *out0, Word *out1) {
    const size_t words = call.limbs * s_.n;
    const KeySwitchAddendOf<Word> addend = call.addend<Word>();
    const size_t addendWords = size_t(addend.limbs) * s_.n;
    WideSpan<Word> wideOut0(out0, words, false), wideOut1(out1, words, false);
    std::optional<WideSpan<Word>> addend0, addend1, scales;
    KeySwitchAddendOf<uint64_t> wideAddend{};
    if (addend.limbs > 0) {
      addend0.emplace(addend.addend0, addendWords);
      addend1.emplace(addend.addend1, addendWords);
      scales.emplace(addend.scales, size_t(addend.limbs));
      wideAddend = {addend0->words(), addend1->words(), scales->words(),
                    addend.limbs};
    }
    innerProduct(rt, call, wideAddend, digits, wideOut0.words(),
                 wideOut1.words());
    wideOut0.commit();
    wideOut1.commit();
  }

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
    // Buffers of 32-bit words are held two to a uint64_t.
    auto storage = [&](size_t words) {
      return (words * wordBytes(s_) + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    };
    uint64_t units = storage(s_.largestBuffer);
    for (size_t bufferWords : s_.bufferWords)
      units += storage(bufferWords);
    requireHostBytes(units * sizeof(uint64_t),
                     "a run of the program (its " +
                         std::to_string(s_.bufferWords.size()) + " buffers)");
    for (size_t b = 0; b < s_.bufferWords.size(); ++b) {
      try {
        buffers_.emplace_back(storage(s_.bufferWords[b]), 0);
      } catch (const std::bad_alloc &) {
        throw OutOfHostMemory("buffer " + std::to_string(b) + " of " +
                              std::to_string(s_.bufferWords[b]) +
                              " words cannot be allocated");
      }
      s_.bufferData.push_back(buffers_.back().data());
    }
    spareBuffer_.assign(storage(s_.largestBuffer), 0);
    spareModuli_ = spareModuli(s_);
    s_.spareBuffer = spareBuffer_.data();
    s_.spareModuli = spareModuli_.data();
    for (const BasisPlan &plan : s_.bases) {
      moduli_.push_back(moduliRecords(plan.moduli));
      s_.moduliData.push_back(moduli_.back().data());
    }
    for (const ConstantData &constant : s_.constants)
      storeWords(s_, constant.words.data(), constant.words.size(),
                 s_.bufferData[constant.buffer]);
  }

  /// Constants and inputs into the host buffers.
  void bindInputs(const std::vector<ProgramInput> &inputs) {
    const size_t qWords = s_.context->q().size() * s_.n;
    // Constants again, so that a schedule that reuses a constant's buffer as
    // scratch still finds the constant there on its next run.
    for (const ConstantData &constant : s_.constants) {
      std::vector<uint64_t> &buffer = buffers_[constant.buffer];
      std::fill(buffer.begin(), buffer.end(), 0);
      storeWords(s_, constant.words.data(), constant.words.size(),
                 buffer.data());
    }
    for (size_t v = 0; v < inputs.size(); ++v) {
      const ValueLayout &layout = s_.inputs[v];
      if (layout.plaintext) {
        const auto &coefficients =
            std::get<const Plaintext *>(inputs[v])->coefficients;
        storeWords(s_, coefficients.data(), coefficients.size(),
                   s_.bufferData[layout.buffers[0]]);
      } else {
        const Ciphertext &ct = *std::get<const Ciphertext *>(inputs[v]);
        for (size_t k = 0; k < layout.components; ++k)
          storeWords(s_, ct.component(k), qWords,
                     s_.bufferData[layout.buffers[k]]);
      }
    }
  }

  /// The schedule once, on the host buffers; throws a kernel's error.
  void runSchedule() {
    s_.failed = false;
    s_.error.clear();
    runScheduleOnce(s_);
    closeOpenRegion(s_);
    if (s_.failed)
      throw Error(programLabel(s_) + " failed in kernel " + s_.error);
  }

  RfRuntime &s_;
  std::vector<std::vector<uint64_t>> buffers_; // storage of the words
  std::vector<uint64_t> spareBuffer_;
  std::vector<std::vector<RfModulus>> moduli_; // per basis
  std::vector<RfModulus> spareModuli_;
};

} // namespace

std::unique_ptr<Driver> makeCpuDriver(RfRuntime &s) {
  return std::make_unique<CpuDriver>(s);
}

} // namespace ringfuse::runtime::detail
