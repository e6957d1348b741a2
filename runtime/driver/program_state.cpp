//===- program_state.cpp - what every driver shares of a loaded program ---===//
#include "program_state.h"

#include "driver.h"

namespace ringfuse::runtime::detail {

std::string programLabel(const RfRuntime &s) {
  return "program '" + s.name + "'";
}

void fail(RfRuntime *s, const std::string &message) {
  if (!s->failed) {
    s->failed = true;
    s->error = message;
  }
}

void closeOpenRegion(RfRuntime &s) {
  if (!s.concurrent)
    return;
  s.concurrent = false;
  fail(&s, "the schedule ended inside a concurrent region (no concurrent_end)");
}

bool overlaps(const uint64_t *a, size_t aWords, const uint64_t *b,
              size_t bWords) {
  auto a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + bWords * sizeof(uint64_t) &&
         b0 < a0 + aWords * sizeof(uint64_t);
}

size_t valueWords(const RfRuntime &s, const ValueLayout &layout) {
  return layout.plaintext && !layout.prepared ? s.n
                                              : s.context->q().size() * s.n;
}

const uint64_t *hostInputWords(const ValueLayout &layout,
                               const ringfuse::runtime::ProgramInput &input,
                               size_t component) {
  return layout.plaintext
             ? std::get<const ringfuse::runtime::Plaintext *>(input)
                   ->coefficients.data()
             : std::get<const ringfuse::runtime::Ciphertext *>(input)
                   ->component(component);
}

} // namespace ringfuse::runtime::detail
