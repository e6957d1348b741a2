//===- ntt_launch.cuh - launching the NTT's steps -*- CUDA -*-===//
//
// The host side of a step: its shared memory, rows per block, and the
// dispatch from run-time sizes and radices to the instantiated kernels.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each NTT file that includes it compiles what it instantiates.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_NTT_LAUNCH_CUH
#define RINGFUSE_GPU_NTT_LAUNCH_CUH

#include "ntt_steps.cuh"

#include "ringfuse/gpu/resources.cuh"

#include <mutex>
#include <set>
#include <string>
#include <utility>

namespace ringfuse::runtime::cuda {
namespace {

// Launching ----------------------------------------------------------------

/// The column step over `batches` (grid z: the Io's sources of each
/// instance) of plan's limbs.
template <typename Word, bool FORWARD, unsigned LOG_M, unsigned R, typename Io>
void launchColumnSized(const BasicNttPlan<Word> &plan, unsigned logN, Io io,
                       unsigned batches, cudaStream_t stream) {
  const unsigned columns = 1u << (logN - LOG_M);
  const dim3 grid(columns / kNttBlockColumns,
                  static_cast<unsigned>(plan.limbCount), batches);
  launchDependent(
      FORWARD ? "nttColumnStep (forward)" : "nttColumnStep (inverse)",
      columnStep<Word, FORWARD, LOG_M, R, Io>, grid, nttColumnThreads(LOG_M, R),
      nttColumnSharedBytes(LOG_M), stream, plan, io, logN);
}

/// A row-step block's shared memory: per row its words and its twiddles,
/// plus, with on-the-fly twiddling, the table of N2 / 2 twiddles the rows
/// share (left out without it, so that more blocks fit an SM).
size_t rowSharedBytes(unsigned wordBytes, unsigned logN2, unsigned rows,
                      unsigned otStages) {
  const size_t m = size_t(1) << logN2;
  return rows * m * wordBytes * 3 + (otStages > 0 ? m / 2 * 2 * wordBytes : 0);
}

/// Rows per row-step block: enough for `threads` threads (the Io's
/// kBlockThreads), while the block's shared memory stays within the default
/// limit (one row may not).
unsigned rowsPerBlock(unsigned wordBytes, unsigned logN1, unsigned logN2,
                      unsigned radix, unsigned threads) {
  const unsigned threadsPerRow = (1u << logN2) / radix;
  unsigned rows = threadsPerRow >= threads ? 1 : threads / threadsPerRow;
  while (rows > 1 &&
         rowSharedBytes(wordBytes, logN2, rows, kNttMaxOtStages) > kNttSharedLimit)
    rows /= 2;
  return minOf(rows, 1u << logN1);
}

/// Kernels whose blocks need more than 48 KiB of shared memory must say so
/// on each device before their first launch there (the attribute belongs to
/// the device's context); done once per kernel and device.
template <typename Kernel> void allowSharedBytes(Kernel kernel, size_t bytes) {
  if (bytes <= kNttSharedLimit)
    return;
  int device = 0;
  cudaError_t error = cudaGetDevice(&device);
  if (error != cudaSuccess)
    throw Error(std::string("cannot find the current CUDA device: ") +
                cudaGetErrorString(error));
  static std::mutex mutex;
  static std::set<std::pair<const void *, int>> allowed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!allowed.emplace(reinterpret_cast<const void *>(kernel), device).second)
    return;
  error = cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
      static_cast<int>(bytes));
  if (error != cudaSuccess) {
    allowed.erase({reinterpret_cast<const void *>(kernel), device});
    throw Error(std::string("cannot give an NTT step ") +
                std::to_string(bytes) + " bytes of shared memory: " +
                cudaGetErrorString(error));
  }
}

/// Calls f(std::integral_constant<unsigned, V>{}) for the V of Values equal
/// to the run-time `value`, so that it can instantiate a kernel for it;
/// returns whether one was.
template <unsigned... Values, typename F>
bool withConstant(std::integer_sequence<unsigned, Values...>, unsigned value,
                  F f) {
  return ((value == Values
               ? (f(std::integral_constant<unsigned, Values>{}), true)
               : false) ||
          ...);
}

