//===- run_checks.cpp - what a run checks: keys, inputs, outputs ----------===//
//
// The same for every driver: keys bound to the program must be its
// parameter set's and the ones it names; inputs must match its manifest;
// outputs must hold residues below their primes.
//
//===----------------------------------------------------------------------===//
#include "run_checks.h"

#include "driver.h"

#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime::detail {
namespace {

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

/// As many inputs (or a batch's arguments) as the program takes.
void checkInputCount(const RfRuntime &s, size_t given) {
  if (given != s.inputs.size())
    throw Error(programLabel(s) + " takes " + std::to_string(s.inputs.size()) +
                " inputs " + describeInputs(s) + ", got " +
                std::to_string(given));
}

/// A plaintext input: the program's parameters, N coefficients below t.
void checkPlaintext(const RfRuntime &s, const std::string &what,
                    const Plaintext *plaintext) {
  const Context &c = *s.context;
  if (!plaintext)
    throw Error(what + " is a null pointer");
  if (!plaintext->context ||
      plaintext->context->fingerprint() != c.fingerprint())
    throw Error(what + " belongs to another parameter set than the program (" +
                c.describe() + ")");
  if (plaintext->coefficients.size() != s.n)
    throw Error(what + " has " +
                std::to_string(plaintext->coefficients.size()) +
                " coefficients, expected N = " + std::to_string(s.n));
  for (uint64_t m : plaintext->coefficients)
    if (m >= c.plaintextModulus())
      throw Error(what + " has coefficient " + std::to_string(m) +
                  ", not below t = " + std::to_string(c.plaintextModulus()));
}

} // namespace

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

void checkInputs(const RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  checkInputCount(s, inputs.size());
  for (size_t v = 0; v < inputs.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    std::string what = "input " + std::to_string(v) + " of " + programLabel(s);
    if (layout.plaintext !=
        std::holds_alternative<const Plaintext *>(inputs[v]))
      throw Error(what + " is a " +
                  (layout.plaintext ? "plaintext" : "ciphertext") + ", got a " +
                  (layout.plaintext ? "ciphertext" : "plaintext"));
    if (layout.plaintext) {
      checkPlaintext(s, what, std::get<const Plaintext *>(inputs[v]));
    } else if (std::holds_alternative<const DeviceCiphertext *>(inputs[v])) {
      const DeviceCiphertext *ciphertext =
          std::get<const DeviceCiphertext *>(inputs[v]);
      if (!s.driver->takesDeviceInputs())
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

size_t checkBatchArguments(const RfRuntime &s,
                           const std::vector<BatchArgument> &arguments) {
  checkInputCount(s, arguments.size());
  // The instances: the most any argument holds (the others hold as many,
  // or one for all).
  size_t count = 0;
  for (const BatchArgument &argument : arguments) {
    if (const auto *batch = std::get_if<const CiphertextBatch *>(&argument))
      count = std::max(count, *batch ? (*batch)->count() : 0);
    else
      count = std::max(
          count, std::get<std::vector<const Plaintext *>>(argument).size());
  }
  if (count == 0)
    throw Error(programLabel(s) + ": a batch holds at least one instance");
  for (size_t v = 0; v < arguments.size(); ++v) {
    const ValueLayout &layout = s.inputs[v];
    const std::string what =
        "input " + std::to_string(v) + " of " + programLabel(s);
    if (layout.plaintext !=
        std::holds_alternative<std::vector<const Plaintext *>>(arguments[v]))
      throw Error(what + " is a " +
                  (layout.plaintext ? "plaintext" : "ciphertext batch") +
                  ", got a " +
                  (layout.plaintext ? "ciphertext batch" : "plaintext"));
    if (layout.plaintext) {
      const auto &plaintexts =
          std::get<std::vector<const Plaintext *>>(arguments[v]);
      if (plaintexts.size() != 1 && plaintexts.size() != count)
        throw Error(what + " takes one plaintext for all " +
                    std::to_string(count) +
                    " instances or one per instance, "
                    "got " +
                    std::to_string(plaintexts.size()));
      for (size_t i = 0; i < plaintexts.size(); ++i)
        checkPlaintext(s,
                       plaintexts.size() == 1
                           ? what
                           : what + " of instance " + std::to_string(i),
                       plaintexts[i]);
      continue;
    }
    const CiphertextBatch *batch =
        std::get<const CiphertextBatch *>(arguments[v]);
    if (!batch)
      throw Error(what + " is a null pointer");
    checkCiphertextShape(s, what, batch->context(), batch->components(),
                         layout.components);
    if (batch->count() != count && batch->count() != 1)
      throw Error(what + " holds " + std::to_string(batch->count()) +
                  " ciphertexts; another input holds " + std::to_string(count) +
                  " (a batch holds one ciphertext per instance, or one for "
                  "all)");
    if (batch->placement() == Placement::Device &&
        !s.driver->takesDeviceInputs())
      throw Error(what + " is a batch in GPU memory; the CPU driver takes "
                         "batches in host memory (copy it to the host first)");
  }
  return count;
}

/// What every run checks first: the inputs, and that the keys were bound.
void checkRun(RfRuntime &s, const std::vector<ProgramInput> &inputs) {
  checkInputs(s, inputs);
  if (!s.keyElements.empty() && !s.boundKeys.front())
    bindKeys(s, nullptr, nullptr); // never bound: throws the missing key
}

} // namespace ringfuse::runtime::detail
