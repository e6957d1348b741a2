//===- handwritten_programs.h - circuits written by hand --------*- C++ -*-===//
//
// Programs written by hand in the shape the compiler emits: a static manifest
// of plain arrays and a schedule that calls the library kernels and runs its
// own elementwise steps. test/cpp/program_test.cpp runs them on the CPU driver
// (against the reference operations of bfv.h); test/gpu/gpu_program_test.cpp
// runs them on the CUDA driver too (against the CPU driver, bit for bit).
// The schedules are templates over their elementwise steps (HostSteps here,
// DeviceSteps in the GPU test); everything else is shared.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_TEST_CPP_HANDWRITTEN_PROGRAMS_H
#define RINGFUSE_TEST_CPP_HANDWRITTEN_PROGRAMS_H

#include "ringfuse/runtime/config.h"
#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/program_abi.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime::handwritten {

// The parameter set: bfv_test.cpp's secure 2^13 set (Q = 3 x 50 bits,
// P = 50 bits, dnum = 3, one prime per digit), with its auxiliary base B.
constexpr size_t kN = 8192;
constexpr uint64_t kT = 65537;
const uint64_t kQ[] = {1125899906826241ull, 1125899906629633ull,
                       1125899905744897ull};
const uint64_t kP[] = {1125899905351681ull};
const uint64_t kB[] = {1152921504606830593ull, 1152921504606748673ull,
                       1152921504606683137ull, 1152921504606601217ull};
const uint64_t kQB[] = {kQ[0], kQ[1], kQ[2], kB[0], kB[1], kB[2], kB[3]};
const uint64_t kQP[] = {kQ[0], kQ[1], kQ[2], kP[0]};
const uint64_t kTModulus[] = {kT};
constexpr size_t kQWords = 3 * kN, kBWords = 4 * kN, kQBWords = 7 * kN,
                 kQPWords = 4 * kN;

enum BasisIndex { Q, B, QB, QP, D0, D1, D2, PBasis, T };
const RfBasis kBases[] = {{kQ, 3, 0},     {kB, 4, 0},     {kQB, 7, 0},
                          {kQP, 4, 0},    {kQ + 0, 1, 0}, {kQ + 1, 1, 0},
                          {kQ + 2, 1, 0}, {kP, 1, 0},     {kTModulus, 1, 0}};

enum ConverterIndex { QToQB, BToQ, D0ToQP, D1ToQP, D2ToQP, TToQ };
const RfConverter kConverters[] = {
    {Q, QB, RF_CONVERT_EXACT}, {B, Q, RF_CONVERT_EXACT}, {D0, QP, RF_CONVERT_FAST},
    {D1, QP, RF_CONVERT_FAST}, {D2, QP, RF_CONVERT_FAST}, {T, Q, RF_CONVERT_EXACT}};

// TensorToQ is TensorToB fused with BToQ (rns-fuse's scale_round ... via).
enum ScaleRoundIndex { TensorToB, ModDownByP, TensorToQ };
const uint64_t kTWords[] = {kT}, kOneWords[] = {1};
const RfScaleRound kScaleRounds[] = {
    {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 0, 0},
    {QP, PBasis, Q, kOneWords, 1, RF_SCALE_ROUND, 0, 0},
    {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 1, BToQ}};

enum ScaleUpIndex { PlainToQ };
const RfScaleUp kScaleUps[] = {{T, Q}};

/// A manifest over the shared parameters and plans; the rest per program.
inline RfManifest baseManifest(const char *name) {
  RfManifest m{};
  m.abi_version = RINGFUSE_PROGRAM_ABI_VERSION;
  m.name = name;
  m.degree = kN;
  m.plaintext_modulus = kT;
  m.q = kQ;
  m.q_count = 3;
  m.p = kP;
  m.p_count = 1;
  m.dnum = 3;
  m.bases = kBases;
  m.basis_count = 9;
  m.converters = kConverters;
  m.converter_count = 6;
  m.scale_rounds = kScaleRounds;
  m.scale_round_count = 3;
  m.scale_ups = kScaleUps;
  m.scale_up_count = 1;
  return m;
}

