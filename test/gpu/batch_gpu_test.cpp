//===- batch_gpu_test.cpp - batches on the CUDA driver against the CPU ----===//
//
// Program::runBatch on the CUDA driver runs every kernel over a chunk of
// instances in one launch (each instance's buffers `stride` words after the
// last). Every hand-written program's batch must give each instance the
// CPU driver's words for that instance: in one chunk, in many chunks (three
// regions taking turns, a graph per chunk size), and in a batch ten times
// larger than the device's free memory; from batches in pinned host memory
// and in GPU memory.
//
// Compiled by nvcc (CUDA source despite the .cpp name: see CMakeLists.txt).
// Every test skips where no CUDA device is visible.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/program.h"

#include "batch_arguments.h"
#include "device_steps.h"
#include "handwritten_programs.h"
#include "test_support.h"

#include <algorithm>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using namespace handwritten;
using testing::BatchArguments;
using testing::errorOf;
using testing::randomBelow;
using testing::seededPrng;
using Host = HostSteps;
using Gpu = DeviceSteps;

/// A hand-written program: its manifest, its schedules on each driver, and
/// the keys it takes.
struct HandwrittenProgram {
  const char *name;
  RfManifestFunction manifest;
  RfRunFunction cpuRun, gpuRun;
  bool relin, galois, plaintext; // inputs: x (and y or a plaintext)
  bool twoCiphertexts;
};

const HandwrittenProgram kPrograms[] = {
    {"multiply", multiplyManifest, multiplyRun<Host>, multiplyRun<Gpu>, true,
     false, false, true},
    {"multiply (fused)", multiplyManifest, multiplyRun<Host, true>,
     multiplyRun<Gpu, true>, true, false, false, true},
    {"key switch with addend", keySwitchAddendManifest,
     keySwitchAddendRun<Host, false, true>,
     keySwitchAddendRun<Gpu, false, true>, true, false, false, false},
    {"key switch with addend (fused)", keySwitchAddendManifest,
     keySwitchAddendRun<Host, true, true>, keySwitchAddendRun<Gpu, true, true>,
     true, false, false, false},
    {"rotation", rotateManifest, rotateRun<Host, 3>, rotateRun<Gpu, 3>, false,
     true, false, false},
    {"row swap", rowSwapManifest, rotateRun<Host, 2 * kN - 1>,
     rotateRun<Gpu, 2 * kN - 1>, false, true, false, false},
    {"plaintext products", plainManifest, plainRun<Host>, plainRun<Gpu>, false,
     false, true, false},
    {"constants", constantManifest, constantRun<Host>, constantRun<Gpu>, false,
     false, false, false},
    {"gathered scale-and-round", gatherManifest, gatherRun<Host>,
     gatherRun<Gpu>, false, false, false, false},
};

/// The plain program with the first word of its output 1 set to Q's first
/// prime, in every instance: a residue out of range.
void plainRunUnreduced(RfRuntime *rt, const RfKernels *k) {
  plainRun<Gpu>(rt, k);
  Gpu::fill(rt, k, k->buffer(rt, 6), 1, kQ[0]);
}

class GpuBatchTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (!cudaAvailable())
      return;
    Program program =
        Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
    context_ = program.context();
    Prng prng = seededPrng(31);
    secret_ = new SecretKey(generateSecretKey(context_, prng));
    pk_ = new PublicKey(generatePublicKey(*secret_, prng));
    relin_ = new RelinKey(generateRelinKey(*secret_, prng));
    galois_ =
        new GaloisKeys(generateGaloisKeys(*secret_, {3, 2 * kN - 1}, prng));
    // A pool of distinct inputs the instances take in turn.
    Prng inputs = seededPrng(32);
    for (size_t i = 0; i < kPool; ++i) {
      std::vector<uint64_t> slots(kN);
      for (uint64_t &slot : slots)
        slot = randomBelow(kT);
      Plaintext plain = encodeSlots(context_, slots.data(), slots.size());
      pool_.push_back(encryptPublic(*pk_, plain, inputs));
      plains_.push_back(std::move(plain));
    }
  }

  static void TearDownTestSuite() {
    delete secret_;
    delete pk_;
    delete relin_;
    delete galois_;
    pool_.clear();
    plains_.clear();
    context_.reset();
  }

  void SetUp() override {
    if (!cudaAvailable())
      GTEST_SKIP() << "no CUDA device is visible";
  }

  /// Instance i's inputs: pool entries i and i + 1 (or plaintext i + 1).
  static std::vector<ProgramInput> inputsOf(const HandwrittenProgram &program,
                                            size_t i) {
    std::vector<ProgramInput> inputs = {&pool_[i % kPool]};
    if (program.twoCiphertexts)
      inputs.push_back(&pool_[(i + 1) % kPool]);
    if (program.plaintext)
      inputs.push_back(&plains_[(i + 1) % kPool]);
    return inputs;
  }

  /// Runs `instances` instances on the GPU as one batch and requires each
  /// one's outputs to be the CPU driver's for its inputs (computed once per
  /// pool entry). Returns the instances finished, as progress reported them.
  static std::vector<size_t>
  expectBatchMatchesCpu(const HandwrittenProgram &program, Program &gpu,
                        size_t instances,
                        Placement placement = Placement::Host) {
    Program cpu =
        Program::fromFunctions(program.manifest, program.cpuRun, Device::Cpu);
    const RelinKey *relin = program.relin ? relin_ : nullptr;
    const GaloisKeys *galois = program.galois ? galois_ : nullptr;
    std::vector<std::vector<Ciphertext>> expected;
    for (size_t i = 0; i < std::min(instances, kPool); ++i)
      expected.push_back(cpu.run(inputsOf(program, i), relin, galois));
    std::vector<std::vector<ProgramInput>> batch;
    for (size_t i = 0; i < instances; ++i)
      batch.push_back(inputsOf(program, i));
    std::vector<size_t> reported;
    std::vector<CiphertextBatch> outputs =
        gpu.runBatch(BatchArguments(batch, placement).get(), relin, galois, 0,
                     [&](size_t finished) { reported.push_back(finished); });
    EXPECT_EQ(outputs.size(), expected.at(0).size()) << program.name;
    size_t wrong = 0, firstWrong = 0;
    for (size_t v = 0; v < outputs.size(); ++v) {
      EXPECT_EQ(outputs[v].placement(), placement) << program.name;
      EXPECT_EQ(outputs[v].count(), instances) << program.name;
      const CiphertextBatch host = outputs[v].to(Placement::Host);
      const size_t words = host.instanceWords();
      for (size_t i = 0; i < instances; ++i) {
        const std::vector<uint64_t> &want = expected[i % kPool][v].data;
        const bool same =
            want.size() == words &&
            std::equal(want.begin(), want.end(), host.words() + i * words);
        if (!same && wrong++ == 0)
          firstWrong = i;
      }
    }
    EXPECT_EQ(wrong, 0u) << program.name << ": " << wrong << " of " << instances
                         << " instances differ from the CPU "
                         << "driver's, the first is instance " << firstWrong;
    return reported;
  }

  static constexpr size_t kPool = 7;
  static inline ContextPtr context_;
  static inline SecretKey *secret_ = nullptr;
  static inline PublicKey *pk_ = nullptr;
  static inline RelinKey *relin_ = nullptr;
  static inline GaloisKeys *galois_ = nullptr;
  static inline std::vector<Ciphertext> pool_;
  static inline std::vector<Plaintext> plains_;
};

TEST_F(GpuBatchTest, EveryHandwrittenProgramsBatchMatchesTheCpuDriver) {
  for (const HandwrittenProgram &program : kPrograms) {
    Program gpu =
        Program::fromFunctions(program.manifest, program.gpuRun, Device::Cuda);
    // The first batch runs eagerly, the second captures its graph, the
    // third replays it.
    for (int round = 0; round < 3; ++round) {
      std::vector<size_t> reported = expectBatchMatchesCpu(program, gpu, 9);
      EXPECT_EQ(reported, std::vector<size_t>{9}) << program.name;
    }
    // Batches in GPU memory, and outputs left there.
    expectBatchMatchesCpu(program, gpu, 9, Placement::Device);
  }
}

TEST_F(GpuBatchTest, ABatchOfManyChunksMatchesTheCpuDriver) {
  // 600 instances: chunks of 256, 256 and 88 on three regions in turn, a
  // graph each for 256 and 88; after a single run (its graph captured).
  const HandwrittenProgram &program = kPrograms[1];
  Program gpu =
      Program::fromFunctions(program.manifest, program.gpuRun, Device::Cuda);
  gpu.run(inputsOf(program, 0), relin_, nullptr);
  std::vector<size_t> reported = expectBatchMatchesCpu(program, gpu, 600);
  EXPECT_EQ(reported, (std::vector<size_t>{256, 512, 600}));
  reported = expectBatchMatchesCpu(program, gpu, 600, Placement::Device);
  EXPECT_EQ(reported, (std::vector<size_t>{256, 512, 600}));
  // Singles after the batch still use the program's own buffers.
  Program cpu = Program::fromFunctions(program.manifest, program.cpuRun);
  EXPECT_TRUE(gpu.run(inputsOf(program, 3), relin_, nullptr).at(0).data ==
              cpu.run(inputsOf(program, 3), relin_, nullptr).at(0).data);
}

