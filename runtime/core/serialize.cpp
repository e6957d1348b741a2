//===- serialize.cpp - the binary format of parameters, keys and data ----===//
#include "ringfuse/runtime/serialize.h"

#include "poly.h"
#include "ringfuse/runtime/error.h"
#include "serialize_format.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ringfuse::runtime {
using namespace detail;

namespace {
constexpr char kMagic[8] = {'R', 'I', 'N', 'G', 'F', 'U', 'S', 'E'};
constexpr uint32_t kLastKind =
    static_cast<uint32_t>(ObjectKind::CiphertextBatch);

std::string hex(uint64_t value) {
  std::ostringstream text;
  text << "0x" << std::hex << value;
  return text.str();
}

bool isPlural(ObjectKind kind) {
  return kind == ObjectKind::GaloisKeys || kind == ObjectKind::EvaluationKeys;
}

/// Little-endian payload builder.
class Writer {
public:
  explicit Writer(size_t expectedBytes) { bytes_.reserve(expectedBytes); }

  void u8(uint8_t value) { bytes_.push_back(value); }
  void u32(uint32_t value) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(uint8_t(value >> (8 * i)));
  }
  void u64(uint64_t value) {
    for (int i = 0; i < 8; ++i) bytes_.push_back(uint8_t(value >> (8 * i)));
  }
  void words(const std::vector<uint64_t> &values) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // The format is little-endian, as this host is: the words' bytes as they
    // are, in one copy (a byte at a time is 10x slower on a ciphertext).
    if (values.empty())
      return; // memcpy takes no null pointer, even for no bytes
    const size_t at = bytes_.size();
    bytes_.resize(at + values.size() * sizeof(uint64_t));
    std::memcpy(bytes_.data() + at, values.data(),
                values.size() * sizeof(uint64_t));
#else
    for (uint64_t value : values) u64(value);
#endif
  }
  /// A polynomial, refusing one whose size does not match its parameters
  /// (the file could never be loaded again).
  void polynomial(const std::vector<uint64_t> &values, size_t expectedWords,
                  const std::string &what) {
    if (values.size() != expectedWords)
      throw Error("cannot serialize " + what + ": it has " +
                  std::to_string(values.size()) + " words, its parameters call for " +
                  std::to_string(expectedWords));
    words(values);
  }

  /// Header + payload.
  std::vector<uint8_t> seal(ObjectKind kind, uint64_t fingerprint) const {
    Writer header(kSerializationHeaderSize + bytes_.size());
    for (char c : kMagic) header.u8(static_cast<uint8_t>(c));
    header.u32(kSerializationFormatVersion);
    header.u32(static_cast<uint32_t>(kind));
    header.u64(fingerprint);
    header.u64(bytes_.size());
    header.u64(payloadChecksum(kSerializationFormatVersion, bytes_.data(),
                               bytes_.size()));
    header.u64(0); // reserved
    header.bytes_.insert(header.bytes_.end(), bytes_.begin(), bytes_.end());
    return std::move(header.bytes_);
  }

private:
  std::vector<uint8_t> bytes_;
};

/// Bounds-checked little-endian cursor; running past the end is a
/// "truncated" Error naming what was being read.
class Reader {
public:
  Reader(const uint8_t *data, size_t size, std::string what)
      : data_(data), size_(size), what_(std::move(what)) {}

  size_t remaining() const { return size_ - offset_; }

