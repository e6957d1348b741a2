//===- encoding.cpp - slots and coefficients of plaintexts ----------------===//
#include "ringfuse/runtime/bfv.h"

#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {

namespace {
void checkValues(const Context &context, const uint64_t *values, size_t count,
                 size_t capacity, const char *what) {
  if (count > capacity)
    throw Error(std::to_string(count) + " values do not fit the " +
                std::to_string(capacity) + " " + what);
  for (size_t i = 0; i < count; ++i)
    if (values[i] >= context.plaintextModulus())
      throw Error("value " + std::to_string(values[i]) + " at index " +
                  std::to_string(i) + " is not below the plaintext modulus " +
                  std::to_string(context.plaintextModulus()));
}

void requireBatching(const Context &context) {
  if (!context.supportsBatching())
    throw Error("batching (slots) needs a prime plaintext modulus = 1 mod 2N; "
                "t = " + std::to_string(context.plaintextModulus()) +
                " with N = " + std::to_string(context.degree()) +
                " is not one. Encode coefficients instead.");
}
} // namespace

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
