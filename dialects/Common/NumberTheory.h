//===- NumberTheory.h - integer facts the verifiers check ------*- C++ -*-===//
//
// The verifiers use the runtime's own (header-only) number theory, so that the
// compiler and the runtime agree on what a valid prime, ring degree or
// batching plaintext modulus is.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H
#define RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H

#include "ringfuse/runtime/number_theory.h"

namespace ringfuse {
using runtime::isPrime;
using runtime::isValidRingDegree;
using runtime::kMaxRingDegree;
using runtime::kMaxRnsPrimeBits;
using runtime::supportsBatching;
} // namespace ringfuse

#endif // RINGFUSE_DIALECTS_COMMON_NUMBERTHEORY_H
