//===- timing_events.cuh - CUDA events for timed runs ----------*- CUDA -*-===//
//
// Pairs of CUDA events bracketing timed runs on a stream, shared by the
// driver's Program::timeRuns and the GPU client's encrypt/decrypt timings.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_TIMING_EVENTS_CUH
#define RINGFUSE_GPU_TIMING_EVENTS_CUH

#include "ringfuse/gpu/resources.cuh"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

namespace ringfuse::runtime::cuda {

/// `count` start/stop event pairs, destroyed with their holder.
class TimingEvents {
public:
  explicit TimingEvents(size_t count) : starts_(count), stops_(count) {
    for (size_t i = 0; i < count; ++i) {
      check(cudaEventCreate(&starts_[i]), "creating a timing event");
      check(cudaEventCreate(&stops_[i]), "creating a timing event");
    }
  }
  ~TimingEvents() {
    // Errors are ignored: a destructor cannot report them.
    for (cudaEvent_t event : starts_)
      if (event)
        cudaEventDestroy(event);
    for (cudaEvent_t event : stops_)
      if (event)
        cudaEventDestroy(event);
    cudaGetLastError();
  }
  TimingEvents(const TimingEvents &) = delete;
  TimingEvents &operator=(const TimingEvents &) = delete;

  void recordStart(size_t i, cudaStream_t stream) const {
    check(cudaEventRecord(starts_[i], stream), "recording a timing event");
  }
  void recordStop(size_t i, cudaStream_t stream) const {
    check(cudaEventRecord(stops_[i], stream), "recording a timing event");
  }

  /// Each pair's time in microseconds; the stream must have been waited for.
  std::vector<double> microseconds() const {
    std::vector<double> result;
    result.reserve(starts_.size());
    for (size_t i = 0; i < starts_.size(); ++i) {
      float milliseconds = 0;
      check(cudaEventElapsedTime(&milliseconds, starts_[i], stops_[i]),
            "reading a timing event");
      result.push_back(1000.0 * static_cast<double>(milliseconds));
    }
    return result;
  }

private:
  std::vector<cudaEvent_t> starts_, stops_;
};

} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_TIMING_EVENTS_CUH
