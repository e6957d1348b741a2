//===- resources.cuh - streams, memory, events, graphs, errors -*- CUDA -*-===//
//
// The GPU resource layer that the CUDA driver of compiled programs and the
// GPU client (keys, encryption, decryption) share: every CUDA call checked
// into an Error that says what was being done, and RAII owners of streams,
// events, device and pinned memory and graphs. Destructors ignore errors
// (they cannot report them, and at process exit the CUDA runtime may be
// gone) and clear the error state they leave.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_RESOURCES_CUH
#define RINGFUSE_GPU_RESOURCES_CUH

#include "ringfuse/runtime/error.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ringfuse::runtime::cuda {

/// Whether this process works on the GPU (a program loaded for CUDA, the GPU
/// client, memory on the device): only then are host batches pinned, since
/// pinning makes a CUDA context, which costs GPU memory a process that stays
/// on the CPU (a CPU worker beside GPU ones) should not take.
inline std::atomic<bool> &processUsesGpu() {
  static std::atomic<bool> uses{false};
  return uses;
}

/// "cudaErrorX (what it means)".
inline std::string describe(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" +
         cudaGetErrorString(error) + ")";
}

/// Throws an OutOfDeviceMemory saying what was being done and how much
/// memory the GPU has (defined below).
[[noreturn]] inline void throwOutOfDeviceMemory(const std::string &what);

/// Throws if a CUDA API call failed, saying what was being done. A call that
/// ran out of device memory (an allocation, or a stream, event or graph that
/// needed some) is an OutOfDeviceMemory: the process keeps working.
inline void check(cudaError_t error, const std::string &what) {
  if (error == cudaErrorMemoryAllocation)
    throwOutOfDeviceMemory("not enough GPU memory while " + what);
  if (error != cudaSuccess)
    throw Error("CUDA error while " + what + ": " + describe(error));
}

/// Throws if the kernel launch just made failed.
inline void checkLaunch(const char *kernel) {
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess)
    throw Error(std::string("CUDA kernel ") + kernel +
                " failed to launch: " + describe(error));
}

/// Whether a CUDA device is visible (cudaGetDeviceCount > 0).
inline bool deviceVisible() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0;
}

/// "12 MiB", rounded up.
inline std::string mebibytes(size_t bytes) {
  return std::to_string((bytes + (size_t(1) << 20) - 1) >> 20) + " MiB";
}

/// The current device's stream-ordered pool (cudaMallocAsync's).
inline cudaMemPool_t devicePool() {
  int device = 0;
  cudaMemPool_t pool = nullptr;
  check(cudaGetDevice(&device), "finding the current GPU");
  check(cudaDeviceGetDefaultMemPool(&pool, device),
        "finding the GPU's memory pool");
  return pool;
}

/// Device memory an allocation may still get (what the device has free plus
/// what the pool holds but no allocation uses: the runtime keeps freed
/// ciphertexts' memory pooled) and the device's total; false if CUDA could
/// not say. Throws nothing, so that an error's message may use it.
inline bool queryDeviceMemory(size_t &available, size_t &total) {
  size_t freeBytes = 0;
  int device = 0;
  cudaMemPool_t pool = nullptr;
  unsigned long long reserved = 0, used = 0; // the attributes are cuuint64_t
  const bool known =
      cudaMemGetInfo(&freeBytes, &total) == cudaSuccess &&
      cudaGetDevice(&device) == cudaSuccess &&
      cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent,
                              &reserved) == cudaSuccess &&
      cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) ==
          cudaSuccess;
  if (!known) {
    cudaGetLastError();
    return false;
  }
  available = freeBytes + static_cast<size_t>(reserved - std::min(reserved, used));
  return true;
}

/// queryDeviceMemory's available bytes (and total), or an Error.
inline size_t availableDeviceBytes(size_t *totalBytes = nullptr) {
  size_t available = 0, total = 0;
  if (!queryDeviceMemory(available, total))
    throw Error("CUDA could not say how much GPU memory is free");
  if (totalBytes)
    *totalBytes = total;
  return available;
}

[[noreturn]] inline void throwOutOfDeviceMemory(const std::string &what) {
  cudaGetLastError(); // out of memory is not sticky: clear it
  size_t available = 0, total = 0;
  if (!queryDeviceMemory(available, total))
    throw OutOfDeviceMemory(what);
  throw OutOfDeviceMemory(what + " (the GPU has " + mebibytes(available) +
                          " free of " + mebibytes(total) + ")");
}

/// Waits for every queued free and gives the memory the pool holds unused
/// back to the device, where allocations other than the pool's (cudaMalloc,
/// streams, graphs) can take it.
inline void releasePooledMemory() {
  check(cudaDeviceSynchronize(), "waiting for the GPU to free memory");
  check(cudaMemPoolTrimTo(devicePool(), 0),
        "returning pooled GPU memory to the device");
}

/// Calls allocate(); if the device is out of memory, waits for every queued
/// free, gives the pool's unused memory back to the device and calls it
/// once more, then throws OutOfDeviceMemory. Other errors are Errors.
template <typename Allocate>
void allocateOrExplain(Allocate allocate, size_t bytes,
                       const std::string &what) {
  cudaError_t allocated = allocate();
  if (allocated == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    releasePooledMemory();
    allocated = allocate();
  }
  if (allocated == cudaErrorMemoryAllocation)
    throwOutOfDeviceMemory("not enough GPU memory: " + what + " needs " +
                           mebibytes(bytes));
  check(allocated,
        "allocating " + mebibytes(bytes) + " of GPU memory for " + what);
}

/// A non-blocking stream, destroyed with its holder (pending work still
/// completes).
class Stream {
public:
  Stream() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
          "creating a stream");
  }
  ~Stream() {
    if (stream_)
      cudaStreamDestroy(stream_);
    cudaGetLastError();
  }
  Stream(Stream &&other) noexcept
      : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  cudaStream_t get() const { return stream_; }

