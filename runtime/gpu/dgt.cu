//===- dgt.cu - the hierarchical DGT on the GPU ---------------------------===//
//
// Section 3.2's four-step DGT: each pass is one launch over every limb
// (blockIdx.y), each block transforming a tile of the R x C matrix of one
// limb in shared memory:
//   - a column tile is R rows of T adjacent columns: its global words are T
//     contiguous Gaussians per row, at least one 32-byte sector, so loads and
//     stores coalesce although a column is strided by C;
//   - a row tile is B whole rows, one contiguous run of B C Gaussians.
// The butterfly twiddles a pass needs (entries [1, L) for an L-point DGT,
// dgt.h) sit in shared memory; the twist and step-2 factors are read once
// per element, coalesced, where the element is loaded or stored.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/gpu/dgt.cuh"

#include "ringfuse/gpu/resources.cuh"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/number_theory.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>

namespace ringfuse::runtime::cuda {

namespace {

constexpr unsigned kMaxThreads = 256;
/// Bytes of Gaussians one block holds (re and im arrays): 16 KiB leaves room
/// for several blocks per SM under the default 48 KiB, without opt-in.
constexpr size_t kTileBytes = 16384;

void checkCuda(cudaError_t error, const char *call) {
  if (error != cudaSuccess)
    throw Error(std::string(call) + " failed: " + cudaGetErrorName(error) +
                " (" + cudaGetErrorString(error) + ")");
}

/// A block's shared memory: L butterfly twiddles, then the tile's real and
/// imaginary parts (Shoup constants are 8 or 16 bytes, so the Word arrays
/// that follow stay aligned).
template <typename Word> struct SharedTile {
  typename DgtWord<Word>::Shoup *twiddles;
  Word *re;
  Word *im;
};

template <typename Word>
__device__ SharedTile<Word> carveShared(size_t twiddleCount, size_t tile) {
  extern __shared__ __align__(16) unsigned char dgtShared[];
  SharedTile<Word> s;
  s.twiddles = reinterpret_cast<typename DgtWord<Word>::Shoup *>(dgtShared);
  s.re = reinterpret_cast<Word *>(s.twiddles + twiddleCount);
  s.im = s.re + tile;
  return s;
}

template <typename Word> size_t sharedBytes(size_t twiddleCount, size_t tile) {
  return twiddleCount * sizeof(typename DgtWord<Word>::Shoup) +
         2 * tile * sizeof(Word);
}

template <typename Word>
__device__ void loadTwiddles(typename DgtWord<Word>::Shoup *to,
                             const typename DgtWord<Word>::Shoup *from,
                             size_t count) {
  for (size_t e = threadIdx.x; e < count; e += blockDim.x)
    to[e] = from[e];
}

/// Where butterfly t of a stage (pairs len apart) of `lines` L-point DGTs in
/// shared memory works: pair b of line l, offset j = b % len in its block,
/// so its Gaussians are k = 2b - j and k + len, as in dgt.cpp's loops.
/// Column tiles hold Gaussian k of line l at k T + l and give adjacent
/// threads adjacent lines; row tiles hold it at l L + k and give adjacent
/// threads adjacent pairs: either way a warp touches adjacent words once the
/// pairs are a few apart, rather than words a whole line apart. Indices
/// within a limb are below 2^17, so they are 32-bit (a 64-bit integer
/// operation costs the GPU two); only a limb's base is a size_t.
struct ButterflyAt {
  unsigned x, y, j;
};

template <bool ColumnPass>
__device__ ButterflyAt butterflyAt(unsigned t, unsigned len, unsigned logL,
                                   unsigned logLines) {
  unsigned line, b;
  if (ColumnPass) {
    line = t & ((unsigned(1) << logLines) - 1);
    b = t >> logLines;
  } else {
    b = t & ((unsigned(1) << (logL - 1)) - 1);
    line = t >> (logL - 1);
  }
  const unsigned j = b & (len - 1), k = 2 * b - j;
  if (ColumnPass)
    return {(k << logLines) + line, ((k + len) << logLines) + line, j};
  return {(line << logL) + k, (line << logL) + k + len, j};
}

/// The Gentleman-Sande stages (len = L/2 ... 1) of a tile's lines.
template <bool ColumnPass, typename Word>
__device__ void gentlemanSandeStages(SharedTile<Word> s, unsigned logL,
                                     unsigned logLines, Word p) {
  const unsigned length = unsigned(1) << logL;
  const unsigned butterflies = (length / 2) << logLines;
  for (unsigned len = length / 2; len >= 1; len /= 2) {
    for (unsigned t = threadIdx.x; t < butterflies; t += blockDim.x) {
      const ButterflyAt at = butterflyAt<ColumnPass>(t, len, logL, logLines);
      dgtForwardButterfly(s.re[at.x], s.im[at.x], s.re[at.y], s.im[at.y],
                          s.twiddles[len + at.j], p);
    }
    __syncthreads();
  }
}

/// The Cooley-Tukey stages (len = 1 ... L/2) of a tile's lines.
template <bool ColumnPass, typename Word>
__device__ void cooleyTukeyStages(SharedTile<Word> s, unsigned logL,
                                  unsigned logLines, Word p) {
  const unsigned length = unsigned(1) << logL;
  const unsigned butterflies = (length / 2) << logLines;
  for (unsigned len = 1; len < length; len *= 2) {
    for (unsigned t = threadIdx.x; t < butterflies; t += blockDim.x) {
      const ButterflyAt at = butterflyAt<ColumnPass>(t, len, logL, logLines);
      dgtInverseButterfly(s.re[at.x], s.im[at.x], s.re[at.y], s.im[at.y],
                          s.twiddles[len + at.j], p);
    }
    __syncthreads();
  }
}

// Column tiles: R rows x T columns (T = 2^logTile), starting at column
// blockIdx.x * T. Shared element e = r T + t is Gaussian r C + c0 + t.

__device__ __forceinline__ unsigned columnTileGaussian(unsigned e,
                                                       unsigned logTile,
                                                       unsigned logColumns,
                                                       unsigned c0) {
  return ((e >> logTile) << logColumns) + c0 +
         (e & ((unsigned(1) << logTile) - 1));
}

/// Forward pass 1: fold (the layout) and twist, R-point DGTs down the
/// columns, step-2 twiddles; words below 2p out.
template <typename Word>
__global__ void dgtForwardColumns(DgtPlan<Word> plan, Word *data,
                                  unsigned logTile) {
  const DgtLimb<Word> limb = plan.limbs[blockIdx.y];
  const unsigned rows = unsigned(1) << plan.logRows;
  const unsigned m = unsigned(1) << (plan.logN - 1), tile = rows << logTile;
  const unsigned c0 = unsigned(blockIdx.x) << logTile;
  const unsigned logColumns = plan.logColumns;
  Word *re = data + (size_t(blockIdx.y) << plan.logN), *im = re + m;
  SharedTile<Word> s = carveShared<Word>(rows, tile);
  loadTwiddles<Word>(s.twiddles, limb.twiddles, rows);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    const unsigned g = columnTileGaussian(e, logTile, logColumns, c0);
    Word a = re[g], b = im[g];
    dgtMultiplyGaussianLazy(a, b, limb.twist[g], limb.p);
    s.re[e] = a;
    s.im[e] = b;
  }
  __syncthreads();
  gentlemanSandeStages<true>(s, plan.logRows, logTile, limb.p);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    const unsigned g = columnTileGaussian(e, logTile, logColumns, c0);
    const auto w = limb.stepTwiddles[g];
    re[g] = mulShoupLazy(s.re[e], w, limb.p);
    im[g] = mulShoupLazy(s.im[e], w, limb.p);
  }
}

