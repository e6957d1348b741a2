//===- program.cpp - compiled circuits: loading, checks, the CPU driver ---===//
//
// Builds, from a program's manifest (program_abi.h), the plans its schedule
// refers to by index, for every driver (program_internal.h), and implements
// every RfKernels entry of the CPU driver with the reference code of this
// runtime: a program that computes what evaluation.cpp computes gives the
// same words, bit for bit. The CUDA driver (runtime/cuda/driver.cu) shares
// the loading, the argument checks of every kernel and the run's input and
// output checks; it differs in where the buffers live and how kernels run.
//
//===----------------------------------------------------------------------===//
#include "program_internal.h"

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

using namespace ringfuse::runtime;
using namespace ringfuse::runtime::detail;

namespace {

bool isContiguous(const std::vector<size_t> &limbs) {
  for (size_t i = 1; i < limbs.size(); ++i)
    if (limbs[i] != limbs[0] + i)
      return false;
  return true;
}

std::string listModuli(const std::vector<uint64_t> &moduli) {
  std::string text = "{";
  for (size_t i = 0; i < moduli.size(); ++i)
    text += (i ? ", " : "") + std::to_string(moduli[i]);
  return text + "}";
}

const BasisPlan &basisAt(const RfRuntime *s, int basis) {
  if (basis < 0 || static_cast<size_t>(basis) >= s->bases.size())
    throw Error("basis " + std::to_string(basis) +
                " is out of range (the "
                "manifest has " +
                std::to_string(s->bases.size()) + " bases)");
  return s->bases[basis];
}

template <typename T>
const T &planAt(const std::vector<T> &plans, int index, const char *what) {
  if (index < 0 || static_cast<size_t>(index) >= plans.size())
    throw Error(std::string(what) + " " + std::to_string(index) +
                " is out of range (the manifest has " +
                std::to_string(plans.size()) + ")");
  return plans[index];
}

/// A pointer into a buffer must leave room for `words` words in it. Pointers
/// outside every buffer (the schedule's own memory) cannot be checked.
void requireSpan(const RfRuntime *s, const uint64_t *data, size_t words,
                 const char *what) {
  if (!data)
    throw Error(std::string(what) + " is a null pointer");
  for (size_t b = 0; b < s->bufferData.size(); ++b) {
    const uint64_t *buffer = s->bufferData[b];
    const size_t size = s->bufferWords[b];
    if (!overlaps(data, 1, buffer, size))
      continue;
    size_t offset = static_cast<size_t>(data - buffer);
    if (offset + words > size)
      throw Error(std::string(what) + " needs " + std::to_string(words) +
                  " words from word " + std::to_string(offset) + " of buffer " +
                  std::to_string(b) + ", which has " + std::to_string(size));
    return;
  }
}

} // namespace

// What every driver shares ----------------------------------------------------

