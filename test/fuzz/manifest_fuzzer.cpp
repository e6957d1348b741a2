//===- manifest_fuzzer.cpp - libFuzzer target: the program manifest loader
//-===//
//
// A compiled program's manifest is C data the runtime checks when it loads
// the program (runtime/driver/manifest_loader.cpp): whatever it says must end
// in a loaded program or an Error, never a crash, hang or sanitizer report.
// Random bytes would rarely form a manifest, so the input is a list of edits
// to a valid one (the program below: parameters, bases, conversions,
// rounding, scaling, buffers, values, constants and keys): each edit is a
// field (1 byte), an index into it (1 byte) and a value (8 bytes). Counts are
// clamped to the arrays behind them, which hold spare entries: the loader
// trusts a count to match its array (the emitter writes both), not the values.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/program.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace ringfuse::runtime;

namespace {

constexpr size_t kSpare = 8; // entries each array holds beyond the valid ones

// The valid program: N = 4096, t = 65537, Q of two 35-bit primes, P of one
// 36-bit prime (128-bit secure), x + 1 through a few plans the loader checks.
struct Editable {
  std::vector<uint64_t> q{34359697409ull, 34359451649ull}, p{68719403009ull},
      t{65537}, qp{34359697409ull, 34359451649ull, 68719403009ull};
  std::vector<RfBasis> bases;
  std::vector<std::vector<uint64_t> *>
      backing; // the array each basis points into
  std::vector<RfConverter> converters{{0, 1, RF_CONVERT_FAST},
                                      {2, 0, RF_CONVERT_EXACT}};
  std::vector<uint64_t> numerator{65537};
  std::vector<RfScaleRound> scaleRounds{
      {1, 3, 0, nullptr, 1, RF_SCALE_ROUND, 0, 0}};
  std::vector<RfScaleUp> scaleUps{{2, 0}};
  std::vector<size_t> bufferWords{8192, 8192, 4096, 8192, 12288};
  std::vector<RfValue> inputs{{RF_VALUE_CIPHERTEXT, 2, {0, 1, -1}, 0},
                              {RF_VALUE_PLAINTEXT, 1, {2, -1, -1}, 0}};
  std::vector<RfValue> outputs{{RF_VALUE_CIPHERTEXT, 2, {3, 1, -1}, 0}};
  std::vector<uint64_t> constantWords{1, 2, 3};
  std::vector<RfConstant> constants{{4, nullptr, 3}};
  std::vector<uint64_t> keys{0, 3};
  RfManifest manifest{};

  Editable() {
    // The arrays first, then the pointers into them.
    for (auto *grow : {&q, &p, &t, &qp, &numerator, &constantWords, &keys})
      grow->resize(grow->size() + kSpare);
    bases = {{q.data(), 2, 0},
             {qp.data(), 3, 0},
             {t.data(), 1, 0},
             {p.data(), 1, 0}};
    backing = {&q, &qp, &t, &p};
    bases.resize(bases.size() + kSpare, RfBasis{q.data(), 1, 0});
    backing.resize(bases.size(), &q);
    converters.resize(converters.size() + kSpare);
    scaleRounds.resize(scaleRounds.size() + kSpare);
    scaleUps.resize(scaleUps.size() + kSpare);
    bufferWords.resize(bufferWords.size() + kSpare, 4096);
    inputs.resize(inputs.size() + kSpare);
    outputs.resize(outputs.size() + kSpare);
    constants.resize(constants.size() + kSpare);
    for (RfScaleRound &round : scaleRounds)
      round.numerator = numerator.data();
    for (RfConstant &constant : constants)
      constant.words = constantWords.data();
    manifest.abi_version = RINGFUSE_PROGRAM_ABI_VERSION;
    manifest.name = "fuzzed";
    manifest.degree = 4096;
    manifest.plaintext_modulus = 65537;
    manifest.q = q.data();
    manifest.q_count = 2;
    manifest.p = p.data();
    manifest.p_count = 1;
    manifest.dnum = 2;
    manifest.bases = bases.data();
    manifest.basis_count = 4;
    manifest.converters = converters.data();
    manifest.converter_count = 2;
    manifest.scale_rounds = scaleRounds.data();
    manifest.scale_round_count = 1;
    manifest.scale_ups = scaleUps.data();
    manifest.scale_up_count = 1;
    manifest.buffer_words = bufferWords.data();
    manifest.buffer_count = 5;
    manifest.inputs = inputs.data();
    manifest.input_count = 2;
    manifest.outputs = outputs.data();
    manifest.output_count = 1;
    manifest.constants = constants.data();
    manifest.constant_count = 1;
    manifest.keys = keys.data();
    manifest.key_count = 2;
    manifest.variant = "hps";
  }