// Elementwise steps, as the compiler generates them ------------------------
//
// Each body computes one residue i of its outputs (i = limb * N + j), as
// ringfuse-translate's generated functions do; a schedule runs them through
// `Steps`: HostSteps loops over the residues on the host (emitted C++ on the
// CPU driver), test/gpu's DeviceSteps launches one thread per residue on the
// program's stream (emitted CUDA on the CUDA driver).

RF_HOST_DEVICE inline void addBody(const Modulus &q, size_t i,
                                   const uint64_t *a, const uint64_t *b,
                                   uint64_t *out) {
  out[i] = addMod(a[i], b[i], q.value);
}

RF_HOST_DEVICE inline void multiplyBody(const Modulus &q, size_t i,
                                        const uint64_t *a, const uint64_t *b,
                                        uint64_t *out) {
  out[i] = mulMod(a[i], b[i], q);
}

/// The tensor product (x0 + x1 s)(y0 + y1 s) at residue i.
RF_HOST_DEVICE inline void tensorBody(const Modulus &q, size_t i,
                                      const uint64_t *x0, const uint64_t *x1,
                                      const uint64_t *y0, const uint64_t *y1,
                                      uint64_t *t0, uint64_t *t1,
                                      uint64_t *t2) {
  const uint64_t a0 = x0[i], a1 = x1[i], b0 = y0[i], b1 = y1[i];
  t0[i] = mulMod(a0, b0, q);
  t1[i] = addMod(mulMod(a0, b1, q), mulMod(a1, b0, q), q.value);
  t2[i] = mulMod(a1, b1, q);
}

/// The CPU driver's steps: loops over the host buffers.
struct HostSteps {
  template <typename Body, typename... Buffers>
  static void elementwise(RfRuntime *rt, const RfKernels *k, int basis,
                          int limbs, Body body, Buffers... buffers) {
    const RfModulus *moduli = k->moduli(rt, basis);
    for (int limb = 0; limb < limbs; ++limb) {
      const Modulus q(moduli[limb]);
      for (size_t j = 0; j < kN; ++j)
        body(q, limb * kN + j, buffers...);
    }
  }

  static void add(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                  const uint64_t *a, const uint64_t *b, uint64_t *out) {
    elementwise(rt, k, basis, limbs, addBody, a, b, out);
  }

  static void multiply(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                       const uint64_t *a, const uint64_t *b, uint64_t *out) {
    elementwise(rt, k, basis, limbs, multiplyBody, a, b, out);
  }

  static void tensor(RfRuntime *rt, const RfKernels *k, int basis, int limbs,
                     const uint64_t *x0, const uint64_t *x1, const uint64_t *y0,
                     const uint64_t *y1, uint64_t *t0, uint64_t *t1,
                     uint64_t *t2) {
    elementwise(rt, k, basis, limbs, tensorBody, x0, x1, y0, y1, t0, t1, t2);
  }

  static void copy(RfRuntime *, const RfKernels *, const uint64_t *from,
                   size_t words, uint64_t *to) {
    std::copy(from, from + words, to);
  }

  static void fill(RfRuntime *, const RfKernels *, uint64_t *to, size_t words,
                   uint64_t value) {
    std::fill(to, to + words, value);
  }
};

