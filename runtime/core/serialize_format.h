//===- serialize_format.h - the format's pieces its files need -*- C++ -*-===//
//
// Internal to ringfuse_core. serialize.cpp defines the format (its header,
// its objects' payloads); serialize_files.cpp reads and writes files, and
// bounds a file's payload by what its header's kind can hold before reading
// it. These are the pieces of the format that bound needs.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_CORE_SERIALIZE_FORMAT_H
#define RINGFUSE_CORE_SERIALIZE_FORMAT_H

#include "ringfuse/runtime/params.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringfuse::runtime::detail {

/// The header's fields (serialize.h).
struct SerializedHeader {
  uint32_t version = 0, kind = 0;
  uint64_t fingerprint = 0, payloadLength = 0, checksum = 0, reserved = 0;
};

/// The header's fields; checks only what every reader needs: the magic, the
/// length of the header itself and the version.
SerializedHeader readHeader(const uint8_t *data, size_t size);

/// "a ciphertext", "Galois keys", or the raw number of an unknown kind.
std::string withArticle(uint32_t kind);

/// Words of one polynomial over QP.
size_t qpWords(const Context &context);

/// Bytes of a key switching key's payload under `context`.
size_t keySwitchKeyBytes(const Context &context);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_CORE_SERIALIZE_FORMAT_H