  /// A count edited to at most its array's entries.
  static int clamp(uint64_t value, size_t entries) {
    return static_cast<int>(value % (entries + 1));
  }

  void edit(uint8_t field, uint8_t index, uint64_t value) {
    const int32_t small = static_cast<int32_t>(value);
    RfManifest &m = manifest;
    switch (field % 24) {
    case 0:
      m.degree = value;
      break;
    case 1:
      m.plaintext_modulus = value;
      break;
    case 2:
      q[index % q.size()] = value;
      break;
    case 3:
      m.q_count = clamp(value, q.size());
      break;
    case 4:
      p[index % p.size()] = value;
      break;
    case 5:
      m.p_count = clamp(value, p.size());
      break;
    case 6:
      m.dnum = small;
      break;
    case 7: {
      const size_t b = index % bases.size();
      bases[b].count = clamp(value, backing[b]->size());
      break;
    }
    case 8: {
      const size_t b = index % bases.size();
      std::vector<uint64_t> *arrays[] = {&q, &qp, &t, &p};
      backing[b] = arrays[value % 4];
      bases[b] = {backing[b]->data(), clamp(value >> 8, backing[b]->size()),
                  int(index / 128)};
      break;
    }
    case 9:
      m.basis_count = clamp(value, bases.size());
      break;
    case 10: {
      RfConverter &c = converters[index % converters.size()];
      (index / 16 % 3 == 0   ? c.from
       : index / 16 % 3 == 1 ? c.to
                             : c.method) = small;
      break;
    }
    case 11:
      m.converter_count = clamp(value, converters.size());
      break;
    case 12: {
      RfScaleRound &r = scaleRounds[index % scaleRounds.size()];
      int *fields[] = {&r.input,    &r.divisor,      &r.kept,
                       &r.rounding, &r.then_convert, &r.converter};
      *fields[index / 16 % 6] = small;
      r.numerator_words = clamp(value >> 32, numerator.size());
      break;
    }
    case 13:
      m.scale_round_count = clamp(value, scaleRounds.size());
      break;
    case 14:
      (index % 2 ? scaleUps[index / 2 % scaleUps.size()].to
                 : scaleUps[index / 2 % scaleUps.size()].from) = small;
      break;
    case 15:
      m.scale_up_count = clamp(value, scaleUps.size());
      break;
    case 16:
      bufferWords[index % bufferWords.size()] = value;
      break;
    case 17:
      m.buffer_count = clamp(value, bufferWords.size());
      break;
    case 18:
    case 19: {
      std::vector<RfValue> &values = field % 24 == 18 ? inputs : outputs;
      RfValue &v = values[index % values.size()];
      switch (index / 16 % 6) {
      case 0:
        v.kind = small;
        break;
      case 1:
        v.components = small;
        break;
      case 5:
        v.galois = static_cast<int64_t>(value);
        break;
      default:
        v.buffers[index / 16 % 6 - 2] = small;
      }
      (field % 24 == 18 ? m.input_count : m.output_count) =
          clamp(value >> 32, values.size());
      break;
    }
    case 20: {
      RfConstant &c = constants[index % constants.size()];
      if (index / 128)
        c.buffer = small;
      else
        c.count = value % (constantWords.size() + 1);
      break;
    }
    case 21:
      m.constant_count = clamp(value, constants.size());
      break;
    case 22:
      keys[index % keys.size()] = value;
      break;
    case 23:
      m.key_count = clamp(value, keys.size());
      break;
    }
  }
};

const RfManifest *gManifest = nullptr;
const RfManifest *fuzzedManifest() { return gManifest; }
void emptySchedule(RfRuntime *, const RfKernels *) {}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Editable program;
  for (size_t at = 0; at + 10 <= size; at += 10) {
    uint64_t value;
    std::memcpy(&value, data + at + 2, sizeof(value));
    program.edit(data[at], data[at + 1], value);
  }
  // A degree far above any the runtime supports is refused before any table
  // is made; one that passes is built, so keep it to what a test can hold.
  gManifest = &program.manifest;
  try {
    Program loaded = Program::fromFunctions(fuzzedManifest, emptySchedule);
    (void)loaded;
  } catch (const Error &) {
    // A refusal that says why: what the loader promises.
  }
  gManifest = nullptr;
  return 0;
}