/// Hybrid key switching of c (over Q, coefficient form) into out0, out1:
/// each digit (one prime of Q here) extended to QP, transformed, the inner
/// product with the key, back, and divided by P. With `fused`, one
/// ntt_key_switch transforms the digits and takes the inner product: digit
/// 0 read as c's first limb, the others converted to QP first and
/// transformed in place.
inline void keySwitch(RfRuntime *rt, const RfKernels *k, int key,
                      const uint64_t *c, uint64_t *const digits[3],
                      uint64_t *acc0, uint64_t *acc1, uint64_t *out0,
                      uint64_t *out1, bool fused = false,
                      const RfKeySwitchAddend *addend = nullptr) {
  if (fused) {
    for (int j = 1; j < 3; ++j)
      k->convert(rt, D0ToQP + j, c + j * kN, digits[j]);
    const int bases[3] = {D0, QP, QP};
    const uint64_t *sources[3] = {c, digits[1], digits[2]};
    k->ntt_key_switch(rt, key, QP, bases, sources, digits, 3, acc0, acc1,
                      addend, 0, 0, 0);
  } else {
    for (int j = 0; j < 3; ++j) {
      k->convert(rt, D0ToQP + j, c + j * kN, digits[j]);
      k->ntt_forward(rt, QP, digits[j], 0, 0, 0);
    }
    k->key_switch_inner_product(rt, key, QP, digits, 3, acc0, acc1, addend);
  }
  k->ntt_inverse(rt, QP, acc0, 0, 0, 0);
  k->ntt_inverse(rt, QP, acc1, 0, 0, 0);
  k->scale_round(rt, ModDownByP, acc0, out0);
  k->scale_round(rt, ModDownByP, acc1, out1);
}

// Program: x * y, relinearized (HPS) ---------------------------------------

const size_t kMultiplyBuffers[] = {
    kQWords,  kQWords,  kQWords,  kQWords,  // 0-3: x0 x1 y0 y1
    kQBWords, kQBWords, kQBWords, kQBWords, // 4-7: lifted
    kQBWords, kQBWords, kQBWords,           // 8-10: tensor
    kBWords,                                // 11: scaled
    kQWords,  kQWords,  kQWords,            // 12-14: product
    kQPWords, kQPWords, kQPWords,           // 15-17: digits
    kQPWords, kQPWords,                     // 18-19: accumulators
    kQWords,  kQWords};                     // 20-21: k0 k1
const RfValue kMultiplyInputs[] = {{0, 2, {0, 1, -1}}, {0, 2, {2, 3, -1}}};
const RfValue kMultiplyOutputs[] = {{0, 2, {12, 13, -1}}};
const uint64_t kRelinKeyOnly[] = {0};

inline const RfManifest *multiplyManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("multiply");
    m.buffer_words = kMultiplyBuffers;
    m.buffer_count = 22;
    m.inputs = kMultiplyInputs;
    m.input_count = 2;
    m.outputs = kMultiplyOutputs;
    m.output_count = 1;
    m.keys = kRelinKeyOnly;
    m.key_count = 1;
    return m;
  }();
  return &manifest;
}

/// The tensor terms x0 y0, x0 y1 + x1 y0, x1 y1 as ntt_products' triples.
const int kTensorProducts[] = {0, 0, 2, 1, 0, 3, 1, 1, 2, 2, 1, 3};

