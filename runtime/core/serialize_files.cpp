//===- serialize_files.cpp - objects in files, read within bounds -------===//
//
// A file is read in two steps: its header, then no more payload than the
// header's kind can hold under the given parameters (and one byte to tell
// trailing data), so that a corrupt or hostile header cannot make the
// reader allocate or read without end.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/serialize.h"

#include "ringfuse/runtime/error.h"
#include "serialize_format.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ringfuse::runtime {
using namespace detail;

void writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    throw Error("cannot open " + path +
                " for writing: " + std::strerror(errno));
  const size_t written = std::fwrite(bytes.data(), 1, bytes.size(), file);
  const int writeErrno = errno;
  // fclose flushes: a full disk may only show here.
  const bool closed = std::fclose(file) == 0;
  if (written != bytes.size() || !closed)
    throw Error("cannot write " + path + ": " +
                std::strerror(written != bytes.size() ? writeErrno : errno));
}

namespace {
/// The most primes a stored parameter set may list: far beyond any secure set
/// (log2(QP) <= 3,530 bits at N = 2^17), so only a corrupt header exceeds it.
constexpr uint64_t kMaxStoredPrimes = uint64_t(1) << 16;

/// The largest payload an object of `kind` can have under `context` (a
/// parameter set: under any parameters). Galois keys count at most N - 1
/// elements: the odd numbers below 2N but the identity 1.
uint64_t maxPayloadBytes(ObjectKind kind, const Context *context) {
  if (kind == ObjectKind::Parameters)
    return 5 * 8 + 1 + kMaxStoredPrimes * 8;
  const uint64_t n = context->degree();
  const uint64_t galois = 8 + (n - 1) * (8 + keySwitchKeyBytes(*context));
  switch (kind) {
  case ObjectKind::SecretKey:
    return n;
  case ObjectKind::PublicKey:
    return 2 * qpWords(*context) * 8;
  case ObjectKind::RelinKey:
    return keySwitchKeyBytes(*context);
  case ObjectKind::GaloisKeys:
    return galois;
  case ObjectKind::Plaintext:
    return n * 8;
  case ObjectKind::Ciphertext:
    return 8 + kMaxCiphertextComponents * context->q().size() * n * 8;
  case ObjectKind::EvaluationKeys:
    return 2 + keySwitchKeyBytes(*context) + galois;
  case ObjectKind::CiphertextBatch: {
    // Saturated: the bound only refuses headers, it is never allocated.
    const uint64_t ciphertext =
        8 + kMaxCiphertextComponents * context->q().size() * n * 8;
    if (ciphertext > (UINT64_MAX - 8) / kMaxBatchCiphertexts)
      return UINT64_MAX;
    return 8 + kMaxBatchCiphertexts * ciphertext;
  }
  default:
    return 0;
  }
}

using File = std::unique_ptr<std::FILE, int (*)(std::FILE *)>;

/// Up to `count` bytes appended to `bytes`, fewer only at the end of the file.
void readUpTo(std::FILE *file, uint64_t count, std::vector<uint8_t> &bytes,
              const std::string &path) {
  uint8_t buffer[1 << 16];
  while (count > 0) {
    const size_t want = size_t(std::min<uint64_t>(count, sizeof(buffer)));
    const size_t got = std::fread(buffer, 1, want, file);
    bytes.insert(bytes.end(), buffer, buffer + got);
    count -= got;
    if (got < want) {
      if (std::ferror(file))
        throw Error("cannot read " + path + ": " + std::strerror(errno));
      return;
    }
  }
}
} // namespace

std::vector<uint8_t> readObjectFile(const std::string &path,
                                    const ContextPtr &context) {
  File file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file)
    throw Error("cannot open " + path +
                " for reading: " + std::strerror(errno));
  auto fail = [&](const std::string &why) { return Error(path + ": " + why); };
  std::vector<uint8_t> bytes;
  readUpTo(file.get(), kSerializationHeaderSize, bytes, path);
  try {
    const ObjectKind kind = peekKind(bytes.data(), bytes.size());
    if (kind != ObjectKind::Parameters && !context)
      throw Error("reading " + withArticle(uint32_t(kind)) +
                  " needs its parameter set");
    const uint64_t announced =
        readHeader(bytes.data(), bytes.size()).payloadLength;
    const uint64_t most = maxPayloadBytes(kind, context.get());
    if (announced > most)
      throw Error("the header announces a " + std::to_string(announced) +
                  "-byte payload, more than " + withArticle(uint32_t(kind)) +
                  " can hold" +
                  (kind == ObjectKind::Parameters
                       ? std::string()
                       : " under " + context->describe()) +
                  " (" + std::to_string(most) + " bytes)");
  } catch (const Error &error) {
    throw fail(error.what());
  }
  const uint64_t announced =
      readHeader(bytes.data(), bytes.size()).payloadLength;
  readUpTo(file.get(), announced, bytes, path);
  // One byte more tells trailing data from the end, without reading it all.
  std::vector<uint8_t> extra;
  readUpTo(file.get(), 1, extra, path);
  if (!extra.empty())
    throw fail("trailing data after the " + std::to_string(announced) +
               "-byte payload its header announces");
  return bytes;
}

} // namespace ringfuse::runtime