private:
  cudaStream_t stream_ = nullptr;
};

/// An event without timing (for ordering streams).
class Event {
public:
  Event() {
    check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming),
          "creating an event");
  }
  ~Event() {
    if (event_)
      cudaEventDestroy(event_);
    cudaGetLastError();
  }
  Event(Event &&other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;
  cudaEvent_t get() const { return event_; }

private:
  cudaEvent_t event_ = nullptr;
};

/// `count` values of device memory, allocated and freed in the order of
/// `stream` (cudaMallocAsync / cudaFreeAsync), so that freeing one after an
/// error never races a kernel still queued on it.
template <typename T> class DeviceArray {
public:
  DeviceArray() = default;
  DeviceArray(size_t count, cudaStream_t stream, const std::string &what)
      : count_(count), stream_(stream) {
    if (count)
      allocateOrExplain(
          [&] {
            return cudaMallocAsync(reinterpret_cast<void **>(&data_),
                                   count * sizeof(T), stream);
          },
          count * sizeof(T), what);
  }
  /// An allocation holding a copy of host[0 .. count).
  DeviceArray(const T *host, size_t count, cudaStream_t stream,
              const std::string &what)
      : DeviceArray(count, stream, what) {
    upload(host, count, what);
  }
  DeviceArray(const std::vector<T> &host, cudaStream_t stream,
              const std::string &what)
      : DeviceArray(host.data(), host.size(), stream, what) {}
  ~DeviceArray() { release(); }
  DeviceArray(DeviceArray &&other) noexcept { *this = std::move(other); }
  DeviceArray &operator=(DeviceArray &&other) noexcept {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  DeviceArray(const DeviceArray &) = delete;
  DeviceArray &operator=(const DeviceArray &) = delete;

  T *data() const { return data_; }
  size_t size() const { return count_; }

  /// this[offset .. offset + count) into host (queued on the stream).
  void download(T *host, size_t count, const std::string &what,
                size_t offset = 0) const {
    if (count)
      check(cudaMemcpyAsync(host, data_ + offset, count * sizeof(T),
                            cudaMemcpyDeviceToHost, stream_),
            "downloading " + what);
  }
  /// host[0 .. count) into this[offset .. offset + count) (queued on the
  /// stream).
  void upload(const T *host, size_t count, const std::string &what,
              size_t offset = 0) {
    if (count)
      check(cudaMemcpyAsync(data_ + offset, host, count * sizeof(T),
                            cudaMemcpyHostToDevice, stream_),
            "uploading " + what);
  }
  void zero(const std::string &what) {
    if (count_)
      check(cudaMemsetAsync(data_, 0, count_ * sizeof(T), stream_),
            "clearing " + what);
  }

private:
  void release() {
    if (data_) {
      cudaFreeAsync(data_, stream_);
      cudaGetLastError();
    }
    data_ = nullptr;
  }

  T *data_ = nullptr;
  size_t count_ = 0;
  cudaStream_t stream_ = nullptr;
};

/// One allocation of device memory (cudaMalloc), freed with its holder. An
/// allocation that does not fit is an OutOfDeviceMemory that says how much
/// the GPU has.
class DeviceMemory {
public:
  DeviceMemory() = default;
  DeviceMemory(size_t bytes, const std::string &what) {
    allocateOrExplain([&] { return cudaMalloc(&data_, bytes); }, bytes, what);
  }
  ~DeviceMemory() {
    if (data_)
      cudaFree(data_);
    cudaGetLastError();
  }
  DeviceMemory(DeviceMemory &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)) {}
  DeviceMemory &operator=(DeviceMemory &&other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  unsigned char *get() const { return static_cast<unsigned char *>(data_); }

private:
  void *data_ = nullptr;
};

/// Pinned host memory (cudaMallocHost), for copies that do not wait.
class PinnedMemory {
public:
  PinnedMemory() = default;
  PinnedMemory(size_t bytes, const std::string &what) {
    check(cudaMallocHost(&data_, bytes),
          "allocating " + mebibytes(bytes) + " of pinned host memory for " +
              what);
  }
  ~PinnedMemory() {
    if (data_)
      cudaFreeHost(data_);
    cudaGetLastError();
  }
  PinnedMemory(PinnedMemory &&other) noexcept
      : data_(std::exchange(other.data_, nullptr)) {}
  PinnedMemory &operator=(PinnedMemory &&other) noexcept {
    std::swap(data_, other.data_);
    return *this;
  }
  PinnedMemory(const PinnedMemory &) = delete;
  PinnedMemory &operator=(const PinnedMemory &) = delete;

  unsigned char *get() const { return static_cast<unsigned char *>(data_); }

private:
  void *data_ = nullptr;
};

/// A captured graph and its executable instance, destroyed together.
class Graph {
public:
  Graph() = default;
  Graph(cudaGraph_t graph, cudaGraphExec_t exec) : graph_(graph), exec_(exec) {}
  ~Graph() { reset(); }
  Graph(Graph &&other) noexcept { *this = std::move(other); }
  Graph &operator=(Graph &&other) noexcept {
    if (this != &other) {
      reset();
      graph_ = std::exchange(other.graph_, nullptr);
      exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
  }
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;

  explicit operator bool() const { return exec_ != nullptr; }
  cudaGraphExec_t exec() const { return exec_; }

private:
  void reset() {
    if (exec_)
      cudaGraphExecDestroy(exec_);
    if (graph_)
      cudaGraphDestroy(graph_);
    graph_ = nullptr;
    exec_ = nullptr;
    cudaGetLastError();
  }

  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_RESOURCES_CUH
