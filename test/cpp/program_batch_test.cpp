//===- program_batch_test.cpp - many instances of a program in one call ---===//
//
// Program::runBatch on the CPU driver: whatever the number of workers, each
// instance's outputs are the words a single run() of its inputs gives, and a
// bad instance is refused, by its index, before any instance runs.
//
//===----------------------------------------------------------------------===//
#include "handwritten_programs.h"
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/program.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace ringfuse::runtime {
namespace {
using testing::errorOf;
using testing::randomBelow;
using testing::seededPrng;

using namespace handwritten;
using Host = HostSteps;

/// Schedules started, over every state of a program (replicas included).
std::atomic<int> gScheduleRuns{0};

void countedMultiplyRun(RfRuntime *rt, const RfKernels *k) {
  ++gScheduleRuns;
  multiplyRun<Host>(rt, k);
}

/// The plain program, failing in a kernel call when its ciphertext input's
/// first word is kFailingWord: an instance that fails inside a worker.
constexpr uint64_t kFailingWord = 424242;
void plainRunFailingOnMarkedInput(RfRuntime *rt, const RfKernels *k) {
  if (k->buffer(rt, 0)[0] == kFailingWord)
    k->buffer(rt, 99);
  plainRun<Host>(rt, k);
}

/// The plain program, whose schedule first waits (10 s at most) until two
/// states are in it at once: only workers that run side by side get past
/// the wait without its timeout.
std::mutex gMeetingMutex;
std::condition_variable gMeeting;
std::set<RfRuntime *> gStatesMet;
void plainRunMeetingAnotherState(RfRuntime *rt, const RfKernels *k) {
  {
    std::unique_lock<std::mutex> lock(gMeetingMutex);
    gStatesMet.insert(rt);
    gMeeting.notify_all();
    gMeeting.wait_for(lock, std::chrono::seconds(10),
                      [] { return gStatesMet.size() >= 2; });
  }
  plainRun<Host>(rt, k);
}

class ProgramBatchTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    context_ =
        Program::fromFunctions(multiplyManifest, multiplyRun<Host>).context();
    Prng prng = seededPrng(21);
    secret_ = new SecretKey(generateSecretKey(context_, prng));
    relin_ = new RelinKey(generateRelinKey(*secret_, prng));
    galois_ =
        new GaloisKeys(generateGaloisKeys(*secret_, {kRotateElement}, prng));
  }

  static void TearDownTestSuite() {
    delete secret_;
    delete relin_;
    delete galois_;
    context_.reset();
  }

  static Plaintext randomPlaintext() {
    std::vector<uint64_t> slots(kN);
    for (auto &slot : slots)
      slot = randomBelow(kT);
    return encodeSlots(context_, slots.data(), slots.size());
  }

  static Ciphertext randomCiphertext(uint8_t seed) {
    Prng prng = seededPrng(seed);
    return encryptSymmetric(*secret_, randomPlaintext(), prng);
  }

  /// `count` instances of (ciphertext, ciphertext), all distinct.
  static std::vector<Ciphertext> pairsOfCiphertexts(size_t count) {
    std::vector<Ciphertext> ciphertexts;
    for (size_t i = 0; i < 2 * count; ++i)
      ciphertexts.push_back(randomCiphertext(static_cast<uint8_t>(100 + i)));
    return ciphertexts;
  }

  static std::vector<std::vector<ProgramInput>>
  pairInstances(const std::vector<Ciphertext> &ciphertexts) {
    std::vector<std::vector<ProgramInput>> instances;
    for (size_t i = 0; i + 1 < ciphertexts.size(); i += 2)
      instances.push_back({&ciphertexts[i], &ciphertexts[i + 1]});
    return instances;
  }

  /// Each instance's outputs are the single run's, word for word, under the
  /// program's own context.
  static void
  expectSingleRuns(Program &program,
                   const std::vector<std::vector<ProgramInput>> &instances,
                   const std::vector<std::vector<Ciphertext>> &batch) {
    ASSERT_EQ(batch.size(), instances.size());
    for (size_t i = 0; i < instances.size(); ++i) {
      std::vector<Ciphertext> single =
          program.run(instances[i], relin_, galois_);
      ASSERT_EQ(batch[i].size(), single.size()) << "instance " << i;
      for (size_t v = 0; v < single.size(); ++v) {
        EXPECT_EQ(batch[i][v].size, single[v].size);
        EXPECT_TRUE(batch[i][v].data == single[v].data)
            << "instance " << i << " output " << v;
        EXPECT_EQ(batch[i][v].context, program.context());
      }
    }
  }

  static inline ContextPtr context_;
  static inline SecretKey *secret_ = nullptr;
  static inline RelinKey *relin_ = nullptr;
  static inline GaloisKeys *galois_ = nullptr;
};

TEST_F(ProgramBatchTest, NineInstancesOnFourThreadsAreNineSingleRuns) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(9);
  const auto instances = pairInstances(ciphertexts);
  const auto batch = program.runBatch(instances, relin_, nullptr, 4);
  expectSingleRuns(program, instances, batch);
  // The replicas are kept: a second batch on them gives the same words.
  const auto again = program.runBatch(instances, relin_, nullptr, 4);
  for (size_t i = 0; i < instances.size(); ++i)
    EXPECT_TRUE(again[i][0].data == batch[i][0].data) << "instance " << i;
}

