//===- parallel.h - independent work items over threads ---------*- C++ -*-===//
//
// Batches run many independent instances (encryptions, decryptions, runs of
// a program); parallelFor spreads them over threads and reports a failure
// the way a sequential loop would: the lowest failing item's, named.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_PARALLEL_H
#define RINGFUSE_RUNTIME_PARALLEL_H

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace ringfuse::runtime {

/// `threads`, or with 0 one per hardware thread; never more than `items`.
inline size_t workersFor(size_t items, size_t threads) {
  if (threads == 0)
    threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  return std::min(threads, items);
}

/// Calls work(worker, item) for every item in [0, count) on `workers`
/// threads (the caller's is worker 0), each taking the next item from a
/// shared counter; after a failure no further item starts. Then throws, as
/// Error("<what> n: ..."), the failure of the lowest item i that failed (n
/// = i + `firstName`, for items that stand for a range's tail). A thread
/// that cannot be started leaves its items to the others.
template <typename Work>
void parallelFor(size_t count, size_t workers, const std::string &what,
                 Work &&work, size_t firstName = 0) {
  std::vector<std::exception_ptr> failures(count);
  std::atomic<size_t> next{0};
  std::atomic<bool> stopped{false};
  auto worker = [&](size_t w) {
    while (!stopped.load()) {
      const size_t i = next.fetch_add(1);
      if (i >= count)
        return;
      try {
        work(w, i);
      } catch (...) {
        failures[i] = std::current_exception();
        stopped = true;
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers > 0 ? workers - 1 : 0);
  for (size_t w = 1; w < workers; ++w) {
    try {
      pool.emplace_back(worker, w);
    } catch (const std::exception &) {
      break;
    }
  }
  worker(0);
  for (std::thread &thread : pool)
    thread.join();
  for (size_t i = 0; i < count; ++i) {
    if (!failures[i])
      continue;
    try {
      std::rethrow_exception(failures[i]);
    } catch (const std::exception &e) {
      throw Error(what + " " + std::to_string(i + firstName) + ": " + e.what());
    }
  }
}

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PARALLEL_H
