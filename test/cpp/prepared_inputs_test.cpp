//===- prepared_inputs_test.cpp - prepared plaintext inputs between runs --===//
//
// A prepared plaintext input (rotated, lifted and transformed on the host,
// prepared_inputs.h) is kept with the coefficients it came from, and a run
// given the same coefficients reuses it. The reuse must never outlive the
// coefficients: a plaintext changed in place between two runs (the same
// object, so the same address) must be prepared again.
//
//===----------------------------------------------------------------------===//
#include "handwritten_programs.h"
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/program.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace ringfuse::runtime {
namespace {
using namespace handwritten;
using testing::randomBelow;
using testing::seededPrng;

// Program: a ciphertext and a prepared plaintext in, (the plaintext's
// prepared words, x1) out: the output shows exactly what the run was given.
const size_t kPreparedBuffers[] = {kQWords, kQWords, kQWords, kQWords};
const RfValue kPreparedInputs[] = {
    {RF_VALUE_CIPHERTEXT, 2, {0, 1, -1}, 0},
    {RF_VALUE_PREPARED_PLAINTEXT, 1, {2, -1, -1}, kRotateElement}};
const RfValue kPreparedOutputs[] = {{RF_VALUE_CIPHERTEXT, 2, {3, 1, -1}, 0}};

const RfManifest *preparedManifest() {
  static const RfManifest manifest = [] {
    RfManifest m = baseManifest("prepared");
    m.buffer_words = kPreparedBuffers;
    m.buffer_count = 4;
    m.inputs = kPreparedInputs;
    m.input_count = 2;
    m.outputs = kPreparedOutputs;
    m.output_count = 1;
    return m;
  }();
  return &manifest;
}

void preparedRun(RfRuntime *rt, const RfKernels *k) {
  HostSteps::copy(rt, k, k->buffer(rt, 2), kQWords, k->buffer(rt, 3));
}

Plaintext randomPlaintext(const ContextPtr &context) {
  std::vector<uint64_t> slots(kN);
  for (uint64_t &slot : slots)
    slot = randomBelow(kT);
  return encodeSlots(context, slots.data(), slots.size());
}

TEST(PreparedInputs, APlaintextChangedInPlaceIsPreparedAgain) {
  Program kept = Program::fromFunctions(preparedManifest, preparedRun);
  const ContextPtr context = kept.context();
  Prng prng = seededPrng(41);
  const SecretKey secret = generateSecretKey(context, prng);
  const Ciphertext x = encryptSymmetric(secret, randomPlaintext(context), prng);
  Plaintext plain = randomPlaintext(context);
  auto preparedWords = [&](Program &program) {
    std::vector<Ciphertext> out = program.run({&x, &plain});
    return std::vector<uint64_t>(out.at(0).component(0),
                                 out.at(0).component(0) + kQWords);
  };

  const std::vector<uint64_t> first = preparedWords(kept);
  EXPECT_EQ(preparedWords(kept), first); // the same words again

  // The same object, one coefficient changed: a fresh program's words.
  plain.coefficients[7] = (plain.coefficients[7] + 1) % kT;
  const std::vector<uint64_t> changed = preparedWords(kept);
  EXPECT_NE(changed, first);
  Program fresh = Program::fromFunctions(preparedManifest, preparedRun);
  EXPECT_EQ(changed, preparedWords(fresh));

  // And back: the first words again.
  plain.coefficients[7] = (plain.coefficients[7] + kT - 1) % kT;
  EXPECT_EQ(preparedWords(kept), first);
}

} // namespace
} // namespace ringfuse::runtime
