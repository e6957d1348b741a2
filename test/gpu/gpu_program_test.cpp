//===- gpu_program_test.cpp - the CUDA driver against the CPU driver ------===//
//
// The hand-written programs of test/cpp (handwritten_programs.h) run on both
// drivers: on the CPU with HostSteps, on the GPU with DeviceSteps, whose
// elementwise steps are __global__ kernels of one thread per residue around
// the same RF_HOST_DEVICE bodies (the shape ringfuse-translate --emit-cuda
// produces). Every output must be the CPU driver's, word for word, on the
// first (eager) run, on the second (captured into a CUDA graph) and on later
// runs (graph replays), also with new inputs.
//
// Compiled by nvcc (CUDA source despite the .cpp name: see CMakeLists.txt).
// Every test skips where no CUDA device is visible.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/program.h"

#include "device_steps.h"
#include "handwritten_programs.h"
#include "ringfuse/gpu/kernels.cuh"
#include "test_support.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <sstream>

namespace ringfuse::runtime {
namespace {
using namespace handwritten;
using Host = HostSteps;
using Gpu = DeviceSteps;
using testing::randomBelow;
using testing::seededPrng;
using testing::errorOf;

// Comparing
// ---------------------------------------------------------------------

/// Empty if equal; else where the first difference is and how many words
/// differ, for a report a person can act on.
std::string differences(const std::vector<Ciphertext> &gpu,
                        const std::vector<Ciphertext> &cpu) {
  std::ostringstream out;
  if (gpu.size() != cpu.size()) {
    out << gpu.size() << " outputs on the GPU, " << cpu.size() << " on the CPU";
    return out.str();
  }
  for (size_t v = 0; v < gpu.size(); ++v) {
    if (gpu[v].size != cpu[v].size ||
        gpu[v].data.size() != cpu[v].data.size()) {
      out << "output " << v << " has " << gpu[v].size << " components ("
          << gpu[v].data.size() << " words) on the GPU, " << cpu[v].size << " ("
          << cpu[v].data.size() << ") on the CPU";
      return out.str();
    }
    const size_t n = cpu[v].context->degree();
    const size_t componentWords = cpu[v].componentWords();
    size_t mismatches = 0, first = 0;
    for (size_t w = 0; w < cpu[v].data.size(); ++w)
      if (gpu[v].data[w] != cpu[v].data[w] && mismatches++ == 0)
        first = w;
    if (mismatches) {
      const size_t component = first / componentWords,
                   limb = first % componentWords / n, coefficient = first % n;
      out << "output " << v << ": " << mismatches << " of "
          << cpu[v].data.size() << " words differ; the first is component "
          << component << " limb " << limb << " coefficient " << coefficient
          << ": GPU " << gpu[v].data[first] << ", CPU " << cpu[v].data[first];
      return out.str();
    }
  }
  return "";
}

#define EXPECT_SAME_WORDS(gpu, cpu, what)                                      \
  EXPECT_EQ(differences(gpu, cpu), "") << (what)

// Fixture: one key set for all tests
// --------------------------------------------

class GpuProgramTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (!cudaAvailable())
      return;
    Program program =
        Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
    context_ = program.context();
    Prng prng = seededPrng(11);
    secret_ = new SecretKey(generateSecretKey(context_, prng));
    pk_ = new PublicKey(generatePublicKey(*secret_, prng));
    relin_ = new RelinKey(generateRelinKey(*secret_, prng));
    galois_ =
        new GaloisKeys(generateGaloisKeys(*secret_, {3, 2 * kN - 1}, prng));
  }

  static void TearDownTestSuite() {
    delete secret_;
    delete pk_;
    delete relin_;
    delete galois_;
    secret_ = nullptr;
    pk_ = nullptr;
    relin_ = nullptr;
    galois_ = nullptr;
    context_.reset();
  }

  void SetUp() override {
    if (!cudaAvailable())
      GTEST_SKIP() << "no CUDA device is visible";
  }

  static std::vector<uint64_t> randomSlots() {
    std::vector<uint64_t> values(kN);
    for (auto &v : values)
      v = randomBelow(kT);
    return values;
  }

  static Plaintext encode(const std::vector<uint64_t> &slots) {
    return encodeSlots(context_, slots.data(), slots.size());
  }

  static Ciphertext encrypt(const std::vector<uint64_t> &slots,
                            uint8_t seed = 5) {
    Prng prng = seededPrng(seed);
    return encryptPublic(*pk_, encode(slots), prng);
  }

