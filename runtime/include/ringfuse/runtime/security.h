//===- security.h - the 128-bit bounds parameter sets must meet --*- C++ -*-===//
//
// Header-only so that the compiler (which chooses parameters) and the runtime
// (which refuses insecure ones) read the same table.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_SECURITY_H
#define RINGFUSE_RUNTIME_SECURITY_H

#include <cstddef>
#include <optional>

namespace ringfuse::runtime {

/// Largest log2(QP) that is 128-bit secure for uniform ternary secrets
/// (Security Guidelines for Implementing Homomorphic Encryption, 2024,
/// classical); nullopt for ring degrees the table does not cover.
inline std::optional<unsigned> maxSecureModulusBits(size_t n) {
  switch (n) {
  case 1 << 10: return 26;
  case 1 << 11: return 53;
  case 1 << 12: return 106;
  case 1 << 13: return 214;
  case 1 << 14: return 430;
  case 1 << 15: return 868;
  case 1 << 16: return 1747;
  case 1 << 17: return 3523;
  default: return std::nullopt;
  }
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_SECURITY_H
