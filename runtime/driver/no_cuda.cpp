//===- no_cuda.cpp - the CUDA entry points of a runtime built without it ---===//
//
// Compiled only where CMake found no CUDA compiler (or RINGFUSE_CUDA=OFF):
// programs load for the CPU only, and nothing lives in GPU memory.
//
//===----------------------------------------------------------------------===//
#include "driver.h"

#include "ringfuse/runtime/ciphertext_batch.h"
#include "ringfuse/runtime/error.h"

#include <cstring>

namespace ringfuse::runtime {

namespace {
[[noreturn]] void builtWithoutCuda(const std::string &what) {
  throw Error("this ringfuse runtime was built without its CUDA driver (no "
              "CUDA compiler was found when it was configured, or "
              "RINGFUSE_CUDA=OFF): " +
              what);
}
} // namespace

namespace detail {
std::unique_ptr<Driver> makeCudaDriver(RfRuntime &) {
  builtWithoutCuda("load the program for the CPU, or rebuild the runtime "
                   "where nvcc is on PATH");
}
} // namespace detail

bool cudaAvailable() { return false; }

int cudaDeviceCount() { return 0; }

DeviceMemoryUse cudaMemory() { builtWithoutCuda("no GPU memory to read"); }

DeviceCiphertext uploadCiphertext(const Ciphertext &) {
  builtWithoutCuda("no ciphertexts in GPU memory");
}

Ciphertext downloadCiphertext(const DeviceCiphertext &) {
  builtWithoutCuda("no ciphertexts in GPU memory");
}

namespace detail {
std::shared_ptr<uint64_t> allocateBatchWords(size_t words,
                                             Placement placement) {
  if (placement == Placement::Device)
    builtWithoutCuda("no batches in GPU memory");
  return plainBatchWords(words);
}

void copyBatchWords(uint64_t *to, Placement toPlacement, const uint64_t *from,
                    Placement fromPlacement, size_t words) {
  if (toPlacement == Placement::Device || fromPlacement == Placement::Device)
    builtWithoutCuda("no batches in GPU memory");
  std::memcpy(to, from, words * sizeof(uint64_t));
}
} // namespace detail

double hostLinkBytesPerSecond(size_t, bool, int) {
  builtWithoutCuda("no host link to measure");
}

} // namespace ringfuse::runtime