  uint8_t u8() { return static_cast<uint8_t>(little(1)); }
  uint32_t u32() { return static_cast<uint32_t>(little(4)); }
  uint64_t u64() { return little(8); }
  std::vector<uint64_t> words(uint64_t count) {
    // Checked before allocating, so a corrupt count cannot ask for 2^64 words.
    if (count > remaining() / 8)
      throw truncated(std::to_string(count) + " words");
    std::vector<uint64_t> values(count);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (count) { // memcpy takes no null pointer, even for no bytes
      std::memcpy(values.data(), data_ + offset_, count * sizeof(uint64_t));
      offset_ += count * sizeof(uint64_t);
    }
#else
    for (auto &value : values) value = little(8);
#endif
    return values;
  }
  /// |basis| x n residues, limb-major, each below its prime.
  std::vector<uint64_t> polynomial(const RnsBasis &basis, size_t n,
                                   const std::string &description) {
    std::vector<uint64_t> values = words(uint64_t(basis.size()) * n);
    for (size_t i = 0; i < basis.size(); ++i) {
      const uint64_t prime = basis.values()[i];
      for (size_t j = 0; j < n; ++j)
        if (values[i * n + j] >= prime)
          throw Error(description + ": residue " +
                      std::to_string(values[i * n + j]) + " of coefficient " +
                      std::to_string(j) + " is not below its prime q_" +
                      std::to_string(i) + " = " + std::to_string(prime));
    }
    return values;
  }
  void expectEnd() const {
    if (remaining() != 0)
      throw Error(what_ + " payload has " + std::to_string(remaining()) +
                  " bytes left over after the object");
  }

private:
  Error truncated(const std::string &needed) const {
    return Error("truncated " + what_ + " payload: needed " + needed + " at byte " +
                 std::to_string(offset_) + ", but only " +
                 std::to_string(remaining()) + " bytes remain");
  }
  uint64_t little(size_t bytes) {
    if (remaining() < bytes)
      throw truncated(std::to_string(bytes) + " bytes");
    uint64_t value = 0;
    for (size_t i = 0; i < bytes; ++i)
      value |= uint64_t(data_[offset_ + i]) << (8 * i);
    offset_ += bytes;
    return value;
  }

  const uint8_t *data_;
  size_t size_, offset_ = 0;
  std::string what_;
};

} // namespace

// Shared with serialize_files.cpp (serialize_format.h) -----------------------

std::string detail::withArticle(uint32_t kind) {
  if (kind < 1 || kind > kLastKind)
    return "an unknown object kind (" + std::to_string(kind) + ")";
  ObjectKind k = static_cast<ObjectKind>(kind);
  return (isPlural(k) ? "" : "a ") + objectKindName(k);
}

size_t detail::qpWords(const Context &context) {
  return context.qp().size() * context.degree();
}

size_t detail::keySwitchKeyBytes(const Context &context) {
  return 8 + 2 * context.dnum() * qpWords(context) * 8;
}

SerializedHeader detail::readHeader(const uint8_t *data, size_t size) {
  if (data == nullptr && size != 0)
    throw Error("not a ringfuse file: no data");
  if (size > 0 && std::memcmp(data, kMagic, std::min(size, sizeof(kMagic))) != 0)
    throw Error("not a ringfuse file: it does not start with \"RINGFUSE\"");
  if (size < kSerializationHeaderSize)
    throw Error("not a ringfuse file: truncated header (" + std::to_string(size) +
                " bytes, a header has " +
                std::to_string(kSerializationHeaderSize) + ")");
  Reader in(data + sizeof(kMagic), kSerializationHeaderSize - sizeof(kMagic),
            "header");
  SerializedHeader header;
  header.version = in.u32();
  header.kind = in.u32();
  header.fingerprint = in.u64();
  header.payloadLength = in.u64();
  header.checksum = in.u64();
  header.reserved = in.u64();
  if (header.version < kOldestReadableFormatVersion ||
      header.version > kSerializationFormatVersion)
    throw Error("format version " + std::to_string(header.version) +
                " is not supported; this build reads versions " +
                std::to_string(kOldestReadableFormatVersion) + " to " +
                std::to_string(kSerializationFormatVersion));
  return header;
}