TEST_F(ProgramBatchTest, AnyNumberOfThreadsGivesTheSameWords) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(3);
  const auto instances = pairInstances(ciphertexts);
  // One thread, more threads than instances (3 workers), one per hardware
  // thread; and fewer replicas than an earlier call made.
  for (size_t threads : {size_t(1), size_t(16), size_t(0), size_t(2)}) {
    SCOPED_TRACE("threads = " + std::to_string(threads));
    expectSingleRuns(program, instances,
                     program.runBatch(instances, relin_, nullptr, threads));
  }
  EXPECT_TRUE(program.runBatch({}, relin_, nullptr, 4).empty());
}

TEST_F(ProgramBatchTest, PlaintextInputsAndGaloisKeysReachEveryWorker) {
  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  std::vector<Ciphertext> ciphertexts;
  std::vector<Plaintext> plaintexts;
  for (uint8_t i = 0; i < 5; ++i) {
    ciphertexts.push_back(randomCiphertext(40 + i));
    plaintexts.push_back(randomPlaintext());
  }
  std::vector<std::vector<ProgramInput>> plainInstances, rotateInstances;
  for (size_t i = 0; i < 5; ++i) {
    plainInstances.push_back({&ciphertexts[i], &plaintexts[i]});
    rotateInstances.push_back({&ciphertexts[i]});
  }
  expectSingleRuns(plain, plainInstances,
                   plain.runBatch(plainInstances, nullptr, nullptr, 3));

  Program rotate = Program::fromFunctions(rotateManifest, rotateRun<Host, 3>);
  expectSingleRuns(rotate, rotateInstances,
                   rotate.runBatch(rotateInstances, nullptr, galois_, 3));
  EXPECT_MESSAGE(
      errorOf([&] { rotate.runBatch(rotateInstances, nullptr, nullptr, 3); }),
      "rotates with Galois element 3");
}

TEST_F(ProgramBatchTest, WorkersRunSideBySideOnStatesOfTheirOwn) {
  Program meeting =
      Program::fromFunctions(plainManifest, plainRunMeetingAnotherState);
  const Ciphertext x = randomCiphertext(80), y = randomCiphertext(81);
  const Plaintext plaintext = randomPlaintext();
  const std::vector<std::vector<ProgramInput>> instances = {{&x, &plaintext},
                                                            {&y, &plaintext}};
  const auto start = std::chrono::steady_clock::now();
  const auto batch = meeting.runBatch(instances, nullptr, nullptr, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(gStatesMet.size(), 2u);
  expectSingleRuns(meeting, instances, batch); // the two met: no wait now
}

TEST_F(ProgramBatchTest, ABadInstanceIsRefusedByItsIndexBeforeAnyRuns) {
  Program program =
      Program::fromFunctions(multiplyManifest, countedMultiplyRun);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(6);
  auto instances = pairInstances(ciphertexts);
  const Ciphertext product = multiplyHps(ciphertexts[0], ciphertexts[1]);
  const Plaintext plaintext = randomPlaintext();

  gScheduleRuns = 0;
  auto withInstance = [&](size_t index, std::vector<ProgramInput> inputs) {
    auto edited = instances;
    edited[index] = std::move(inputs);
    return errorOf([&] { program.runBatch(edited, relin_, nullptr, 4); });
  };
  EXPECT_MESSAGE(withInstance(3, {&ciphertexts[0], &product}),
                 "instance 3: input 1 of program 'multiply' has 3 components; "
                 "the program expects 2");
  EXPECT_MESSAGE(withInstance(5, {&ciphertexts[0], &plaintext}),
                 "instance 5: input 1 of program 'multiply' is a ciphertext, "
                 "got a plaintext");
  EXPECT_MESSAGE(withInstance(0, {&ciphertexts[0]}),
                 "instance 0: program 'multiply' takes 2 inputs");
  EXPECT_EQ(gScheduleRuns.load(), 0);

  program.runBatch(instances, relin_, nullptr, 4);
  EXPECT_EQ(gScheduleRuns.load(), 6);
}

TEST_F(ProgramBatchTest, AFailureInAWorkerIsThrownNamingItsInstance) {
  Program plain =
      Program::fromFunctions(plainManifest, plainRunFailingOnMarkedInput);
  std::vector<Ciphertext> ciphertexts;
  for (uint8_t i = 0; i < 8; ++i)
    ciphertexts.push_back(randomCiphertext(60 + i));
  ciphertexts[6].data[0] = kFailingWord;
  const Plaintext plaintext = randomPlaintext();
  std::vector<std::vector<ProgramInput>> instances;
  for (const Ciphertext &ciphertext : ciphertexts)
    instances.push_back({&ciphertext, &plaintext});
  for (size_t threads : {size_t(1), size_t(4)})
    EXPECT_MESSAGE(
        errorOf([&] { plain.runBatch(instances, nullptr, nullptr, threads); }),
        "instance 6: program 'plain' failed in kernel buffer: "
        "buffer 99 is out of range");
  // The program and its replicas stay usable.
  instances.erase(instances.begin() + 6);
  expectSingleRuns(plain, instances,
                   plain.runBatch(instances, nullptr, nullptr, 4));
}

} // namespace
} // namespace ringfuse::runtime
