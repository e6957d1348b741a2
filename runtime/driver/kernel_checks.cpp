//===- kernel_checks.cpp - what every library kernel checks first ---------===//
//
// The rules kernel_checks.h declares, one function per catalog entry at the
// end; the helpers above them are shared by several entries.
//
//===----------------------------------------------------------------------===//
#include "kernel_checks.h"

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <string>

namespace ringfuse::runtime::detail {
namespace {

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

/// The basis of an NTT over `data`, which must hold all its limbs.
const BasisPlan &checkNtt(const RfRuntime *s, int basis, const uint64_t *data) {
  const BasisPlan &plan = basisAt(s, basis);
  if (!plan.nttProblem.empty())
    throw Error(plan.nttProblem);
  requireSpan(s, data, plan.ntt.size() * s->n, "the data");
  return plan;
}

/// dgt_forward's and dgt_inverse's arguments: a basis with DGT tables and
/// its words.
const BasisPlan &checkDgt(const RfRuntime *s, int basis, const uint64_t *data) {
  const BasisPlan &plan = basisAt(s, basis);
  if (plan.dgt.empty())
    throw Error("basis " + std::to_string(basis) +
                " is not marked dgt in the manifest, so it has no DGT tables");
  requireSpan(s, data, plan.dgt.size() * s->n, "the data");
  return plan;
}

/// ntt_forward_from's arguments: checkNtt of out, and in one limb of the
/// one-prime basis `inBasis`, its prime below 8 times each of `basis`'s,
/// not overlapping out.
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
unsigned logDegree(const RfRuntime *s) {
  unsigned logN = 0;
  while ((size_t(1) << logN) < s->n)
    ++logN;
  return logN;
}

/// Whether a program's shape arguments ask for the default shape (all 0).
bool asksForDefaultShape(int logN1, int radix, int otStages) {
  return logN1 == 0 && radix == 0 && otStages == 0;
}

NttShape checkNttShape(const RfRuntime *s, int logN1, int radix, int otStages) {
  const unsigned logN = logDegree(s);
  if (asksForDefaultShape(logN1, radix, otStages))
    return defaultNttShape(logN);
  if (logN1 < 0 || radix < 0 || otStages < 0)
    throw Error("NTT shape not supported: negative parameters (logN1 = " +
                std::to_string(logN1) + ", radix " + std::to_string(radix) +
                ", " + std::to_string(otStages) + " OT stages)");
  const NttShape shape{unsigned(logN1), unsigned(radix), unsigned(otStages)};
  std::string why;
  if (!isSupportedNttShape(logN, shape, &why))
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

/// The bound key and the layout of its level; the digits and outputs span
/// the basis' limbs * N words each; the addend (or null) covers some of the
/// level's primes of Q and overlaps neither output.
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

/// Outputs of `words` words each, within the program's memory and none
/// overlapping another.
void requireDistinctOutputs(const RfRuntime *s, uint64_t *const *outputs,
                            int outputCount, size_t words) {
  for (int k = 0; k < outputCount; ++k) {
    const std::string what = "output " + std::to_string(k);
    requireSpan(s, outputs[k], words, what.c_str());
    for (int i = 0; i < k; ++i)
      if (overlaps(outputs[k], words, outputs[i], words))
        throw Error(what + " overlaps output " + std::to_string(i));
  }
}

/// A shape the fused NTTs (ntt_key_switch, ntt_products) run.
NttShape checkFusedNttShape(const RfRuntime *s, int logN1, int radix,
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

/// The sources of a fused forward NTT (ntt_key_switch's digits,
/// ntt_products' factors, named `what` in errors): each a polynomial over
/// `basis` (its scratch buffer or disjoint from it) or, over a one-prime
/// basis, checkNttFrom's input into its scratch buffer; no scratch buffer
/// overlapping another source's buffers, and no output (a polynomial over
/// `basis` each) overlapping a source or a scratch buffer. Which sources are
/// one prime's limb.
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
  requireDistinctOutputs(s, outputs, outputCount, words);
  call.oneLimb = checkNttSources(s, basis, factorBases, factors, scratch,
                                 factorCount, "factor", written);
  call.words = words;
  return call;
}

/// sum_of_products' arguments: the counts within one launch's bounds, the
/// triples grouped by output in increasing order with every output named,
/// each factor and output a polynomial over `basis`, and no output
/// overlapping a factor (read for the later outputs after the earlier ones
/// are written) or another output.
SumOfProductsCall checkSumOfProducts(const RfRuntime *s, int basis,
                                     const uint64_t *const *factors,
                                     int factorCount, const int *pairs,
                                     int pairCount, uint64_t *const *outputs,
                                     int outputCount, int accumulate) {
  SumOfProductsCall call{};
  call.basis = &basisAt(s, basis);
  if (factorCount < 1 || factorCount > kMaxSumFactors || pairCount < 1 ||
      pairCount > kMaxSumProducts || outputCount < 1 ||
      outputCount > kMaxSumOutputs)
    throw Error("a sum of products takes 1 to " +
                std::to_string(kMaxSumFactors) + " factors, 1 to " +
                std::to_string(kMaxSumProducts) + " triples and 1 to " +
                std::to_string(kMaxSumOutputs) + " outputs, got " +
                std::to_string(factorCount) + ", " + std::to_string(pairCount) +
                " and " + std::to_string(outputCount) +
                " (a longer sum is several launches, the later ones "
                "accumulating)");
  if (accumulate != 0 && accumulate != 1)
    throw Error("accumulate is " + std::to_string(accumulate) +
                "; it must be 0 or 1");
  call.accumulate = accumulate == 1;
  call.outputCount = outputCount;
  if (!factors || !pairs || !outputs)
    throw Error("the factors, the triples or the outputs are a null pointer");
  int output = 0;
  for (int p = 0; p < pairCount; ++p) {
    const int k = pairs[3 * p], a = pairs[3 * p + 1], b = pairs[3 * p + 2];
    if (p == 0 ? k != 0 : k != output && k != output + 1)
      throw Error("triple " + std::to_string(p) + " is for output " +
                  std::to_string(k) +
                  (p == 0 ? std::string(", not output 0")
                          : ", after output " + std::to_string(output)) +
                  " (triples come grouped by output in increasing order, "
                  "none skipped)");
    if (k >= outputCount || a < 0 || a >= factorCount || b < 0 ||
        b >= factorCount)
      throw Error("triple " + std::to_string(p) + " names output " +
                  std::to_string(k) + " and factors " + std::to_string(a) +
                  ", " + std::to_string(b) + " of " +
                  std::to_string(outputCount) + " outputs and " +
                  std::to_string(factorCount) + " factors");
    if (p == 0 || k != output)
      call.firstProduct[k] = p;
    call.first[p] = static_cast<uint8_t>(a);
    call.second[p] = static_cast<uint8_t>(b);
    output = k;
  }
  if (output != outputCount - 1)
    throw Error("no triple names output " + std::to_string(output + 1) +
                " of " + std::to_string(outputCount));
  call.firstProduct[outputCount] = pairCount;
  call.words = call.basis->moduli.size() * s->n;
  const size_t words = call.words;
  for (int j = 0; j < factorCount; ++j)
    requireSpan(s, factors[j], words, ("factor " + std::to_string(j)).c_str());
  requireDistinctOutputs(s, outputs, outputCount, words);
  for (int k = 0; k < outputCount; ++k)
    for (int j = 0; j < factorCount; ++j)
      if (overlaps(outputs[k], words, factors[j], words))
        throw Error("output " + std::to_string(k) + " overlaps factor " +
                    std::to_string(j));
  return call;
}

} // namespace

// The entries ----------------------------------------------------------------

namespace checks {

NttCall ntt_forward(RfRuntime *rt, int basis, uint64_t *data, int log_n1,
                    int radix, int ot_stages) {
  return {&checkNtt(rt, basis, data), checkNttShape(rt, log_n1, radix, ot_stages)};
}

NttCall ntt_inverse(RfRuntime *rt, int basis, uint64_t *data, int log_n1,
                    int radix, int ot_stages) {
  return ntt_forward(rt, basis, data, log_n1, radix, ot_stages);
}

NttCall ntt_forward_from(RfRuntime *rt, int basis, int in_basis,
                         const uint64_t *in, uint64_t *out, int log_n1,
                         int radix, int ot_stages) {
  return {&checkNttFrom(rt, basis, in_basis, in, out),
          checkNttShape(rt, log_n1, radix, ot_stages)};
}

DgtCall dgt_forward(RfRuntime *rt, int basis, uint64_t *data) {
  return {&checkDgt(rt, basis, data)};
}

DgtCall dgt_inverse(RfRuntime *rt, int basis, uint64_t *data) {
  return dgt_forward(rt, basis, data);
}

ConvertCall convert(RfRuntime *rt, int plan, const uint64_t *in,
                    uint64_t *out) {
  return checkConvert(rt, plan, in, out);
}

ScaleRoundCall scale_round(RfRuntime *rt, int plan, const uint64_t *in,
                           uint64_t *out) {
  return checkScaleRound(rt, plan, in, out);
}

ScaleRoundCall scale_round_add(RfRuntime *rt, int plan, const uint64_t *in,
                               const uint64_t *addend, uint64_t *out) {
  return checkScaleRoundAdd(rt, plan, in, addend, out);
}

ScaleUpCall scale_up(RfRuntime *rt, int plan, const uint64_t *in,
                     uint64_t *out) {
  return checkScaleUp(rt, plan, in, out);
}

AutomorphismCall automorphism(RfRuntime *rt, int basis, uint64_t galois_element,
                              const uint64_t *in, uint64_t *out) {
  return {&checkAutomorphism(rt, basis, galois_element, in, out)};
}

AutomorphismCall automorphism_evaluation(RfRuntime *rt, int basis,
                                         uint64_t galois_element,
                                         const uint64_t *in, uint64_t *out) {
  return {&checkAutomorphism(rt, basis, galois_element, in, out)};
}

KeySwitchCall key_switch_inner_product(RfRuntime *rt, int key, int basis,
                                       const uint64_t *const *digits,
                                       int digit_count, uint64_t *out0,
                                       uint64_t *out1,
                                       const RfKeySwitchAddend *addend) {
  return checkKeySwitch(rt, key, basis, digits, digit_count, out0, out1,
                        addend);
}

NttKeySwitchCall ntt_key_switch(RfRuntime *rt, int key, int basis,
                                const int *digit_bases,
                                const uint64_t *const *digits,
                                uint64_t *const *scratch, int digit_count,
                                uint64_t *out0, uint64_t *out1,
                                const RfKeySwitchAddend *addend, int log_n1,
                                int radix, int ot_stages) {
  return checkNttKeySwitch(rt, key, basis, digit_bases, digits, scratch,
                           digit_count, out0, out1, addend, log_n1, radix,
                           ot_stages);
}

NttProductsCall ntt_products(RfRuntime *rt, int basis, const int *factor_bases,
                             const uint64_t *const *factors,
                             uint64_t *const *scratch, int factor_count,
                             const int *pairs, int pair_count,
                             uint64_t *const *outputs, int output_count,
                             int log_n1, int radix, int ot_stages) {
  return checkNttProducts(rt, basis, factor_bases, factors, scratch,
                          factor_count, pairs, pair_count, outputs,
                          output_count, log_n1, radix, ot_stages);
}

SumOfProductsCall sum_of_products(RfRuntime *rt, int basis,
                                  const uint64_t *const *factors,
                                  int factor_count, const int *pairs,
                                  int pair_count, uint64_t *const *outputs,
                                  int output_count, int accumulate) {
  return checkSumOfProducts(rt, basis, factors, factor_count, pairs, pair_count,
                            outputs, output_count, accumulate);
}

} // namespace checks
} // namespace ringfuse::runtime::detail
