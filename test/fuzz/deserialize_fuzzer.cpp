//===- deserialize_fuzzer.cpp - libFuzzer target: every object loader -----===//
//
// Any bytes handed to a loader of ringfuse's object format (parameters,
// plaintext, ciphertext, a batch of ciphertexts, each key kind, the
// evaluation-key bundle) must end in an object or an Error: never a crash,
// a hang, a leak, an allocation beyond the input's size, or a sanitizer
// report. Each input goes to every loader twice: as it is, and with its
// header's payload size and checksum made to match what follows, so that
// mutations reach the payload's parsing instead of stopping at the checksum.
//
// The seeds (test/fuzz/corpus/deserialize) are objects of the toy parameter
// set below, which the loaders are given as their context.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/serialize.h"

#include <cstdint>
#include <cstring>
#include <vector>

using namespace ringfuse::runtime;

namespace {

/// Header fields (serialize.h): version at 8, payload size at 24, its
/// checksum at 32.
constexpr size_t kVersionAt = 8, kPayloadSizeAt = 24, kChecksumAt = 32;

void putU64(uint8_t *at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    at[i] = uint8_t(value >> (8 * i));
}

/// The seeds' parameter set: N = 64, t = 65537, Q of two 30-bit primes and P
/// of one (rf.Params(64, 65537, [30, 30], [30], allow_insecure=True)).
const ContextPtr &toyContext() {
  static const ContextPtr context = [] {
    ParameterRequest request;
    request.polyModulusDegree = 64;
    request.plaintextModulus = 65537;
    request.coeffModulusBits = {30, 30};
    request.specialModulusBits = {30};
    request.allowInsecure = true;
    return Context::create(request);
  }();
  return context;
}

template <typename Load> void expectObjectOrError(Load load) {
  try {
    load();
  } catch (const Error &) {
    // A refusal that says why: what the loaders promise.
  }
}

void loadEveryKind(const uint8_t *data, size_t size) {
  const ContextPtr &context = toyContext();
  expectObjectOrError([&] { deserializeParameters(data, size); });
  expectObjectOrError([&] { deserializeCiphertext(context, data, size); });
  expectObjectOrError([&] { deserializePlaintext(context, data, size); });
  expectObjectOrError([&] { deserializeSecretKey(context, data, size); });
  expectObjectOrError([&] { deserializePublicKey(context, data, size); });
  expectObjectOrError([&] { deserializeRelinKey(context, data, size); });
  expectObjectOrError([&] { deserializeGaloisKeys(context, data, size); });
  expectObjectOrError([&] { deserializeEvaluationKeys(context, data, size); });
  expectObjectOrError([&] { deserializeCiphertextBatch(context, data, size); });
  expectObjectOrError([&] { peekKind(data, size); });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  loadEveryKind(data, size);
  if (size >= kSerializationHeaderSize) {
    std::vector<uint8_t> sealed(data, data + size);
    const size_t payload = size - kSerializationHeaderSize;
    putU64(sealed.data() + kPayloadSizeAt, payload);
    uint32_t version = 0;
    for (int i = 0; i < 4; ++i)
      version |= uint32_t(sealed[kVersionAt + i]) << (8 * i);
    putU64(sealed.data() + kChecksumAt,
           payloadChecksum(version, sealed.data() + kSerializationHeaderSize,
                           payload));
    loadEveryKind(sealed.data(), sealed.size());
  }
  return 0;
}
