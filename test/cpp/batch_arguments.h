//===- batch_arguments.h - runBatch's arguments by instance ----*- C++ -*-===//
#ifndef RINGFUSE_TEST_BATCH_ARGUMENTS_H
#define RINGFUSE_TEST_BATCH_ARGUMENTS_H

#include "ringfuse/runtime/ciphertext_batch.h"
#include "ringfuse/runtime/program.h"

#include <deque>
#include <variant>
#include <vector>

namespace ringfuse::runtime::testing {

/// Program::runBatch's arguments for instances given one by one (each a
/// run's inputs, of the same kinds): per input, a batch of the instances'
/// ciphertexts in `placement`, or their plaintexts.
class BatchArguments {
public:
  explicit BatchArguments(
      const std::vector<std::vector<ProgramInput>> &instances,
      Placement placement = Placement::Host) {
    const size_t inputs = instances.empty() ? 0 : instances.front().size();
    for (size_t v = 0; v < inputs; ++v) {
      if (std::holds_alternative<const Plaintext *>(instances.front()[v])) {
        std::vector<const Plaintext *> plaintexts;
        for (const std::vector<ProgramInput> &instance : instances)
          plaintexts.push_back(std::get<const Plaintext *>(instance.at(v)));
        arguments_.push_back(std::move(plaintexts));
        continue;
      }
      std::vector<const Ciphertext *> ciphertexts;
      for (const std::vector<ProgramInput> &instance : instances)
        ciphertexts.push_back(std::get<const Ciphertext *>(instance.at(v)));
      batches_.push_back(
          CiphertextBatch::fromCiphertexts(ciphertexts, placement));
      arguments_.push_back(&batches_.back());
    }
  }
  const std::vector<BatchArgument> &get() const { return arguments_; }
  std::vector<BatchArgument> &edit() { return arguments_; }

private:
  std::deque<CiphertextBatch> batches_;
  std::vector<BatchArgument> arguments_;
};

} // namespace ringfuse::runtime::testing

#endif // RINGFUSE_TEST_BATCH_ARGUMENTS_H