/// With kFused, the fused launches the compiler emits: the forward NTTs and
/// the tensor product as one ntt_products, and relinearization's key
/// switching as keySwitch's fused form.
template <typename Steps, bool kFused = false>
void multiplyRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[22];
  for (int i = 0; i < 22; ++i)
    b[i] = k->buffer(rt, i);
  // Lift each component exactly to Q u B and transform it: the four lifts
  // at once, then the four transforms.
  k->concurrent_begin(rt);
  for (int i = 0; i < 4; ++i)
    k->convert(rt, QToQB, b[i], b[4 + i]);
  k->concurrent_end(rt);
  if (kFused) {
    const int bases[4] = {QB, QB, QB, QB};
    const uint64_t *factors[4] = {b[4], b[5], b[6], b[7]};
    uint64_t *scratch[4] = {b[4], b[5], b[6], b[7]};
    uint64_t *sums[3] = {b[8], b[9], b[10]};
    k->ntt_products(rt, QB, bases, factors, scratch, 4, kTensorProducts, 4,
                    sums, 3, 0, 0, 0);
  } else {
    k->concurrent_begin(rt);
    for (int i = 0; i < 4; ++i)
      k->ntt_forward(rt, QB, b[4 + i], 0, 0, 0);
    k->concurrent_end(rt);
    // The tensor product (x0 + x1 s)(y0 + y1 s), elementwise over Q u B.
    Steps::tensor(rt, k, QB, 7, b[4], b[5], b[6], b[7], b[8], b[9], b[10]);
  }
  // round(t/Q * tensor) into B, then exactly back to Q: two kernels, or
  // (the last term) one.
  for (int h = 0; h < 3; ++h) {
    k->ntt_inverse(rt, QB, b[8 + h], 0, 0, 0);
    if (h == 2) {
      k->scale_round(rt, TensorToQ, b[8 + h], b[12 + h]);
      continue;
    }
    k->scale_round(rt, TensorToB, b[8 + h], b[11]);
    k->convert(rt, BToQ, b[11], b[12 + h]);
  }
  uint64_t *const digits[3] = {b[15], b[16], b[17]};
  keySwitch(rt, k, 0, b[14], digits, b[18], b[19], b[20], b[21], kFused);
  Steps::add(rt, k, Q, 3, b[12], b[20], b[12]);
  Steps::add(rt, k, Q, 3, b[13], b[21], b[13]);
}

// Program: key switching with an addend (rns-fuse's relinearization) -------

const size_t kAddendBuffers[] = {
    kQWords,  kQWords,            // 0-1: x0 x1
    kQPWords, kQPWords, kQPWords, // 2-4: digits
    kQPWords, kQPWords,           // 5-6: sums
    kQWords,  kQWords,            // 7-8: out
    kQWords,  kQWords,            // 9-10: the addends, x0 and x1 transformed
    3};                           // 11: their scales
const uint64_t kAddendScales[] = {3, 5, 7};
const RfConstant kAddendConstants[] = {{11, kAddendScales, 3}};
const RfValue kAddendOutputs[] = {{0, 2, {7, 8, -1}}};

inline const RfManifest *keySwitchAddendManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("key_switch_addend");
    m.buffer_words = kAddendBuffers;
    m.buffer_count = 12;
    m.inputs = kMultiplyInputs; // its first: x
    m.input_count = 1;
    m.outputs = kAddendOutputs;
    m.output_count = 1;
    m.constants = kAddendConstants;
    m.constant_count = 1;
    m.keys = kRelinKeyOnly;
    m.key_count = 1;
    return m;
  }();
  return &manifest;
}

/// What keySwitchAddendRun writes with the addend, from what it writes
/// without (both ciphertexts' words) and the input's: the division by P's
/// kept term carries the addend, so each word gains [P^-1]_q s_q x_c.
inline std::vector<uint64_t> addendCarried(const std::vector<uint64_t> &input,
                                           std::vector<uint64_t> without) {
  for (size_t w = 0; w < without.size(); ++w) {
    const size_t limb = (w / kN) % 3;
    const uint64_t q = kQ[limb];
    const uint64_t factor =
        mulModSlow(invertModSlow(kP[0] % q, q), kAddendScales[limb], q);
    without[w] = addMod(without[w], mulModSlow(input[w], factor, q), q);
  }
  return without;
}

/// x1 key-switched (fused or not) with x0 and x1, in evaluation form over Q,
/// as the addend scaled by kAddendScales (kAddend), or without one.
template <typename Steps, bool kFused, bool kAddend>
void keySwitchAddendRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[12];
  for (int i = 0; i < 12; ++i)
    b[i] = k->buffer(rt, i);
  Steps::copy(rt, k, b[0], kQWords, b[9]);
  Steps::copy(rt, k, b[1], kQWords, b[10]);
  k->ntt_forward(rt, Q, b[9], 0, 0, 0);
  k->ntt_forward(rt, Q, b[10], 0, 0, 0);
  const RfKeySwitchAddend addend = {b[9], b[10], b[11], 3};
  uint64_t *const digits[3] = {b[2], b[3], b[4]};
  keySwitch(rt, k, 0, b[1], digits, b[5], b[6], b[7], b[8], kFused,
            kAddend ? &addend : nullptr);
}