namespace {

/// Checks the header against what the caller expects (kind; the context's
/// fingerprint unless `context` is null) and the payload against the header
/// (length, checksum), and returns a reader over the payload.
Reader checkHeader(const uint8_t *data, size_t size, ObjectKind kind,
                   const Context *context) {
  const SerializedHeader header = readHeader(data, size);
  const std::string name = objectKindName(kind);
  if (header.kind != static_cast<uint32_t>(kind))
    throw Error("the data holds " + withArticle(header.kind) + ", not " +
                withArticle(static_cast<uint32_t>(kind)));
  if (header.reserved != 0)
    throw Error("the header's reserved field is " + hex(header.reserved) +
                ", not 0: the data is corrupted or from a newer format");
  if (context && header.fingerprint != context->fingerprint())
    throw Error("the " + name + (isPlural(kind) ? " were" : " was") +
                " made for other parameters: the data's parameter fingerprint is " +
                hex(header.fingerprint) + ", the given context " +
                context->describe() + " has " + hex(context->fingerprint()));
  const size_t present = size - kSerializationHeaderSize;
  if (header.payloadLength > present)
    throw Error("truncated " + name + ": the header announces a " +
                std::to_string(header.payloadLength) + "-byte payload, but only " +
                std::to_string(present) + " bytes follow it");
  if (header.payloadLength < present)
    throw Error("trailing data after the " + name + ": the header announces a " +
                std::to_string(header.payloadLength) + "-byte payload, but " +
                std::to_string(present) + " bytes follow it");
  const uint8_t *payload = data + kSerializationHeaderSize;
  if (payloadChecksum(header.version, payload, present) != header.checksum)
    throw Error("checksum mismatch: the data is corrupted (" + name + ", " +
                std::to_string(present) + "-byte payload)");
  return Reader(payload, present, name);
}

const Context &requireContext(const ContextPtr &context, ObjectKind kind) {
  if (!context)
    throw Error("loading " + withArticle(static_cast<uint32_t>(kind)) +
                " needs a context, got null");
  return *context;
}

const Context &contextOf(const ContextPtr &context, ObjectKind kind) {
  if (!context)
    throw Error("cannot serialize " + withArticle(static_cast<uint32_t>(kind)) +
                " without a context");
  return *context;
}

void writeKeySwitchKey(Writer &out, const Context &context,
                       const KeySwitchKey &key, const std::string &what) {
  if (key.b.size() != context.dnum() || key.a.size() != context.dnum())
    throw Error("cannot serialize " + what + ": it has " +
                std::to_string(key.b.size()) + " digits, dnum is " +
                std::to_string(context.dnum()));
  out.u64(key.b.size());
  for (size_t j = 0; j < key.b.size(); ++j) {
    out.polynomial(key.b[j], qpWords(context), what + " b_" + std::to_string(j));
    out.polynomial(key.a[j], qpWords(context), what + " a_" + std::to_string(j));
  }
}

/// `what`: "relinearization key", "Galois key for element 3".
KeySwitchKey readKeySwitchKey(Reader &in, const Context &context,
                              const std::string &what) {
  const uint64_t digits = in.u64();
  if (digits != context.dnum())
    throw Error(what + " has " + std::to_string(digits) +
                " digits, but the parameters' dnum is " +
                std::to_string(context.dnum()));
  KeySwitchKey key;
  for (size_t j = 0; j < digits; ++j) {
    key.b.push_back(in.polynomial(context.qp(), context.degree(),
                                  what + " b_" + std::to_string(j)));
    key.a.push_back(in.polynomial(context.qp(), context.degree(),
                                  what + " a_" + std::to_string(j)));
  }
  return key;
}

size_t galoisPayloadBytes(const Context &context, const GaloisKeys &keys) {
  return 8 + keys.keys.size() * (8 + keySwitchKeyBytes(context));
}

/// u64 count, then per key: u64 Galois element, key switch key.
void writeGaloisPayload(Writer &out, const Context &context,
                        const GaloisKeys &keys) {
  out.u64(keys.keys.size());
  for (const auto &[element, key] : keys.keys) {
    out.u64(element);
    writeKeySwitchKey(out, context, key,
                      "the Galois key for element " + std::to_string(element));
  }
}

GaloisKeys readGaloisPayload(Reader &in, const ContextPtr &context) {
  const Context &c = *context;
  GaloisKeys keys{context, {}};
  const uint64_t count = in.u64();
  const uint64_t twoN = 2 * uint64_t(c.degree());
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t element = in.u64();
    if (element % 2 == 0 || element >= twoN || element == 1)
      throw Error("Galois keys payload: element " + std::to_string(element) +
                  " is not an odd number in (1, 2N) = (1, " +
                  std::to_string(twoN) + ")");
    if (keys.keys.count(element))
      throw Error("Galois keys payload: element " + std::to_string(element) +
                  " appears twice");
    keys.keys.emplace(element,
                      readKeySwitchKey(in, c, "Galois key for element " +
                                                  std::to_string(element)));
  }
  return keys;
}

/// A presence flag of the evaluation keys' payload: 0 or 1.
bool readPresence(Reader &in, const std::string &what) {
  const uint8_t flag = in.u8();
  if (flag > 1)
    throw Error("evaluation keys payload: the " + what + " flag is " +
                std::to_string(flag) + ", expected 0 (absent) or 1 (present)");
  return flag == 1;
}