TEST_F(GpuBatchTest, ABatchTenTimesTheFreeDeviceMemoryCompletes) {
  const HandwrittenProgram &program = kPrograms[0];
  Program gpu =
      Program::fromFunctions(program.manifest, program.gpuRun, Device::Cuda);
  // All but 160 MiB of the device taken, then a batch whose inputs and
  // outputs are ten times that.
  constexpr size_t kLeftFree = size_t(160) << 20;
  size_t free = 0, total = 0;
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  ASSERT_GT(free, kLeftFree);
  void *taken = nullptr;
  ASSERT_EQ(cudaMalloc(&taken, free - kLeftFree), cudaSuccess);
  ASSERT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
  const size_t ciphertextBytes = pool_[0].data.size() * sizeof(uint64_t);
  const size_t instances = 10 * free / (3 * ciphertextBytes) + 1;
  std::vector<size_t> reported;
  try {
    reported = expectBatchMatchesCpu(program, gpu, instances);
  } catch (...) {
    cudaFree(taken);
    throw;
  }
  EXPECT_EQ(cudaFree(taken), cudaSuccess);
  ASSERT_FALSE(reported.empty());
  EXPECT_GT(reported.size(), 10u) << "chunks of a batch of " << instances;
  EXPECT_EQ(reported.back(), instances);
}

TEST_F(GpuBatchTest, ValuesForAllInstancesAreCopiedIntoEachOnTheGpu) {
  // One ciphertext (a batch of one), or one plaintext, for all 300 instances
  // (two chunks), from host and from GPU memory.
  const HandwrittenProgram &plain = kPrograms[6], &multiply = kPrograms[0];
  Program cpuPlain =
      Program::fromFunctions(plain.manifest, plain.cpuRun, Device::Cpu);
  Program gpuPlain =
      Program::fromFunctions(plain.manifest, plain.gpuRun, Device::Cuda);
  Program cpuMultiply =
      Program::fromFunctions(multiply.manifest, multiply.cpuRun, Device::Cpu);
  Program gpuMultiply =
      Program::fromFunctions(multiply.manifest, multiply.gpuRun, Device::Cuda);
  constexpr size_t kInstances = 300;
  std::vector<std::vector<ProgramInput>> instances;
  for (size_t i = 0; i < kInstances; ++i)
    instances.push_back({&pool_[i % kPool], &pool_[0]});
  for (Placement placement : {Placement::Host, Placement::Device}) {
    const CiphertextBatch one =
        CiphertextBatch::fromCiphertexts({&pool_[0]}, placement);
    BatchArguments products(instances, placement);
    products.edit()[1] = &one;
    const std::vector<CiphertextBatch> multiplied =
        gpuMultiply.runBatch(products.get(), relin_, nullptr);
    BatchArguments sums(instances, placement);
    sums.edit()[1] = std::vector<const Plaintext *>{&plains_[1]};
    const std::vector<CiphertextBatch> added =
        gpuPlain.runBatch(sums.get(), nullptr, nullptr);
    for (size_t i = 0; i < kInstances; i += 37) {
      EXPECT_TRUE(multiplied.at(0).ciphertext(i).data ==
                  cpuMultiply.run(instances[i], relin_, nullptr).at(0).data)
          << "instance " << i;
      const std::vector<Ciphertext> want =
          cpuPlain.run({&pool_[i % kPool], &plains_[1]});
      for (size_t v = 0; v < want.size(); ++v)
        EXPECT_TRUE(added.at(v).ciphertext(i).data == want[v].data)
            << "instance " << i << " output " << v;
    }
  }
}

TEST_F(GpuBatchTest, AnOutputWordOutOfRangeIsFoundOnTheGpu) {
  const HandwrittenProgram &program = kPrograms[6]; // plaintext products
  Program gpu =
      Program::fromFunctions(program.manifest, plainRunUnreduced, Device::Cuda);
  std::vector<std::vector<ProgramInput>> batch;
  for (size_t i = 0; i < 5; ++i)
    batch.push_back(inputsOf(program, i));
  // Batches from host memory and from GPU memory.
  for (Placement placement : {Placement::Host, Placement::Device})
    EXPECT_MESSAGE(errorOf([&] {
                     gpu.runBatch(BatchArguments(batch, placement).get(),
                                  nullptr, nullptr);
                   }),
                   "program 'plain': output 1 component 0 limb 0 of instance "
                   "0 holds a word that is not below its prime");
}

TEST_F(GpuBatchTest, TimedChunksReplayTheirGraph) {
  const HandwrittenProgram &program = kPrograms[1];
  Program gpu =
      Program::fromFunctions(program.manifest, program.gpuRun, Device::Cuda);
  gpu.bind(relin_, nullptr);
  std::vector<double> times = gpu.timeBatch(inputsOf(program, 0), 32, 2, 5);
  ASSERT_EQ(times.size(), 5u);
  for (double us : times)
    EXPECT_GT(us, 0.0);
  // The chunk's instances were the inputs' copies: a batch after it still
  // gives the CPU driver's words.
  expectBatchMatchesCpu(program, gpu, 32);
  EXPECT_NE(errorOf([&] {
              gpu.timeBatch(inputsOf(program, 0), 0, 0, 1);
            }).find("1 to 256 instances"),
            std::string::npos);
}

} // namespace
} // namespace ringfuse::runtime
