//===- program.h - a compiled circuit, loaded and ready to run ----*- C++
//-*-===//
//
// A compiled circuit is a manifest and a host schedule (program_abi.h). Loading
// one builds, once, everything its manifest names: the parameter set's Context,
// the RNS bases, base converters and scale-and-round plans, the NTT tables,
// the buffers and the constants. Running it binds the inputs to their buffers,
// calls the schedule with the CPU kernels and reads the outputs back.
//
//   Program program = Program::load("build/mul.so");
//   std::vector<Ciphertext> out = program.run({&x, &y}, &relinKey, nullptr);
//
// Kernels never throw through the program's (C) frames: a kernel that is
// called wrongly (an index out of range, a span past its buffer, a transform
// over a basis without an NTT) records the first such error, the remaining
// kernel calls of the run do nothing, and `run` throws it as an Error.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_PROGRAM_H
#define RINGFUSE_RUNTIME_PROGRAM_H

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/program_abi.h"

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ringfuse::runtime {

/// One input of a run, in the manifest's input order.
using ProgramInput = std::variant<const Ciphertext *, const Plaintext *>;

/// A loaded circuit. Move-only; runs are serialized (one at a time per
/// Program), so a Program may be shared between threads.
class Program {
public:
  /// dlopen()s a compiled program's shared library and loads its manifest.
  /// The library stays loaded as long as the Program.
  static Program load(const std::string &sharedLibraryPath);
  /// A program linked into this executable (or written by hand, in tests).
  static Program fromFunctions(RfManifestFunction manifest, RfRunFunction run);

  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  ~Program();

  const ContextPtr &context() const;
  const std::string &name() const;
  /// True if the parameter set is beyond the 128-bit bound (the compiler
  /// checked security when it chose the parameters; this records it).
  bool insecure() const;

  size_t inputCount() const;
  bool inputIsPlaintext(size_t input) const;
  /// Components of a ciphertext input (1 for a plaintext).
  size_t inputComponents(size_t input) const;
  size_t outputCount() const;
  size_t outputComponents(size_t output) const;

  bool needsRelinKey() const;
  /// The Galois elements the circuit switches keys for, ascending, distinct.
  std::vector<uint64_t> requiredGaloisElements() const;

  /// Checks that every key the circuit uses is present and belongs to its
  /// parameter set, and keeps pointers to them for later runs: the keys
  /// must outlive those runs (or the next bind).
  void bind(const RelinKey *relin, const GaloisKeys *galois);

  /// Runs the circuit on inputs in manifest order, with the keys of the last
  /// bind(). Outputs are fresh ciphertexts over Q (coefficient form).
  std::vector<Ciphertext> run(const std::vector<ProgramInput> &inputs);
  /// bind(relin, galois) and run(inputs), as one step.
  std::vector<Ciphertext> run(const std::vector<ProgramInput> &inputs,
                              const RelinKey *relin, const GaloisKeys *galois);

private:
  explicit Program(std::unique_ptr<RfRuntime> state);
  static Program fromFunctions(RfManifestFunction manifest, RfRunFunction run,
                               std::shared_ptr<void> library);

  std::unique_ptr<RfRuntime> state_;
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PROGRAM_H