/// A ciphertext's body, in a ciphertext's payload and a batch's: u64
/// components, then its residues. `what` names it in errors ("a ciphertext",
/// "ciphertext 3 of the batch").
void writeCiphertextBody(Writer &out, const Ciphertext &ciphertext,
                         const std::string &what) {
  if (ciphertext.size < kMinCiphertextComponents ||
      ciphertext.size > kMaxCiphertextComponents)
    throw Error("cannot serialize " + what + " of " +
                std::to_string(ciphertext.size) + " components (2 to " +
                std::to_string(kMaxCiphertextComponents) + " can be stored)");
  out.u64(ciphertext.size);
  out.polynomial(ciphertext.data, ciphertext.size * ciphertext.componentWords(),
                 what);
}

/// The body writeCiphertextBody writes, every residue checked. `where`
/// prefixes the component count's error ("ciphertext payload: "); `what`
/// names the components ("ciphertext", "ciphertext 3").
Ciphertext readCiphertextBody(Reader &in, const ContextPtr &context,
                              const std::string &where,
                              const std::string &what) {
  const Context &c = *context;
  const uint64_t components = in.u64();
  if (components < kMinCiphertextComponents ||
      components > kMaxCiphertextComponents)
    throw Error(where + std::to_string(components) +
                " components, expected 2 to " +
                std::to_string(kMaxCiphertextComponents));
  Ciphertext ciphertext;
  ciphertext.context = context;
  ciphertext.size = components;
  ciphertext.data.reserve(components * c.q().size() * c.degree());
  for (size_t k = 0; k < components; ++k) {
    std::vector<uint64_t> component = in.polynomial(
        c.q(), c.degree(), what + " component " + std::to_string(k));
    ciphertext.data.insert(ciphertext.data.end(), component.begin(),
                           component.end());
  }
  return ciphertext;
}
} // namespace

uint64_t payloadChecksum(uint32_t version, const uint8_t *payload,
                         size_t size) {
  constexpr uint64_t kOffsetBasis = 1469598103934665603ull,
                     kPrime = 1099511628211ull;
  uint64_t hash = kOffsetBasis;
  if (version == 1) {
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ payload[i]) * kPrime;
    return hash;
  }
  // A word a step: the chain of multiplications is what bounds the speed,
  // and it is 8x shorter than version 1's.
  const size_t whole = size / 8;
  for (size_t i = 0; i < whole; ++i) {
    uint64_t word;
    std::memcpy(&word, payload + 8 * i, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    hash = (hash ^ word) * kPrime;
    hash ^= hash >> 32;
  }
  if (size % 8) {
    uint64_t last = 0;
    for (size_t i = 8 * whole; i < size; ++i)
      last |= uint64_t(payload[i]) << (8 * (i - 8 * whole));
    hash = (hash ^ last) * kPrime;
    hash ^= hash >> 32;
  }
  return hash;
}

std::string objectKindName(ObjectKind kind) {
  switch (kind) {
  case ObjectKind::Parameters: return "parameter set";
  case ObjectKind::SecretKey: return "secret key";
  case ObjectKind::PublicKey: return "public key";
  case ObjectKind::RelinKey: return "relinearization key";
  case ObjectKind::GaloisKeys: return "Galois keys";
  case ObjectKind::Plaintext: return "plaintext";
  case ObjectKind::Ciphertext: return "ciphertext";
  case ObjectKind::EvaluationKeys: return "evaluation keys";
  case ObjectKind::CiphertextBatch: return "ciphertext batch";
  }
  return "unknown object kind (" + std::to_string(static_cast<uint32_t>(kind)) + ")";
}

// Parameters ----------------------------------------------------------------

std::vector<uint8_t> serialize(const Context &context) {
  Writer out(8 * (6 + context.qp().size()) + 1);
  out.u64(context.degree());
  out.u64(context.plaintextModulus());
  out.u64(context.dnum());
  out.u8(context.insecure() ? 1 : 0);
  out.u64(context.q().size());
  out.words(context.q().values());
  out.u64(context.p().size());
  out.words(context.p().values());
  return out.seal(ObjectKind::Parameters, context.fingerprint());
}