/// Inverse pass 2: R-point inverse DGTs down the columns, untwist times
/// M^{-1}, reduction to [0, p).
template <typename Word>
__global__ void dgtInverseColumns(DgtPlan<Word> plan, Word *data,
                                  unsigned logTile) {
  const DgtLimb<Word> limb = plan.limbs[blockIdx.y];
  const unsigned rows = unsigned(1) << plan.logRows;
  const unsigned m = unsigned(1) << (plan.logN - 1), tile = rows << logTile;
  const unsigned c0 = unsigned(blockIdx.x) << logTile;
  const unsigned logColumns = plan.logColumns;
  Word *re = data + (size_t(blockIdx.y) << plan.logN), *im = re + m;
  SharedTile<Word> s = carveShared<Word>(rows, tile);
  loadTwiddles<Word>(s.twiddles, limb.inverseTwiddles, rows);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    const unsigned g = columnTileGaussian(e, logTile, logColumns, c0);
    s.re[e] = re[g];
    s.im[e] = im[g];
  }
  __syncthreads();
  cooleyTukeyStages<true>(s, plan.logRows, logTile, limb.p);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    const unsigned g = columnTileGaussian(e, logTile, logColumns, c0);
    Word a = s.re[e], b = s.im[e];
    dgtMultiplyGaussianLazy(a, b, limb.untwist[g], limb.p);
    re[g] = dgtReduceFromTwoP(a, limb.p);
    im[g] = dgtReduceFromTwoP(b, limb.p);
  }
}

