//===- client_kernels.cuh - the GPU client's elementwise steps -*- CUDA -*-===//
//
// Launches on the GpuContext's stream over limbs of QP (or its prefix Q:
// `words` is limbs * N), each the device twin of a CPU reference step.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_GPU_CLIENT_CLIENT_KERNELS_CUH
#define RINGFUSE_GPU_CLIENT_CLIENT_KERNELS_CUH

#include "gpu_context.cuh"

namespace ringfuse::runtime::gpu {

/// out = a * b (multiplyPointwise); out may alias a or b.
void multiply(GpuContext &g, const uint64_t *a, const uint64_t *b,
              size_t words, uint64_t *out);
/// out = -(a * b) (multiplyPointwise, then negateInPlace).
void multiplyNegate(GpuContext &g, const uint64_t *a, const uint64_t *b,
                    size_t words, uint64_t *out);
/// acc += a * b (multiplyAccumulate).
void multiplyAccumulate(GpuContext &g, const uint64_t *a, const uint64_t *b,
                        size_t words, uint64_t *acc);
/// acc += a (addInPlace).
void add(GpuContext &g, const uint64_t *a, size_t words, uint64_t *acc);
/// keys.cpp's gadget term of one digit: b += (P mod q_i) * s' on the limbs
/// [first, first + words / N).
void addGadget(GpuContext &g, const uint64_t *newKey, size_t first,
               size_t words, uint64_t *b);
/// poly.cpp's liftSmall of N signed coefficients to every limb of QP.
void liftSmall(GpuContext &g, const int8_t *small, uint64_t *out);
/// encodeSlots' placement: slot s at its position (out cleared before).
void scatterSlots(GpuContext &g, const uint64_t *values, size_t count,
                  uint64_t *out);
/// decodeSlots' reading: every slot from its position.
void gatherSlots(GpuContext &g, const uint64_t *evaluations, uint64_t *slots);

/// A uniform polynomial over QP, sampled in NTT form, into out.
void sampleUniformQP(GpuContext &g, Prng &prng, uint64_t *out);
/// A small polynomial (ternary or Gaussian) of one fresh domain, lifted to
/// the first `limbs` primes of QP (stored, or added with `accumulate`).
void sampleSmall(GpuContext &g, Prng &prng, bool gaussian, size_t limbs,
                 bool accumulate, int8_t *small, uint64_t *lifted);
/// keys.cpp's sampleRlwePair: (-(a s) + e, a) over QP in NTT form, with s
/// (NTT form over QP) on the device.
void sampleRlwePair(GpuContext &g, Prng &prng, const uint64_t *s, uint64_t *b,
                    uint64_t *a);

} // namespace ringfuse::runtime::gpu

#endif // RINGFUSE_GPU_CLIENT_CLIENT_KERNELS_CUH
