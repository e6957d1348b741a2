//===- argument_checks.h - the client operations' argument checks -*- C++ -*-===//
//
// What encoding, encryption, decryption, key generation and sampling check of
// their arguments before any work, with one message each: the CPU reference
// (runtime/core) and the GPU client (runtime/gpu/client) reject the same
// arguments with the same words.
//
// Internal to the runtime library: not installed, not part of any API.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_ARGUMENT_CHECKS_H
#define RINGFUSE_RUNTIME_ARGUMENT_CHECKS_H

#include "ringfuse/runtime/bfv.h"

#include <cstddef>
#include <cstdint>

namespace ringfuse::runtime::detail {

/// Slots need t prime and 1 mod 2N.
void requireBatching(const Context &context);
/// At most `capacity` values, each below t; `what` names the capacity.
void checkValues(const Context &context, const uint64_t *values, size_t count,
                 size_t capacity, const char *what);
/// N coefficients, each below t.
void checkPlaintext(const Context &context, const Plaintext &plaintext);
/// At least two components of the right size, on context's parameter set.
void checkCiphertext(const Context &context, const Ciphertext &ciphertext);
/// b and a each a polynomial over QP.
void checkPublicKey(const Context &context, const PublicKey &key);
/// An odd element below 2N.
void checkGaloisElement(const Context &context, uint64_t element);
/// Coefficient indices are ChaCha20 block counters, hence 32-bit: one
/// sampling call covers at most 2^32 of them. `what` names the sampler.
void checkIndexSpace(size_t limbs, size_t n, const char *what);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_ARGUMENT_CHECKS_H
