//===- kernel_table.h - the RfKernels every schedule is handed --*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H
#define RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H

#include "ringfuse/runtime/program_abi.h"

namespace ringfuse::runtime::detail {

/// One table for every driver: each library kernel's entry runs its checks
/// (kernel_checks.h), then the program's driver; the services go to the
/// state or the driver.
const RfKernels &kernelTable();

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_KERNEL_TABLE_H