  static std::vector<uint64_t> decryptSlots(const Ciphertext &ct) {
    return decodeSlots(decrypt(*secret_, ct));
  }

  /// Loads the program on both drivers and runs it three times on the GPU
  /// (eager, captured, replayed), each against the CPU driver's outputs.
  static std::vector<Ciphertext>
  expectSameOnBothDrivers(RfManifestFunction manifest, RfRunFunction cpuRun,
                          RfRunFunction gpuRun,
                          const std::vector<ProgramInput> &inputs,
                          const RelinKey *relin, const GaloisKeys *galois) {
    Program cpu = Program::fromFunctions(manifest, cpuRun, Device::Cpu);
    Program gpu = Program::fromFunctions(manifest, gpuRun, Device::Cuda);
    EXPECT_EQ(gpu.device(), Device::Cuda);
    std::vector<Ciphertext> expected = cpu.run(inputs, relin, galois);
    std::vector<Ciphertext> first = gpu.run(inputs, relin, galois);
    EXPECT_SAME_WORDS(first, expected, "the first (eager) run");
    EXPECT_FALSE(gpu.replaysGraph());
    std::vector<Ciphertext> second = gpu.run(inputs); // keys still bound
    EXPECT_SAME_WORDS(second, expected, "the second run (captured)");
    EXPECT_TRUE(gpu.replaysGraph());
    std::vector<Ciphertext> third = gpu.run(inputs, relin, galois);
    EXPECT_SAME_WORDS(third, expected, "the third run (replayed)");
    return first;
  }

  static inline ContextPtr context_;
  static inline SecretKey *secret_ = nullptr;
  static inline PublicKey *pk_ = nullptr;
  static inline RelinKey *relin_ = nullptr;
  static inline GaloisKeys *galois_ = nullptr;
};

// The hand-written programs ---------------------------------------------------

TEST_F(GpuProgramTest, MultiplyRelinearizeMatchesTheCpuDriver) {
  auto x = randomSlots(), y = randomSlots();
  Ciphertext cx = encrypt(x, 1), cy = encrypt(y, 2);
  std::vector<Ciphertext> out =
      expectSameOnBothDrivers(multiplyManifest, multiplyRun<Host>,
                              multiplyRun<Gpu>, {&cx, &cy}, relin_, nullptr);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].data == relinearize(multiplyHps(cx, cy), *relin_).data);
  // The fused launches (ntt_products for the tensor terms; ntt_key_switch
  // with a one-limb digit and two over QP, transformed in place) give the
  // same words.
  std::vector<Ciphertext> fused = expectSameOnBothDrivers(
      multiplyManifest, multiplyRun<Host, true>, multiplyRun<Gpu, true>,
      {&cx, &cy}, relin_, nullptr);
  EXPECT_TRUE(fused[0].data == out[0].data);
  std::vector<uint64_t> product(kN);
  for (size_t i = 0; i < kN; ++i)
    product[i] = x[i] * y[i] % kT;
  EXPECT_EQ(decryptSlots(out[0]), product);
}

// Key switching with an addend, fused (ntt_key_switch) and not
// (key_switch_inner_product): the same words on both drivers, and the
// addend carried into the outputs (addendCarried).
TEST_F(GpuProgramTest, KeySwitchAddendMatchesTheCpuDriver) {
  Ciphertext cx = encrypt(randomSlots(), 3);
  auto both = [&](RfRunFunction cpuRun, RfRunFunction gpuRun) {
    std::vector<Ciphertext> out = expectSameOnBothDrivers(
        keySwitchAddendManifest, cpuRun, gpuRun, {&cx}, relin_, nullptr);
    return out.at(0).data;
  };
  EXPECT_TRUE(both(keySwitchAddendRun<Host, false, true>,
                   keySwitchAddendRun<Gpu, false, true>) ==
              addendCarried(cx.data,
                            both(keySwitchAddendRun<Host, false, false>,
                                 keySwitchAddendRun<Gpu, false, false>)));
  EXPECT_TRUE(both(keySwitchAddendRun<Host, true, true>,
                   keySwitchAddendRun<Gpu, true, true>) ==
              addendCarried(cx.data,
                            both(keySwitchAddendRun<Host, true, false>,
                                 keySwitchAddendRun<Gpu, true, false>)));
}