// Program: rotation by one step (Galois element 3) -------------------------

const size_t kRotateBuffers[] = {kQWords,  kQWords,  kQWords,  kQWords,
                                 kQPWords, kQPWords, kQPWords, kQPWords,
                                 kQPWords, kQWords,  kQWords};
const RfValue kRotateInputs[] = {{0, 2, {0, 1, -1}}};
const RfValue kRotateOutputs[] = {{0, 2, {2, 10, -1}}};
constexpr uint64_t kRotateElement = 3; // 3^1 mod 2N
const uint64_t kRotateKeys[] = {kRotateElement};
const uint64_t kRowSwapKeys[] = {2 * kN - 1};

inline RfManifest rotateManifestWith(const char *name, const uint64_t *keys) {
  RfManifest m = baseManifest(name);
  m.buffer_words = kRotateBuffers;
  m.buffer_count = 11;
  m.inputs = kRotateInputs;
  m.input_count = 1;
  m.outputs = kRotateOutputs;
  m.output_count = 1;
  m.keys = keys;
  m.key_count = 1;
  return m;
}

inline const RfManifest *rotateManifest() {
  static const RfManifest manifest = rotateManifestWith("rotate", kRotateKeys);
  return &manifest;
}

template <typename Steps, uint64_t Element>
void rotateRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[11];
  for (int i = 0; i < 11; ++i)
    b[i] = k->buffer(rt, i);
  k->automorphism(rt, Q, Element, b[0], b[2]);
  k->automorphism(rt, Q, Element, b[1], b[3]);
  uint64_t *const digits[3] = {b[4], b[5], b[6]};
  keySwitch(rt, k, 0, b[3], digits, b[7], b[8], b[9], b[10]);
  Steps::add(rt, k, Q, 3, b[2], b[9], b[2]);
}

inline const RfManifest *rowSwapManifest() {
  static const RfManifest manifest = rotateManifestWith("swap", kRowSwapKeys);
  return &manifest;
}

// Program: add_plain and mul_plain of a plaintext input --------------------

const size_t kPlainBuffers[] = {kQWords, kQWords, kN,      kQWords,
                                kQWords, kQWords, kQWords, kQWords};
const RfValue kPlainInputs[] = {{0, 2, {0, 1, -1}}, {1, 1, {2, -1, -1}}};
// add_plain keeps x1 as its second component: an output may name an input's
// buffer.
const RfValue kPlainOutputs[] = {{0, 2, {4, 1, -1}}, {0, 2, {6, 7, -1}}};

inline const RfManifest *plainManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("plain");
    m.buffer_words = kPlainBuffers;
    m.buffer_count = 8;
    m.inputs = kPlainInputs;
    m.input_count = 2;
    m.outputs = kPlainOutputs;
    m.output_count = 2;
    return m;
  }();
  return &manifest;
}

/// add_plain(x, plain) into (out, x1); mul_plain(x, plain) into mul0, mul1.
/// `scratch` (over Q) is overwritten.
template <typename Steps>
void plainOperations(RfRuntime *rt, const RfKernels *k, const uint64_t *x0,
                     const uint64_t *x1, const uint64_t *plain,
                     uint64_t *scratch, uint64_t *sum0, uint64_t *mul0,
                     uint64_t *mul1) {
  k->scale_up(rt, PlainToQ, plain, scratch);
  Steps::add(rt, k, Q, 3, x0, scratch, sum0);
  // The centered lift of m to Q, times each component in the NTT domain.
  k->convert(rt, TToQ, plain, scratch);
  k->ntt_forward(rt, Q, scratch, 0, 0, 0);
  Steps::copy(rt, k, x0, kQWords, mul0);
  Steps::copy(rt, k, x1, kQWords, mul1);
  for (uint64_t *component : {mul0, mul1}) {
    k->ntt_forward(rt, Q, component, 0, 0, 0);
    Steps::multiply(rt, k, Q, 3, component, scratch, component);
    k->ntt_inverse(rt, Q, component, 0, 0, 0);
  }
}