ContextPtr deserializeParameters(const uint8_t *data, size_t size) {
  Reader in = checkHeader(data, size, ObjectKind::Parameters, nullptr);
  const uint64_t n = in.u64(), t = in.u64(), dnum = in.u64();
  const uint8_t insecure = in.u8();
  if (insecure > 1)
    throw Error("parameter set payload: the insecure flag is " +
                std::to_string(insecure) + ", expected 0 or 1");
  std::vector<uint64_t> q = in.words(in.u64());
  std::vector<uint64_t> p = in.words(in.u64());
  in.expectEnd();
  // Files record the digits a set has; 0 (the API's "default") never.
  if (dnum == 0)
    throw Error("parameter set payload: dnum is 0; a stored set records its "
                "key-switching digits (1 to |Q|)");
  // fromPrimes repeats every check of Context::create, the security bound
  // included: the flag only lets through a set that was saved as insecure.
  ContextPtr context = Context::fromPrimes(n, t, std::move(q), std::move(p),
                                           dnum, insecure == 1);
  const uint64_t expected = readHeader(data, size).fingerprint;
  if (context->fingerprint() != expected)
    throw Error("the loaded parameter set " + context->describe() +
                " has fingerprint " + hex(context->fingerprint()) +
                ", but the header says " + hex(expected) +
                ": the data is corrupted");
  return context;
}

// Ciphertexts and plaintexts -------------------------------------------------

std::vector<uint8_t> serialize(const Ciphertext &ciphertext) {
  const Context &context =
      contextOf(ciphertext.context, ObjectKind::Ciphertext);
  Writer out(8 + ciphertext.data.size() * 8);
  writeCiphertextBody(out, ciphertext, "a ciphertext");
  return out.seal(ObjectKind::Ciphertext, context.fingerprint());
}

Ciphertext deserializeCiphertext(const ContextPtr &context, const uint8_t *data,
                                 size_t size) {
  const Context &c = requireContext(context, ObjectKind::Ciphertext);
  Reader in = checkHeader(data, size, ObjectKind::Ciphertext, &c);
  Ciphertext ciphertext =
      readCiphertextBody(in, context, "ciphertext payload: ", "ciphertext");
  in.expectEnd();
  return ciphertext;
}

std::vector<uint8_t> serialize(const std::vector<Ciphertext> &batch) {
  if (batch.empty())
    throw Error("cannot serialize an empty ciphertext batch (a batch holds "
                "at least one ciphertext)");
  if (batch.size() > kMaxBatchCiphertexts)
    throw Error("cannot serialize a batch of " + std::to_string(batch.size()) +
                " ciphertexts: a batch holds at most " +
                std::to_string(kMaxBatchCiphertexts));
  const Context &context =
      contextOf(batch.front().context, ObjectKind::CiphertextBatch);
  // One fingerprint in the header stands for every ciphertext: one of other
  // parameters would load under it and decrypt to garbage.
  size_t bytes = 8;
  for (size_t i = 0; i < batch.size(); ++i) {
    const ContextPtr &own = batch[i].context;
    if (!own || own->fingerprint() != context.fingerprint())
      throw Error("cannot serialize a ciphertext batch: ciphertext " +
                  std::to_string(i) + " belongs to " +
                  (own ? own->describe() : std::string("no context")) +
                  ", ciphertext 0 to " + context.describe());
    bytes += 8 + batch[i].data.size() * 8;
  }
  Writer out(bytes);
  out.u64(batch.size());
  for (size_t i = 0; i < batch.size(); ++i)
    writeCiphertextBody(out, batch[i],
                        "ciphertext " + std::to_string(i) + " of the batch");
  return out.seal(ObjectKind::CiphertextBatch, context.fingerprint());
}

