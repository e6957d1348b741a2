//===- program.h - a compiled circuit, ready to run -------------*- C++ -*-===//
//
// A compiled circuit is a manifest and a host schedule (program_abi.h). Loading
// one builds, once, everything its manifest names: the parameter set's Context,
// the RNS bases, base converters and scale-and-round plans, the NTT tables,
// the buffers and the constants. Running it binds the inputs to their buffers,
// calls the schedule with the kernels of its driver and reads the outputs back.
//
//   Program program = Program::load("build/mul.so");
//   std::vector<Ciphertext> out = program.run({&x, &y}, &relinKey, nullptr);
//
// runBatch runs many instances of the circuit in one call: on the CUDA
// driver every kernel computes a chunk of instances in one launch; on the
// CPU driver (and for programs whose transforms are DGTs) worker threads
// run them, each on a replica of the program's state.
//
// Two drivers run the same program and give the same words, bit for bit:
//  - Device::Cpu: buffers are host memory; the kernels are the reference code
//    of this runtime and the schedule's generated loops run on the host.
//  - Device::Cuda: buffers live in one device allocation made at load, and
//    the buffer() and moduli() of RfKernels hand out device pointers; every
//    library kernel is a CUDA kernel on the program's stream (RfKernels'
//    stream()), on which emitted CUDA code launches its own kernels. Plans
//    and NTT twiddles are uploaded at load, keys at bind; a run copies its
//    inputs in and its outputs out on the stream and synchronizes once. The
//    second run captures the schedule into a CUDA graph that later runs
//    replay, so a schedule must issue the same calls on every run (emitted
//    schedules are straight-line code).
//
// Kernels never throw through the program's (C) frames: a kernel that is
// called wrongly (an index out of range, a span past its buffer, a transform
// over a basis without an NTT, a CUDA launch that fails) records the first
// such error, the remaining kernel calls of the run do nothing, and `run`
// throws it as an Error.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_PROGRAM_H
#define RINGFUSE_RUNTIME_PROGRAM_H

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/ciphertext_batch.h"
#include "ringfuse/runtime/params.h"
#include "ringfuse/runtime/program_abi.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace ringfuse::runtime {

/// A ciphertext in GPU memory (coefficient form over Q, the Ciphertext
/// layout): a run's output kept on the device, or an upload. CUDA programs
/// take it as an input without a round trip through the host.
struct DeviceCiphertext {
  ContextPtr context;
  size_t size = 0;                 // components
  std::shared_ptr<uint64_t> words; // device memory, size * |Q| * N words
};

/// Copies between host and GPU (CUDA builds; otherwise an Error).
DeviceCiphertext uploadCiphertext(const Ciphertext &ciphertext);
Ciphertext downloadCiphertext(const DeviceCiphertext &ciphertext);

/// CUDA devices visible to this process (0 without the CUDA driver).
int cudaDeviceCount();

/// The current GPU's memory: what allocations may still get (free plus what
/// the runtime holds pooled but unused) and the device's total.
struct DeviceMemoryUse {
  size_t available = 0;
  size_t total = 0;
};
DeviceMemoryUse cudaMemory();

/// The host link's copy rate in bytes per second, to the GPU or from it:
/// the median of `repeats` copies of `bytes` between pinned host memory and
/// device memory, timed with CUDA events (CUDA builds; otherwise an Error).
double hostLinkBytesPerSecond(size_t bytes, bool toDevice, int repeats = 7);

/// One input of a run, in the manifest's input order.
using ProgramInput =
    std::variant<const Ciphertext *, const Plaintext *, const DeviceCiphertext *>;

/// One input of a batch's instances, in the manifest's input order: a batch
/// of ciphertexts or plaintexts, one per instance or one for all.
using BatchArgument =
    std::variant<const CiphertextBatch *, std::vector<const Plaintext *>>;

/// Told how many instances of a batch have finished so far, as they do.
using BatchProgress = std::function<void(size_t finished)>;

/// Where a program's buffers live and its kernels run.
enum class Device { Cpu, Cuda };

/// "cpu" or "cuda".
const char *deviceName(Device device);

/// True iff this runtime was built with the CUDA driver and a CUDA device is
/// visible (cudaGetDeviceCount > 0).
bool cudaAvailable();

/// A loaded circuit. Move-only; runs are serialized (one at a time per
/// Program), so a Program may be shared between threads.
class Program {
public:
  /// dlopen()s a compiled program's shared library and loads its manifest
  /// for `device`. The library stays loaded as long as the Program. A
  /// program whose schedule launches CUDA kernels (ringfuse-translate
  /// --emit-cuda) runs only on Device::Cuda.
  static Program load(const std::string &sharedLibraryPath,
                      Device device = Device::Cpu);
  /// A program linked into this executable (or written by hand, in tests).
  static Program fromFunctions(RfManifestFunction manifest, RfRunFunction run,
                               Device device = Device::Cpu);

  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  ~Program();

  const ContextPtr &context() const;
  Device device() const;
  const std::string &name() const;
  /// The multiplication variant the circuit was compiled with (hps, lhps,
  /// chps, behz; for variant=auto, the compiler's choice), or empty if the
  /// manifest does not say.
  const std::string &variant() const;
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
  /// must outlive those runs (or the next bind). The CUDA driver copies the
  /// keys to the device here.
  void bind(const RelinKey *relin, const GaloisKeys *galois);