template <typename Steps> void plainRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = k->buffer(rt, i);
  plainOperations<Steps>(rt, k, b[0], b[1], b[2], b[3], b[4], b[6], b[7]);
}

// Program: the same with a constant plaintext (the polynomial 5) -----------

const size_t kConstantBuffers[] = {kQWords, kQWords, kN,      kQWords,
                                   kQWords, kQWords, kQWords, kQWords};
const RfValue kConstantInputs[] = {{0, 2, {0, 1, -1}}};
const uint64_t kFive[] = {5}; // the rest of the buffer stays zero
const RfConstant kConstants[] = {{2, kFive, 1}};

inline const RfManifest *constantManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("constant");
    m.buffer_words = kConstantBuffers;
    m.buffer_count = 8;
    m.inputs = kConstantInputs;
    m.input_count = 1;
    m.outputs = kPlainOutputs;
    m.output_count = 2;
    m.constants = kConstants;
    m.constant_count = 1;
    return m;
  }();
  return &manifest;
}

template <typename Steps> void constantRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = k->buffer(rt, i);
  plainOperations<Steps>(rt, k, b[0], b[1], b[2], b[3], b[4], b[6], b[7]);
  // Scribble over the constant: the next run must find it again.
  Steps::fill(rt, k, b[2], kN, 1);
}

// Program: scale-and-round of an input whose limbs interleave D and K ------

const uint64_t kInterleaved[] = {kQ[0], kB[0], kQ[1], kB[1],
                                 kQ[2], kB[2], kB[3]};
const RfBasis kGatherBases[] = {
    kBases[0], kBases[1], kBases[2], kBases[3], kBases[4],
    kBases[5], kBases[6], kBases[7], kBases[8], {kInterleaved, 7, 0}};
const RfConverter kGatherConverters[] = {
    kConverters[0], kConverters[1], kConverters[2], kConverters[3],
    kConverters[4], kConverters[5], {QB, 9, RF_CONVERT_FAST}}; // a permutation: all copied
const RfScaleRound kGatherScaleRounds[] = {
    kScaleRounds[0], kScaleRounds[1], {9, Q, B, kTWords, 1, RF_SCALE_ROUND}};
const size_t kGatherBuffers[] = {kQWords, kQWords, kQBWords, kQBWords,
                                 kBWords, kBWords, kQWords,  kQWords};
const RfValue kGatherOutputs[] = {{0, 2, {6, 1, -1}}, {0, 2, {7, 1, -1}}};

inline const RfManifest *gatherManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("gather");
    m.bases = kGatherBases;
    m.basis_count = 10;
    m.converters = kGatherConverters;
    m.converter_count = 7;
    m.scale_rounds = kGatherScaleRounds;
    m.scale_round_count = 3;
    m.buffer_words = kGatherBuffers;
    m.buffer_count = 8;
    m.inputs = kRotateInputs;
    m.input_count = 1;
    m.outputs = kGatherOutputs;
    m.output_count = 2;
    return m;
  }();
  return &manifest;
}

template <typename Steps> void gatherRun(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = k->buffer(rt, i);
  // Lift in place: the converter's input is the start of its output.
  Steps::copy(rt, k, b[0], kQWords, b[2]);
  k->convert(rt, QToQB, b[2], b[2]);
  k->scale_round(rt, TensorToB, b[2], b[4]);
  k->convert(rt, 6, b[2], b[3]);
  k->scale_round(rt, 2, b[3], b[5]);
  k->convert(rt, BToQ, b[4], b[6]);
  k->convert(rt, BToQ, b[5], b[7]);
}

