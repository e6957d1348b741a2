//===- kernel_table.cpp - the RfKernels every schedule is handed ----------===//
//
// Generated from kernel_catalog.def: each library kernel's entry checks its
// arguments, then calls the driver's method with the checked call. Kernels
// never throw through the schedule's (C) frames: an entry that fails records
// the run's first error, and the later entries of the run do nothing
// (guarded). The services (buffer, moduli, regions) are the same for every
// driver; stream and check_launch are the driver's.
//
//===----------------------------------------------------------------------===//
#include "kernel_table.h"

#include "driver.h"

namespace ringfuse::runtime::detail {
namespace {

uint64_t *bufferService(RfRuntime *s, int buffer) {
  if (buffer < 0 || static_cast<size_t>(buffer) >= s->bufferData.size()) {
    fail(s, "buffer: buffer " + std::to_string(buffer) +
                " is out of range (the manifest has " +
                std::to_string(s->bufferData.size()) + " buffers)");
    return s->spareBuffer;
  }
  return s->bufferData[buffer];
}

const RfModulus *moduliService(RfRuntime *s, int basis) {
  if (basis < 0 || static_cast<size_t>(basis) >= s->moduliData.size()) {
    fail(s, "moduli: basis " + std::to_string(basis) +
                " is out of range (the manifest has " +
                std::to_string(s->moduliData.size()) + " bases)");
    return s->spareModuli;
  }
  return s->moduliData[basis];
}

void *streamService(RfRuntime *s) { return s->driver->stream(); }

void checkLaunchService(RfRuntime *s, const char *kernel, int cudaError) {
  s->driver->checkLaunch(kernel, cudaError);
}

RfInstances instancesService(RfRuntime *s) { return s->driver->instances(); }

// Regions need nothing of a driver: the CPU runs their kernels in order, and
// the CUDA driver's dataflow already runs independent launches side by side.
// They run even after a kernel failed, so that a region's end is still seen.
void concurrentBeginService(RfRuntime *s) {
  if (s->concurrent) {
    fail(s, "concurrent_begin: a concurrent region is already open (regions "
            "do not nest)");
    return;
  }
  s->concurrent = true;
}

void concurrentEndService(RfRuntime *s) {
  if (!s->concurrent) {
    fail(s, "concurrent_end: no concurrent region is open");
    return;
  }
  s->concurrent = false;
}

#define RF_KERNEL(name, Call, parameters, arguments, ...)                      \
  void name##Entry parameters {                                                \
    guarded(rt, #name, [&] {                                                   \
      const Call call = checks::name arguments;                                \
      rt->driver->name(call, RF_UNPAREN arguments);                            \
    });                                                                        \
  }
#include "ringfuse/runtime/kernel_catalog.def"

const RfKernels kKernels = {
    bufferService,        moduliService,    streamService,
    checkLaunchService,   instancesService, concurrentBeginService,
    concurrentEndService,
#define RF_KERNEL(name, ...) name##Entry,
#include "ringfuse/runtime/kernel_catalog.def"
};

} // namespace

const RfKernels &kernelTable() { return kKernels; }

} // namespace ringfuse::runtime::detail