namespace ringfuse::runtime::detail {

/// Program::timeRuns on the CUDA driver (driver.cu): binds the inputs once,
/// times each graph replay with CUDA events. Declared here, beside its only
/// caller, rather than in program_internal.h.
std::vector<double> cudaTimeRuns(RfRuntime &s,
                                 const std::vector<ProgramInput> &inputs,
                                 size_t warmup, size_t iterations);

std::string programLabel(const RfRuntime &s) {
  return "program '" + s.name + "'";
}

void fail(RfRuntime *s, const std::string &message) {
  if (!s->failed) {
    s->failed = true;
    s->error = message;
  }
}

void concurrentBeginKernel(RfRuntime *s) {
  if (s->concurrent) {
    fail(s, "concurrent_begin: a concurrent region is already open (regions "
            "do not nest)");
    return;
  }
  s->concurrent = true;
}

void concurrentEndKernel(RfRuntime *s) {
  if (!s->concurrent) {
    fail(s, "concurrent_end: no concurrent region is open");
    return;
  }
  s->concurrent = false;
}

void closeOpenRegion(RfRuntime &s) {
  if (!s.concurrent)
    return;
  s.concurrent = false;
  fail(&s, "the schedule ended inside a concurrent region (no concurrent_end)");
}

bool overlaps(const uint64_t *a, size_t aWords, const uint64_t *b,
              size_t bWords) {
  auto a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + bWords * sizeof(uint64_t) &&
         b0 < a0 + aWords * sizeof(uint64_t);
}

const BasisPlan &checkNtt(const RfRuntime *s, int basis, const uint64_t *data) {
  const BasisPlan &plan = basisAt(s, basis);
  if (!plan.nttProblem.empty())
    throw Error(plan.nttProblem);
  requireSpan(s, data, plan.ntt.size() * s->n, "the data");
  return plan;
}

const BasisPlan &checkNttFrom(const RfRuntime *s, int basis, int inBasis,
                              const uint64_t *in, const uint64_t *out) {
  const BasisPlan &plan = checkNtt(s, basis, out);
  const BasisPlan &from = basisAt(s, inBasis);
  if (from.moduli.size() != 1)
    throw Error("the input's basis must have one prime, not " +
                std::to_string(from.moduli.size()));
  requireSpan(s, in, s->n, "the input");
  for (uint64_t q : plan.moduli)
    if (!isLazyNttInput(from.moduli[0], q))
      throw Error("the input's prime " + std::to_string(from.moduli[0]) +
                  " is not below 8 times the output's prime " +
                  std::to_string(q));
  if (overlaps(in, s->n, out, plan.moduli.size() * s->n))
    throw Error("the output overlaps the input");
  return plan;
}

/// log2 of the program's ring degree.
static unsigned logDegree(const RfRuntime *s) {
  unsigned logN = 0;
  while ((size_t(1) << logN) < s->n)
    ++logN;
  return logN;
}

/// Whether a program's shape arguments ask for the default shape (all 0).
static bool asksForDefaultShape(int logN1, int radix, int otStages) {
  return logN1 == 0 && radix == 0 && otStages == 0;
}

NttShape checkNttShape(const RfRuntime *s, int logN1, int radix, int otStages) {
  const unsigned logN = logDegree(s);
  if (asksForDefaultShape(logN1, radix, otStages))
    return defaultNttShape(sizeof(uint64_t), logN);
  if (logN1 < 0 || radix < 0 || otStages < 0)
    throw Error("NTT shape not supported: negative parameters (logN1 = " +
                std::to_string(logN1) + ", radix " + std::to_string(radix) +
                ", " + std::to_string(otStages) + " OT stages)");
  const NttShape shape{unsigned(logN1), unsigned(radix), unsigned(otStages)};
  std::string why;
  if (!isSupportedNttShape(sizeof(uint64_t), logN, shape, &why))
    throw Error("NTT shape not supported: " + why);
  return shape;
}

ConvertCall checkConvert(const RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *out) {
  const ConverterPlan &plan = planAt(s->converters, index, "converter");
  const size_t inWords = basisWords(s, plan.from);
  const size_t outWords = plan.copyFrom.size() * s->n;
  requireSpan(s, in, inWords, "the input");
  requireSpan(s, out, outWords, "the output");
  return {&plan, inWords, outWords, overlaps(in, inWords, out, outWords)};
}

ScaleRoundCall checkScaleRound(const RfRuntime *s, int index,
                               const uint64_t *in, const uint64_t *out) {
  const ScaleRoundEntry &entry =
      planAt(s->scaleRounds, index, "scale_round plan");
  const size_t inWords = basisWords(s, entry.input);
  // The kept basis's size, which a modulus switch (no kept limbs in its
  // input) has too, or the fused conversion's target's.
  const size_t outWords = basisWords(s, entry.output);
  requireSpan(s, in, inWords, "the input");
  requireSpan(s, out, outWords, "the output");
  return {&entry, inWords, outWords, overlaps(in, inWords, out, outWords)};
}

ScaleRoundCall checkScaleRoundAdd(const RfRuntime *s, int index,
                                  const uint64_t *in, const uint64_t *addend,
                                  const uint64_t *out) {
  const ScaleRoundCall call = checkScaleRound(s, index, in, out);
  if (call.entry->converter >= 0)
    throw Error("scale_round plan " + std::to_string(index) +
                " fuses a conversion; it adds nothing");
  requireSpan(s, addend, call.outWords, "the addend");
  if (overlaps(addend, call.outWords, out, call.outWords) ||
      overlaps(addend, call.outWords, in, call.inWords))
    throw Error("the addend overlaps the input or the output");
  return call;
}

ScaleUpCall checkScaleUp(const RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *out) {
  const ScaleUpPlan &plan = planAt(s->scaleUps, index, "scale_up plan");
  const size_t n = s->n, limbs = plan.outputModuli.size();
  requireSpan(s, in, n, "the input");
  requireSpan(s, out, limbs * n, "the output");
  return {&plan, limbs, overlaps(in, n, out, limbs * n)};
}

const BasisPlan &checkAutomorphism(const RfRuntime *s, int basis,
                                   uint64_t galoisElement, const uint64_t *in,
                                   const uint64_t *out) {
  const BasisPlan &plan = basisAt(s, basis);
  const size_t n = s->n, words = plan.moduli.size() * n;
  if (galoisElement % 2 == 0 || galoisElement >= 2 * n)
    throw Error("Galois element " + std::to_string(galoisElement) +
                " is not an odd number below 2N = " + std::to_string(2 * n));
  requireSpan(s, in, words, "the input");
  requireSpan(s, out, words, "the output");
  if (overlaps(in, words, out, words))
    throw Error("the input and output overlap (the automorphism permutes "
                "coefficients, so it cannot run in place)");
  return plan;
}

KeySwitchCall checkKeySwitch(const RfRuntime *s, int key, int basis,
                             const uint64_t *const *digits, int digitCount,
                             const uint64_t *out0, const uint64_t *out1,
                             const RfKeySwitchAddend *addend) {
  const Context &context = *s->context;
  const std::vector<uint64_t> &q = context.q().values(), &p = context.p().values();
  const std::vector<uint64_t> &moduli = basisAt(s, basis).moduli;
  const size_t l = moduli.size() > p.size() ? moduli.size() - p.size() : 0;
  if (l == 0 || l > q.size() ||
      !std::equal(q.begin(), q.begin() + l, moduli.begin()) ||
      !std::equal(p.begin(), p.end(), moduli.begin() + l))
    throw Error("basis " + std::to_string(basis) +
                " is not the first primes of Q followed by P");
  const size_t expectedDigits = (l + context.digitSize() - 1) / context.digitSize();
  if (digitCount < 0 || size_t(digitCount) != expectedDigits)
    throw Error(std::to_string(digitCount) + " digits given; " +
                std::to_string(l) + " primes of Q make " +
                std::to_string(expectedDigits));
  const KeySwitchKey *ksk = planAt(s->boundKeys, key, "key");
  if (!ksk)
    throw Error("key " + std::to_string(key) + " is not bound");
  const size_t words = moduli.size() * s->n;
  if (!digits)
    throw Error("the digit array is a null pointer");
  requireSpan(s, out0, words, "out0");
  requireSpan(s, out1, words, "out1");
  if (overlaps(out0, words, out1, words))
    throw Error("out0 and out1 overlap");
  for (size_t j = 0; j < expectedDigits; ++j) {
    std::string what = "digit " + std::to_string(j);
    requireSpan(s, digits[j], words, what.c_str());
    // Elementwise aliasing (a digit's buffer reused as an output) is safe:
    // every digit's word is read before the outputs' word is written.
    for (const uint64_t *o : {out0, out1})
      if (o != digits[j] && overlaps(o, words, digits[j], words))
        throw Error(what + " partly overlaps an output");
  }
  RfKeySwitchAddend added{};
  if (addend) {
    added = *addend;
    if (added.limbs < 1 || size_t(added.limbs) > l)
      throw Error("the addend covers " + std::to_string(added.limbs) +
                  " limbs; the level has " + std::to_string(l) +
                  " primes of Q");
    const size_t addendWords = size_t(added.limbs) * s->n;
    requireSpan(s, added.scales, size_t(added.limbs), "the addend's scales");
    for (const uint64_t *a : {added.addend0, added.addend1}) {
      requireSpan(s, a, addendWords, "an addend");
      for (const uint64_t *o : {out0, out1})
        if (overlaps(o, words, a, addendWords))
          throw Error("an addend overlaps an output");
    }
  }
  return {ksk, moduli.size(), l, q.size() - l, expectedDigits, added};
}

/// A shape the fused NTTs (ntt_key_switch, ntt_products) run.
static NttShape checkFusedNttShape(const RfRuntime *s, int logN1, int radix,
                                   int otStages, const char *what) {
  NttShape shape = checkNttShape(s, logN1, radix, otStages);
  if (asksForDefaultShape(logN1, radix, otStages)) // its rows cut
    shape = fusedNttShape(logDegree(s), shape);
  std::string why;
  if (!isSupportedFusedNttShape(logDegree(s), shape, &why))
    throw Error(std::string("NTT shape not supported for ") + what + ": " +
                why);
  return shape;
}

std::vector<bool>
checkNttSources(const RfRuntime *s, int basis, const int *sourceBases,
                const uint64_t *const *sources, uint64_t *const *scratch,
                int count, const char *what,
                const std::vector<const uint64_t *> &outputs) {
  if (!sourceBases || !sources || !scratch)
    throw Error(std::string("a ") + what + " array is a null pointer");
  const size_t n = s->n, words = basisAt(s, basis).moduli.size() * n;
  std::vector<bool> oneLimb;
  auto name = [&](int j) { return what + (" " + std::to_string(j)); };
  for (int j = 0; j < count; ++j) {
    const bool fromOnePrime = sourceBases[j] != basis;
    if (fromOnePrime) {
      checkNttFrom(s, basis, sourceBases[j], sources[j], scratch[j]);
    } else {
      checkNtt(s, basis, scratch[j]);
      requireSpan(s, sources[j], words, name(j).c_str());
      if (sources[j] != scratch[j] &&
          overlaps(sources[j], words, scratch[j], words))
        throw Error(name(j) + " partly overlaps its scratch buffer");
    }
    oneLimb.push_back(fromOnePrime);
  }
  auto sourceWords = [&](int j) { return oneLimb[j] ? n : words; };
  for (int j = 0; j < count; ++j) {
    for (const uint64_t *o : outputs)
      if (overlaps(o, words, sources[j], sourceWords(j)) ||
          overlaps(o, words, scratch[j], words))
        throw Error(name(j) + " or its scratch buffer overlaps an output");
    // Scratch j is written while the others are read.
    for (int i = 0; i < count; ++i)
      if (i != j && (overlaps(scratch[j], words, sources[i], sourceWords(i)) ||
                     overlaps(scratch[j], words, scratch[i], words)))
        throw Error(name(j) + "'s scratch buffer overlaps the buffers of " +
                    name(i));
  }
  return oneLimb;
}

NttKeySwitchCall checkNttKeySwitch(const RfRuntime *s, int key, int basis,
                                   const int *digitBases,
                                   const uint64_t *const *digits,
                                   uint64_t *const *scratch, int digitCount,
                                   const uint64_t *out0, const uint64_t *out1,
                                   const RfKeySwitchAddend *addend, int logN1,
                                   int radix, int otStages) {
  NttKeySwitchCall call;
  call.shape = checkFusedNttShape(s, logN1, radix, otStages, "key switching");
  // checkKeySwitch refuses a null scratch array, checkNttSources the others.
  call.keySwitch =
      checkKeySwitch(s, key, basis, scratch, digitCount, out0, out1, addend);
  call.oneLimb = checkNttSources(s, basis, digitBases, digits, scratch,
                                 digitCount, "digit", {out0, out1});
  if (addend) {
    // The scratch buffers are written while the addends wait to be read.
    const size_t words = call.keySwitch.limbs * s->n,
                 addendWords = size_t(addend->limbs) * s->n;
    for (int j = 0; j < digitCount; ++j)
      for (const uint64_t *a : {addend->addend0, addend->addend1})
        if (overlaps(scratch[j], words, a, addendWords))
          throw Error("digit " + std::to_string(j) +
                      "'s scratch buffer overlaps an addend");
  }
  return call;
}

NttProductsCall checkNttProducts(const RfRuntime *s, int basis,
                                 const int *factorBases,
                                 const uint64_t *const *factors,
                                 uint64_t *const *scratch, int factorCount,
                                 const int *pairs, int pairCount,
                                 uint64_t *const *outputs, int outputCount,
                                 int logN1, int radix, int otStages) {
  NttProductsCall call;
  call.shape = checkFusedNttShape(s, logN1, radix, otStages, "products");
  if (factorCount < 1 || factorCount > kMaxProductFactors || outputCount < 1 ||
      outputCount > kMaxProductOutputs || pairCount < 1 ||
      pairCount > kMaxProducts)
    throw Error("products take 1 to " + std::to_string(kMaxProductFactors) +
                " factors, 1 to " + std::to_string(kMaxProductOutputs) +
                " outputs and 1 to " + std::to_string(kMaxProducts) +
                " pairs, got " + std::to_string(factorCount) + ", " +
                std::to_string(outputCount) + " and " +
                std::to_string(pairCount));
  if (!pairs || !outputs)
    throw Error("the pairs or the outputs are a null pointer");
  int output = 0;
  for (int p = 0; p < pairCount; ++p) {
    const int k = pairs[3 * p], a = pairs[3 * p + 1], b = pairs[3 * p + 2];
    if (k != output && k != output + 1)
      throw Error("pair " + std::to_string(p) + " is for output " +
                  std::to_string(k) + ", after output " +
                  std::to_string(output) +
                  " (pairs come grouped by output, none skipped)");
    if ((p == 0 && k != 0) || a < 0 || a >= factorCount || b < 0 ||
        b >= factorCount || k >= outputCount)
      throw Error("pair " + std::to_string(p) + " names output " +
                  std::to_string(k) + " and factors " + std::to_string(a) +
                  ", " + std::to_string(b) + " of " +
                  std::to_string(outputCount) + " and " +
                  std::to_string(factorCount));
    output = k;
  }
  if (output != outputCount - 1)
    throw Error("no pair names output " + std::to_string(output + 1));
  const size_t words = basisAt(s, basis).moduli.size() * s->n;
  std::vector<const uint64_t *> written(outputs, outputs + outputCount);
  for (int k = 0; k < outputCount; ++k) {
    const std::string what = "output " + std::to_string(k);
    requireSpan(s, outputs[k], words, what.c_str());
    for (int i = 0; i < k; ++i)
      if (overlaps(outputs[k], words, outputs[i], words))
        throw Error(what + " overlaps output " + std::to_string(i));
  }
  call.oneLimb = checkNttSources(s, basis, factorBases, factors, scratch,
                                 factorCount, "factor", written);
  call.words = words;
  return call;
}

uint64_t *bufferKernel(RfRuntime *s, int buffer) {
  if (buffer < 0 || static_cast<size_t>(buffer) >= s->bufferData.size()) {
    fail(s, "buffer: buffer " + std::to_string(buffer) +
                " is out of range (the manifest has " +
                std::to_string(s->bufferData.size()) + " buffers)");
    return s->spareBuffer;
  }
  return s->bufferData[buffer];
}

const RfModulus *moduliKernel(RfRuntime *s, int basis) {
  if (basis < 0 || static_cast<size_t>(basis) >= s->moduliData.size()) {
    fail(s, "moduli: basis " + std::to_string(basis) +
                " is out of range (the manifest has " +
                std::to_string(s->moduliData.size()) + " bases)");
    return s->spareModuli;
  }
  return s->moduliData[basis];
}

size_t valueWords(const RfRuntime &s, const ValueLayout &layout) {
  return layout.plaintext ? s.n : s.context->q().size() * s.n;
}

#ifndef RINGFUSE_HAVE_CUDA
// Built without CUDA: a program cannot be loaded for Device::Cuda, so no
// CudaState is ever made.
void CudaStateDeleter::operator()(CudaState *) const {}

void cudaAttach(RfRuntime &) {
  throw Error("this ringfuse runtime was built without its CUDA driver (no "
              "CUDA compiler was found when it was configured, or "
              "RINGFUSE_CUDA=OFF); load the program for the CPU, or rebuild "
              "the runtime where nvcc is on PATH");
}

void cudaUploadKeys(RfRuntime &, bool) {}

std::vector<Ciphertext> cudaRun(RfRuntime &,
                                const std::vector<ProgramInput> &) {
  throw Error("this ringfuse runtime was built without its CUDA driver");
}

bool cudaReplaysGraph(const RfRuntime &) { return false; }

std::vector<double> cudaTimeRuns(RfRuntime &, const std::vector<ProgramInput> &,
                                 size_t, size_t) {
  throw Error("this ringfuse runtime was built without its CUDA driver");
}

std::vector<DeviceCiphertext> cudaRunOnDevice(RfRuntime &,
                                              const std::vector<ProgramInput> &) {
  throw Error("this ringfuse runtime was built without its CUDA driver");
}
#endif

} // namespace ringfuse::runtime::detail

