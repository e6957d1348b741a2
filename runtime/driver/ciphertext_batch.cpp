//===- ciphertext_batch.cpp - K ciphertexts in one allocation -------------===//
//
// The batch's shape and copies; its memory (pinned host, GPU) is the CUDA
// driver's (cuda_batch_memory.cu) or, without CUDA, plain host memory
// (no_cuda.cpp).
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/ciphertext_batch.h"

#include "ringfuse/runtime/argument_checks.h"
#include "ringfuse/runtime/host_memory.h"
#include "ringfuse/runtime/parallel.h"

#include <cstdlib>
#include <cstring>

namespace ringfuse::runtime {

namespace detail {
std::shared_ptr<uint64_t> plainBatchWords(size_t words) {
  const size_t bytes =
      (std::max<size_t>(words, 1) * sizeof(uint64_t) + 63) / 64 * 64;
  // Refused here rather than ended by the system's out-of-memory killer on
  // first touch.
  requireHostBytes(bytes, "a ciphertext batch in host memory");
  void *block = std::aligned_alloc(64, bytes);
  if (!block)
    throw OutOfHostMemory("not enough memory: a ciphertext batch needs " +
                          std::to_string(bytes >> 20) + " MiB");
  return std::shared_ptr<uint64_t>(static_cast<uint64_t *>(block), std::free);
}
} // namespace detail

const char *placementName(Placement placement) {
  return placement == Placement::Host ? "host" : "device";
}

CiphertextBatch::CiphertextBatch(ContextPtr context, size_t components,
                                 size_t count, Placement placement,
                                 std::shared_ptr<uint64_t> memory)
    : context_(std::move(context)), components_(components), count_(count),
      placement_(placement), memory_(std::move(memory)) {}

size_t CiphertextBatch::instanceWords() const {
  return components_ * context_->q().size() * context_->degree();
}

CiphertextBatch CiphertextBatch::allocate(const ContextPtr &context,
                                          size_t components, size_t count,
                                          Placement placement) {
  if (!context)
    throw Error("a ciphertext batch needs a parameter set");
  if (components < kMinCiphertextComponents ||
      components > kMaxCiphertextComponents)
    throw Error("a ciphertext has 2 to " +
                std::to_string(kMaxCiphertextComponents) + " components, not " +
                std::to_string(components));
  if (count == 0)
    throw Error("a batch holds at least one ciphertext");
  const size_t words = components * context->q().size() * context->degree();
  return CiphertextBatch(context, components, count, placement,
                         detail::allocateBatchWords(words * count, placement));
}

CiphertextBatch
CiphertextBatch::fromCiphertexts(const std::vector<const Ciphertext *> &items,
                                 Placement placement) {
  if (items.empty())
    throw Error("a batch holds at least one ciphertext, got none");
  if (!items.front())
    throw Error("ciphertext 0 is a null pointer");
  const Ciphertext &first = *items.front();
  if (!first.context)
    throw Error("ciphertext 0 has no parameter set");
  for (size_t k = 0; k < items.size(); ++k) {
    const std::string what = "ciphertext " + std::to_string(k);
    if (!items[k])
      throw Error(what + " is a null pointer");
    if (!items[k]->context ||
        items[k]->context->fingerprint() != first.context->fingerprint())
      throw Error("a batch holds ciphertexts of one parameter set: " + what +
                  " belongs to another than ciphertext 0");
    detail::checkCiphertext(*first.context, *items[k]);
    if (items[k]->size != first.size)
      throw Error("a batch holds ciphertexts of one component count: " + what +
                  " has " + std::to_string(items[k]->size) + ", ciphertext 0 " +
                  std::to_string(first.size));
  }
  CiphertextBatch host =
      allocate(first.context, first.size, items.size(), Placement::Host);
  const size_t words = host.instanceWords();
  parallelFor(items.size(), workersFor(items.size(), 0), "ciphertext",
              [&](size_t, size_t k) {
                std::memcpy(host.memory_.get() + k * words,
                            items[k]->data.data(), words * sizeof(uint64_t));
              });
  return host.to(placement);
}

Ciphertext CiphertextBatch::ciphertext(size_t k) const {
  if (k >= count_)
    throw Error("instance " + std::to_string(k) + " of a batch of " +
                std::to_string(count_));
  const size_t words = instanceWords();
  Ciphertext copy{context_, components_, std::vector<uint64_t>(words)};
  detail::copyBatchWords(copy.data.data(), Placement::Host,
                         memory_.get() + k * words, placement_, words);
  return copy;
}

CiphertextBatch CiphertextBatch::slice(size_t first, size_t count,
                                       Placement placement) const {
  if (count == 0 || first > count_ || count > count_ - first)
    throw Error("instances [" + std::to_string(first) + ", " +
                std::to_string(first + count) + ") of a batch of " +
                std::to_string(count_));
  CiphertextBatch copy = allocate(context_, components_, count, placement);
  const size_t words = instanceWords();
  detail::copyBatchWords(copy.memory_.get(), placement,
                         memory_.get() + first * words, placement_,
                         count * words);
  return copy;
}

CiphertextBatch CiphertextBatch::to(Placement placement) const {
  return placement == placement_ ? *this : slice(0, count_, placement);
}

} // namespace ringfuse::runtime