std::vector<Ciphertext> deserializeCiphertextBatch(const ContextPtr &context,
                                                   const uint8_t *data,
                                                   size_t size) {
  const Context &c = requireContext(context, ObjectKind::CiphertextBatch);
  Reader in = checkHeader(data, size, ObjectKind::CiphertextBatch, &c);
  const uint64_t count = in.u64();
  if (count < 1 || count > kMaxBatchCiphertexts)
    throw Error("ciphertext batch payload: a count of " +
                std::to_string(count) + " ciphertexts, expected 1 to " +
                std::to_string(kMaxBatchCiphertexts));
  // The smallest ciphertext bounds what the payload can hold, so a count
  // the payload cannot back reserves nothing.
  const uint64_t smallest = 8 + 2 * uint64_t(c.q().size()) * c.degree() * 8;
  if (count > in.remaining() / smallest)
    throw Error("truncated ciphertext batch payload: a count of " +
                std::to_string(count) + " ciphertexts needs at least " +
                std::to_string(count) + " x " + std::to_string(smallest) +
                " bytes, but only " + std::to_string(in.remaining()) +
                " remain");
  std::vector<Ciphertext> batch;
  batch.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const std::string what = "ciphertext " + std::to_string(i);
    batch.push_back(readCiphertextBody(
        in, context, "ciphertext batch payload: " + what + ": ", what));
  }
  in.expectEnd();
  return batch;
}

std::vector<uint8_t> serialize(const Plaintext &plaintext) {
  const Context &context = contextOf(plaintext.context, ObjectKind::Plaintext);
  Writer out(plaintext.coefficients.size() * 8);
  out.polynomial(plaintext.coefficients, context.degree(), "a plaintext");
  return out.seal(ObjectKind::Plaintext, context.fingerprint());
}

Plaintext deserializePlaintext(const ContextPtr &context, const uint8_t *data,
                               size_t size) {
  const Context &c = requireContext(context, ObjectKind::Plaintext);
  Reader in = checkHeader(data, size, ObjectKind::Plaintext, &c);
  Plaintext plaintext{context, in.words(c.degree())};
  in.expectEnd();
  for (size_t j = 0; j < plaintext.coefficients.size(); ++j)
    if (plaintext.coefficients[j] >= c.plaintextModulus())
      throw Error("plaintext coefficient " + std::to_string(j) + " is " +
                  std::to_string(plaintext.coefficients[j]) +
                  ", not below t = " + std::to_string(c.plaintextModulus()));
  return plaintext;
}

// Keys ------------------------------------------------------------------------

std::vector<uint8_t> serialize(const SecretKey &secret) {
  const Context &context = contextOf(secret.context, ObjectKind::SecretKey);
  if (secret.coefficients.size() != context.degree())
    throw Error("cannot serialize a secret key of " +
                std::to_string(secret.coefficients.size()) +
                " coefficients under N = " + std::to_string(context.degree()));
  // Only s itself: its NTT form over QP is a function of s and the context.
  Writer out(context.degree());
  for (int8_t value : secret.coefficients) out.u8(static_cast<uint8_t>(value));
  return out.seal(ObjectKind::SecretKey, context.fingerprint());
}

SecretKey deserializeSecretKey(const ContextPtr &context, const uint8_t *data,
                               size_t size) {
  const Context &c = requireContext(context, ObjectKind::SecretKey);
  Reader in = checkHeader(data, size, ObjectKind::SecretKey, &c);
  SecretKey secret;
  secret.context = context;
  secret.coefficients.resize(c.degree());
  for (size_t j = 0; j < c.degree(); ++j) {
    const int8_t value = static_cast<int8_t>(in.u8());
    if (value < -1 || value > 1)
      throw Error("secret key coefficient " + std::to_string(j) + " is " +
                  std::to_string(value) +
                  "; a ternary secret has coefficients in {-1, 0, 1}");
    secret.coefficients[j] = value;
  }
  in.expectEnd();
  // Exactly as generateSecretKey derives it.
  Limbs limbs = qpLimbs(c, c.qp().size());
  secret.nttQP = liftSmall(limbs, secret.coefficients.data());
  forwardNtt(limbs, secret.nttQP.data());
  return secret;
}

std::vector<uint8_t> serialize(const PublicKey &key) {
  const Context &context = contextOf(key.context, ObjectKind::PublicKey);
  Writer out(2 * qpWords(context) * 8);
  out.polynomial(key.b, qpWords(context), "a public key's b");
  out.polynomial(key.a, qpWords(context), "a public key's a");
  return out.seal(ObjectKind::PublicKey, context.fingerprint());
}

PublicKey deserializePublicKey(const ContextPtr &context, const uint8_t *data,
                               size_t size) {
  const Context &c = requireContext(context, ObjectKind::PublicKey);
  Reader in = checkHeader(data, size, ObjectKind::PublicKey, &c);
  PublicKey key;
  key.context = context;
  key.b = in.polynomial(c.qp(), c.degree(), "public key b");
  key.a = in.polynomial(c.qp(), c.degree(), "public key a");
  in.expectEnd();
  return key;
}

