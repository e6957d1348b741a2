//===- poly.h - limb-wise helpers for the CPU reference (internal) -*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_CPU_POLY_H
#define RINGFUSE_RUNTIME_CPU_POLY_H

#include "ringfuse/runtime/params.h"

#include <cstdint>
#include <vector>

namespace ringfuse::runtime::detail {

/// The NTT tables of each limb of a polynomial, in limb order.
using Limbs = std::vector<const NttTables *>;

/// The first `count` primes of QP (Q, then P).
Limbs qpLimbs(const Context &context, size_t count);
/// Q followed by the auxiliary base B.
Limbs qAuxiliaryLimbs(const Context &context);

void forwardNtt(const Limbs &limbs, uint64_t *poly);
void inverseNtt(const Limbs &limbs, uint64_t *poly);
/// out = a * b (pointwise, NTT form); out may alias a or b.
void multiplyPointwise(const Limbs &limbs, const uint64_t *a, const uint64_t *b,
                       uint64_t *out);
/// acc += a * b (pointwise).
void multiplyAccumulate(const Limbs &limbs, const uint64_t *a,
                        const uint64_t *b, uint64_t *acc);
void addInPlace(const Limbs &limbs, uint64_t *acc, const uint64_t *a);
void negateInPlace(const Limbs &limbs, uint64_t *poly);
/// Small signed coefficients as residues of every limb.
std::vector<uint64_t> liftSmall(const Limbs &limbs, const int8_t *small);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_CPU_POLY_H
