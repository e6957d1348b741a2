//===- encoding.cpp - slots and coefficients of plaintexts ----------------===//
#include "ringfuse/runtime/bfv.h"

#include "ringfuse/runtime/argument_checks.h"

#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {

using namespace detail;

Plaintext encodeSlots(const ContextPtr &context, const uint64_t *values,
                      size_t count) {
  requireBatching(*context);
  const size_t n = context->degree();
  checkValues(*context, values, count, n, "slots");
  std::vector<size_t> positions = batchingSlotPositions(n);
  Plaintext plaintext{context, std::vector<uint64_t>(n, 0)};
  for (size_t s = 0; s < count; ++s)
    plaintext.coefficients[positions[s]] = values[s];
  context->batchingTables().inverse(plaintext.coefficients.data());
  return plaintext;
}

std::vector<uint64_t> decodeSlots(const Plaintext &plaintext) {
  const Context &context = *plaintext.context;
  requireBatching(context);
  const size_t n = context.degree();
  std::vector<uint64_t> evaluations = plaintext.coefficients;
  context.batchingTables().forward(evaluations.data());
  std::vector<size_t> positions = batchingSlotPositions(n);
  std::vector<uint64_t> slots(n);
  for (size_t s = 0; s < n; ++s)
    slots[s] = evaluations[positions[s]];
  return slots;
}

Plaintext encodeCoefficients(const ContextPtr &context, const uint64_t *values,
                             size_t count) {
  const size_t n = context->degree();
  checkValues(*context, values, count, n, "coefficients");
  Plaintext plaintext{context, std::vector<uint64_t>(n, 0)};
  std::copy(values, values + count, plaintext.coefficients.begin());
  return plaintext;
}

} // namespace ringfuse::runtime
