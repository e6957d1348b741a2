//===- program_batch_test.cpp - many instances of a program in one call ---===//
//
// Program::runBatch on the CPU driver: whatever the number of workers, each
// instance's outputs are the words a single run() of its inputs gives, and
// bad arguments are refused before any instance runs.
//
//===----------------------------------------------------------------------===//
#include "batch_arguments.h"
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
using testing::BatchArguments;
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
                   const std::vector<CiphertextBatch> &batch) {
    for (size_t i = 0; i < instances.size(); ++i) {
      std::vector<Ciphertext> single =
          program.run(instances[i], relin_, galois_);
      ASSERT_EQ(batch.size(), single.size()) << "instance " << i;
      for (size_t v = 0; v < single.size(); ++v) {
        ASSERT_EQ(batch[v].count(), instances.size());
        EXPECT_EQ(batch[v].components(), single[v].size);
        EXPECT_TRUE(batch[v].ciphertext(i).data == single[v].data)
            << "instance " << i << " output " << v;
        EXPECT_EQ(batch[v].context(), program.context());
      }
    }
  }

  /// runBatch of instances given one by one.
  static std::vector<CiphertextBatch> runInstances(
      Program &program, const std::vector<std::vector<ProgramInput>> &instances,
      const RelinKey *relin, const GaloisKeys *galois, size_t threads) {
    return program.runBatch(BatchArguments(instances).get(), relin, galois,
                            threads);
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
  const auto batch = runInstances(program, instances, relin_, nullptr, 4);
  expectSingleRuns(program, instances, batch);
  EXPECT_EQ(batch[0].placement(), Placement::Host);
  // The replicas are kept: a second batch on them gives the same words.
  const auto again = runInstances(program, instances, relin_, nullptr, 4);
  for (size_t i = 0; i < instances.size(); ++i)
    EXPECT_TRUE(again[0].ciphertext(i).data == batch[0].ciphertext(i).data)
        << "instance " << i;
}

TEST_F(ProgramBatchTest, AnyNumberOfThreadsGivesTheSameWords) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(3);
  const auto instances = pairInstances(ciphertexts);
  // One thread, more threads than instances (3 workers), one per hardware
  // thread; and fewer replicas than an earlier call made.
  for (size_t threads : {size_t(1), size_t(16), size_t(0), size_t(2)}) {
    SCOPED_TRACE("threads = " + std::to_string(threads));
    expectSingleRuns(
        program, instances,
        runInstances(program, instances, relin_, nullptr, threads));
  }
}

