//===- host_memory.h - what the machine can still give -----*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_HOST_MEMORY_H
#define RINGFUSE_RUNTIME_HOST_MEMORY_H

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <optional>
#include <string>

namespace ringfuse::runtime {

/// The bytes the machine can still give a process: Linux's estimate of
/// memory available without swapping, plus free swap, or less where the
/// process's cgroup (a container's limit, v2) leaves less; none where
/// /proc/meminfo says neither (another system).
inline std::optional<uint64_t> availableHostBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0, available = 0;
  bool found = false;
  while (meminfo >> key >> kib) {
    if (key == "MemAvailable:" || key == "SwapFree:") {
      available += kib * 1024;
      found = true;
    }
    meminfo.ignore(64, '\n'); // the unit, "kB"
  }
  if (!found)
    return std::nullopt;
  // "max" (no limit) does not parse as a number and leaves the estimate.
  // The cgroup's file cache counts as free: the kernel reclaims it before
  // it ends a process, and counting it as used would refuse what fits.
  uint64_t limit = 0, used = 0, cache = 0, value = 0;
  std::ifstream max("/sys/fs/cgroup/memory.max"),
      current("/sys/fs/cgroup/memory.current"),
      stat("/sys/fs/cgroup/memory.stat");
  if (max >> limit && current >> used) {
    while (stat >> key >> value)
      if (key == "file")
        cache = value;
    used -= std::min(used, cache);
    available = std::min(available, limit > used ? limit - used : 0);
  }
  return available;
}

/// Throws OutOfHostMemory, saying what needed how much, unless the machine
/// can give `bytes` more.
inline void requireHostBytes(uint64_t bytes, const std::string &what) {
  std::optional<uint64_t> available = availableHostBytes();
  if (available && bytes > *available)
    throw OutOfHostMemory("not enough memory: " + what + " needs " +
                          std::to_string(bytes >> 20) +
                          " MiB (the machine has " +
                          std::to_string(*available >> 20) + " MiB available)");
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_HOST_MEMORY_H
