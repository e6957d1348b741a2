//===- prepared_inputs.h - plaintext inputs as a program takes them -*- C++
//-*-===//
//
// A program may take a plaintext input prepared (RF_VALUE_PREPARED_PLAINTEXT:
// the compiler saw it only multiplied into ciphertexts): rotated by its
// Galois element, lifted to centered residues mod each prime of Q and in
// evaluation form. The caller hands the program a plaintext as always; this
// is where it becomes those words, on the host, before any driver binds it,
// so both drivers bind the same words.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DRIVER_PREPARED_INPUTS_H
#define RINGFUSE_RUNTIME_DRIVER_PREPARED_INPUTS_H

#include "program_state.h"

#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace ringfuse::runtime::detail {

/// The inputs a driver binds: the caller's, with each prepared plaintext
/// replaced by a plaintext holding its |Q| * N prepared words: those of the
/// program's last run when its coefficients are the same
/// (RfRuntime::preparedInputs), else prepared now and kept for the next.
class DriverInputs {
public:
  DriverInputs(RfRuntime &s, const std::vector<ProgramInput> &inputs);
  const std::vector<ProgramInput> &inputs() const { return inputs_; }

private:
  std::vector<ProgramInput> inputs_;
};

/// DriverInputs of a batch's arguments: each plaintext given is prepared
/// once, however many instances share it.
class PreparedBatch {
public:
  PreparedBatch(const RfRuntime &s,
                const std::vector<BatchArgument> &arguments);
  const std::vector<BatchArgument> &arguments() const { return arguments_; }

private:
  std::deque<Plaintext> prepared_;
  std::map<std::pair<const Plaintext *, size_t>, const Plaintext *> byInput_;
  std::vector<BatchArgument> arguments_;
};

/// The words of `plaintext` (N coefficients mod t) prepared as `layout` says.
std::vector<uint64_t> preparePlaintext(const RfRuntime &s,
                                       const ValueLayout &layout,
                                       const Plaintext &plaintext);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_PREPARED_INPUTS_H
