//===- manifest_loader.cpp - a program's manifest, read and checked -------===//
//
// Builds the plans of program_state.h from a manifest (program_abi.h),
// section by section, checking everything a hand-written or corrupt program
// could get wrong: counts, indices, moduli, sizes and the parameter set
// itself (Context::fromPrimes repeats every check of a parameter set).
//
//===----------------------------------------------------------------------===//
#include "manifest_loader.h"

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <set>
#include <string>

namespace ringfuse::runtime::detail {
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

  /// DGT tables for every limb of a basis the schedule DGT-transforms: it
  /// must have NTT tables (the DGT computes the NTT's words), and N must be
  /// one dgt.h takes.
  void addDgtTables(BasisPlan &plan, const std::string &what) {
    if (!plan.nttProblem.empty())
      throw Error(what + " is marked dgt, but " + plan.nttProblem);
    for (uint64_t q : plan.moduli) {
      auto &tables = s_.dgtTables[q];
      if (!tables) {
        try {
          tables = std::make_unique<DgtTables64>(q, s_.n);
        } catch (const Error &e) {
          throw Error(what + " is marked dgt, but " + e.what());
        }
      }
      plan.dgt.push_back(tables.get());
    }
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
      if (basis.dgt)
        addDgtTables(plan, what);
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
  /// A buffer holds one polynomial over a basis of the program (or a
  /// plaintext), so none is larger than the widest basis's words: a larger
  /// size is a broken manifest, refused before anything is allocated.
  void loadBuffers() {
    requireArray(m_.buffer_words, m_.buffer_count, "buffers");
    const size_t most = std::max<size_t>(s_.widestBasis, 1) * s_.n;
    for (int b = 0; b < m_.buffer_count; ++b) {
      size_t words = m_.buffer_words[b];
      if (words == 0)
        throw Error("buffer " + std::to_string(b) + " has 0 words");
      if (words > most)
        throw Error("buffer " + std::to_string(b) + " of " +
                    std::to_string(words) +
                    " words is larger than a polynomial over the program's "
                    "widest basis (" +
                    std::to_string(most) + " words)");
      s_.bufferWords.push_back(words);
      s_.largestBuffer = std::max(s_.largestBuffer, words);
    }
  }

  std::vector<ValueLayout> loadValues(const RfValue *values, int count,
                                      bool inputs) {
    const std::string kind = inputs ? "input" : "output";
    requireArray(values, count, inputs ? "inputs" : "outputs");
    const size_t n = s_.n;
    std::vector<ValueLayout> layouts;
    for (int v = 0; v < count; ++v) {
      const RfValue &value = values[v];
      std::string what = kind + " " + std::to_string(v);
      ValueLayout layout;
      if (value.kind != RF_VALUE_CIPHERTEXT &&
          value.kind != RF_VALUE_PLAINTEXT &&
          value.kind != RF_VALUE_PREPARED_PLAINTEXT)
        throw Error(what + " has kind " + std::to_string(value.kind) +
                    "; expected a ciphertext (0), a plaintext (1) or a "
                    "prepared plaintext (2)");
      layout.plaintext = value.kind != RF_VALUE_CIPHERTEXT;
      layout.prepared = value.kind == RF_VALUE_PREPARED_PLAINTEXT;
      if (layout.plaintext && !inputs)
        throw Error(what +
                    " is a plaintext; a program's outputs are ciphertexts");
      if (value.galois != 0 &&
          (!layout.prepared || value.galois < 0 ||
           uint64_t(value.galois) >= 2 * n || value.galois % 2 == 0))
        throw Error(what + " has Galois element " +
                    std::to_string(value.galois) +
                    "; only a prepared plaintext has one, odd and below 2N = " +
                    std::to_string(2 * n));
      layout.galois = uint64_t(value.galois);
      const int minimum = layout.plaintext ? 1 : 2,
                maximum = layout.plaintext ? 1 : 3;
      if (value.components < minimum || value.components > maximum)
        throw Error(
            what + " is a " + (layout.plaintext ? "plaintext" : "ciphertext") +
            " of " + std::to_string(value.components) +
            " components; expected " + (layout.plaintext ? "1" : "2 or 3"));
      layout.components = static_cast<size_t>(value.components);
      const size_t needed = valueWords(s_, layout);
      for (size_t k = 0; k < layout.components; ++k) {
        std::string component = what + " component " + std::to_string(k);
        int buffer = bufferIndex(value.buffers[k], component);
        if (s_.bufferWords[buffer] < needed)
          throw Error(component + " lives in buffer " + std::to_string(buffer) +
                      " of " + std::to_string(s_.bufferWords[buffer]) +
                      " words, but a " +
                      (layout.plaintext && !layout.prepared
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

} // namespace

void loadManifest(const RfManifest &manifest, RfRuntime &state) {
  ManifestLoader(manifest, state).load();
}

} // namespace ringfuse::runtime::detail
