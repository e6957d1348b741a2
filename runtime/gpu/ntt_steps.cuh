//===- ntt_steps.cuh - the NTT's column and row steps -*- CUDA -*-===//
//
// Twiddles, rounds of stages in registers exchanged through shared memory,
// and the two step kernels (ntt.cuh describes the decomposition), for every
// kind of row step: in place, key switching's sums, ntt_products' sums.
//
// Private to the GPU library; internal linkage (an anonymous namespace), so
// each NTT file that includes it compiles what it instantiates.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_NTT_STEPS_CUH
#define RINGFUSE_GPU_NTT_STEPS_CUH

#include "ntt_arithmetic.cuh"

#include "dependent_launch.cuh"
#include "ringfuse/gpu/kernels.cuh"

namespace ringfuse::runtime::cuda {
namespace {

// Twiddles -------------------------------------------------------------------

/// The column step's twiddles, powers[2^s + group] for s < log N1, from a copy
/// of powers[0, N1) in shared memory.
template <typename Word> struct ColumnTwiddles {
  const Shoup<Word> *powers;
  LazyModulus<Word> m;

  __device__ __forceinline__ Word times(Word y, unsigned stage,
                                        unsigned group) const {
    return m.times(y, powers[(1u << stage) + group]);
  }
};

/// stage >= FROM, without a comparison that is always true when FROM = 0.
template <unsigned FROM>
__device__ __forceinline__ constexpr bool isStageFrom(unsigned stage) {
  if constexpr (FROM == 0)
    return true;
  else
    return stage >= FROM;
}

/// The row step's twiddles for one row, copied to shared memory while the
/// first round's loads are in flight: stage logN1 + s of row r, group h
/// within the row, is powers[2^(logN1 + s) + r 2^s + h], kept at
/// rowPowers[2^s + h]. From stage OT_FROM on, only the h = 0 entry is kept and the twiddle is taken as that
/// times powers[h] (the indices' bits are disjoint, so psi^bitrev of their
/// sum is the product): a table of N2 / 2 words that every row of the limb
/// shares, in sharedPowers. OT_FROM is a template parameter so that, with
/// the rounds unrolled, each butterfly's choice is made at compile time and
/// no branch separates the butterflies of a round.
template <typename Word, unsigned OT_FROM> struct RowTwiddles {
  const Shoup<Word> *rowPowers;
  const Shoup<Word> *sharedPowers;
  LazyModulus<Word> m;

  __device__ __forceinline__ Word times(Word y, unsigned stage,
                                        unsigned group) const {
    if (isStageFrom<OT_FROM>(stage))
      return m.times(m.times(y, rowPowers[1u << stage]), sharedPowers[group]);
    return m.times(y, rowPowers[(1u << stage) + group]);
  }
};

// Rounds -------------------------------------------------------------------

/// One round of RK stages, from stage s0 of an M-word transform, for the
/// thread at index j < M / R of it. Forward rounds run their stages in
/// increasing order (Cooley-Tukey), inverse rounds in decreasing order
/// (Gentleman-Sande) over the same groups. load(b, o) / store(b, o, word)
/// address word b + o of the transform, where b is the group's base (known
/// at run time) and o its offset within the group (a compile-time constant
/// once unrolled; the two have disjoint bits, so b + o = b | o = b ^ o);
/// store also gets the word's slot among the thread's R (a constant too);
/// beforeLoad() runs just before the loads are issued and afterLoad() once
/// they are, before their words are used, so that work waiting on other
/// loads overlaps them.
template <typename Word, unsigned LOG_M, unsigned R, unsigned RK, bool FORWARD,
          typename BeforeLoad, typename Load, typename AfterLoad,
          typename Store, typename Twiddles>
__device__ __forceinline__ void
round(unsigned j, unsigned s0, BeforeLoad beforeLoad, Load load,
      AfterLoad afterLoad, Store store, const Twiddles &twiddles) {
  constexpr unsigned kSpan = 1u << RK, kGroups = R / kSpan;
  constexpr unsigned kThreadsPerTransform = (1u << LOG_M) / R;
  const unsigned logD = LOG_M - s0 - RK;
  unsigned base[kGroups], high[kGroups];
#pragma unroll
  for (unsigned m = 0; m < kGroups; ++m) {
    const unsigned g = j + m * kThreadsPerTransform;
    high[m] = g >> logD;
    base[m] = (high[m] << (logD + RK)) | (g & ((1u << logD) - 1));
  }
  Word x[R];
  beforeLoad();
#pragma unroll
  for (unsigned m = 0; m < kGroups; ++m)
#pragma unroll
    for (unsigned i = 0; i < kSpan; ++i)
      x[m * kSpan + i] = load(base[m], i << logD);
  afterLoad();

#pragma unroll
  for (unsigned step = 0; step < RK; ++step) {
    const unsigned u = FORWARD ? step : RK - 1 - step;
    const unsigned half = kSpan >> (u + 1);
    const unsigned stage = s0 + u;
#pragma unroll
    for (unsigned m = 0; m < kGroups; ++m)
#pragma unroll
      for (unsigned i = 0; i < kSpan; ++i) {
        if (i & half)
          continue;
        // (base + (i << logD)) >> (LOG_M - stage), spelled so that only
        // high[m] << u is left for run time.
        const unsigned group = (high[m] << u) | (i >> (RK - u));
        Word &a = x[m * kSpan + i], &b = x[m * kSpan + i + half];
        if constexpr (FORWARD) {
          forwardButterfly(a, b, twiddles.times(b, stage, group), twiddles.m);
        } else {
          b = twiddles.times(inverseButterflySum(a, b, twiddles.m), stage,
                             group);
        }
      }
  }

#pragma unroll
  for (unsigned m = 0; m < kGroups; ++m)
#pragma unroll
    for (unsigned i = 0; i < kSpan; ++i)
      store(base[m], i << logD, x[m * kSpan + i], m * kSpan + i);
}

// The steps are launched with launchDependent (dependent_launch.cuh): they
// read only their twiddle tables until awaitPreviousKernel, and call
// allowNextKernel before their last round, so that the next kernel's blocks
// fill the SMs that this grid's last blocks leave idle and fetch their
// twiddles meanwhile, but not so early that they crowd SMs unevenly while
// this grid still runs.

/// All rounds of one M-word transform: log R stages each, the first round
/// (in forward order) taking what is left over. The first round run calls
/// beforeFirstLoad, reads with firstLoad, then calls afterFirstLoad (which
/// must end with a barrier if it writes shared memory the rounds read); the
/// last one writes with lastStore; the others go through shared memory
/// (shared(b, o) is a reference to word b + o's slot; see round()). A block
/// that runs several transforms lets the next kernel start (allowNext) in
/// its last one only.
template <typename Word, unsigned LOG_M, unsigned R, bool FORWARD,
          typename BeforeFirstLoad, typename FirstLoad, typename AfterFirstLoad,
          typename LastStore, typename Shared, typename Twiddles>
__device__ __forceinline__ void
transform(unsigned j, BeforeFirstLoad beforeFirstLoad, FirstLoad firstLoad,
          AfterFirstLoad afterFirstLoad, LastStore lastStore, Shared shared,
          const Twiddles &twiddles, bool allowNext = true) {
  constexpr unsigned kLogR = log2Exact(R);
  constexpr unsigned kRounds = (LOG_M + kLogR - 1) / kLogR;
  constexpr unsigned kFirstStages = LOG_M - (kRounds - 1) * kLogR;
  auto sharedLoad = [&](unsigned b, unsigned o) { return shared(b, o); };
  auto sharedStore = [&](unsigned b, unsigned o, Word w, unsigned) {
    shared(b, o) = w;
  };
  auto nothing = [] {};
  if constexpr (kRounds == 1) {
    // No early start for the next kernel: it would come before the wait.
    round<Word, LOG_M, R, kFirstStages, FORWARD>(j, 0, beforeFirstLoad,
                                                 firstLoad, afterFirstLoad,
                                                 lastStore, twiddles);
  } else if constexpr (FORWARD) {
    round<Word, LOG_M, R, kFirstStages, true>(j, 0, beforeFirstLoad,
                                              firstLoad, afterFirstLoad,
                                              sharedStore, twiddles);
#pragma unroll
    for (unsigned k = 1; k + 1 < kRounds; ++k) {
      __syncthreads();
      round<Word, LOG_M, R, kLogR, true>(j, kFirstStages + (k - 1) * kLogR,
                                         nothing, sharedLoad, nothing,
                                         sharedStore, twiddles);
    }
    __syncthreads();
    if (allowNext)
      allowNextKernel();
    round<Word, LOG_M, R, kLogR, true>(j, LOG_M - kLogR, nothing, sharedLoad,
                                       nothing, lastStore, twiddles);
  } else {
    round<Word, LOG_M, R, kLogR, false>(j, LOG_M - kLogR, beforeFirstLoad,
                                        firstLoad, afterFirstLoad, sharedStore,
                                        twiddles);
#pragma unroll
    for (unsigned k = kRounds - 2; k >= 1; --k) {
      __syncthreads();
      round<Word, LOG_M, R, kLogR, false>(j, kFirstStages + (k - 1) * kLogR,
                                          nothing, sharedLoad, nothing,
                                          sharedStore, twiddles);
    }
    __syncthreads();
    if (allowNext)
      allowNextKernel();
    round<Word, LOG_M, R, kFirstStages, false>(j, 0, nothing, sharedLoad,
                                               nothing, lastStore, twiddles);
  }
}

// Where the column step reads and writes ------------------------------------

// Every Io below runs its launch's instances (Instances, ntt.cuh): instance
// z's words are `stride` words after instance z - 1's.

/// Limb y at data + y N, in place; instance blockIdx.z.
template <typename Word> struct InPlaceColumns {
  static constexpr bool kInPlace = true;
  Word *data;
  size_t stride = 0;

  __device__ Word *output(unsigned limb, unsigned logN) const {
    return ofInstance(data, stride) + (size_t(limb) << logN);
  }
};

/// Every limb's first round reads oneLimb's words (a forward transform).
template <typename Word> struct OneLimbColumns {
  static constexpr bool kInPlace = false;
  Word *data;
  const Word *oneLimb;
  size_t stride = 0;

  __device__ Word *output(unsigned limb, unsigned logN) const {
    return ofInstance(data, stride) + (size_t(limb) << logN);
  }
  __device__ const Word *input(unsigned, unsigned) const {
    return ofInstance(oneLimb, stride);
  }
};

/// A fused NTT's sources: blockIdx.z is source z % count of instance z /
/// count (see NttSources).
template <typename Word> struct SourceColumns {
  static constexpr bool kInPlace = false;
  NttSourcesOf<Word> sources;
  size_t stride = 0;

  __device__ unsigned source() const { return blockIdx.z % sources.count; }
  __device__ size_t instanceAt() const {
    return size_t(blockIdx.z / sources.count) * stride;
  }
  __device__ Word *output(unsigned limb, unsigned logN) const {
    return sources.scratch[source()] + instanceAt() + (size_t(limb) << logN);
  }
  __device__ const Word *input(unsigned limb, unsigned logN) const {
    const unsigned t = source();
    return sources.sources[t] + instanceAt() +
           (sources.oneLimb[t] ? 0 : size_t(limb) << logN);
  }
};

/// What a row step does with its rows.
enum class RowKind { inPlace, keySwitch, products };

/// The row step's rows, in place at data.
template <typename Word> struct InPlaceRows {
  static constexpr RowKind kKind = RowKind::inPlace;
  static constexpr unsigned kMinThreadsPerSm = 0; // no bound
  static constexpr unsigned kBlockThreads = kRowStepThreads;
  Word *data;
  size_t stride = 0;
};

/// The rows of a fused forward NTT's sources, transformed one source after
/// another with the block's twiddles: the first round reads the column
/// step's output (scratch), or without a column step (N1 = 1) the source's
/// coefficients.
template <typename Word> struct SourceRows {
  // Unbounded, the key-switching row step takes about 150 registers (one
  // block an SM). 768 threads an SM (three blocks of 256, 80 registers, no
  // spills) made HMult up to 3% faster than 512, and matched 1024 (64
  // registers) within 1.5%.
  static constexpr unsigned kMinThreadsPerSm = 768;
  // A thread transforms every source's row: blocks of rows as small as two
  // warps keep small transforms' grids several blocks an SM deep.
  static constexpr unsigned kBlockThreads = 64;
  NttSourcesOf<Word> sources;
  bool afterColumns;
  size_t stride = 0;

  /// Limb `limb` of source t of the block's instance, as the first round
  /// reads it.
  __device__ const Word *firstRound(int t, unsigned limb,
                                    size_t limbWords) const {
    const size_t at = size_t(blockIdx.z) * stride;
    if (afterColumns)
      return sources.scratch[t] + at + limb * limbWords;
    return sources.oneLimb[t] ? sources.sources[t] + at
                              : sources.sources[t] + at + limb * limbWords;
  }
};

/// Key switching's digits, each transformed and summed into the inner
/// product.
template <typename Word> struct KeySwitchRows : SourceRows<Word> {
  static constexpr RowKind kKind = RowKind::keySwitch;
  KeySwitchKeyViewOf<Word> key;
  Word *out0, *out1;
  KeySwitchAddendOf<Word> addend;
};

/// ntt_products' factors, each transformed and kept in registers, then the
/// sums of their products written out.
template <typename Word> struct ProductRows : SourceRows<Word> {
  static constexpr RowKind kKind = RowKind::products;
  // Its sums live in a loop over outputs, not beside the transform: at 1024
  // threads an SM (64 registers) its grids at logN 15 and 16 are fewer waves
  // deep than at 768, and HMult at (15, 660, 60) and (16, 1440, 240) was
  // 0.5 to 0.7% faster. Key switching stays at 768: at 896 and 1024 HMult at
  // (15, 660, 60) was 2 and 5% slower (docs/experiments.md).
  static constexpr unsigned kMinThreadsPerSm = 1024;
  NttProductsOf<Word> products;
};

// Kernels ------------------------------------------------------------------

/// The column step: stages [0, log N1) on kNttBlockColumns neighbouring columns
/// (blockIdx.x) of one limb (blockIdx.y), straight from and to global memory
/// (each access is a row of kNttBlockColumns words); shared memory holds the
/// words between rounds, row-major, and powers[0, N1), copied while the first
/// round's loads are in flight. The inverse's last stage also multiplies by
/// N^{-1}. Io says where the limb's words are (InPlaceColumns and the others
/// above).
template <typename Word, bool FORWARD, unsigned LOG_M, unsigned R, typename Io>
__global__ void __launch_bounds__(minOf(1024,
                                        kNttBlockColumns *(1u << LOG_M) / R))
    columnStep(BasicNttPlan<Word> plan, Io io, unsigned logN) {
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  constexpr unsigned kM = 1u << LOG_M;
  // A block has kNttBlockColumns * kM / R >= kM threads: one twiddle each.
  static_assert(kNttBlockColumns >= R);
  Shoup<Word> *powers = reinterpret_cast<Shoup<Word> *>(sharedBytes);
  Word *words = reinterpret_cast<Word *>(powers + kM);

  const BasicNttLimb<Word> limb = plan.limbs[blockIdx.y];
  const Shoup<Word> *table = FORWARD ? limb.rootPowers : limb.inverseRootPowers;
  // Lets the compiler use global loads rather than generic ones for the table.
  __builtin_assume(__isGlobal(table));
  // Offsets within a limb fit 32 bits (N <= 2^17), which keeps 64-bit
  // shifts and adds out of every access's address.
  const unsigned logRowLength = logN - LOG_M;
  const unsigned column = threadIdx.x % kNttBlockColumns, j = threadIdx.x / kNttBlockColumns;
  const unsigned firstColumn = blockIdx.x * kNttBlockColumns + column;
  Word *columnWords = io.output(blockIdx.y, logN) + firstColumn;
  // Keeps the column's addresses whole, so that each access adds its offset
  // with one wide multiply-add instead of rebuilding a 64-bit index.
  asm("" : "+l"(columnWords));
  const Word *sourceWords = columnWords;
  if constexpr (!Io::kInPlace) {
    sourceWords = io.input(blockIdx.y, logN) + firstColumn;
    asm("" : "+l"(sourceWords));
  }
  const LazyModulus<Word> m(limb);
  const Shoup<Word> inverseDegree = limb.inverseDegree;
  auto load = [&](unsigned b, unsigned o) {
    return sourceWords[(b + o) << logRowLength];
  };
  // The block's threads hold the table between its load and its store.
  Shoup<Word> twiddle{};
  auto fetchTwiddles = [&] {
    if (threadIdx.x < kM)
      twiddle = table[threadIdx.x];
    awaitPreviousKernel();
  };
  auto storeTwiddles = [&] {
    if (threadIdx.x < kM)
      powers[threadIdx.x] = twiddle;
    __syncthreads();
  };
  auto store = [&](unsigned b, unsigned o, Word w, unsigned) {
    if constexpr (!FORWARD)
      w = mulShoup(w, inverseDegree, m.q);
    columnWords[(b + o) << logRowLength] = w;
  };
  auto shared = [&](unsigned b, unsigned o) -> Word & {
    return words[(b + o) * kNttBlockColumns + column];
  };
  transform<Word, LOG_M, R, FORWARD>(j, fetchTwiddles, load, storeTwiddles,
                                     store, shared,
                                     ColumnTwiddles<Word>{powers, m});
}

/// Word p of a row's slot in shared memory: XOR-swizzled within each 32
/// words so that both the strided accesses of the first rounds and the
/// R-contiguous ones of the last round hit distinct banks. The map is linear
/// over XOR (a shift, a mask and an XOR), so swizzled(b ^ o) =
/// swizzled(b) ^ swizzled(o): with o a compile-time constant, each access
/// costs one XOR.
template <unsigned LOG_M, unsigned R>
__device__ __forceinline__ unsigned swizzled(unsigned p) {
  if constexpr (LOG_M < 5)
    return p;
  else
    return p ^ ((p >> log2Exact(R)) & 31u);
}

/// The row step: stages [log N1, log N) on `rowsPerBlock` rows of N2 = 2^LOG_M
/// words of one limb (blockIdx.y), each row from and to global memory: the
/// forward's first round reads words strided by N2 / 2^RK (coalesced across
/// the row's threads) and its last writes R contiguous words per thread,
/// reduced to [0, q); the inverse mirrors it, without N^{-1} (the column
/// step, or the last store when N1 = 1, applies it). While the first round's
/// loads are in flight the block copies its rows' twiddles to shared memory
/// (RowTwiddles), each thread R of them, all loads issued before any store.
/// Io is InPlaceRows, or a fused NTT's SourceRows: the rows of every source,
/// one after another, sharing the block's twiddles, their words summed into
/// key switching's inner product (KeySwitchRows) or multiplied into the
/// tensor terms (ProductRows) instead of written out.
template <typename Word, bool FORWARD, unsigned LOG_M, unsigned R,
          unsigned OT_STAGES, typename Io>
__global__ void __launch_bounds__(
    (1u << LOG_M) / R > Io::kBlockThreads ? (1u << LOG_M) / R
                                          : Io::kBlockThreads,
    minBlocksPerSm(Io::kMinThreadsPerSm, (1u << LOG_M) / R > Io::kBlockThreads
                                             ? (1u << LOG_M) / R
                                             : Io::kBlockThreads))
    rowStep(BasicNttPlan<Word> plan, Io io, unsigned logN1,
            unsigned rowsPerBlock) {
  static_assert(OT_STAGES <= LOG_M);
  extern __shared__ __align__(16) unsigned char sharedBytes[];
  constexpr unsigned kM = 1u << LOG_M, kThreadsPerRow = kM / R;
  // A row fills a block (rowsPerBlock is 1, blockDim.x kThreadsPerRow).
  constexpr bool kOneRow = kThreadsPerRow >= Io::kBlockThreads;
  // Twiddles of the table every row shares that each thread copies: the
  // block has at least kM / R threads for kM / 2 entries.
  constexpr unsigned kSharedPerThread = R / 2;
  // The words first: a slot's byte offset is then its swizzled index times
  // the word size (see `shared` below).
  Word *words = reinterpret_cast<Word *>(sharedBytes);
  Shoup<Word> *rowPowers =
      reinterpret_cast<Shoup<Word> *>(words + rowsPerBlock * kM);
  Shoup<Word> *sharedPowers = rowPowers + rowsPerBlock * kM;

  const BasicNttLimb<Word> limb = plan.limbs[blockIdx.y];
  const Shoup<Word> *powers =
      FORWARD ? limb.rootPowers : limb.inverseRootPowers;
  // Lets the compiler use global loads rather than generic ones for the table.
  __builtin_assume(__isGlobal(powers));
  const LazyModulus<Word> m(limb);
  constexpr unsigned kOtFrom = LOG_M - OT_STAGES;
  const unsigned firstRow = blockIdx.x * rowsPerBlock;
  // Entry k of a row's table: stage log2(k), group k - 2^stage; entry 0 is
  // unused, and past kOtFrom only group 0 is kept. Its index in the limb's
  // table, 2^(logN1 + stage) + row 2^stage + group, is k + (2^logN1 + row - 1)
  // 2^stage (N <= 2^17: it fits 32 bits).
  // The block's threads hold its twiddles between their loads and stores.
  const unsigned threads = kOneRow ? kThreadsPerRow : blockDim.x;
  Shoup<Word> rowEntries[R], sharedEntries[kSharedPerThread];
  bool keep[R];
  auto fetchTwiddles = [&] {
#pragma unroll
    for (unsigned i = 0; i < R; ++i) {
      const unsigned e = threadIdx.x + i * threads;
      const unsigned k = e & (kM - 1);
      // With one row per block, entry i > 0 lies in [i, i + 1) kThreadsPerRow,
      // so its stage is a constant (a count-leading-zeros and a branch fewer).
      const unsigned stage =
          kOneRow && i > 0 ? log2Exact(kThreadsPerRow) + log2Floor(i)
                           : 31 - __clz(k | 1);
      keep[i] = k != 0 && (!isStageFrom<kOtFrom>(stage) || k == 1u << stage);
      const unsigned rowBase =
          (1u << logN1) + firstRow + (kOneRow ? 0 : e >> LOG_M) - 1;
      if (keep[i])
        rowEntries[i] = powers[k + (rowBase << stage)];
    }
#pragma unroll
    for (unsigned i = 0; i < kSharedPerThread; ++i) {
      const unsigned h = threadIdx.x + i * threads;
      if (OT_STAGES > 0 && h < kM / 2)
        sharedEntries[i] = powers[h];
    }
    awaitPreviousKernel();
  };
  auto storeTwiddles = [&] {
#pragma unroll
    for (unsigned i = 0; i < R; ++i)
      if (keep[i])
        rowPowers[threadIdx.x + i * threads] = rowEntries[i];
#pragma unroll
    for (unsigned i = 0; i < kSharedPerThread; ++i) {
      const unsigned h = threadIdx.x + i * threads;
      if (OT_STAGES > 0 && h < kM / 2)
        sharedPowers[h] = sharedEntries[i];
    }
    __syncthreads();
  };

  const size_t limbWords = size_t(1) << (logN1 + LOG_M);
  const unsigned rowInBlock = threadIdx.x / kThreadsPerRow;
  const unsigned j = threadIdx.x % kThreadsPerRow;
  const unsigned rowInLimb = (firstRow + rowInBlock) << LOG_M;
  // The rows' words: blockIdx.z is the instance (io.stride words apart).
  const size_t rowOffset = size_t(blockIdx.z) * io.stride +
                           size_t(blockIdx.y) * limbWords + rowInLimb;
  const unsigned rowSlot = rowInBlock << LOG_M;

  const RowTwiddles<Word, kOtFrom> twiddles{rowPowers + (rowInBlock << LOG_M),
                                            sharedPowers, m};
  auto shared = [&](unsigned b, unsigned o) -> Word & {
    const unsigned at = (rowSlot | swizzled<LOG_M, R>(b)) * sizeof(Word);
    return *reinterpret_cast<Word *>(
        sharedBytes + (at ^ swizzled<LOG_M, R>(o) * sizeof(Word)));
  };
  if constexpr (Io::kKind == RowKind::inPlace) {
    Word *rowWords = io.data + rowOffset;
    const bool scale = !FORWARD && logN1 == 0;
    const Shoup<Word> inverseDegree = limb.inverseDegree;
    auto load = [&](unsigned b, unsigned o) { return rowWords[b + o]; };
    auto store = [&](unsigned b, unsigned o, Word w, unsigned) {
      if constexpr (FORWARD)
        w = canonical(w, m);
      else if (scale)
        w = mulShoup(w, inverseDegree, m.q);
      rowWords[b + o] = w;
    };
    transform<Word, LOG_M, R, FORWARD>(j, fetchTwiddles, load, storeTwiddles,
                                       store, shared, twiddles);
  } else {
    static_assert(FORWARD);
    // A fused NTT: each source's row in turn. The twiddles are fetched once,
    // before the first source's loads, and the loop's body is one copy of the
    // transform (small enough for three blocks an SM). keepOf(t) gives the
    // last round's store for source t, which gets each output word (lazy,
    // below 2B) and its index in the row; afterSource(t) runs after source t.
    auto eachSource = [&](auto keepOf, auto afterSource) {
      fetchTwiddles();
      storeTwiddles();
      const int count = io.sources.count;
      for (int t = 0; t < count; ++t) {
        const Word *sourceRow =
            io.firstRound(t, blockIdx.y, limbWords) + rowInLimb;
        auto load = [&](unsigned b, unsigned o) { return sourceRow[b + o]; };
        auto keep = keepOf(t);
        auto store = [&](unsigned c, unsigned o, Word w, unsigned slot) {
          keep(c + o, w, slot);
        };
        // The previous source's last round has read shared memory before
        // this source's first round writes it.
        auto barrier = [] { __syncthreads(); };
        transform<Word, LOG_M, R, true>(
            j, [] {}, load, barrier, store, shared, twiddles,
            /*allowNext=*/t + 1 == count);
        afterSource(t);
      }
    };
    if constexpr (Io::kKind == RowKind::keySwitch) {
      const KeySwitchKeyViewOf<Word> &key = io.key;
      const int keyLimb = key.keyLimb(int(blockIdx.y));
      const Word *keyRow = key.key + size_t(keyLimb) * limbWords + rowInLimb;
      const Modulus modulus = key.moduli[keyLimb];
      uint128_t sum0[R], sum1[R];
      unsigned at[R];
#pragma unroll
      for (unsigned slot = 0; slot < R; ++slot)
        sum0[slot] = sum1[slot] = 0;
      auto reduceSums = [&] {
#pragma unroll
        for (unsigned slot = 0; slot < R; ++slot) {
          sum0[slot] = reduce128Quick(sum0[slot], modulus);
          sum1[slot] = reduce128Quick(sum1[slot], modulus);
        }
      };
      auto accumulateInto = [&](int t) {
        const Word *b = keyRow + size_t(2 * t) * key.componentWords;
        const Word *a = b + key.componentWords;
        return [&, a, b](unsigned i, Word w, unsigned slot) {
          at[slot] = i;
          // Below B = 4q, not canonical: the products stay below 2^124, as
          // kKeySwitchDigitsPerSum asks, for five instructions, not fifteen.
          w = m.belowBound(w);
          sum0[slot] += wideProduct(w, b[i]);
          sum1[slot] += wideProduct(w, a[i]);
        };
      };
      eachSource(accumulateInto, [&](int t) {
        if (t % kKeySwitchDigitsPerSum == kKeySwitchDigitsPerSum - 1)
          reduceSums();
      });
      reduceSums();
      const KeySwitchAddendOf<Word> &addend = io.addend;
      if (int(blockIdx.y) < addend.limbs) {
        const uint64_t scale =
            addend.scales[size_t(blockIdx.z) * io.stride + blockIdx.y];
#pragma unroll
        for (unsigned slot = 0; slot < R; ++slot) {
          const size_t i = rowOffset + at[slot];
          sum0[slot] = addScaled(sum0[slot], addend.addend0[i], scale, modulus);
          sum1[slot] = addScaled(sum1[slot], addend.addend1[i], scale, modulus);
        }
      }
#pragma unroll
      for (unsigned slot = 0; slot < R; ++slot) {
        io.out0[rowOffset + at[slot]] = static_cast<Word>(sum0[slot]);
        io.out1[rowOffset + at[slot]] = static_cast<Word>(sum1[slot]);
      }
    } else {
      static_assert(Io::kKind == RowKind::products);
      // The factors' words, indexed by factor at run time: a local array
      // (L1), which keeps the loop over factors one copy of the transform
      // and the block within three an SM's registers.
      Word words[kMaxProductFactors][R];
      unsigned at[R];
      auto keepAs = [&](int t) {
        return [&, t](unsigned i, Word w, unsigned slot) {
          at[slot] = i;
          if constexpr (sizeof(Word) == sizeof(uint64_t))
            words[t][slot] = canonicalByQuotient(w, m);
          else
            words[t][slot] = canonical(w, m);
        };
      };
      eachSource(keepAs, [](int) {});
      const NttProductsOf<Word> &products = io.products;
      const Modulus modulus = products.moduli[blockIdx.y];
      for (int k = 0; k < products.outputCount; ++k) {
        // Below 2^125: at most kMaxProducts products below 2^122.
        uint128_t sum[R] = {};
        for (int p = products.firstPair[k]; p < products.firstPair[k + 1]; ++p)
#pragma unroll
          for (unsigned slot = 0; slot < R; ++slot)
            sum[slot] += wideProduct(words[products.first[p]][slot],
                                     words[products.second[p]][slot]);
        Word *out = products.outputs[k] + rowOffset;
#pragma unroll
        for (unsigned slot = 0; slot < R; ++slot)
          out[at[slot]] = static_cast<Word>(reduce128Quick(sum[slot], modulus));
      }
    }
  }
}

} // namespace
} // namespace ringfuse::runtime::cuda

#endif // RINGFUSE_GPU_NTT_STEPS_CUH
