//===- manifest_loader.h - a program's manifest, read and checked -*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_DRIVER_MANIFEST_LOADER_H
#define RINGFUSE_RUNTIME_DRIVER_MANIFEST_LOADER_H

#include "program_state.h"

namespace ringfuse::runtime::detail {

/// Fills `state`'s context, plans, buffer sizes, values, constants and key
/// elements from `manifest`; throws Error naming the first section that is
/// wrong. Places nothing: that is the driver's.
void loadManifest(const RfManifest &manifest, RfRuntime &state);

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_MANIFEST_LOADER_H