TEST_F(GpuProgramTest, RotationMatchesTheCpuDriver) {
  Ciphertext cx = encrypt(randomSlots());
  std::vector<Ciphertext> out =
      expectSameOnBothDrivers(rotateManifest, rotateRun<Host, 3>,
                              rotateRun<Gpu, 3>, {&cx}, nullptr, galois_);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].data == applyGalois(cx, 3, *galois_).data);
  expectSameOnBothDrivers(rowSwapManifest, rotateRun<Host, 2 * kN - 1>,
                          rotateRun<Gpu, 2 * kN - 1>, {&cx}, nullptr, galois_);
}

TEST_F(GpuProgramTest, AddPlainAndMulPlainMatchTheCpuDriver) {
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  expectSameOnBothDrivers(plainManifest, plainRun<Host>, plainRun<Gpu>,
                          {&cx, &pm}, nullptr, nullptr);
}

TEST_F(GpuProgramTest, ConstantsMatchTheCpuDriverOnEveryRun) {
  // The schedule overwrites its constant's buffer at the end of each run;
  // every run, replays included, must find the constant again.
  Ciphertext cx = encrypt(randomSlots());
  expectSameOnBothDrivers(constantManifest, constantRun<Host>, constantRun<Gpu>,
                          {&cx}, nullptr, nullptr);
}

TEST_F(GpuProgramTest, GatheredScaleRoundAndInPlaceConvertMatchTheCpuDriver) {
  Ciphertext cx = encrypt(randomSlots());
  expectSameOnBothDrivers(gatherManifest, gatherRun<Host>, gatherRun<Gpu>,
                          {&cx}, nullptr, nullptr);
}

TEST_F(GpuProgramTest, ReplaysTakeNewInputsAndNewKeys) {
  Program cpu = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  Program gpu =
      Program::fromFunctions(multiplyManifest, multiplyRun<Gpu>, Device::Cuda);
  for (uint8_t seed = 1; seed <= 4; ++seed) {
    Ciphertext cx = encrypt(randomSlots(), seed),
               cy = encrypt(randomSlots(), seed + 10);
    EXPECT_SAME_WORDS(gpu.run({&cx, &cy}, relin_, nullptr),
                      cpu.run({&cx, &cy}, relin_, nullptr),
                      "run " + std::to_string(seed));
  }
  EXPECT_TRUE(gpu.replaysGraph());

  // Another relinearization key (another secret): bind uploads it.
  Prng prng = seededPrng(21);
  SecretKey otherSecret = generateSecretKey(context_, prng);
  RelinKey otherRelin = generateRelinKey(otherSecret, prng);
  Ciphertext cx = encrypt(randomSlots(), 7), cy = encrypt(randomSlots(), 8);
  gpu.bind(&otherRelin, nullptr);
  EXPECT_SAME_WORDS(gpu.run({&cx, &cy}),
                    cpu.run({&cx, &cy}, &otherRelin, nullptr),
                    "after binding another key");
  EXPECT_SAME_WORDS(gpu.run({&cx, &cy}, relin_, nullptr),
                    cpu.run({&cx, &cy}, relin_, nullptr),
                    "after going back to the first key");
}

// The NTT at other ring degrees
// --------------------------------------------------
//
// The kernels change shape with N: up to 2^11 words one block transforms a
// whole limb; above, a column step and a row step (N = N1 x N2, ntt.cu).
// A program that transforms an input ciphertext's components at the
// driver's default shape: out = (NTT(x0), INTT(NTT(x1))) over Q.

std::vector<uint64_t> gNttQ;
RfBasis gNttBases[1];
size_t gNttBuffers[4];
const RfValue kNttInputs[] = {{0, 2, {0, 1, -1}}};
const RfValue kNttOutputs[] = {{0, 2, {2, 3, -1}}};
RfManifest gNttManifest;
const RfManifest *nttManifest() { return &gNttManifest; }

template <typename Steps> void nttRun(RfRuntime *rt, const RfKernels *k) {
  const size_t words = gNttBuffers[0];
  uint64_t *b[4];
  for (int i = 0; i < 4; ++i)
    b[i] = k->buffer(rt, i);
  Steps::copy(rt, k, b[0], words, b[2]);
  k->ntt_forward(rt, 0, b[2], 0, 0, 0);
  Steps::copy(rt, k, b[1], words, b[3]);
  k->ntt_forward(rt, 0, b[3], 0, 0, 0);
  k->ntt_inverse(rt, 0, b[3], 0, 0, 0);
}