// Row tiles: B = 2^logTile whole rows from row blockIdx.x * B, Gaussians
// [blockIdx.x * B C, + B C) in order.

/// Forward pass 2: C-point DGTs along the rows, reduction to [0, p).
template <typename Word>
__global__ void dgtForwardRows(DgtPlan<Word> plan, Word *data,
                               unsigned logTile) {
  const DgtLimb<Word> limb = plan.limbs[blockIdx.y];
  const unsigned columns = unsigned(1) << plan.logColumns;
  const unsigned m = unsigned(1) << (plan.logN - 1), tile = columns << logTile;
  Word *re = data + (size_t(blockIdx.y) << plan.logN) + blockIdx.x * tile;
  Word *im = re + m;
  SharedTile<Word> s = carveShared<Word>(columns, tile);
  loadTwiddles<Word>(s.twiddles, limb.twiddles, columns);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    s.re[e] = re[e];
    s.im[e] = im[e];
  }
  __syncthreads();
  gentlemanSandeStages<false>(s, plan.logColumns, logTile, limb.p);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    re[e] = dgtReduceFromTwoP(s.re[e], limb.p);
    im[e] = dgtReduceFromTwoP(s.im[e], limb.p);
  }
}

/// Inverse pass 1: C-point inverse DGTs along the rows, then the inverse
/// step-2 twiddles (words below 4p in, below 2p out).
template <typename Word>
__global__ void dgtInverseRows(DgtPlan<Word> plan, Word *data,
                               unsigned logTile) {
  const DgtLimb<Word> limb = plan.limbs[blockIdx.y];
  const unsigned columns = unsigned(1) << plan.logColumns;
  const unsigned m = unsigned(1) << (plan.logN - 1), tile = columns << logTile;
  const unsigned first = blockIdx.x * tile;
  Word *re = data + (size_t(blockIdx.y) << plan.logN) + first;
  Word *im = re + m;
  SharedTile<Word> s = carveShared<Word>(columns, tile);
  loadTwiddles<Word>(s.twiddles, limb.inverseTwiddles, columns);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    s.re[e] = re[e];
    s.im[e] = im[e];
  }
  __syncthreads();
  cooleyTukeyStages<false>(s, plan.logColumns, logTile, limb.p);
  for (unsigned e = threadIdx.x; e < tile; e += blockDim.x) {
    const auto w = limb.inverseStepTwiddles[first + e];
    re[e] = mulShoupLazy(s.re[e], w, limb.p);
    im[e] = mulShoupLazy(s.im[e], w, limb.p);
  }
}


/// How a launch tiles the matrix: log2 of the columns per column tile (at
/// least one 32-byte sector of words, at most C) and of the rows per row
/// tile (at most R).
struct Tiling {
  unsigned logColumnTile, logRowTile;
};

template <typename Word> Tiling tilingFor(const DgtPlan<Word> &plan) {
  const unsigned logTile = log2Exact(kTileBytes / (2 * sizeof(Word)));
  const unsigned logSector = log2Exact(32 / sizeof(Word));
  unsigned logColumnTile = logTile > plan.logRows ? logTile - plan.logRows : 0;
  logColumnTile = std::min(std::max(logColumnTile, logSector), plan.logColumns);
  unsigned logRowTile =
      logTile > plan.logColumns ? logTile - plan.logColumns : 0;
  logRowTile = std::min(logRowTile, plan.logRows);
  return {logColumnTile, logRowTile};
}

/// A thread per butterfly of a stage, up to kMaxThreads, at least a warp.
unsigned threadsFor(size_t tile) {
  return static_cast<unsigned>(
      std::min<size_t>(kMaxThreads, std::max<size_t>(32, tile / 2)));
}

