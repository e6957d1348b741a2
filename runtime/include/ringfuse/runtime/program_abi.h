/*===- program_abi.h - what a compiled circuit and the runtime share ------===*
 *
 * A circuit compiled by ringfuse is emitted source that exports two symbols:
 *
 *   const RfManifest *ringfuse_manifest(void);
 *   void ringfuse_run(RfRuntime *runtime, const RfKernels *kernels);
 *
 * The manifest is data: the parameter set, the RNS bases the program works in,
 * the plans of its library kernels (base conversions, scale-and-round), its
 * buffers, inputs, outputs, constants and the evaluation keys it needs. The
 * runtime builds everything from it once, when the program is loaded. `run`
 * is the host schedule: library-kernel calls through the function table and
 * generated elementwise loops over buffers.
 *
 * Plain C, so that a program built into its own shared library (or linked
 * into an executable) shares no C++ objects with the runtime that loads it.
 * The library kernels are kernel_catalog.def's: each is described there.
 * Polynomials are limb-major: limb i of a value over basis b occupies words
 * [i*N, (i+1)*N) of its buffer.
 *
 *===----------------------------------------------------------------------===*/
#ifndef RINGFUSE_RUNTIME_PROGRAM_ABI_H
#define RINGFUSE_RUNTIME_PROGRAM_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 21 was programs of 32-bit words (removed): 22 keeps their files refused. */
#define RINGFUSE_PROGRAM_ABI_VERSION 22

/* A modulus with its Barrett constant floor((2^128 - 1) / value), laid out as
 * runtime/modarith.h's Modulus (which converts from it). */
typedef struct RfModulus {
  uint64_t value;
  uint64_t ratio_high; /* the constant's upper 64 bits */
  uint64_t ratio_low;  /* and lower 64 bits */
} RfModulus;

typedef struct RfBasis {
  const uint64_t *moduli; /* pairwise coprime; NTT-capable if ever transformed */
  int count;
  int dgt; /* nonzero: the program runs dgt_forward / dgt_inverse on it */
} RfBasis;

/* Base conversion from basis `from` to basis `to` (coefficient form). Moduli
 * of `to` that are also in `from` keep their residues; the others receive,
 * by `method`:
 *  - RF_CONVERT_FAST: the fast conversion (x + u*A, 0 <= u < |A|);
 *  - RF_CONVERT_EXACT: the centered representative of x (HPS);
 *  - RF_CONVERT_MONTGOMERY: BEHZ's SmMRq with m~ = 2^32, some y = x (mod A)
 *    with |y| <= A (1/2 + |A| / 2^32);
 *  - RF_CONVERT_SHENOY_KUMARESAN: `from` is a base A followed by a redundant
 *    modulus m_sk; x itself, for |x| < A/2, from A's residues and m_sk's.
 * (runtime/behz.h has the last two.) */
enum {
  RF_CONVERT_FAST = 0,
  RF_CONVERT_EXACT = 1,
  RF_CONVERT_MONTGOMERY = 2,
  RF_CONVERT_SHENOY_KUMARESAN = 3
};
typedef struct RfConverter {
  int from, to;
  int method;
} RfConverter;

/* HPS scale-and-round: input over basis `input` (which contains the moduli of
 * `divisor` and of `kept`, in any order), output over `kept`:
 * round(numerator * x / D) mod each modulus of kept (coefficient form); with
 * `rounding` = RF_SCALE_FAST_FLOOR, BEHZ's fast floor instead,
 * floor(numerator * x / D) - u for some 0 <= u < |D| (runtime/behz.h).
 * Alternatively `input` is `divisor` and `kept` shares no modulus with it:
 * then x over D u kept is given by its D limbs alone, and the output is the
 * part of round(numerator * x / D) mod k that they decide, which is that
 * rounding less [numerator * D^{-1}]_k * x_k (the kept limb's term, which is
 * linear in x_k and so may be added in the evaluation domain: rns-fuse's
 * relinearization). Where k divides the numerator the kept term vanishes and
 * this is a modulus switch (compact HPS's round(R x / Q) into R). The
 * numerator is
 * numerator_words little-endian 64-bit words, not zero. With
 * then_convert = 1 (RF_SCALE_ROUND), `converter` is one with
 * RF_CONVERT_EXACT from `kept` to a basis with moduli outside it (it copies
 * those it shares): the rounded result is converted by it in the same
 * kernel, and the output is over that converter's `to` (rns-fuse's
 * scale_round ... via). */
enum { RF_SCALE_ROUND = 0, RF_SCALE_FAST_FLOOR = 1 };
typedef struct RfScaleRound {
  int input, divisor, kept;
  const uint64_t *numerator;
  int numerator_words;
  int rounding;
  int then_convert;
  int converter;
} RfScaleRound;

/* Plaintext scaling of add_plain: m over basis `from` = {t}, out over basis
 * `to` = Q: round(Q * m / t) mod each q_i. */
typedef struct RfScaleUp {
  int from, to;
} RfScaleUp;

/* What an input or output is (RfValue.kind):
 * - a ciphertext: `components` buffers, each over Q, coefficient form;
 * - a plaintext: one buffer, N coefficients mod t;
 * - a prepared plaintext (inputs only): the caller's plaintext as the runtime
 *   prepares it, in one buffer over Q: its polynomial rotated by X -> X^galois
 *   (galois 0: as it is), lifted to centered residues mod each q_i, in
 *   evaluation form (the forward NTT's order). */