#ifndef RINGFUSE_HAVE_CUDA
namespace ringfuse::runtime {
DeviceCiphertext uploadCiphertext(const Ciphertext &) {
  throw Error("this ringfuse runtime was built without its CUDA driver: no "
              "ciphertexts in GPU memory");
}
Ciphertext downloadCiphertext(const DeviceCiphertext &) {
  throw Error("this ringfuse runtime was built without its CUDA driver: no "
              "ciphertexts in GPU memory");
}
} // namespace ringfuse::runtime
#endif

// The CPU kernels
// ---------------------------------------------------------------

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

// The reference computes the same words for every shape, so the shape is
// only checked: a program refused on the GPU is refused here too.
void nttKernel(RfRuntime *s, int basis, uint64_t *data, int logN1, int radix,
               int otStages, bool forward) {
  guarded(s, forward ? "ntt_forward" : "ntt_inverse", [&] {
    const BasisPlan &plan = checkNtt(s, basis, data);
    checkNttShape(s, logN1, radix, otStages);
    transformLimbs(plan, s->n, data, forward);
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

void nttForwardFromKernel(RfRuntime *s, int basis, int inBasis,
                          const uint64_t *in, uint64_t *out, int logN1,
                          int radix, int otStages) {
  guarded(s, "ntt_forward_from", [&] {
    const BasisPlan &plan = checkNttFrom(s, basis, inBasis, in, out);
    checkNttShape(s, logN1, radix, otStages);
    transformOneLimb(plan, s->n, in, out);
  });
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

void convertKernel(RfRuntime *s, int index, const uint64_t *in, uint64_t *out) {
  guarded(s, "convert", [&] {
    const ConvertCall call = checkConvert(s, index, in, out);
    std::vector<uint64_t> staging;
    uint64_t *target = out;
    if (call.overlapping) {
      staging.resize(call.outWords);
      target = staging.data();
    }
    convertWith(*call.plan, in, s->n, target);
    if (target != out)
      std::copy(staging.begin(), staging.end(), out);
  });
}

/// The plan's rounding of in (and its conversion) into out.
void scaleRound(RfRuntime *s, const ScaleRoundCall &call, const uint64_t *in,
                uint64_t *out) {
  const ScaleRoundEntry &entry = *call.entry;
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
  std::vector<uint64_t> divisorScratch, keptScratch, staging;
  const uint64_t *divisor =
      limbRun(entry.divisorLimbs, entry.divisorContiguous, divisorScratch);
  const uint64_t *kept =
      limbRun(entry.keptLimbs, entry.keptContiguous, keptScratch);
  uint64_t *target = out;
  if (call.overlapping) {
    staging.resize(call.outWords);
    target = staging.data();
  }
  if (entry.floor) {
    entry.floor->apply(divisor, kept, n, target);
  } else if (entry.converter < 0) {
    entry.plan->apply(divisor, kept, n, target);
  } else {
    // Over the kept basis, which a modulus switch's input lacks.
    std::vector<uint64_t> rounded(basisWords(s, entry.kept));
    entry.plan->apply(divisor, kept, n, rounded.data());
    convertWith(s->converters[entry.converter], rounded.data(), n, target);
  }
  if (target != out)
    std::copy(staging.begin(), staging.end(), out);
}

void scaleRoundKernel(RfRuntime *s, int index, const uint64_t *in,
                      uint64_t *out) {
  guarded(s, "scale_round", [&] {
    scaleRound(s, checkScaleRound(s, index, in, out), in, out);
  });
}

void scaleRoundAddKernel(RfRuntime *s, int index, const uint64_t *in,
                         const uint64_t *addend, uint64_t *out) {
  guarded(s, "scale_round_add", [&] {
    const ScaleRoundCall call = checkScaleRoundAdd(s, index, in, addend, out);
    scaleRound(s, call, in, out);
    const std::vector<uint64_t> &moduli = s->bases[call.entry->output].moduli;
    for (size_t k = 0; k < moduli.size(); ++k)
      for (size_t j = k * s->n; j < (k + 1) * s->n; ++j)
        out[j] = addMod(out[j], addend[j], moduli[k]);
  });
}

/// round(Q m / t) = floor(Q/t) m + floor((2 (Q mod t) m + t) / 2t) mod each
/// output prime: encryption.cpp's addScaledPlaintext, written, not added.
void scaleUpKernel(RfRuntime *s, int index, const uint64_t *in, uint64_t *out) {
  guarded(s, "scale_up", [&] {
    const ScaleUpCall call = checkScaleUp(s, index, in, out);
    const ScaleUpPlan &plan = *call.plan;
    const Context &context = *s->context;
    const size_t n = s->n, limbs = call.limbs;
    std::vector<uint64_t> staging;
    uint64_t *target = out;
    if (call.overlapping) {
      staging.resize(limbs * n);
      target = staging.data();
    }
    const uint64_t t = context.plaintextModulus(), r = context.qModT();
    for (size_t j = 0; j < n; ++j) {
      uint64_t m = in[j];
      uint64_t correction =
          static_cast<uint64_t>((2 * static_cast<uint128_t>(r) * m + t) /
                                (2 * static_cast<uint128_t>(t)));
      for (size_t i = 0; i < limbs; ++i) {
        const Modulus &q = plan.outputModuli[i];
        target[i * n + j] = addMod(mulMod(plan.deltaModOutput[i], m, q),
                                   reduce(correction, q), q.value);
      }
    }
    if (target != out)
      std::copy(staging.begin(), staging.end(), out);
  });
}

void automorphismKernel(RfRuntime *s, int basis, uint64_t galoisElement,
                        const uint64_t *in, uint64_t *out) {
  guarded(s, "automorphism", [&] {
    const BasisPlan &plan = checkAutomorphism(s, basis, galoisElement, in, out);
    const size_t n = s->n;
    for (size_t i = 0; i < plan.moduli.size(); ++i)
      applyAutomorphism(in + i * n, n, galoisElement, plan.moduli[i],
                        out + i * n);
  });
}

void automorphismEvaluationKernel(RfRuntime *s, int basis,
                                  uint64_t galoisElement, const uint64_t *in,
                                  uint64_t *out) {
  guarded(s, "automorphism_evaluation", [&] {
    const BasisPlan &plan = checkAutomorphism(s, basis, galoisElement, in, out);
    const size_t n = s->n;
    for (size_t i = 0; i < plan.moduli.size(); ++i)
      applyEvaluationAutomorphism(in + i * n, n, galoisElement, out + i * n);
  });
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

void keySwitchInnerProductKernel(RfRuntime *s, int key, int basis,
                                 const uint64_t *const *digits, int digitCount,
                                 uint64_t *out0, uint64_t *out1,
                                 const RfKeySwitchAddend *addend) {
  guarded(s, "key_switch_inner_product", [&] {
    innerProduct(s,
                 checkKeySwitch(s, key, basis, digits, digitCount, out0, out1,
                                addend),
                 digits, out0, out1);
  });
}

/// Each source of a fused forward NTT transformed into its scratch buffer
/// (checkNttSources' arguments).
void transformSources(const RfRuntime *s, int basis,
                      const std::vector<bool> &oneLimb,
                      const uint64_t *const *sources,
                      uint64_t *const *scratch) {
  const BasisPlan &plan = basisAt(s, basis);
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

/// The digits transformed into their scratch buffers, then the inner
/// product of those.
void nttKeySwitchKernel(RfRuntime *s, int key, int basis, const int *digitBases,
                        const uint64_t *const *digits, uint64_t *const *scratch,
                        int digitCount, uint64_t *out0, uint64_t *out1,
                        const RfKeySwitchAddend *addend, int logN1, int radix,
                        int otStages) {
  guarded(s, "ntt_key_switch", [&] {
    const NttKeySwitchCall call = checkNttKeySwitch(
        s, key, basis, digitBases, digits, scratch, digitCount, out0, out1,
        addend, logN1, radix, otStages);
    transformSources(s, basis, call.oneLimb, digits, scratch);
    innerProduct(s, call.keySwitch, scratch, out0, out1);
  });
}

/// The factors transformed into their scratch buffers, then each output's
/// products of those (canonical words, so the order of the sum is not seen).
void nttProductsKernel(RfRuntime *s, int basis, const int *factorBases,
                       const uint64_t *const *factors, uint64_t *const *scratch,
                       int factorCount, const int *pairs, int pairCount,
                       uint64_t *const *outputs, int outputCount, int logN1,
                       int radix, int otStages) {
  guarded(s, "ntt_products", [&] {
    const NttProductsCall call = checkNttProducts(
        s, basis, factorBases, factors, scratch, factorCount, pairs, pairCount,
        outputs, outputCount, logN1, radix, otStages);
    transformSources(s, basis, call.oneLimb, factors, scratch);
    const BasisPlan &plan = basisAt(s, basis);
    const size_t n = s->n;
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
  });
}

/// The CPU driver has no stream and no launches to check: generated loops
/// run on the host.
void *noStream(RfRuntime *) { return nullptr; }
void noLaunchCheck(RfRuntime *, const char *, int) {}

const RfKernels kCpuKernels = {
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
    noStream,
    noLaunchCheck,
    concurrentBeginKernel, // a region's kernels simply run in order here
    concurrentEndKernel,
    nttForwardFromKernel,
    nttKeySwitchKernel,
    nttProductsKernel,
};

// Loading ---------------------------------------------------------------------

/// Reads and checks a manifest into the state, section by section.
class ManifestLoader {
public:
  ManifestLoader(const RfManifest &manifest, RfRuntime &state)
      : m_(manifest), s_(state) {}

  void load() {
    loadContext();
    loadBases();
    loadConverters();
    loadScaleRounds();
    loadScaleUps();
    loadBuffers();
    s_.inputs = loadValues(m_.inputs, m_.input_count, /*inputs=*/true);
    s_.outputs = loadValues(m_.outputs, m_.output_count, /*inputs=*/false);
    checkInputBuffers();
    loadConstants();
    loadKeys();
  }

private:
  template <typename T>
  static void requireArray(const T *data, int count, const char *what) {
    if (count < 0)
      throw Error(std::string("the manifest's ") + what +
                  " count is negative (" + std::to_string(count) + ")");
    if (count > 0 && !data)
      throw Error(std::string("the manifest lists ") + std::to_string(count) +
                  " " + what + " but gives a null array");
  }

  int basisIndex(int index, const std::string &what) const {
    if (index < 0 || index >= m_.basis_count)
      throw Error(what + " refers to basis " + std::to_string(index) +
                  ", but the manifest has " + std::to_string(m_.basis_count) +
                  " bases");
    return index;
  }

  int bufferIndex(int index, const std::string &what) const {
    if (index < 0 || index >= m_.buffer_count)
      throw Error(what + " refers to buffer " + std::to_string(index) +
                  ", but the manifest has " + std::to_string(m_.buffer_count) +
                  " buffers");
    return index;
  }

  /// The position of each modulus of `part` in `whole`.
  std::vector<size_t> limbsOf(int part, int whole,
                              const std::string &what) const {
    const std::vector<uint64_t> &inner = s_.bases[part].moduli;
    const std::vector<uint64_t> &outer = s_.bases[whole].moduli;
    std::vector<size_t> limbs;
    for (uint64_t q : inner) {
      auto found = std::find(outer.begin(), outer.end(), q);
      if (found == outer.end())
        throw Error(what + ": modulus " + std::to_string(q) + " of basis " +
                    std::to_string(part) + " is not in basis " +
                    std::to_string(whole) + " " + listModuli(outer));
      limbs.push_back(static_cast<size_t>(found - outer.begin()));
    }
    return limbs;
  }

  void loadContext() {
    requireArray(m_.q, m_.q_count, "ciphertext primes (q)");
    requireArray(m_.p, m_.p_count, "special primes (p)");
    if (m_.dnum < 0)
      throw Error("dnum is negative (" + std::to_string(m_.dnum) + ")");
    std::vector<uint64_t> q(m_.q, m_.q + m_.q_count),
        p(m_.p, m_.p + m_.p_count);
    // Security was checked when the compiler chose the parameters; the
    // context records whether the set is insecure.
    s_.context = Context::fromPrimes(m_.degree, m_.plaintext_modulus, q, p,
                                     static_cast<size_t>(m_.dnum), true);
    if (m_.dnum != 0 && s_.context->dnum() != static_cast<size_t>(m_.dnum))
      throw Error("the manifest says dnum = " + std::to_string(m_.dnum) +
                  ", but its parameter set has " +
                  std::to_string(s_.context->dnum()) + " key-switching digits");
    s_.n = s_.context->degree();
  }

  /// The context's own tables where it has them (QP, B, m_sk), else tables
  /// of our own for NTT-friendly moduli; bases with other moduli (t, say)
  /// load fine and only refuse to be transformed.
  const NttTables *tablesFor(uint64_t q) {
    const Context &c = *s_.context;
    for (size_t i = 0; i < c.qp().size(); ++i)
      if (c.qp().values()[i] == q)
        return &c.nttQP(i);
    for (size_t i = 0; i < c.auxiliary().size(); ++i)
      if (c.auxiliary().values()[i] == q)
        return &c.nttAuxiliary(i);
    if (q == c.mSk())
      return &c.nttAuxiliary(c.auxiliary().size());
    if (q >= (uint64_t(1) << 62) || !isPrime(q) || (q - 1) % (2 * s_.n) != 0)
      return nullptr;
    auto &own = s_.ownNttTables[q];
    if (!own)
      own = std::make_unique<NttTables>(q, s_.n);
    return own.get();
  }

  void loadBases() {
    requireArray(m_.bases, m_.basis_count, "bases");
    for (int b = 0; b < m_.basis_count; ++b) {
      const RfBasis &basis = m_.bases[b];
      std::string what = "basis " + std::to_string(b);
      if (basis.count < 1)
        throw Error(what + " has " + std::to_string(basis.count) +
                    " moduli; a basis needs at least one");
      if (!basis.moduli)
        throw Error(what + " has a null moduli array");
      BasisPlan plan;
      plan.moduli.assign(basis.moduli, basis.moduli + basis.count);
      try {
        plan.rns = RnsBasis(plan.moduli);
      } catch (const Error &e) {
        throw Error(what + " " + listModuli(plan.moduli) + ": " + e.what());
      }
      for (uint64_t q : plan.moduli) {
        const NttTables *tables = tablesFor(q);
        if (!tables && plan.nttProblem.empty())
          plan.nttProblem = what + " " + listModuli(plan.moduli) +
                            " contains " + std::to_string(q) +
                            ", which has no negacyclic NTT of size " +
                            std::to_string(s_.n) +
                            " (that needs a prime = 1 mod 2N below 2^62)";
        plan.ntt.push_back(tables);
      }
      s_.bases.push_back(std::move(plan));
    }
    for (const BasisPlan &plan : s_.bases)
      s_.widestBasis = std::max(s_.widestBasis, plan.moduli.size());
  }

  void loadConverters() {
    requireArray(m_.converters, m_.converter_count, "converters");
    for (int k = 0; k < m_.converter_count; ++k) {
      const RfConverter &converter = m_.converters[k];
      std::string what = "converter " + std::to_string(k);
      ConverterPlan plan;
      plan.from = basisIndex(converter.from, what);
      plan.to = basisIndex(converter.to, what);
      if (converter.method < RF_CONVERT_FAST ||
          converter.method > RF_CONVERT_SHENOY_KUMARESAN)
        throw Error(what + " has method " + std::to_string(converter.method) +
                    "; expected 0 (fast), 1 (exact), 2 (Montgomery) or 3 "
                    "(Shenoy-Kumaresan)");
      plan.method = converter.method;
      const std::vector<uint64_t> &from = s_.bases[plan.from].moduli;
      const std::vector<uint64_t> &to = s_.bases[plan.to].moduli;
      std::vector<uint64_t> missing;
      for (size_t j = 0; j < to.size(); ++j) {
        auto found = std::find(from.begin(), from.end(), to[j]);
        if (found != from.end()) {
          plan.copyFrom.push_back(static_cast<int>(found - from.begin()));
        } else {
          plan.copyFrom.push_back(-1);
          plan.missingLimbs.push_back(j);
          missing.push_back(to[j]);
        }
      }
      if (!missing.empty()) {
        const RnsBasis &fromBasis = s_.bases[plan.from].rns;
        try {
          if (plan.method == RF_CONVERT_MONTGOMERY)
            plan.corrected = std::make_unique<RedundantConverter>(
                RedundantConverter::montgomery(fromBasis, RnsBasis(missing)));
          else if (plan.method == RF_CONVERT_SHENOY_KUMARESAN)
            plan.corrected = std::make_unique<RedundantConverter>(
                RedundantConverter::shenoyKumaresan(fromBasis, RnsBasis(missing)));
          else
            plan.missing = std::make_unique<BaseConverter>(fromBasis, RnsBasis(missing));
        } catch (const Error &e) {
          throw Error(what + ": " + e.what());
        }
        plan.missingContiguous = isContiguous(plan.missingLimbs);
      }
      s_.converters.push_back(std::move(plan));
    }
  }

  void loadScaleRounds() {
    requireArray(m_.scale_rounds, m_.scale_round_count, "scale_rounds");
    for (int k = 0; k < m_.scale_round_count; ++k) {
      const RfScaleRound &scale = m_.scale_rounds[k];
      std::string what = "scale_round " + std::to_string(k);
      ScaleRoundEntry entry;
      entry.input = basisIndex(scale.input, what);
      entry.divisor = basisIndex(scale.divisor, what);
      entry.kept = basisIndex(scale.kept, what);
      requireArray(scale.numerator, scale.numerator_words, (what + " numerator").c_str());
      const BigUInt numerator = BigUInt::fromWords(std::vector<uint64_t>(
          scale.numerator, scale.numerator + std::max(scale.numerator_words, 0)));
      if (numerator.isZero())
        throw Error(what + " has numerator 0");
      const std::vector<uint64_t> &keptModuli = s_.bases[entry.kept].moduli;
      const std::vector<uint64_t> &inputModuli = s_.bases[entry.input].moduli;
      // A modulus switch: the input is the divisor, the outputs lie outside.
      const bool switching =
          entry.input == entry.divisor &&
          std::none_of(keptModuli.begin(), keptModuli.end(), [&](uint64_t m) {
            return std::find(inputModuli.begin(), inputModuli.end(), m) != inputModuli.end();
          });
      entry.divisorLimbs = limbsOf(entry.divisor, entry.input, what);
      if (!switching)
        entry.keptLimbs = limbsOf(entry.kept, entry.input, what);
      for (size_t limb : entry.keptLimbs)
        if (std::find(entry.divisorLimbs.begin(), entry.divisorLimbs.end(),
                      limb) != entry.divisorLimbs.end())
          throw Error(what + ": modulus " +
                      std::to_string(s_.bases[entry.input].moduli[limb]) +
                      " is in both the divisor and the kept basis");
      entry.divisorContiguous = isContiguous(entry.divisorLimbs);
      entry.keptContiguous = isContiguous(entry.keptLimbs);
      if (scale.rounding != RF_SCALE_ROUND && scale.rounding != RF_SCALE_FAST_FLOOR)
        throw Error(what + " has rounding " + std::to_string(scale.rounding) +
                    "; expected 0 (round) or 1 (fast floor)");
      if (scale.rounding == RF_SCALE_FAST_FLOOR) {
        if (switching)
          throw Error(what + ": a fast floor keeps moduli of its input; it "
                             "cannot switch moduli");
        entry.floor = std::make_unique<FastFloorPlan>(
            s_.bases[entry.divisor].rns, s_.bases[entry.kept].rns, numerator);
      } else {
        // A switch to moduli that all divide the numerator needs no kept
        // basis; otherwise its tables are the rounding's over D u kept, of
        // which it leaves out the kept limbs' term (their limbs absent).
        const bool dividing =
            std::all_of(keptModuli.begin(), keptModuli.end(),
                        [&](uint64_t m) { return numerator.modWord(m) == 0; });
        entry.plan = switching && dividing
                         ? std::make_unique<ScaleRoundPlan>(s_.bases[entry.divisor].rns,
                                                            RnsBasis(), numerator, keptModuli)
                         : std::make_unique<ScaleRoundPlan>(s_.bases[entry.divisor].rns,
                                                            s_.bases[entry.kept].rns,
                                                            numerator);
      }
      entry.output = entry.kept;
      if (scale.then_convert != 0)
        fuseConversion(entry, scale, what);
      s_.scaleRounds.push_back(std::move(entry));
    }
  }

  /// Checks the exact conversion a scale_round fuses (loaded before it).
  void fuseConversion(ScaleRoundEntry &entry, const RfScaleRound &scale,
                      const std::string &what) {
    if (scale.then_convert != 1)
      throw Error(what + " has then_convert " + std::to_string(scale.then_convert) +
                  "; expected 0 or 1");
    if (scale.rounding != RF_SCALE_ROUND)
      throw Error(what + ": a fast floor fuses no conversion");
    if (scale.converter < 0 || size_t(scale.converter) >= s_.converters.size())
      throw Error(what + " refers to converter " + std::to_string(scale.converter) +
                  " of " + std::to_string(s_.converters.size()));
    const ConverterPlan &plan = s_.converters[scale.converter];
    if (plan.method != RF_CONVERT_EXACT || plan.from != entry.kept ||
        plan.missingLimbs.empty())
      throw Error(what + ": converter " + std::to_string(scale.converter) +
                  " must be exact, from the kept basis to a basis with moduli "
                  "outside it");
    entry.converter = scale.converter;
    entry.output = plan.to;
  }

  void loadScaleUps() {
    requireArray(m_.scale_ups, m_.scale_up_count, "scale_ups");
    const Context &c = *s_.context;
    for (int k = 0; k < m_.scale_up_count; ++k) {
      const RfScaleUp &scale = m_.scale_ups[k];
      std::string what = "scale_up " + std::to_string(k);
      ScaleUpPlan plan;
      plan.from = basisIndex(scale.from, what);
      plan.to = basisIndex(scale.to, what);
      const std::vector<uint64_t> &from = s_.bases[plan.from].moduli;
      if (from.size() != 1 || from[0] != c.plaintextModulus())
        throw Error(what + " scales from basis " + std::to_string(plan.from) +
                    " " + listModuli(from) + "; expected {t} = {" +
                    std::to_string(c.plaintextModulus()) + "}");
      const std::vector<uint64_t> &q = c.q().values();
      for (uint64_t modulus : s_.bases[plan.to].moduli) {
        auto found = std::find(q.begin(), q.end(), modulus);
        if (found == q.end())
          throw Error(what + " scales to basis " + std::to_string(plan.to) +
                      ", whose modulus " + std::to_string(modulus) +
                      " is not a ciphertext prime of Q " + listModuli(q));
        size_t i = static_cast<size_t>(found - q.begin());
        plan.deltaModOutput.push_back(c.deltaModQ()[i]);
        plan.outputModuli.push_back(c.q().modulus(i));
      }
      s_.scaleUps.push_back(std::move(plan));
    }
  }

  /// Sizes only: the driver places the buffers (host or device memory).
  void loadBuffers() {
    requireArray(m_.buffer_words, m_.buffer_count, "buffers");
    for (int b = 0; b < m_.buffer_count; ++b) {
      size_t words = m_.buffer_words[b];
      if (words == 0)
        throw Error("buffer " + std::to_string(b) + " has 0 words");
      if (words > (size_t(1) << 40))
        throw Error("buffer " + std::to_string(b) + " of " +
                    std::to_string(words) + " words cannot be allocated");
      s_.bufferWords.push_back(words);
      s_.largestBuffer = std::max(s_.largestBuffer, words);
    }
  }

  std::vector<ValueLayout> loadValues(const RfValue *values, int count,
                                      bool inputs) {
    const std::string kind = inputs ? "input" : "output";
    requireArray(values, count, inputs ? "inputs" : "outputs");
    const size_t n = s_.n, qWords = s_.context->q().size() * n;
    std::vector<ValueLayout> layouts;
    for (int v = 0; v < count; ++v) {
      const RfValue &value = values[v];
      std::string what = kind + " " + std::to_string(v);
      ValueLayout layout;
      if (value.is_plaintext != 0 && value.is_plaintext != 1)
        throw Error(what + " has is_plaintext = " +
                    std::to_string(value.is_plaintext) + "; expected 0 or 1");
      layout.plaintext = value.is_plaintext == 1;
      if (layout.plaintext && !inputs)
        throw Error(what +
                    " is a plaintext; a program's outputs are ciphertexts");
      const int minimum = layout.plaintext ? 1 : 2,
                maximum = layout.plaintext ? 1 : 3;
      if (value.components < minimum || value.components > maximum)
        throw Error(
            what + " is a " + (layout.plaintext ? "plaintext" : "ciphertext") +
            " of " + std::to_string(value.components) +
            " components; expected " + (layout.plaintext ? "1" : "2 or 3"));
      layout.components = static_cast<size_t>(value.components);
      const size_t needed = layout.plaintext ? n : qWords;
      for (size_t k = 0; k < layout.components; ++k) {
        std::string component = what + " component " + std::to_string(k);
        int buffer = bufferIndex(value.buffers[k], component);
        if (s_.bufferWords[buffer] < needed)
          throw Error(component + " lives in buffer " + std::to_string(buffer) +
                      " of " + std::to_string(s_.bufferWords[buffer]) +
                      " words, but a " +
                      (layout.plaintext
                           ? "plaintext needs N = "
                           : "polynomial over Q needs |Q| * N = ") +
                      std::to_string(needed));
        // An output may repeat a buffer (two equal components); an input's
        // components are written, so they may not.
        for (size_t other = 0; other < k; ++other)
          if (layout.buffers[other] == buffer && inputs)
            throw Error(what + " puts components " + std::to_string(other) +
                        " and " + std::to_string(k) + " in the same buffer " +
                        std::to_string(buffer));
        layout.buffers[k] = buffer;
      }
      layouts.push_back(layout);
    }
    return layouts;
  }

  void checkInputBuffers() {
    std::map<int, size_t> owner;
    for (size_t v = 0; v < s_.inputs.size(); ++v)
      for (size_t k = 0; k < s_.inputs[v].components; ++k) {
        auto [it, inserted] = owner.emplace(s_.inputs[v].buffers[k], v);
        if (!inserted && it->second != v)
          throw Error("inputs " + std::to_string(it->second) + " and " +
                      std::to_string(v) + " share buffer " +
                      std::to_string(it->first));
      }
  }

  void loadConstants() {
    requireArray(m_.constants, m_.constant_count, "constants");
    std::set<int> inputBuffers, constantBuffers;
    for (const ValueLayout &input : s_.inputs)
      inputBuffers.insert(input.buffers, input.buffers + input.components);
    for (int k = 0; k < m_.constant_count; ++k) {
      const RfConstant &constant = m_.constants[k];
      std::string what = "constant " + std::to_string(k);
      int buffer = bufferIndex(constant.buffer, what);
      if (constant.count > s_.bufferWords[buffer])
        throw Error(what + " has " + std::to_string(constant.count) +
                    " words, more than its buffer " + std::to_string(buffer) +
                    " holds (" + std::to_string(s_.bufferWords[buffer]) + ")");
      if (constant.count > 0 && !constant.words)
        throw Error(what + " has a null words array");
      if (inputBuffers.count(buffer))
        throw Error(what + " is in buffer " + std::to_string(buffer) +
                    ", which also holds an input");
      if (!constantBuffers.insert(buffer).second)
        throw Error(what + " is in buffer " + std::to_string(buffer) +
                    ", which already holds another constant");
      ConstantData data;
      data.buffer = buffer;
      data.words.assign(constant.words, constant.words + constant.count);
      s_.constants.push_back(std::move(data));
    }
  }

  void loadKeys() {
    requireArray(m_.keys, m_.key_count, "keys");
    for (int k = 0; k < m_.key_count; ++k) {
      uint64_t element = m_.keys[k];
      if (element != 0 && (element % 2 == 0 || element >= 2 * s_.n))
        throw Error("key " + std::to_string(k) + " has Galois element " +
                    std::to_string(element) +
                    "; expected 0 (relinearization) or an odd number below "
                    "2N = " +
                    std::to_string(2 * s_.n));
      s_.keyElements.push_back(element);
    }
    s_.boundKeys.assign(s_.keyElements.size(), nullptr);
  }

  const RfManifest &m_;
  RfRuntime &s_;
};

/// The CPU driver's buffers: host vectors, the constants in place.
void allocateHostBuffers(RfRuntime &s) {
  for (size_t b = 0; b < s.bufferWords.size(); ++b) {
    try {
      s.hostBuffers.emplace_back(s.bufferWords[b], 0);
    } catch (const std::exception &) {
      throw Error("buffer " + std::to_string(b) + " of " +
                  std::to_string(s.bufferWords[b]) +
                  " words cannot be allocated");
    }
    s.bufferData.push_back(s.hostBuffers.back().data());
  }
  s.hostSpareBuffer.assign(s.largestBuffer, 0);
  s.hostSpareModuli = spareModuli(s);
  s.spareBuffer = s.hostSpareBuffer.data();
  s.spareModuli = s.hostSpareModuli.data();
  for (const BasisPlan &plan : s.bases) {
    s.hostModuli.push_back(moduliRecords(plan.moduli));
    s.moduliData.push_back(s.hostModuli.back().data());
  }
  for (const ConstantData &constant : s.constants)
    std::copy(constant.words.begin(), constant.words.end(),
              s.hostBuffers[constant.buffer].begin());
}

/// What a user must pass to keygen to get Galois element g.
std::string galoisKeyAdvice(size_t n, uint64_t element) {
  if (element == 2 * n - 1)
    return "generate keys with swap_rows=True";
  Modulus twoN(2 * n);
  uint64_t power = 1;
  for (size_t steps = 0; steps < n / 2; ++steps) {
    if (power == element)
      return "generate keys with rotations=[" + std::to_string(steps) + "]";
    power = mulMod(power, 3, twoN);
  }
  return "generate Galois keys for this element";
}

void checkKeySwitchKey(const RfRuntime &s, const KeySwitchKey &key,
                       const std::string &what) {
  const Context &c = *s.context;
  const size_t words = c.qp().size() * s.n;
  if (key.b.size() != c.dnum() || key.a.size() != c.dnum())
    throw Error(what + " has " + std::to_string(key.b.size()) +
                " digits; the "
                "parameter set has dnum = " +
                std::to_string(c.dnum()));
  for (size_t j = 0; j < c.dnum(); ++j)
    if (key.b[j].size() != words || key.a[j].size() != words)
      throw Error(what + " digit " + std::to_string(j) +
                  " is not |QP| * N = " + std::to_string(words) + " words");
}

void bindKeys(RfRuntime &s, const RelinKey *relin, const GaloisKeys *galois) {
  const uint64_t fingerprint = s.context->fingerprint();
  std::vector<const KeySwitchKey *> keys(s.keyElements.size(), nullptr);
  for (size_t k = 0; k < s.keyElements.size(); ++k) {
    uint64_t element = s.keyElements[k];
    if (element == 0) {
      if (!relin)
        throw Error(programLabel(s) + " relinearizes, but no relinearization "
                                      "key was given");
      if (!relin->context || relin->context->fingerprint() != fingerprint)
        throw Error("the relinearization key belongs to another parameter set "
                    "than " +
                    programLabel(s) + " (" + s.context->describe() + ")");
      checkKeySwitchKey(s, relin->key, "the relinearization key");
      keys[k] = &relin->key;
      continue;
    }
    const KeySwitchKey *found = nullptr;
    if (galois) {
      auto entry = galois->keys.find(element);
      if (entry != galois->keys.end())
        found = &entry->second;
    }
    if (!found)
      throw Error(programLabel(s) + " rotates with Galois element " +
                  std::to_string(element) + ", but no Galois key for it was " +
                  "given; " + galoisKeyAdvice(s.n, element));
    if (!galois->context || galois->context->fingerprint() != fingerprint)
      throw Error("the Galois keys belong to another parameter set than " +
                  programLabel(s) + " (" + s.context->describe() + ")");
    checkKeySwitchKey(s, *found,
                      "the Galois key for element " + std::to_string(element));
    keys[k] = found;
  }
  s.boundKeys = std::move(keys);
}

std::string describeInputs(const RfRuntime &s) {
  std::string text;
  for (size_t v = 0; v < s.inputs.size(); ++v)
    text += (v ? ", " : "") +
            std::string(s.inputs[v].plaintext ? "plaintext" : "ciphertext");
  return "(" + text + ")";
}

/// A ciphertext input (host or GPU): the program's parameters, and the
/// component count its layout expects.
void checkCiphertextShape(const RfRuntime &s, const std::string &what,
                          const ContextPtr &context, size_t size,
                          size_t expected) {
  const Context &c = *s.context;
  if (!context || context->fingerprint() != c.fingerprint())
    throw Error(what + " belongs to another parameter set than the program (" +
                c.describe() + ")");
  if (size != expected)
    throw Error(what + " has " + std::to_string(size) +
                " components; the program expects " + std::to_string(expected) +
                (size > expected ? " (relinearize it first)" : ""));
}

void checkInputs(const RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  const Context &c = *s.context;
  if (inputs.size() != s.inputs.size())
    throw Error(programLabel(s) + " takes " + std::to_string(s.inputs.size()) +
                " inputs " + describeInputs(s) + ", got " +
                std::to_string(inputs.size()));
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    std::string what = "input " + std::to_string(v) + " of " + programLabel(s);
    if (layout.plaintext !=
        std::holds_alternative<const Plaintext *>(inputs[v]))
      throw Error(what + " is a " +
                  (layout.plaintext ? "plaintext" : "ciphertext") + ", got a " +
                  (layout.plaintext ? "ciphertext" : "plaintext"));
    if (layout.plaintext) {
      const Plaintext *plaintext = std::get<const Plaintext *>(inputs[v]);
      if (!plaintext)
        throw Error(what + " is a null pointer");
      if (!plaintext->context ||
          plaintext->context->fingerprint() != c.fingerprint())
        throw Error(what +
                    " belongs to another parameter set than the program (" +
                    c.describe() + ")");
      if (plaintext->coefficients.size() != s.n)
        throw Error(what + " has " +
                    std::to_string(plaintext->coefficients.size()) +
                    " coefficients, expected N = " + std::to_string(s.n));
      for (uint64_t m : plaintext->coefficients)
        if (m >= c.plaintextModulus())
          throw Error(
              what + " has coefficient " + std::to_string(m) +
              ", not below t = " + std::to_string(c.plaintextModulus()));
    } else if (std::holds_alternative<const DeviceCiphertext *>(inputs[v])) {
      const DeviceCiphertext *ciphertext =
          std::get<const DeviceCiphertext *>(inputs[v]);
      if (!s.cuda)
        throw Error(what + " is a ciphertext in GPU memory; the CPU driver "
                           "takes host ciphertexts (download it first)");
      if (!ciphertext || !ciphertext->words)
        throw Error(what + " is a null pointer");
      checkCiphertextShape(s, what, ciphertext->context, ciphertext->size,
                           layout.components);
    } else {
      const Ciphertext *ciphertext = std::get<const Ciphertext *>(inputs[v]);
      if (!ciphertext)
        throw Error(what + " is a null pointer");
      checkCiphertextShape(s, what, ciphertext->context, ciphertext->size,
                           layout.components);
      if (ciphertext->data.size() !=
          ciphertext->size * ciphertext->componentWords())
        throw Error(what + " is malformed: " +
                    std::to_string(ciphertext->size) + " components in " +
                    std::to_string(ciphertext->data.size()) + " words");
    }
  }
}

/// The CPU driver's binding of a run: constants and inputs into the host
/// buffers.
void cpuBindInputs(RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  const size_t qWords = s.context->q().size() * s.n;
  // Constants again, so that a schedule that reuses a constant's buffer as
  // scratch still finds the constant there on its next run.
  for (const ConstantData &constant : s.constants) {
    std::vector<uint64_t> &buffer = s.hostBuffers[constant.buffer];
    std::copy(constant.words.begin(), constant.words.end(), buffer.begin());
    std::fill(buffer.begin() + constant.words.size(), buffer.end(), 0);
  }
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    if (layout.plaintext) {
      const auto &coefficients =
          std::get<const Plaintext *>(inputs[v])->coefficients;
      std::copy(coefficients.begin(), coefficients.end(),
                s.hostBuffers[layout.buffers[0]].begin());
    } else {
      const Ciphertext &ct = *std::get<const Ciphertext *>(inputs[v]);
      for (size_t k = 0; k < layout.components; ++k)
        std::copy(ct.component(k), ct.component(k) + qWords,
                  s.hostBuffers[layout.buffers[k]].begin());
    }
  }
}

/// The schedule once, on the host buffers; throws a kernel's error.
void cpuRunSchedule(RfRuntime &s) {
  s.failed = false;
  s.error.clear();
  s.runFunction(&s, &kCpuKernels);
  closeOpenRegion(s);
  if (s.failed)
    throw Error(programLabel(s) + " failed in kernel " + s.error);
}

/// The CPU driver's run: the inputs bound, the schedule, the outputs out.
std::vector<Ciphertext> cpuRun(RfRuntime &s,
                               const std::vector<ProgramInput> &inputs) {
  const size_t qWords = s.context->q().size() * s.n;
  cpuBindInputs(s, inputs);
  cpuRunSchedule(s);

  std::vector<Ciphertext> outputs;
  for (const ValueLayout &layout : s.outputs) {
    Ciphertext ct{s.context, layout.components,
                  std::vector<uint64_t>(layout.components * qWords)};
    for (size_t k = 0; k < layout.components; ++k) {
      const uint64_t *source = s.hostBuffers[layout.buffers[k]].data();
      std::copy(source, source + qWords, ct.component(k));
    }
    outputs.push_back(std::move(ct));
  }
  return outputs;
}

/// A residue out of range would decrypt to garbage far from here.
void checkOutputs(const RfRuntime &s, const std::vector<Ciphertext> &outputs) {
  const Context &c = *s.context;
  const size_t n = s.n, qLimbs = c.q().size();
  for (size_t v = 0; v < outputs.size(); ++v)
    for (size_t k = 0; k < outputs[v].size; ++k) {
      const uint64_t *words = outputs[v].component(k);
      for (size_t i = 0; i < qLimbs; ++i)
        for (size_t j = 0; j < n; ++j)
          if (words[i * n + j] >= c.q().values()[i])
            throw Error(programLabel(s) + ": output " + std::to_string(v) +
                        " component " + std::to_string(k) + " limb " +
                        std::to_string(i) + " holds " +
                        std::to_string(words[i * n + j]) +
                        ", which is not below its prime " +
                        std::to_string(c.q().values()[i]));
    }
}

/// What every run checks first: the inputs, and that the keys were bound.
void checkRun(RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  checkInputs(s, inputs);
  if (!s.keyElements.empty() && !s.boundKeys.front())
    bindKeys(s, nullptr, nullptr); // never bound: throws the missing key
}

std::vector<Ciphertext> runProgram(RfRuntime &s,
                                   const std::vector<ProgramInput> &inputs) {
  checkRun(s, inputs);
  std::vector<Ciphertext> outputs =
      s.cuda ? cudaRun(s, inputs) : cpuRun(s, inputs);
  checkOutputs(s, outputs);
  return outputs;
}

/// Program::timeRuns on the CPU driver: steady_clock around each run.
std::vector<double> cpuTimeRuns(RfRuntime &s,
                                const std::vector<ProgramInput> &inputs,
                                size_t warmup, size_t iterations) {
  cpuBindInputs(s, inputs);
  for (size_t i = 0; i < warmup; ++i)
    cpuRunSchedule(s);
  std::vector<double> microseconds;
  microseconds.reserve(iterations);
  for (size_t i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    cpuRunSchedule(s);
    const auto stop = std::chrono::steady_clock::now();
    microseconds.push_back(
        std::chrono::duration<double, std::micro>(stop - start).count());
  }
  return microseconds;
}

} // namespace

namespace ringfuse::runtime {

const char *deviceName(Device device) {
  return device == Device::Cuda ? "cuda" : "cpu";
}

#ifndef RINGFUSE_HAVE_CUDA
bool cudaAvailable() { return false; }
#endif

Program::Program(std::unique_ptr<RfRuntime> state) : state_(std::move(state)) {}
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;
Program::~Program() = default;

Program Program::fromFunctions(RfManifestFunction manifest, RfRunFunction run,
                               Device device) {
  return fromFunctions(manifest, run, device, nullptr);
}

Program Program::fromFunctions(RfManifestFunction manifestFunction,
                               RfRunFunction runFunction, Device device,
                               std::shared_ptr<void> library) {
  if (!manifestFunction || !runFunction)
    throw Error("a program needs both ringfuse_manifest and ringfuse_run");
  const RfManifest *manifest = manifestFunction();
  if (!manifest)
    throw Error("ringfuse_manifest() returned a null manifest");
  if (manifest->abi_version != RINGFUSE_PROGRAM_ABI_VERSION)
    throw Error("the program was compiled for runtime ABI version " +
                std::to_string(manifest->abi_version) +
                ", but this runtime implements version " +
                std::to_string(RINGFUSE_PROGRAM_ABI_VERSION) +
                ": compile the circuit again with this ringfuse");
  auto state = std::make_unique<RfRuntime>();
  state->library = std::move(library);
  state->runFunction = runFunction;
  state->name = manifest->name ? manifest->name : "";
  state->variant = manifest->variant ? manifest->variant : "";
  state->device = device;
  try {
    const char *const known[] = {"", "hps", "lhps", "chps", "behz"};
    if (std::find(std::begin(known), std::end(known), state->variant) == std::end(known))
      throw Error("the manifest names the variant \"" + state->variant +
                  "\"; expected hps, lhps, chps or behz");
    ManifestLoader(*manifest, *state).load();
    if (device == Device::Cuda)
      cudaAttach(*state);
    else
      allocateHostBuffers(*state);
  } catch (const Error &e) {
    throw Error(programLabel(*state) + ": " + e.what());
  }
  return Program(std::move(state));
}

const ContextPtr &Program::context() const { return state_->context; }
Device Program::device() const { return state_->device; }
const std::string &Program::name() const { return state_->name; }
const std::string &Program::variant() const { return state_->variant; }
bool Program::insecure() const { return state_->context->insecure(); }
size_t Program::inputCount() const { return state_->inputs.size(); }
size_t Program::outputCount() const { return state_->outputs.size(); }

bool Program::inputIsPlaintext(size_t input) const {
  return state_->inputs.at(input).plaintext;
}

size_t Program::inputComponents(size_t input) const {
  return state_->inputs.at(input).components;
}

size_t Program::outputComponents(size_t output) const {
  return state_->outputs.at(output).components;
}

bool Program::needsRelinKey() const {
  const auto &elements = state_->keyElements;
  return std::find(elements.begin(), elements.end(), 0) != elements.end();
}

std::vector<uint64_t> Program::requiredGaloisElements() const {
  std::set<uint64_t> elements(state_->keyElements.begin(),
                              state_->keyElements.end());
  elements.erase(0);
  return {elements.begin(), elements.end()};
}

void Program::bind(const RelinKey *relin, const GaloisKeys *galois) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  bindKeys(*state_, relin, galois);
  if (state_->cuda)
    cudaUploadKeys(*state_, /*force=*/true);
}

std::vector<Ciphertext> Program::run(const std::vector<ProgramInput> &inputs,
                                     const RelinKey *relin,
                                     const GaloisKeys *galois) {
  // One lock for both: another thread's bind() must not come in between.
  // (The CUDA driver's run uploads the keys that changed since the last.)
  std::lock_guard<std::mutex> lock(state_->mutex);
  bindKeys(*state_, relin, galois);
  return runProgram(*state_, inputs);
}

std::vector<DeviceCiphertext>
Program::runOnDevice(const std::vector<ProgramInput> &inputs,
                     const RelinKey *relin, const GaloisKeys *galois) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->cuda)
    throw Error(programLabel(*state_) +
                " runs on the CPU; only a program loaded for the GPU keeps "
                "its outputs in GPU memory");
  bindKeys(*state_, relin, galois);
  checkRun(*state_, inputs);
  return cudaRunOnDevice(*state_, inputs);
}

std::vector<Ciphertext> Program::run(const std::vector<ProgramInput> &inputs) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return runProgram(*state_, inputs);
}

std::vector<double> Program::timeRuns(const std::vector<ProgramInput> &inputs,
                                      size_t warmup, size_t iterations) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  checkRun(*state_, inputs);
  return state_->cuda ? cudaTimeRuns(*state_, inputs, warmup, iterations)
                      : cpuTimeRuns(*state_, inputs, warmup, iterations);
}

bool Program::replaysGraph() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->cuda && cudaReplaysGraph(*state_);
}

} // namespace ringfuse::runtime