/// Launches one pass over every limb: `kernel` on column tiles or on row
/// tiles, as `tilingFor` cuts the matrix.
template <typename Word, typename Kernel>
void launchPass(const DgtPlan<Word> &plan, bool columnsPass, Kernel kernel,
                const char *name, Word *data, cudaStream_t stream) {
  const Tiling tiling = tilingFor(plan);
  const size_t rows = size_t(1) << plan.logRows;
  const size_t columns = size_t(1) << plan.logColumns;
  const unsigned logTile =
      columnsPass ? tiling.logColumnTile : tiling.logRowTile;
  // A column tile is R rows of 2^logTile columns, a row tile 2^logTile rows
  // of C; the transform runs along the first of the two.
  const size_t length = columnsPass ? rows : columns;
  const size_t tiles = (columnsPass ? columns : rows) >> logTile;
  const size_t tile = length << logTile;
  kernel<<<dim3(static_cast<unsigned>(tiles),
                static_cast<unsigned>(plan.limbCount)),
           threadsFor(tile), sharedBytes<Word>(length, tile), stream>>>(
      plan, data, logTile);
  checkLaunch(name);
}

template <typename Word>
void forward(const DgtPlan<Word> &plan, Word *data, cudaStream_t stream) {
  if (plan.limbCount <= 0)
    return;
  launchPass(plan, true, dgtForwardColumns<Word>, "dgtForwardColumns", data,
             stream);
  launchPass(plan, false, dgtForwardRows<Word>, "dgtForwardRows", data,
             stream);
}

template <typename Word>
void inverse(const DgtPlan<Word> &plan, Word *data, cudaStream_t stream) {
  if (plan.limbCount <= 0)
    return;
  launchPass(plan, false, dgtInverseRows<Word>, "dgtInverseRows", data,
             stream);
  launchPass(plan, true, dgtInverseColumns<Word>, "dgtInverseColumns", data,
             stream);
}

/// Every Gaussian pair of every limb (blockIdx.y) to the NTT's words or back.
template <typename Word, bool TO_NTT>
__global__ void nttOrderPairs(DgtPlan<Word> plan, Word *data) {
  const size_t m = size_t(1) << (plan.logN - 1);
  const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= m)
    return;
  const DgtLimb<Word> &limb = plan.limbs[blockIdx.y];
  Word *words = data + size_t(blockIdx.y) * 2 * m;
  if constexpr (TO_NTT)
    dgtToNttPair(words[k], words[m + k], limb.nttOrderFactor, limb.p);
  else
    nttToDgtPair(words[k], words[m + k], limb.half, limb.halfOverFactor,
                 limb.p);
}

template <bool TO_NTT>
void launchNttOrderPairs(const DgtPlan<uint64_t> &plan, uint64_t *data,
                         cudaStream_t stream) {
  constexpr unsigned kThreads = 256;
  const size_t m = size_t(1) << (plan.logN - 1);
  nttOrderPairs<uint64_t, TO_NTT>
      <<<dim3(static_cast<unsigned>((m + kThreads - 1) / kThreads),
              static_cast<unsigned>(plan.limbCount)),
         kThreads, 0, stream>>>(plan, data);
  checkLaunch(TO_NTT ? "nttOrderPairs (to the NTT's order)"
                     : "nttOrderPairs (from the NTT's order)");
}

/// Offsets of one limb's tables in the upload, each 16-byte aligned.
size_t alignUp(size_t bytes) { return (bytes + 15) & ~size_t(15); }

} // namespace

void launchDgtForward(const DgtPlan<uint64_t> &plan, uint64_t *data,
                      cudaStream_t stream) {
  forward(plan, data, stream);
}
void launchDgtInverse(const DgtPlan<uint64_t> &plan, uint64_t *data,
                      cudaStream_t stream) {
  inverse(plan, data, stream);
}

void launchDgtForwardAsNtt(const DgtPlan<uint64_t> &plan, uint64_t *data,
                           cudaStream_t stream) {
  if (plan.limbCount <= 0)
    return;
  forward(plan, data, stream);
  launchNttOrderPairs<true>(plan, data, stream);
}

void launchDgtInverseAsNtt(const DgtPlan<uint64_t> &plan, uint64_t *data,
                           cudaStream_t stream) {
  if (plan.limbCount <= 0)
    return;
  launchNttOrderPairs<false>(plan, data, stream);
  inverse(plan, data, stream);
}

