//===- kernel_table.cpp - the RfKernels every schedule is handed ----------===//
//
// Generated from kernel_catalog.def: each library kernel's entry checks its
// arguments, then calls the driver's method with the checked call. Kernels
// never throw through the schedule's (C) frames: an entry that fails records
// the run's first error, and the later entries of the run do nothing
// (guarded). The services (buffer, moduli, regions) are the same for every
// driver; stream and check_launch are the driver's. There are two tables,
// RfKernels for programs of 64-bit words and RfKernels32 for those of 32-bit
// words, with the same checks (templates on the word) and the driver's
// kernels of that word size.
//
//===----------------------------------------------------------------------===//
#include "kernel_table.h"

#include "driver.h"

namespace ringfuse::runtime::detail {
namespace {

template <typename Word> Word *bufferService(RfRuntime *s, int buffer) {
  if (buffer < 0 || static_cast<size_t>(buffer) >= s->bufferData.size()) {
    fail(s, "buffer: buffer " + std::to_string(buffer) +
                " is out of range (the manifest has " +
                std::to_string(s->bufferData.size()) + " buffers)");
    return static_cast<Word *>(s->spareBuffer);
  }
  return static_cast<Word *>(s->bufferData[buffer]);
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

/// The driver's kernels on a program's words: its own for 64-bit words, its
/// 32-bit kernels (which the loader made sure it has) for 32-bit ones.
WordKernels<uint64_t> &kernelsOf(RfRuntime *s, const uint64_t *) {
  return *s->driver;
}
WordKernels<uint32_t> &kernelsOf(RfRuntime *s, const uint32_t *) {
  return *s->driver->narrowKernels();
}

// One entry per catalog kernel and word size (overloads by their words).
#define RF_KERNEL_ENTRY(name, Call, parameters, arguments, ...)                \
  void name##Entry parameters {                                                \
    guarded(rt, #name, [&] {                                                   \
      const Call call = checks::name arguments;                                \
      kernelsOf(rt, static_cast<const RF_WORD *>(nullptr))                     \
          .name(call, RF_UNPAREN arguments);                                   \
    });                                                                        \
  }
#define RF_KERNEL RF_KERNEL_ENTRY
#define RF_WORD uint64_t
#define RF_ADDEND RfKeySwitchAddend
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#define RF_KERNEL RF_KERNEL_ENTRY
#define RF_WORD uint32_t
#define RF_ADDEND RfKeySwitchAddend32
#include "ringfuse/runtime/kernel_catalog.def"
#undef RF_WORD
#undef RF_ADDEND
#undef RF_KERNEL_ENTRY

const RfKernels kKernels = {
    bufferService<uint64_t>, moduliService,    streamService,
    checkLaunchService,      instancesService, concurrentBeginService,
    concurrentEndService,
#define RF_KERNEL(name, ...) name##Entry,
#include "ringfuse/runtime/kernel_catalog.def"
};

const RfKernels32 kKernels32 = {
    bufferService<uint32_t>, moduliService,    streamService,
    checkLaunchService,      instancesService, concurrentBeginService,
    concurrentEndService,
#define RF_KERNEL(name, ...) name##Entry,
#include "ringfuse/runtime/kernel_catalog.def"
};

} // namespace

void runScheduleOnce(RfRuntime &s) {
  if (s.runFunction32)
    s.runFunction32(&s, &kKernels32);
  else
    s.runFunction(&s, &kKernels);
}

} // namespace ringfuse::runtime::detail