// Calls every driver refuses ------------------------------------------------

/// A whole schedule (for the plain program) whose kernel call the argument
/// checks both drivers share (program_internal.h) refuse, and the message.
struct RefusedCall {
  RfRunFunction run;
  const char *message;
};

/// sum_of_products over `basis` of buffers 3 and 4 into buffers 5 and 6,
/// with the counts given: the refused calls' common shape (counts past the
/// arrays are refused before the arrays are read).
inline void sumsOf(RfRuntime *rt, const RfKernels *k, const int *triples,
                   int tripleCount, int factorCount, int outputCount,
                   int accumulate = 0, int basis = Q) {
  const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
  uint64_t *sums[2] = {k->buffer(rt, 5), k->buffer(rt, 6)};
  k->sum_of_products(rt, basis, factors, factorCount, triples, tripleCount,
                     sums, outputCount, accumulate);
}

/// Triples of sum_of_products: output 0 then 1 (kSumsInOrder), output 1
/// then 0, output 1 first, one past the factors, and output 0 then 1 then 0.
const int kSumsInOrder[] = {0, 0, 1, 1, 1, 1};
const int kSumsReversed[] = {1, 0, 1, 0, 0, 0};
const int kSumsPastFactors[] = {0, 0, 2};
const int kSumsRegrouped[] = {0, 0, 1, 1, 1, 1, 0, 0, 0};

