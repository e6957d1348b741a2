//===- ciphertext_batch.h - K ciphertexts in one allocation -----*- C++ -*-===//
//
// A server runs one circuit on many clients' ciphertexts. Held as K objects
// of their own, each costs the host an allocation, its page faults and a
// copy through pinned staging on its way to the GPU and back; at (13, 120,
// 60) that was about 40 us an instance, several times the GPU's work. A
// CiphertextBatch holds all K side by side in one allocation instead: in
// host memory (pinned where the process works on the GPU, so that the GPU
// copies chunks of it directly) or in GPU memory, where a batch stays
// between calls.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_CIPHERTEXT_BATCH_H
#define RINGFUSE_RUNTIME_CIPHERTEXT_BATCH_H

#include "ringfuse/runtime/bfv.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ringfuse::runtime {

/// Where a batch's words are.
enum class Placement { Host, Device };

/// "host" or "device".
const char *placementName(Placement placement);

/// K >= 1 ciphertexts of one parameter set, each of `components()`
/// components over Q in coefficient form: instance k's words are the
/// Ciphertext layout, at words() + k * instanceWords(). A batch holds what
/// the runtime computed or the words of Ciphertexts (which its checked
/// paths make); it cannot be changed after it is made, except by the
/// runtime filling one it allocated. Copies share the words.
class CiphertextBatch {
public:
  /// Uninitialized memory for `count` ciphertexts: host memory (pinned,
  /// from a cache of such blocks, where the process works on the GPU) or GPU
  /// memory (the device's stream-ordered pool). For the runtime to fill.
  static CiphertextBatch allocate(const ContextPtr &context, size_t components,
                                  size_t count, Placement placement);
  /// The ciphertexts' words side by side; all of one parameter set and one
  /// component count.
  static CiphertextBatch
  fromCiphertexts(const std::vector<const Ciphertext *> &ciphertexts,
                  Placement placement = Placement::Host);

  const ContextPtr &context() const { return context_; }
  size_t components() const { return components_; }
  size_t count() const { return count_; }
  Placement placement() const { return placement_; }
  /// Words a ciphertext takes: components * |Q| * N.
  size_t instanceWords() const;
  const uint64_t *words() const { return memory_.get(); }
  uint64_t *mutableWords() { return memory_.get(); }
  /// The words' owner, for views that keep them alive.
  const std::shared_ptr<uint64_t> &sharedWords() const { return memory_; }

  /// Instance k, copied out to the host.
  Ciphertext ciphertext(size_t k) const;
  /// Instances [first, first + count), copied to `placement`.
  CiphertextBatch slice(size_t first, size_t count, Placement placement) const;
  /// The whole batch in `placement`: this one if it is there, else a copy.
  CiphertextBatch to(Placement placement) const;

private:
  CiphertextBatch(ContextPtr context, size_t components, size_t count,
                  Placement placement, std::shared_ptr<uint64_t> memory);

  ContextPtr context_;
  size_t components_ = 0, count_ = 0;
  Placement placement_ = Placement::Host;
  std::shared_ptr<uint64_t> memory_;
};

namespace detail {
/// Memory for a batch (CUDA driver or no_cuda.cpp): `words` words in
/// `placement`, freed when the last holder lets go.
std::shared_ptr<uint64_t> allocateBatchWords(size_t words, Placement placement);
/// Plain (pageable) host memory for `words` words: where the process does
/// not work on the GPU.
std::shared_ptr<uint64_t> plainBatchWords(size_t words);
/// Copies `words` words between batch memories and waits for the copy.
void copyBatchWords(uint64_t *to, Placement toPlacement, const uint64_t *from,
                    Placement fromPlacement, size_t words);
} // namespace detail

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_CIPHERTEXT_BATCH_H