/// Points the NTT program's manifest at a parameter set of degree n (three
/// primes of Q, one of P) and returns it.
ContextPtr prepareNttManifest(size_t n) {
  ParameterRequest request;
  request.polyModulusDegree = n;
  request.plaintextModulus = 65537;
  request.coeffModulusBits = {60, 50, 40};
  request.specialModulusBits = {60};
  request.allowInsecure = true;
  ContextPtr context = Context::create(request);
  gNttQ = context->q().values();
  const size_t words = gNttQ.size() * n;
  gNttBases[0] = {gNttQ.data(), static_cast<int>(gNttQ.size()), 0};
  for (size_t &b : gNttBuffers)
    b = words;
  RfManifest m{};
  m.abi_version = RINGFUSE_PROGRAM_ABI_VERSION;
  m.name = "ntt";
  m.degree = n;
  m.plaintext_modulus = 65537;
  m.q = gNttQ.data();
  m.q_count = static_cast<int>(gNttQ.size());
  m.p = context->p().values().data();
  m.p_count = static_cast<int>(context->p().size());
  m.bases = gNttBases;
  m.basis_count = 1;
  m.buffer_words = gNttBuffers;
  m.buffer_count = 4;
  m.inputs = kNttInputs;
  m.input_count = 1;
  m.outputs = kNttOutputs;
  m.output_count = 1;
  gNttManifest = m;
  return context;
}

/// A ciphertext of two uniformly random components over Q.
Ciphertext randomComponents(const ContextPtr &context) {
  const size_t n = context->degree(), words = gNttQ.size() * n;
  Ciphertext x{context, 2, std::vector<uint64_t>(2 * words)};
  for (size_t k = 0; k < 2; ++k)
    for (size_t i = 0; i < gNttQ.size(); ++i)
      for (size_t j = 0; j < n; ++j)
        x.component(k)[i * n + j] = randomBelow(gNttQ[i]);
  return x;
}

TEST_F(GpuProgramTest, NttMatchesTheCpuDriverAtEveryRingDegree) {
  for (size_t n : {2, 64, 2048, 4096, 16384, 32768}) {
    ContextPtr context = prepareNttManifest(n);
    const size_t words = gNttQ.size() * n;
    Ciphertext x = randomComponents(context);
    SCOPED_TRACE("N = " + std::to_string(n));
    std::vector<Ciphertext> out = expectSameOnBothDrivers(
        nttManifest, nttRun<Host>, nttRun<Gpu>, {&x}, nullptr, nullptr);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(
        std::equal(x.component(1), x.component(1) + words, out[0].component(1)))
        << "INTT(NTT(x)) is not x";
  }
}

// The automorphism in evaluation form
// ----------------------------------------------------------
//
// out = (X -> X^G of NTT(x0), in evaluation form; NTT(x1)) over Q: the CUDA
// permutation against the CPU driver's, and both against the coefficient-form
// automorphism followed by the NTT.

uint64_t gEvaluationGalois;

template <typename Steps>
void evaluationAutomorphismRun(RfRuntime *rt, const RfKernels *k) {
  const size_t words = gNttBuffers[0];
  uint64_t *b[4];
  for (int i = 0; i < 4; ++i)
    b[i] = k->buffer(rt, i);
  Steps::copy(rt, k, b[0], words, b[3]);
  k->ntt_forward(rt, 0, b[3], 0, 0, 0);
  k->automorphism_evaluation(rt, 0, gEvaluationGalois, b[3], b[2]);
  Steps::copy(rt, k, b[1], words, b[3]);
  k->ntt_forward(rt, 0, b[3], 0, 0, 0);
}

TEST_F(GpuProgramTest, EvaluationAutomorphismMatchesTheCpuDriver) {
  for (size_t n : {64, 4096, 32768})
    for (uint64_t g : {uint64_t(3), uint64_t(5), n + 1, 2 * n - 1}) {
      ContextPtr context = prepareNttManifest(n);
      gEvaluationGalois = g;
      Ciphertext x = randomComponents(context);
      SCOPED_TRACE("N = " + std::to_string(n) + ", g = " + std::to_string(g));
      std::vector<Ciphertext> out = expectSameOnBothDrivers(
          nttManifest, evaluationAutomorphismRun<Host>,
          evaluationAutomorphismRun<Gpu>, {&x}, nullptr, nullptr);
      ASSERT_EQ(out.size(), 1u);
      for (size_t i = 0; i < gNttQ.size(); ++i) {
        std::vector<uint64_t> expected(n);
        applyAutomorphism(x.component(0) + i * n, n, g, gNttQ[i],
                          expected.data());
        NttTables(gNttQ[i], n).forward(expected.data());
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(),
                               out[0].component(0) + i * n))
            << "limb " << i << " is not NTT(automorphism(x0))";
      }
    }
}