inline const RefusedCall kRefusedCalls[] = {
    {[](RfRuntime *rt, const RfKernels *k) {
       k->dgt_forward(rt, Q, k->buffer(rt, 0));
     },
     "dgt_forward: basis 0 is not marked dgt in the manifest"},
    {[](RfRuntime *rt, const RfKernels *k) {
       k->ntt_forward(rt, QB, k->buffer(rt, 0), 0, 0, 0);
     },
     "needs 57344 words from word 0 of buffer 0, which has 24576"},
    {[](RfRuntime *rt, const RfKernels *k) {
       k->convert(rt, 6, k->buffer(rt, 0), k->buffer(rt, 3));
     },
     "converter 6 is out of range"},
    {[](RfRuntime *rt, const RfKernels *k) {
       k->automorphism(rt, Q, 3, k->buffer(rt, 0), k->buffer(rt, 0));
     },
     "cannot run in place"},
    {[](RfRuntime *rt, const RfKernels *k) {
       uint64_t *digits[3] = {};
       k->key_switch_inner_product(rt, 0, QP, digits, 3, k->buffer(rt, 3),
                                   k->buffer(rt, 4), nullptr);
     },
     "key 0 is out of range"},
    {[](RfRuntime *rt, const RfKernels *k) {
       uint64_t *digits[3] = {};
       k->key_switch_inner_product(rt, 0, QB, digits, 3, k->buffer(rt, 3),
                                   k->buffer(rt, 4), nullptr);
     },
     "basis 2 is not the first primes of Q followed by P"},
    {[](RfRuntime *rt, const RfKernels *k) {
       uint64_t *digits[3] = {};
       k->key_switch_inner_product(rt, 0, QP, digits, 2, k->buffer(rt, 3),
                                   k->buffer(rt, 4), nullptr);
     },
     "2 digits given; 3 primes of Q make 3"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const int bases[3] = {QP, QP, QP};
       const uint64_t *digits[3] = {};
       uint64_t *scratch[3] = {};
       k->ntt_key_switch(rt, 0, QP, bases, digits, scratch, 3, k->buffer(rt, 3),
                         k->buffer(rt, 4), nullptr, 5, 8, 0);
     },
     "NTT shape not supported for key switching: a fused NTT runs "
     "radix 4, not 8"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const int bases[2] = {Q, Q};
       const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *scratch[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *sums[2] = {k->buffer(rt, 5), k->buffer(rt, 6)};
       const int products[] = {1, 0, 1, 0, 0, 0};
       k->ntt_products(rt, Q, bases, factors, scratch, 2, products, 2, sums, 2,
                       0, 0, 0);
     },
     "ntt_products: pair 0 names output 1 and factors 0, 1 of 2 and 2"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const int bases[2] = {Q, Q};
       const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *scratch[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *sums[1] = {k->buffer(rt, 4)};
       const int products[] = {0, 0, 1};
       k->ntt_products(rt, Q, bases, factors, scratch, 2, products, 1, sums, 1,
                       0, 0, 0);
     },
     "factor 1 or its scratch buffer overlaps an output"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const int bases[1] = {Q};
       const uint64_t *factors[1] = {k->buffer(rt, 3)};
       uint64_t *scratch[1] = {k->buffer(rt, 3)};
       uint64_t *sums[1] = {k->buffer(rt, 5)};
       k->ntt_products(rt, Q, bases, factors, scratch, 1, kTensorProducts, 1,
                       sums, 1, 6, 8, 0);
     },
     "NTT shape not supported for products: a fused NTT runs radix 4, not 8"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 1, 257, 1);
     },
     "sum_of_products: a sum of products takes 1 to 256 factors, 1 to 256 "
     "triples and 1 to 8 outputs, got 257, 1 and 1"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 0, 2, 1);
     },
     "got 2, 0 and 1"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 2, 2, 9);
     },
     "got 2, 2 and 9"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 2, 2, 2, 0, 99);
     },
     "sum_of_products: basis 99 is out of range"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 2, 2, 2, 2);
     },
     "sum_of_products: accumulate is 2; it must be 0 or 1"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsPastFactors, 1, 2, 1);
     },
     "triple 0 names output 0 and factors 0, 2 of 1 outputs and 2 factors"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 2, 2, 1);
     },
     "triple 1 names output 1 and factors 1, 1 of 1 outputs and 2 factors"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsRegrouped, 3, 2, 2);
     },
     "triple 2 is for output 0, after output 1 (triples come grouped by "
     "output in increasing order, none skipped)"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsReversed, 2, 2, 2);
     },
     "triple 0 is for output 1, not output 0"},
    {[](RfRuntime *rt, const RfKernels *k) {
       sumsOf(rt, k, kSumsInOrder, 1, 2, 2);
     },
     "sum_of_products: no triple names output 1 of 2"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *sums[2] = {k->buffer(rt, 5), k->buffer(rt, 4)};
       k->sum_of_products(rt, Q, factors, 2, kSumsInOrder, 2, sums, 2, 1);
     },
     "sum_of_products: output 1 overlaps factor 1"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *sums[2] = {k->buffer(rt, 5), k->buffer(rt, 5)};
       k->sum_of_products(rt, Q, factors, 2, kSumsInOrder, 2, sums, 2, 0);
     },
     "sum_of_products: output 1 overlaps output 0"},
    {[](RfRuntime *rt, const RfKernels *k) {
       uint64_t *sums[1] = {k->buffer(rt, 5)};
       k->sum_of_products(rt, Q, nullptr, 2, kSumsInOrder, 1, sums, 1, 0);
     },
     "sum_of_products: the factors, the triples or the outputs are a null "
     "pointer"},
    {[](RfRuntime *rt, const RfKernels *k) {
       const uint64_t *factors[2] = {k->buffer(rt, 3), k->buffer(rt, 4)};
       uint64_t *sums[1] = {k->buffer(rt, 2)};
       k->sum_of_products(rt, Q, factors, 2, kSumsInOrder, 1, sums, 1, 0);
     },
     "sum_of_products: output 0 needs 24576 words from word 0 of buffer 2, "
     "which has 8192"},
    {[](RfRuntime *rt, const RfKernels *k) { k->concurrent_end(rt); },
     "concurrent_end: no concurrent region is open"},
};

} // namespace ringfuse::runtime::handwritten

#endif // RINGFUSE_TEST_CPP_HANDWRITTEN_PROGRAMS_H