TEST_F(ProgramBatchTest, PlaintextInputsAndGaloisKeysReachEveryWorker) {
  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  std::vector<Ciphertext> ciphertexts;
  std::vector<Plaintext> plaintexts;
  for (uint8_t i = 0; i < 5; ++i) {
    ciphertexts.push_back(randomCiphertext(40 + i));
    plaintexts.push_back(randomPlaintext());
  }
  std::vector<std::vector<ProgramInput>> plainInstances, sharedInstances,
      rotateInstances;
  for (size_t i = 0; i < 5; ++i) {
    plainInstances.push_back({&ciphertexts[i], &plaintexts[i]});
    sharedInstances.push_back({&ciphertexts[i], &plaintexts[0]});
    rotateInstances.push_back({&ciphertexts[i]});
  }
  expectSingleRuns(plain, plainInstances,
                   runInstances(plain, plainInstances, nullptr, nullptr, 3));
  // One plaintext for every instance.
  BatchArguments shared(sharedInstances);
  shared.edit()[1] = std::vector<const Plaintext *>{&plaintexts[0]};
  expectSingleRuns(plain, sharedInstances,
                   plain.runBatch(shared.get(), nullptr, nullptr, 3));

  Program rotate = Program::fromFunctions(rotateManifest, rotateRun<Host, 3>);
  expectSingleRuns(rotate, rotateInstances,
                   runInstances(rotate, rotateInstances, nullptr, galois_, 3));
  EXPECT_MESSAGE(errorOf([&] {
                   runInstances(rotate, rotateInstances, nullptr, nullptr, 3);
                 }),
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
  const auto batch = runInstances(meeting, instances, nullptr, nullptr, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(gStatesMet.size(), 2u);
  expectSingleRuns(meeting, instances, batch); // the two met: no wait now
}

TEST_F(ProgramBatchTest, BadArgumentsAreRefusedBeforeAnyRuns) {
  Program program =
      Program::fromFunctions(multiplyManifest, countedMultiplyRun);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(6);
  const auto instances = pairInstances(ciphertexts);
  const Ciphertext product = multiplyHps(ciphertexts[0], ciphertexts[1]);
  const Plaintext plaintext = randomPlaintext();
  const CiphertextBatch products = CiphertextBatch::fromCiphertexts(
      std::vector<const Ciphertext *>(6, &product));
  const CiphertextBatch five = CiphertextBatch::fromCiphertexts(
      std::vector<const Ciphertext *>(5, &ciphertexts[0]));

  gScheduleRuns = 0;
  auto withInput = [&](size_t input, BatchArgument argument) {
    BatchArguments edited(instances);
    edited.edit()[input] = std::move(argument);
    return errorOf([&] { program.runBatch(edited.get(), relin_, nullptr, 4); });
  };
  EXPECT_MESSAGE(withInput(1, &products),
                 "input 1 of program 'multiply' has 3 components; the program "
                 "expects 2");
  EXPECT_MESSAGE(withInput(1, std::vector<const Plaintext *>{&plaintext}),
                 "input 1 of program 'multiply' is a ciphertext batch, got a "
                 "plaintext");
  EXPECT_MESSAGE(withInput(0, &five),
                 "input 0 of program 'multiply' holds 5 ciphertexts; another "
                 "input holds 6 (a batch holds one ciphertext per instance, "
                 "or one for all)");
  EXPECT_MESSAGE(errorOf([&] {
                   program.runBatch({BatchArguments(instances).get()[0]},
                                    relin_, nullptr, 4);
                 }),
                 "program 'multiply' takes 2 inputs");
  EXPECT_EQ(gScheduleRuns.load(), 0);

  runInstances(program, instances, relin_, nullptr, 4);
  EXPECT_EQ(gScheduleRuns.load(), 6);

  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  const CiphertextBatch three = CiphertextBatch::fromCiphertexts(
      std::vector<const Ciphertext *>(3, &ciphertexts[0]));
  EXPECT_MESSAGE(
      errorOf([&] {
        plain.runBatch({&three, std::vector<const Plaintext *>(2, &plaintext)},
                       nullptr, nullptr, 1);
      }),
      "input 1 of program 'plain' takes one plaintext for all 3 instances or "
      "one per instance, got 2");
  EXPECT_MESSAGE(errorOf([&] { CiphertextBatch::fromCiphertexts({}); }),
                 "a batch holds at least one ciphertext, got none");
  EXPECT_MESSAGE(
      errorOf([&] {
        CiphertextBatch::fromCiphertexts({&ciphertexts[0], &product});
      }),
      "ciphertext 1 has 3");
}

TEST_F(ProgramBatchTest, ABatchOfOneServesEveryInstance) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(4);
  std::vector<std::vector<ProgramInput>> instances;
  for (size_t i = 0; i < 4; ++i)
    instances.push_back({&ciphertexts[i], &ciphertexts[7]});
  BatchArguments arguments(instances);
  const CiphertextBatch one =
      CiphertextBatch::fromCiphertexts({&ciphertexts[7]});
  arguments.edit()[1] = &one;
  expectSingleRuns(program, instances,
                   program.runBatch(arguments.get(), relin_, nullptr, 2));

  // Plaintexts alone: the most given is the count of instances.
  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  const Plaintext p0 = randomPlaintext(), p1 = randomPlaintext();
  const std::vector<CiphertextBatch> outputs = plain.runBatch(
      {&one, std::vector<const Plaintext *>{&p0, &p1}}, nullptr, nullptr, 1);
  ASSERT_EQ(outputs.at(0).count(), 2u);
  EXPECT_TRUE(outputs[0].ciphertext(1).data ==
              plain.run({&ciphertexts[7], &p1}).at(0).data);
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
    EXPECT_MESSAGE(errorOf([&] {
                     runInstances(plain, instances, nullptr, nullptr, threads);
                   }),
                   "instance 6: program 'plain' failed in kernel buffer: "
                   "buffer 99 is out of range");
  // The program and its replicas stay usable.
  instances.erase(instances.begin() + 6);
  expectSingleRuns(plain, instances,
                   runInstances(plain, instances, nullptr, nullptr, 4));
}

TEST_F(ProgramBatchTest, ABatchCopiesOutItsCiphertextsAndSlices) {
  const std::vector<Ciphertext> ciphertexts = pairsOfCiphertexts(2);
  std::vector<const Ciphertext *> pointers;
  for (const Ciphertext &c : ciphertexts)
    pointers.push_back(&c);
  const CiphertextBatch batch = CiphertextBatch::fromCiphertexts(pointers);
  ASSERT_EQ(batch.count(), 4u);
  for (size_t k = 0; k < 4; ++k)
    EXPECT_TRUE(batch.ciphertext(k).data == ciphertexts[k].data);
  const CiphertextBatch middle = batch.slice(1, 2, Placement::Host);
  EXPECT_TRUE(middle.ciphertext(1).data == ciphertexts[2].data);
  EXPECT_MESSAGE(errorOf([&] { batch.slice(3, 2, Placement::Host); }),
                 "instances [3, 5) of a batch of 4");
  EXPECT_MESSAGE(errorOf([&] { batch.ciphertext(4); }),
                 "instance 4 of a batch of 4");
}

} // namespace
} // namespace ringfuse::runtime