std::vector<uint8_t> serialize(const RelinKey &key) {
  const Context &context = contextOf(key.context, ObjectKind::RelinKey);
  Writer out(keySwitchKeyBytes(context));
  writeKeySwitchKey(out, context, key.key, "a relinearization key");
  return out.seal(ObjectKind::RelinKey, context.fingerprint());
}

RelinKey deserializeRelinKey(const ContextPtr &context, const uint8_t *data,
                             size_t size) {
  const Context &c = requireContext(context, ObjectKind::RelinKey);
  Reader in = checkHeader(data, size, ObjectKind::RelinKey, &c);
  RelinKey key{context, readKeySwitchKey(in, c, "relinearization key")};
  in.expectEnd();
  return key;
}

std::vector<uint8_t> serialize(const GaloisKeys &keys) {
  const Context &context = contextOf(keys.context, ObjectKind::GaloisKeys);
  Writer out(galoisPayloadBytes(context, keys));
  writeGaloisPayload(out, context, keys);
  return out.seal(ObjectKind::GaloisKeys, context.fingerprint());
}

GaloisKeys deserializeGaloisKeys(const ContextPtr &context, const uint8_t *data,
                                 size_t size) {
  const Context &c = requireContext(context, ObjectKind::GaloisKeys);
  Reader in = checkHeader(data, size, ObjectKind::GaloisKeys, &c);
  GaloisKeys keys = readGaloisPayload(in, context);
  in.expectEnd();
  return keys;
}

std::vector<uint8_t> serialize(const EvaluationKeys &keys) {
  const Context &context = contextOf(keys.context, ObjectKind::EvaluationKeys);
  // A key of other parameters would load under the bundle's fingerprint and
  // switch keys to garbage: refuse it here, where the mistake is made.
  // `whose`: "relinearization key belongs", "Galois keys belong".
  auto requireSameParameters = [&](const ContextPtr &keyContext,
                                   const std::string &whose) {
    if (!keyContext || keyContext->fingerprint() != context.fingerprint())
      throw Error("cannot serialize evaluation keys: the " + whose + " to " +
                  (keyContext ? keyContext->describe() : std::string("no context")) +
                  ", not to " + context.describe());
  };
  size_t bytes = 2;
  if (keys.relin) {
    requireSameParameters(keys.relin->context, "relinearization key belongs");
    bytes += keySwitchKeyBytes(context);
  }
  if (keys.galois) {
    requireSameParameters(keys.galois->context, "Galois keys belong");
    bytes += galoisPayloadBytes(context, *keys.galois);
  }
  Writer out(bytes);
  out.u8(keys.relin ? 1 : 0);
  if (keys.relin)
    writeKeySwitchKey(out, context, keys.relin->key, "a relinearization key");
  out.u8(keys.galois ? 1 : 0);
  if (keys.galois)
    writeGaloisPayload(out, context, *keys.galois);
  return out.seal(ObjectKind::EvaluationKeys, context.fingerprint());
}

EvaluationKeys deserializeEvaluationKeys(const ContextPtr &context,
                                         const uint8_t *data, size_t size) {
  const Context &c = requireContext(context, ObjectKind::EvaluationKeys);
  Reader in = checkHeader(data, size, ObjectKind::EvaluationKeys, &c);
  EvaluationKeys keys{context, std::nullopt, std::nullopt};
  if (readPresence(in, "relinearization key"))
    keys.relin = RelinKey{context, readKeySwitchKey(in, c, "relinearization key")};
  if (readPresence(in, "Galois keys"))
    keys.galois = readGaloisPayload(in, context);
  in.expectEnd();
  return keys;
}

// Headers ---------------------------------------------------------------------

ObjectKind peekKind(const uint8_t *data, size_t size) {
  const SerializedHeader header = readHeader(data, size);
  if (header.kind < 1 || header.kind > kLastKind)
    throw Error("the data holds " + withArticle(header.kind) +
                "; this build knows kinds 1 to " + std::to_string(kLastKind));
  return static_cast<ObjectKind>(header.kind);
}

} // namespace ringfuse::runtime