enum {
  RF_VALUE_CIPHERTEXT = 0,
  RF_VALUE_PLAINTEXT = 1,
  RF_VALUE_PREPARED_PLAINTEXT = 2
};

/* An input or output (outputs are ciphertexts). */
typedef struct RfValue {
  int kind; /* RF_VALUE_* */
  int components;
  int buffers[3];
  int64_t galois; /* a prepared plaintext's Galois element, else 0 */
} RfValue;

/* A buffer whose contents are set at load time (an encoded plaintext
 * constant: its N coefficients mod t, or residues over some basis). */
typedef struct RfConstant {
  int buffer;
  const uint64_t *words;
  size_t count;
} RfConstant;

typedef struct RfManifest {
  uint32_t abi_version; /* RINGFUSE_PROGRAM_ABI_VERSION */
  const char *name;     /* the circuit's name */
  /* The parameter set: N, t, Q, P, dnum (Context::fromPrimes). */
  size_t degree;
  uint64_t plaintext_modulus;
  const uint64_t *q;
  int q_count;
  const uint64_t *p;
  int p_count;
  int dnum;
  const RfBasis *bases;
  int basis_count;
  const RfConverter *converters;
  int converter_count;
  const RfScaleRound *scale_rounds;
  int scale_round_count;
  const RfScaleUp *scale_ups;
  int scale_up_count;
  const size_t *buffer_words; /* the size of each buffer, in 64-bit words */
  int buffer_count;
  const RfValue *inputs;
  int input_count;
  const RfValue *outputs;
  int output_count;
  const RfConstant *constants;
  int constant_count;
  /* Key-switching keys, referred to by index in key_switch_inner_product:
   * Galois element g (X -> X^g), or 0 for the relinearization key. */
  const uint64_t *keys;
  int key_count;
  /* The BFV multiplication variant the circuit was compiled with ("hps",
   * "lhps", "chps" or "behz"; with variant=auto, the one chosen), or NULL. */
  const char *variant;
} RfManifest;

/* What key switching adds to its sums (rns-fuse's relinearization): out0's
 * and out1's limb i, for i < limbs, also get scales[i] * addend0 (and
 * addend1) limb i mod the basis's i-th prime. The addends are in evaluation
 * form over the basis's first `limbs` primes (Q_l's, not P's), each word
 * below its prime; scales is a buffer of `limbs` words, each below its
 * prime. Neither addend overlaps out0 or out1. */
typedef struct RfKeySwitchAddend {
  const uint64_t *addend0, *addend1;
  const uint64_t *scales;
  int limbs;
} RfKeySwitchAddend;

typedef struct RfRuntime RfRuntime; /* opaque: the loaded program's state */

/* The instances every kernel of a run computes (a grid's z on the GPU):
 * instance z's buffers are instance 0's (what `buffer` hands out) plus z *
 * stride words. One, stride 0, for a single run and on the CPU driver. */
typedef struct RfInstances {
  unsigned count;
  size_t stride;
} RfInstances;

/* What a schedule calls: the driver's services, then the library kernels of
 * kernel_catalog.def, one entry each (`basis`, `plan` and `key` are manifest
 * indices). */
typedef struct RfKernels {
  uint64_t *(*buffer)(RfRuntime *, int buffer);
  /* Moduli of a basis with their Barrett constants (for generated
   * elementwise loops and kernels, which would otherwise compute each
   * constant, a 128-bit division, per limb or per thread). */
  const RfModulus *(*moduli)(RfRuntime *, int basis);
  /* The CUDA driver's stream (a cudaStream_t) on which emitted CUDA launches
   * its generated kernels; NULL for the CPU driver, whose buffers are host
   * memory that generated loops touch directly. The program may ask once and
   * keep it: each generated kernel on it runs after every library kernel
   * called before it and before every one called after its check_launch. */
  void *(*stream)(RfRuntime *);
  /* Called by emitted CUDA right after each generated kernel launch with
   * what its own cudaGetLastError() returned (a cudaError_t; 0 is success):
   * the driver records a failure naming the kernel, as for its own kernels.
   * The program reads the error itself because it may link its own copy of
   * the CUDA runtime. A no-op for the CPU driver. */
  void (*check_launch)(RfRuntime *, const char *kernel, int cuda_error);
  /* The run's instances, for the grids of emitted CUDA's generated kernels
   * (the library kernels take them from the driver). */
  RfInstances (*instances)(RfRuntime *);
  /* The library kernels called between concurrent_begin and concurrent_end
   * touch disjoint buffers and may run at the same time (the CPU driver runs
   * them in order; the CUDA driver runs every library kernel as soon as the
   * earlier ones whose buffers it shares allow, inside a region or not). No
   * generated kernel runs inside; regions do not nest. */
  void (*concurrent_begin)(RfRuntime *);
  void (*concurrent_end)(RfRuntime *);
#define RF_KERNEL(name, Call, parameters, ...) void(*name) parameters;
#include "ringfuse/runtime/kernel_catalog.def"
} RfKernels;

typedef const RfManifest *(*RfManifestFunction)(void);
typedef void (*RfRunFunction)(RfRuntime *, const RfKernels *);

#ifdef __cplusplus
}
#endif

#endif /* RINGFUSE_RUNTIME_PROGRAM_ABI_H */