  /// Runs the circuit on inputs in manifest order, with the keys of the last
  /// bind(). Outputs are fresh ciphertexts over Q (coefficient form).
  std::vector<Ciphertext> run(const std::vector<ProgramInput> &inputs);
  /// bind(relin, galois) and run(inputs), as one step. The CUDA driver copies
  /// a key to the device again only if it is another object (or its words
  /// moved) since the last upload; after changing a key's words in place,
  /// call bind().
  std::vector<Ciphertext> run(const std::vector<ProgramInput> &inputs,
                              const RelinKey *relin, const GaloisKeys *galois);
  /// Many instances of the circuit in one call: instance i runs on the i-th
  /// (or the one) ciphertext or plaintext of each argument; output j's batch
  /// holds, at i, what run() gives as output j of instance i, word for word.
  /// The outputs are in GPU memory if any argument is, else in host memory.
  /// Keys are bound once; every argument is checked before any instance
  /// runs.
  ///
  /// On the CUDA driver (`threads` is then ignored) each kernel computes a
  /// chunk of instances in one launch, their buffers side by side in a
  /// region of device memory made for the batch's chunk size and kept: as
  /// many instances a chunk as three regions fit in a quarter of the free
  /// device memory (at most 256), so a batch of any size goes through. The
  /// batches' chunks are copied straight between their memory and the
  /// region (from pinned host memory over the host link, or within the GPU);
  /// an argument that is one for all goes to the GPU once and is copied into
  /// every instance there. Three regions take turns, so that one chunk's
  /// inputs go in while another's kernels run and a third's outputs come
  /// out, and each replays a graph captured for its chunk size. The outputs
  /// are checked on the GPU. `progress`, if given, is told the instances
  /// finished after each chunk (every 1/8 or so of the batch elsewhere).
  ///
  /// Elsewhere the instances are spread over `threads` workers (0: one per
  /// hardware thread on the CPU driver, 8 on the CUDA driver; never
  /// more than there are instances): the calling
  /// thread on this program's buffers and threads - 1 more, each on a
  /// replica, a copy of the program's state loaded from the same manifest
  /// and run function (its own buffers, the same keys bound). Replicas are
  /// made on a batch's first need and kept for later batches, so the
  /// program's memory (buffers, plans, tables) grows to as many copies as
  /// the most workers a batch used. Workers take the next instance from a
  /// shared counter; after a failure no further instance starts, and the
  /// failure of the lowest instance is thrown here as an Error
  /// "instance i: ..." (a replica that could not be made, as one saying so).
  ///
  /// On the CUDA driver (a program with DGTs) a replica has its own streams,
  /// device memory (keys included) and captured graph.
  std::vector<CiphertextBatch>
  runBatch(const std::vector<BatchArgument> &arguments, const RelinKey *relin,
           const GaloisKeys *galois, size_t threads = 0,
           const BatchProgress &progress = {});
  /// The CUDA driver: run(inputs, relin, galois) with the outputs left on
  /// the GPU (copied out of the program's buffers into memory of their own),
  /// so that they can feed later runs without a host round trip.
  std::vector<DeviceCiphertext> runOnDevice(const std::vector<ProgramInput> &inputs,
                                            const RelinKey *relin,
                                            const GaloisKeys *galois);

  /// For benchmarks: binds `inputs` to their buffers once (the CUDA driver
  /// copies them to the device and waits), then runs the schedule `warmup`
  /// times and `iterations` times more, and returns the duration of each of
  /// the latter in microseconds. The CUDA driver first makes sure the
  /// schedule is captured (one eager run, then the capture), then times each
  /// graph replay with CUDA events recorded around it on the program's
  /// stream; the runs are queued back to back and waited for once, so
  /// nothing but the replay is timed. The CPU driver times each schedule run
  /// with steady_clock. Keys must be bound (bind(), or an earlier run with
  /// keys). The inputs and constants are not restored between the runs: a
  /// schedule that reuses their buffers computes later runs on other words
  /// (the same work); no outputs are read back.
  std::vector<double> timeRuns(const std::vector<ProgramInput> &inputs,
                               size_t warmup, size_t iterations);
  /// timeRuns for a chunk of `count` instances of `inputs` in each launch
  /// (the CUDA driver; an Error elsewhere): the time of each replay of the
  /// chunk's graph, its inputs resident in device memory.
  std::vector<double> timeBatch(const std::vector<ProgramInput> &inputs,
                                size_t count, size_t warmup, size_t iterations);

  /// The CUDA driver: true once the schedule has been captured into a CUDA
  /// graph that runs replay (from the second successful run on). Always
  /// false on the CPU driver.
  bool replaysGraph() const;

private:
  explicit Program(std::unique_ptr<RfRuntime> state);
  static Program fromFunctions(RfManifestFunction manifest, RfRunFunction run,
                               Device device, std::shared_ptr<void> library);

  std::unique_ptr<RfRuntime> state_;
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PROGRAM_H
