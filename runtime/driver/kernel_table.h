//===- kernel_table.h - the RfKernels every schedule is handed --*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H
#define RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H

#include "ringfuse/runtime/program_abi.h"

struct RfRuntime;

namespace ringfuse::runtime::detail {

/// The schedule of `s` once, handed the table of its word size (RfKernels
/// or RfKernels32). One table per word size for every driver: each library
/// kernel's entry runs its checks (kernel_checks.h), then the program's
/// driver; the services go to the state or the driver. Errors are recorded
/// in `s` (fail), not thrown.
void runScheduleOnce(RfRuntime &s);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H