/// The row step over plan's limbs of each of `instances` instances (grid z).
template <typename Word, bool FORWARD, unsigned LOG_M, unsigned R, typename Io>
void launchRowSized(const BasicNttPlan<Word> &plan, unsigned logN1,
                    unsigned otStages, Io io, unsigned instances,
                    cudaStream_t stream) {
  const unsigned rows =
      rowsPerBlock(sizeof(Word), logN1, LOG_M, R, Io::kBlockThreads);
  const dim3 grid((1u << logN1) / rows, static_cast<unsigned>(plan.limbCount),
                  instances);
  const unsigned threads = rows * ((1u << LOG_M) / R);
  const size_t bytes = rowSharedBytes(sizeof(Word), LOG_M, rows, otStages);
  auto launch = [&](auto otConstant) {
    constexpr unsigned kOt = decltype(otConstant)::value;
    if constexpr (kOt <= LOG_M) {
      const auto kernel = rowStep<Word, FORWARD, LOG_M, R, kOt, Io>;
      // For the most rows any launch of this kernel packs.
      allowSharedBytes(kernel,
                       rowSharedBytes(sizeof(Word), LOG_M,
                                      rowsPerBlock(sizeof(Word), 31, LOG_M, R,
                                                   Io::kBlockThreads),
                                      kOt));
      launchDependent(
          Io::kKind == RowKind::keySwitch  ? "nttRowStep (key switching)"
          : Io::kKind == RowKind::products ? "nttRowStep (products)"
          : FORWARD                        ? "nttRowStep (forward)"
                                           : "nttRowStep (inverse)",
          kernel, grid, threads, bytes, stream, plan, io, logN1, rows);
    } else {
      throw Error("more OT stages than row-step stages");
    }
  };
  static_assert(kNttMaxOtStages == 2);
  if (!withConstant(std::integer_sequence<unsigned, 0, 1, 2>{}, otStages,
                    launch))
    throw Error("no NTT row step is instantiated for " +
                std::to_string(otStages) + " OT stages");
}

template <typename Word, bool FORWARD, typename Io> struct ColumnLauncher {
  const BasicNttPlan<Word> &plan;
  unsigned logN;
  Io io;
  unsigned batches;
  cudaStream_t stream;

  template <unsigned LOG, unsigned R> void launch() const {
    launchColumnSized<Word, FORWARD, LOG, R>(plan, logN, io, batches, stream);
  }
};

template <typename Word, bool FORWARD, typename Io> struct RowLauncher {
  const BasicNttPlan<Word> &plan;
  unsigned logN1, otStages;
  Io io;
  unsigned instances;
  cudaStream_t stream;

  template <unsigned LOG, unsigned R> void launch() const {
    launchRowSized<Word, FORWARD, LOG, R>(plan, logN1, otStages, io, instances,
                                          stream);
  }
};

constexpr auto kEveryRadix = std::integer_sequence<unsigned, 4, 8, 16>{};
// [4, kNttMaxColumnLog] and [1, kNttMaxRowLog].
static_assert(kNttMaxColumnLog == 8 && kNttMaxRowLog == 11);
constexpr auto kColumnLogs = std::integer_sequence<unsigned, 4, 5, 6, 7, 8>{};
constexpr auto kRowLogs =
    std::integer_sequence<unsigned, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>{};

/// Calls launcher.launch<LOG, R>() for the runtime (log, radix), R clipped to
/// the transform's size; throws if no instantiation has that log or radix
/// (the sequences must cover what isSupportedNttShape accepts, or for the
/// fused NTTs isSupportedFusedNttShape).
template <unsigned... Logs, unsigned... Radices, typename Launch>
void dispatch(std::integer_sequence<unsigned, Logs...> logs, unsigned log,
              unsigned radix, const Launch &launcher,
              std::integer_sequence<unsigned, Radices...> radices) {
  auto byRadix = [&](auto logConstant) {
    constexpr unsigned kLog = decltype(logConstant)::value;
    auto launch = [&](auto radixConstant) {
      constexpr unsigned kRadix = decltype(radixConstant)::value;
      launcher.template launch<kLog, minOf(kRadix, 1u << kLog)>();
    };
    if (!withConstant(radices, radix, launch))
      throw Error("no NTT step is instantiated for radix " +
                  std::to_string(radix));
  };
  if (!withConstant(logs, log, byRadix))
    throw Error("no NTT step is instantiated for 2^" + std::to_string(log) +
                " words");
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_NTT_LAUNCH_CUH