// Device tables ---------------------------------------------------------------

template <typename Word>
DgtPlan<Word> layOutDgtTables(const std::vector<const DgtTables<Word> *> &limbs,
                              uintptr_t base,
                              std::vector<unsigned char> &bytes) {
  using Shoup = typename DgtWord<Word>::Shoup;
  if (limbs.empty())
    throw Error("DGT device tables need at least one limb; found none");
  const size_t n = limbs[0]->degree(), m = n / 2;
  for (const DgtTables<Word> *t : limbs)
    if (t->degree() != n)
      throw Error("DGT limbs of one launch share N: found N = " +
                  std::to_string(t->degree()) +
                  " beside N = " + std::to_string(n));
  // Per limb: twist, untwist, then four real tables, each of M entries.
  const size_t gaussianBytes = alignUp(m * sizeof(GaussianShoup<Word>));
  const size_t realBytes = alignUp(m * sizeof(Shoup));
  const size_t limbBytes = 2 * gaussianBytes + 4 * realBytes;
  const size_t limbArrayOffset = limbs.size() * limbBytes;
  bytes.assign(limbArrayOffset + limbs.size() * sizeof(DgtLimb<Word>), 0);
  std::vector<DgtLimb<Word>> limbViews(limbs.size());
  for (size_t l = 0; l < limbs.size(); ++l) {
    const DgtTables<Word> &t = *limbs[l];
    size_t offset = l * limbBytes;
    auto place = [&](const auto &table, size_t tableBytes) {
      using Entry = typename std::decay_t<decltype(table)>::value_type;
      std::memcpy(bytes.data() + offset, table.data(),
                  table.size() * sizeof(Entry));
      const Entry *at = reinterpret_cast<const Entry *>(base + offset);
      offset += tableBytes;
      return at;
    };
    DgtLimb<Word> &view = limbViews[l];
    view.p = t.modulus();
    view.twist = place(t.twist(), gaussianBytes);
    view.untwist = place(t.untwist(), gaussianBytes);
    view.twiddles = place(t.twiddles(), realBytes);
    view.inverseTwiddles = place(t.inverseTwiddles(), realBytes);
    view.stepTwiddles = place(t.stepTwiddles(), realBytes);
    view.inverseStepTwiddles = place(t.inverseStepTwiddles(), realBytes);
    view.nttOrderFactor = t.nttOrderFactor();
    view.half = t.half();
    view.halfOverFactor = t.halfOverFactor();
  }
  std::memcpy(bytes.data() + limbArrayOffset, limbViews.data(),
              limbViews.size() * sizeof(DgtLimb<Word>));
  const DgtShape shape = limbs[0]->shape();
  DgtPlan<Word> plan{};
  plan.limbs = reinterpret_cast<const DgtLimb<Word> *>(base + limbArrayOffset);
  plan.limbCount = static_cast<int>(limbs.size());
  plan.logN = log2Exact(n);
  plan.logRows = log2Exact(shape.rows);
  plan.logColumns = log2Exact(shape.columns);
  return plan;
}

template <typename Word>
DgtDeviceTables<Word>::DgtDeviceTables(
    const std::vector<const DgtTables<Word> *> &limbs) {
  std::vector<unsigned char> bytes;
  layOutDgtTables(limbs, 0, bytes); // for the size
  checkCuda(cudaMalloc(&storage_, bytes.size()),
            "cudaMalloc of the DGT tables");
  plan_ = layOutDgtTables(limbs, reinterpret_cast<uintptr_t>(storage_), bytes);
  cudaError_t copied =
      cudaMemcpy(storage_, bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
  if (copied != cudaSuccess) {
    cudaFree(storage_);
    storage_ = nullptr;
    checkCuda(copied, "cudaMemcpy of the DGT tables");
  }
}

template <typename Word> DgtDeviceTables<Word>::~DgtDeviceTables() {
  // Nothing to report from a destructor; a sticky fault shows up on the
  // next checked call.
  if (storage_)
    cudaFree(storage_);
}

template DgtPlan<uint64_t>
layOutDgtTables(const std::vector<const DgtTables<uint64_t> *> &, uintptr_t,
                std::vector<unsigned char> &);
template class DgtDeviceTables<uint64_t>;

} // namespace ringfuse::runtime::cuda