// Errors ---------------------------------------------------------------------

/// Writes a residue out of range: the run must refuse the output.
__global__ void scribbleKernel(uint64_t *word) { *word = ~uint64_t(0); }

TEST_F(GpuProgramTest, KernelErrorsSurfaceFromRun) {
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  auto runWith = [&](RfRunFunction run) {
    Program program = Program::fromFunctions(plainManifest, run, Device::Cuda);
    return errorOf([&] { program.run({&cx, &pm}); });
  };
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->buffer(rt, 8); // the spare buffer, not a crash
                 }),
                 "buffer 8 is out of range");
  // The argument checks both drivers share.
  for (const RefusedCall &call : kRefusedCalls)
    EXPECT_MESSAGE(runWith(call.run), call.message);
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   scribbleKernel<<<1, 1, 0, streamOf(rt, k)>>>(
                       k->buffer(rt, 4) + 5);
                   k->check_launch(rt, "scribble", static_cast<int>(cudaGetLastError()));
                 }),
                 "output 0 component 0 limb 0 holds");
  // A region left open is joined (the run stays usable, below).
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->concurrent_begin(rt);
                   k->ntt_forward(rt, Q, k->buffer(rt, 0), 0, 0, 0);
                   k->ntt_forward(rt, Q, k->buffer(rt, 1), 0, 0, 0);
                 }),
                 "the schedule ended inside a concurrent region");
  // Inside a region an output may not overlap its input (the staging
  // buffer is shared).
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->concurrent_begin(rt);
                   k->scale_up(rt, PlainToQ, k->buffer(rt, 3), k->buffer(rt, 3));
                   k->concurrent_end(rt);
                 }),
                 "overlaps the input inside a concurrent region");
  // A launch that cannot start (too many threads per block) names the
  // generated kernel and the CUDA error.
  std::string badLaunch = runWith([](RfRuntime *rt, const RfKernels *k) {
    fillKernel<<<1, 4096, 0, streamOf(rt, k)>>>(k->buffer(rt, 3), 1, 0);
    k->check_launch(rt, "too_wide", static_cast<int>(cudaGetLastError()));
  });
  EXPECT_MESSAGE(badLaunch, "failed in kernel too_wide: CUDA kernel failed "
                            "to launch: cudaError");
  // The first error wins; the program stays usable.
  Program program =
      Program::fromFunctions(plainManifest, plainRun<Gpu>, Device::Cuda);
  EXPECT_NO_THROW(program.run({&cx, &pm}));
}

// The dot products' reduction (reduce128Quick) takes moduli below 2^62 and
// has no path for larger ones: plans with such moduli are refused where the
// driver sizes their sums, not reduced wrong.
TEST(GpuDotProducts, RefuseModuliTheirReductionCannotTake) {
  const uint64_t largestPrime = (uint64_t(1) << 61) - 1;
  EXPECT_GT(cuda::productsPerSum(largestPrime, kQuickReductionBound - 57), 0);
  EXPECT_MESSAGE(errorOf([&] {
                   cuda::productsPerSum(largestPrime, kQuickReductionBound + 1);
                 }),
                 "GPU dot products reduce modulo moduli below 2^62, not " +
                     std::to_string(kQuickReductionBound + 1));
}

TEST_F(GpuProgramTest, ChecksInputsAndKeysAsTheCpuDriverDoes) {
  Program program =
      Program::fromFunctions(multiplyManifest, multiplyRun<Gpu>, Device::Cuda);
  Ciphertext cx = encrypt(randomSlots());
  EXPECT_MESSAGE(errorOf([&] {
                   program.run({&cx, &cx});
                 }),
                 "relinearizes, but no relinearization key");
  EXPECT_MESSAGE(errorOf([&] { program.run({&cx}, relin_, nullptr); }),
                 "takes 2 inputs (ciphertext, ciphertext), got 1");
}

} // namespace
} // namespace ringfuse::runtime
