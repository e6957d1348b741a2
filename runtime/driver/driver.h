//===- driver.h - where a program's buffers live and its kernels run -*- C++
//-*-===//
//
// A loaded program (program_state.h) has one driver, picked by Program for
// its Device. The kernel table (kernel_table.cpp) checks every library
// kernel's arguments the same way for every driver, then hands the driver
// the checked call: one method per entry of kernel_catalog.def, pure virtual,
// so a driver that lacks a kernel does not compile. A driver also places the
// buffers (in its constructor), binds keys and runs the schedule.
//
//  - CpuDriver (cpu_driver.cpp): host buffers; the runtime's reference code.
//  - CudaDriver (cuda/): one device allocation; CUDA kernels by dataflow on
//    side streams; the schedule captured into a CUDA graph and replayed.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DRIVER_DRIVER_H
#define RINGFUSE_RUNTIME_DRIVER_DRIVER_H

#include "kernel_checks.h"
#include "program_state.h"

#include <memory>
#include <vector>

/// The parameter list of a catalog entry without its parentheses.
#define RF_UNPAREN(...) __VA_ARGS__

namespace ringfuse::runtime::detail {

class Driver {
public:
  virtual ~Driver() = default;

  /// The library kernels of kernel_catalog.def: each receives the call its
  /// checks returned and the entry's own arguments. It may throw Error (the
  /// table records it as the run's error).
#define RF_KERNEL(name, Call, parameters, ...)                                 \
  virtual void name(const Call &call, RF_UNPAREN parameters) = 0;
#include "ringfuse/runtime/kernel_catalog.def"

  /// RfKernels::stream: the stream emitted CUDA launches generated kernels
  /// on, or null.
  virtual void *stream() = 0;
  /// RfKernels::check_launch, after each generated kernel's launch.
  virtual void checkLaunch(const char *kernel, int cudaError) = 0;
  /// RfKernels::instances: those the kernels now launched compute.
  virtual RfInstances instances() const { return {1, 0}; }

  /// Whether runs take inputs already in GPU memory (DeviceCiphertext).
  virtual bool takesDeviceInputs() const = 0;
  /// After Program::bind: the bound keys (RfRuntime::boundKeys) where the
  /// kernels read them; unless `force`, only those that changed.
  virtual void placeKeys(bool force) = 0;
  /// Inputs in, the schedule once, outputs out; throws a kernel's error. The
  /// inputs and keys were checked.
  virtual std::vector<Ciphertext>
  run(const std::vector<ProgramInput> &inputs) = 0;
  /// run(), the outputs left in GPU memory of their own.
  virtual std::vector<DeviceCiphertext>
  runOnDevice(const std::vector<ProgramInput> &inputs) = 0;
  /// Program::timeRuns.
  virtual std::vector<double> timeRuns(const std::vector<ProgramInput> &inputs,
                                       size_t warmup, size_t iterations) = 0;
  /// Whether runs replay a captured graph.
  virtual bool replaysGraph() const = 0;

  /// Whether runBatch runs many instances in each launch (else a batch is
  /// the program's replicas running side by side: Program::runBatch).
  virtual bool runsInstances() const { return false; }
  /// `count` instances' inputs in, the schedule over them, their outputs
  /// out into a batch per output in `placement`; finished instances are
  /// reported to `progress` (may be empty). The arguments (prepared
  /// plaintexts in place) and keys were checked.
  virtual std::vector<CiphertextBatch>
  runBatch(const std::vector<BatchArgument> &, size_t, Placement,
           const BatchProgress &) {
    throw Error("this driver runs a batch's instances one by one");
  }
  /// Program::timeBatch: `count` instances of `inputs` in one launch each
  /// run, the graph's replays timed.
  virtual std::vector<double> timeBatch(const std::vector<ProgramInput> &,
                                        size_t, size_t, size_t) {
    throw Error("timing batches in one launch needs the CUDA driver");
  }
};

/// The driver of `s`, a program whose manifest is loaded: it places the
/// buffers (bufferData, moduliData and the spares of `s`) and the constants.
std::unique_ptr<Driver> makeCpuDriver(RfRuntime &s);
/// Throws Error where the runtime was built without CUDA or no device is
/// visible.
std::unique_ptr<Driver> makeCudaDriver(RfRuntime &s);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_DRIVER_H
