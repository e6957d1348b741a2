//===- kernel_trace.cpp - every kernel's start and end, from CUPTI ---------===//
//
// A CUDA injection library (CUDA_INJECTION64_PATH): the driver loads it into
// a process and calls InitializeInjection, which turns on CUPTI's record of
// concurrent kernels. At exit every kernel's start and end (GPU timestamps,
// ns), the launch call it came from (its correlation id: one per
// cudaGraphLaunch for a graph's kernels), whether a graph launched it, its
// stream and mangled name go to $RINGFUSE_KERNEL_TRACE, one
// "start,end,launch,graph,stream,name" line each. bench/kernel_timeline.py
// reads them.
//
//===----------------------------------------------------------------------===//
#include <cupti.h>

#include <cstdio>
#include <cstdlib>

namespace {

FILE *trace = nullptr;

// CUPTI's kernel record of this toolkit (CMake finds the newest version).
using KernelRecord = RINGFUSE_CUPTI_KERNEL_RECORD;

void CUPTIAPI giveBuffer(uint8_t **buffer, size_t *size, size_t *maxRecords) {
  *size = size_t(16) << 20;
  *buffer = static_cast<uint8_t *>(std::aligned_alloc(8, *size));
  *maxRecords = 0; // as many as fit
}

void CUPTIAPI takeBuffer(CUcontext, uint32_t, uint8_t *buffer, size_t,
                         size_t used) {
  CUpti_Activity *record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, used, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto *kernel = reinterpret_cast<const KernelRecord *>(record);
      std::fprintf(trace, "%llu,%llu,%u,%d,%u,%s\n",
                   static_cast<unsigned long long>(kernel->start),
                   static_cast<unsigned long long>(kernel->end),
                   kernel->correlationId, kernel->graphId != 0 ? 1 : 0,
                   kernel->streamId, kernel->name);
    }
  std::free(buffer);
}

void flushAtExit() {
  cuptiActivityFlushAll(1);
  std::fclose(trace);
}

bool ok(CUptiResult result, const char *what) {
  if (result == CUPTI_SUCCESS)
    return true;
  const char *message = nullptr;
  cuptiGetResultString(result, &message);
  std::fprintf(stderr, "kernel_trace: %s: %s\n", what,
               message ? message : "unknown error");
  return false;
}

} // namespace

extern "C" int InitializeInjection() {
  const char *path = std::getenv("RINGFUSE_KERNEL_TRACE");
  if (!path || !(trace = std::fopen(path, "w"))) {
    std::fprintf(stderr, "kernel_trace: set RINGFUSE_KERNEL_TRACE to a "
                         "writable file\n");
    return 0;
  }
  if (!ok(cuptiActivityRegisterCallbacks(giveBuffer, takeBuffer),
          "registering buffers") ||
      !ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
          "recording kernels"))
    return 0;
  std::atexit(flushAtExit);
  return 1;
}
