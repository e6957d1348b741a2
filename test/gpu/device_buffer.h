//===- device_buffer.h - device copies of host vectors for GPU tests ------===//
#ifndef RINGFUSE_TEST_GPU_DEVICE_BUFFER_H
#define RINGFUSE_TEST_GPU_DEVICE_BUFFER_H

#include "ringfuse/runtime/error.h"

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace ringfuse::runtime::testing {

inline void checkCuda(cudaError_t error, const char *call) {
  if (error != cudaSuccess)
    throw Error(std::string(call) + " failed: " + cudaGetErrorString(error));
}

/// `count` device values, freed with the object; every copy is checked.
template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    checkCuda(cudaMalloc(&data_, count * sizeof(T)), "cudaMalloc");
  }
  explicit DeviceBuffer(const std::vector<T> &host) : DeviceBuffer(host.size()) {
    upload(host);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { cudaFree(data_); }

  T *data() const { return data_; }
  void upload(const std::vector<T> &from) {
    checkCuda(cudaMemcpy(data_, from.data(), count_ * sizeof(T),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy to the device");
  }
  std::vector<T> download() const {
    std::vector<T> to(count_);
    checkCuda(cudaMemcpy(to.data(), data_, count_ * sizeof(T),
                         cudaMemcpyDeviceToHost),
              "cudaMemcpy from the device");
    return to;
  }

private:
  T *data_ = nullptr;
  size_t count_;
};

} // namespace ringfuse::runtime::testing

#endif // RINGFUSE_TEST_GPU_DEVICE_BUFFER_H
