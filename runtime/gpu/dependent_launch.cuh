//===- dependent_launch.cuh - launching kernels that overlap ---*- CUDA -*-===//
//
// Programmatic dependent launch: a kernel launched with launchDependent may be
// scheduled while the stream's previous kernel still runs (once every block
// of that one has called allowNextKernel, or exited), so its blocks fill the
// SMs that the previous grid's last wave leaves idle. Such a kernel must call
// awaitPreviousKernel in every block before it touches memory that an
// earlier kernel writes or reads; before that it may read only what was
// written before the previous kernel was enqueued (plans, twiddle tables).
// Each kernel waiting in turn keeps the stream's order transitive.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_CUDA_DEPENDENT_LAUNCH_CUH
#define RINGFUSE_RUNTIME_CUDA_DEPENDENT_LAUNCH_CUH

#include "ringfuse/runtime/error.h"

#include <cuda_runtime.h>

#include <string>

namespace ringfuse::runtime::cuda {

/// Throws Error naming `kernel` if the launch just made failed (bad
/// configuration, no kernel image for this GPU, an earlier sticky fault).
void checkLaunch(const char *kernel);

/// Waits until the stream's previous kernel has finished and its writes are
/// visible.
__device__ __forceinline__ void awaitPreviousKernel() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}

/// Lets the stream's next kernel start once every block of this grid has
/// called it (or exited). Called after awaitPreviousKernel, so that at most
/// two grids overlap.
__device__ __forceinline__ void allowNextKernel() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

/// Launches `kernel` allowing it to start before the stream's previous
/// kernel ends (see above); throws Error naming it if the launch fails.
template <typename... Params, typename... Args>
void launchDependent(const char *name, void (*kernel)(Params...), dim3 grid,
                     unsigned threads, size_t sharedBytes, cudaStream_t stream,
                     Args... args) {
  cudaLaunchAttribute overlap{};
  overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = sharedBytes;
  config.stream = stream;
  config.attrs = &overlap;
  config.numAttrs = 1;
  const cudaError_t launched = cudaLaunchKernelEx(&config, kernel, args...);
  checkLaunch(name); // reports (and clears) a failed launch as the last error
  if (launched != cudaSuccess)
    throw Error(std::string("CUDA kernel ") + name +
                " failed to launch: " + cudaGetErrorString(launched));
}

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_RUNTIME_CUDA_DEPENDENT_LAUNCH_CUH
