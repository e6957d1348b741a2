//===- program_test.cpp - compiled circuits on the CPU driver -------------===//
//
// The programs (handwritten_programs.h) are written by hand in the shape the
// compiler emits: a static manifest of plain arrays and a schedule that calls
// the kernels and runs its own elementwise loops. Where a program computes
// what a reference operation of bfv.h computes, its output must be the same
// words.
//
//===----------------------------------------------------------------------===//
#include "handwritten_programs.h"
#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/host_memory.h"
#include "ringfuse/runtime/modarith.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/program.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fstream>
#include <optional>

namespace ringfuse::runtime {
namespace {
using testing::randomBelow;
using testing::seededPrng;
using testing::errorOf;

using namespace handwritten;
using Host = HostSteps;

// Fixture: one key set for all tests (keys at N = 2^13 are slow to make) ---

class ProgramTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    Program program =
        Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
    context_ = program.context();
    Prng prng = seededPrng(11);
    secret_ = new SecretKey(generateSecretKey(context_, prng));
    pk_ = new PublicKey(generatePublicKey(*secret_, prng));
    relin_ = new RelinKey(generateRelinKey(*secret_, prng));
    galois_ =
        new GaloisKeys(generateGaloisKeys(*secret_, {kRotateElement}, prng));
  }

  static void TearDownTestSuite() {
    delete secret_;
    delete pk_;
    delete relin_;
    delete galois_;
    context_.reset();
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

  static inline ContextPtr context_;
  static inline SecretKey *secret_ = nullptr;
  static inline PublicKey *pk_ = nullptr;
  static inline RelinKey *relin_ = nullptr;
  static inline GaloisKeys *galois_ = nullptr;
};

TEST_F(ProgramTest, LoadsTheManifest) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  EXPECT_EQ(program.name(), "multiply");
  EXPECT_EQ(program.context()->fingerprint(), context_->fingerprint());
  EXPECT_FALSE(program.insecure());
  EXPECT_EQ(program.context()->auxiliary().values(),
            std::vector<uint64_t>(kB, kB + 4));
  ASSERT_EQ(program.inputCount(), 2u);
  EXPECT_FALSE(program.inputIsPlaintext(0));
  EXPECT_EQ(program.inputComponents(1), 2u);
  EXPECT_EQ(program.outputCount(), 1u);
  EXPECT_TRUE(program.needsRelinKey());
  EXPECT_TRUE(program.requiredGaloisElements().empty());

  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  EXPECT_TRUE(plain.inputIsPlaintext(1));
  EXPECT_FALSE(plain.needsRelinKey());
  Program rotate = Program::fromFunctions(rotateManifest, rotateRun<Host, 3>);
  EXPECT_EQ(rotate.requiredGaloisElements(), std::vector<uint64_t>{3});
  EXPECT_EQ(rotate.variant(), ""); // the hand-written manifests do not say
}

// Key switching's addend (rns-fuse's relinearization), fused and not: each
// output word gains the addend's word as the division by P carries it.
TEST_F(ProgramTest, KeySwitchAddendIsCarriedByTheDivisionByP) {
  Ciphertext cx = encrypt(randomSlots(), 3);
  auto run = [&](RfRunFunction function) {
    return Program::fromFunctions(keySwitchAddendManifest, function)
        .run({&cx}, relin_, nullptr)
        .at(0)
        .data;
  };
  const std::vector<uint64_t> without =
      run(keySwitchAddendRun<Host, false, false>);
  EXPECT_TRUE(run(keySwitchAddendRun<Host, true, false>) == without);
  EXPECT_TRUE(run(keySwitchAddendRun<Host, false, true>) ==
              addendCarried(cx.data, without));
  EXPECT_TRUE(run(keySwitchAddendRun<Host, true, true>) ==
              addendCarried(cx.data, without));
}

TEST_F(ProgramTest, MultiplyRelinearizeIsBitIdenticalToTheReference) {
  auto x = randomSlots(), y = randomSlots();
  Ciphertext cx = encrypt(x, 1), cy = encrypt(y, 2);
  Ciphertext expected = relinearize(multiplyHps(cx, cy), *relin_);
  // The fused launches (the forward NTTs and tensor product in one
  // ntt_products, key switching's transforms and inner product in one
  // ntt_key_switch) give the same words.
  Program fused =
      Program::fromFunctions(multiplyManifest, multiplyRun<Host, true>);
  EXPECT_TRUE(fused.run({&cx, &cy}, relin_, nullptr)[0].data == expected.data);

  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  std::vector<Ciphertext> out = program.run({&cx, &cy}, relin_, nullptr);
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].size, 2u);
  EXPECT_TRUE(out[0].data == expected.data);
  std::vector<uint64_t> product(kN);
  for (size_t i = 0; i < kN; ++i)
    product[i] = x[i] * y[i] % kT;
  EXPECT_EQ(decryptSlots(out[0]), product);

  // The buffers are reused: a second run (keys bound once) gives the same.
  program.bind(relin_, nullptr);
  EXPECT_TRUE(program.run({&cx, &cy})[0].data == expected.data);
}

TEST_F(ProgramTest, RotationIsBitIdenticalToApplyGalois) {
  auto x = randomSlots();
  Ciphertext cx = encrypt(x);
  Program program = Program::fromFunctions(rotateManifest, rotateRun<Host, 3>);
  std::vector<Ciphertext> out = program.run({&cx}, nullptr, galois_);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].data == applyGalois(cx, kRotateElement, *galois_).data);
  std::vector<uint64_t> rotated(kN);
  for (size_t r = 0; r < 2; ++r)
    for (size_t i = 0; i < kN / 2; ++i)
      rotated[r * kN / 2 + i] = x[r * kN / 2 + (i + 1) % (kN / 2)];
  EXPECT_EQ(decryptSlots(out[0]), rotated);
}

TEST_F(ProgramTest, AddPlainAndMulPlainOfAPlaintextInput) {
  auto x = randomSlots(), m = randomSlots();
  Ciphertext cx = encrypt(x);
  Plaintext pm = encode(m);
  Program program = Program::fromFunctions(plainManifest, plainRun<Host>);
  std::vector<Ciphertext> out = program.run({&cx, &pm});
  ASSERT_EQ(out.size(), 2u);
  std::vector<uint64_t> sum(kN), product(kN);
  for (size_t i = 0; i < kN; ++i) {
    sum[i] = (x[i] + m[i]) % kT;
    product[i] = x[i] * m[i] % kT;
  }
  EXPECT_EQ(decryptSlots(out[0]), sum);
  EXPECT_EQ(decryptSlots(out[1]), product);

  // scale_up is encryption's round(Q m / t): adding m to an encryption of
  // zero gives the encryption of m made with the same randomness.
  std::vector<uint64_t> zeros(kN, 0);
  Prng first = seededPrng(9), second = seededPrng(9);
  Ciphertext zero = encryptSymmetric(*secret_, encode(zeros), first);
  Ciphertext direct = encryptSymmetric(*secret_, pm, second);
  EXPECT_TRUE(program.run({&zero, &pm})[0].data == direct.data);
}

TEST_F(ProgramTest, ConstantBuffersHoldTheirValueOnEveryRun) {
  auto x = randomSlots();
  Ciphertext cx = encrypt(x);
  Program program = Program::fromFunctions(constantManifest, constantRun<Host>);
  std::vector<uint64_t> sum(kN), product(kN);
  for (size_t i = 0; i < kN; ++i) {
    sum[i] = (x[i] + 5) % kT;
    product[i] = x[i] * 5 % kT;
  }
  for (int run = 0; run < 2; ++run) {
    std::vector<Ciphertext> out = program.run({&cx});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(decryptSlots(out[0]), sum) << "run " << run;
    EXPECT_EQ(decryptSlots(out[1]), product) << "run " << run;
  }
}

TEST_F(ProgramTest, ScaleRoundGathersInterleavedLimbsAndConvertsInPlace) {
  Ciphertext cx = encrypt(randomSlots());
  Program program = Program::fromFunctions(gatherManifest, gatherRun<Host>);
  std::vector<Ciphertext> out = program.run({&cx});
  ASSERT_EQ(out.size(), 2u);
  const Context &c = *context_;
  std::vector<uint64_t> lifted(kQBWords), scaled(kBWords), expected(kQWords);
  std::copy(cx.component(0), cx.component(0) + kQWords, lifted.begin());
  c.extendQToAuxiliary().convertExact(cx.component(0), kN,
                                      lifted.data() + kQWords);
  c.tensorScaling().apply(lifted.data(), lifted.data() + kQWords, kN,
                          scaled.data());
  c.auxiliaryToQ().convertExact(scaled.data(), kN, expected.data());
  EXPECT_TRUE(
      std::equal(expected.begin(), expected.end(), out[0].component(0)));
  EXPECT_TRUE(out[1].data == out[0].data);
}

// Load-time errors ---------------------------------------------------------

RfManifest gEdited;
const RfManifest *editedManifest() { return &gEdited; }
void emptyRun(RfRuntime *, const RfKernels *) {}

std::string loadError(const RfManifest &manifest) {
  gEdited = manifest;
  return errorOf([] { Program::fromFunctions(editedManifest, emptyRun); });
}

// The compiler's #bfv.variant names the variants; the runtime reports the
// name and refuses only what cannot be one.
TEST_F(ProgramTest, NamesItsVariantAndRefusesWhatIsNoName) {
  gEdited = *plainManifest();
  gEdited.variant = "lhps";
  EXPECT_EQ(Program::fromFunctions(editedManifest, emptyRun).variant(), "lhps");
  RfManifest m = *plainManifest();
  m.variant = "no\nname";
  EXPECT_MESSAGE(loadError(m), "the manifest names the variant \"no\nname\"");
  m.variant = "averyveryverylongname";
  EXPECT_MESSAGE(loadError(m), "up to 16 lowercase letters");
}

TEST_F(ProgramTest, RefusesAnotherAbiVersion) {
  RfManifest m = *plainManifest();
  m.abi_version = RINGFUSE_PROGRAM_ABI_VERSION + 1;
  EXPECT_MESSAGE(loadError(m),
                 "ABI version " + std::to_string(m.abi_version));
  EXPECT_MESSAGE(errorOf([] { Program::fromFunctions(nullptr, emptyRun); }),
                 "ringfuse_manifest");
  EXPECT_MESSAGE(errorOf([] {
                   Program::fromFunctions(
                       []() -> const RfManifest * { return nullptr; },
                       emptyRun);
                 }),
                 "null manifest");
}

TEST_F(ProgramTest, RefusesBadParameters) {
  RfManifest m = *plainManifest();
  const uint64_t notNttFriendly[] = {1000003};
  m.q = notNttFriendly;
  m.q_count = 1;
  EXPECT_MESSAGE(loadError(m), "not an NTT-friendly prime");
  // 1 mod 2N but at least 2^61: too wide for the GPU NTT's lazy bounds.
  m = *plainManifest();
  const uint64_t tooWide[] = {
      findPrimesBelow(62, 1, 2 * uint64_t(m.degree), [](uint64_t) {
        return false;
      }).front()};
  m.q = tooWide;
  m.q_count = 1;
  EXPECT_MESSAGE(loadError(m), "below 2^61");
  m = *plainManifest();
  m.dnum = -1;
  EXPECT_MESSAGE(loadError(m), "dnum is negative");
  m.dnum = 2; // two-prime digits are wider than P
  EXPECT_MESSAGE(loadError(m), "must be at least as wide");
  m = *plainManifest();
  m.q = nullptr;
  EXPECT_MESSAGE(loadError(m), "null array");
}

TEST_F(ProgramTest, RefusesIndicesOutOfRange) {
  RfManifest m = *plainManifest();
  RfConverter converters[6];
  std::copy(kConverters, kConverters + 6, converters);
  converters[2].to = 99;
  m.converters = converters;
  EXPECT_MESSAGE(loadError(m), "converter 2 refers to basis 99");
  converters[2].to = QP;
  converters[2].method = 7;
  EXPECT_MESSAGE(loadError(m), "converter 2 has method 7");
  // Shenoy-Kumaresan reads the input's last modulus as m_sk: {t} has no base.
  converters[2] = {T, Q, RF_CONVERT_SHENOY_KUMARESAN};
  EXPECT_MESSAGE(loadError(m), "converter 2: Shenoy-Kumaresan conversion needs a base");

  m = *plainManifest();
  RfScaleRound scale[3] = {kScaleRounds[0], kScaleRounds[1], kScaleRounds[2]};
  scale[1].divisor = B; // B is not in QP
  m.scale_rounds = scale;
  EXPECT_MESSAGE(loadError(m), "scale_round 1: modulus");
  scale[1] = {QP, Q, Q, kOneWords, 1};
  EXPECT_MESSAGE(loadError(m), "in both the divisor and the kept basis");
  // From the divisor alone into moduli that do not divide the numerator:
  // the part of the rounding the divisor's limbs decide, which loads.
  scale[1] = {Q, Q, B, kOneWords, 1};
  EXPECT_EQ(loadError(m), "(no error)");
  scale[1] = {QB, Q, B, kOneWords, 0};
  EXPECT_MESSAGE(loadError(m), "scale_round 1 has numerator 0");
  scale[1] = {QB, Q, B, kTWords, 1, 2};
  EXPECT_MESSAGE(loadError(m), "scale_round 1 has rounding 2");
  scale[1] = {Q, Q, B, kTWords, 1, RF_SCALE_FAST_FLOOR};
  EXPECT_MESSAGE(loadError(m), "a fast floor keeps moduli of its input");
  // A fused exact conversion: from the kept basis, to a basis with moduli
  // outside it (a modulus switch's too).
  scale[1] = {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 2, BToQ};
  EXPECT_MESSAGE(loadError(m), "scale_round 1 has then_convert 2");
  scale[1] = {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 1, 6};
  EXPECT_MESSAGE(loadError(m), "scale_round 1 refers to converter 6 of 6");
  scale[1] = {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 1, QToQB};
  EXPECT_MESSAGE(loadError(m), "converter 0 must be exact, from the kept basis");
  scale[1] = {QB, Q, B, kTWords, 1, RF_SCALE_FAST_FLOOR, 1, BToQ};
  EXPECT_MESSAGE(loadError(m),
                 "scale_round 1: a fast floor fuses no conversion");
  RfConverter copying[6];
  std::copy(kConverters, kConverters + 6, copying);
  copying[TToQ] = {B, B, RF_CONVERT_EXACT};
  m.converters = copying;
  scale[1] = {QB, Q, B, kTWords, 1, RF_SCALE_ROUND, 1, TToQ};
  EXPECT_MESSAGE(loadError(m), "converter 5 must be exact, from the kept basis "
                               "to a basis with moduli outside it");

  m = *plainManifest();
  RfScaleUp up[1] = {{Q, Q}};
  m.scale_ups = up;
  EXPECT_MESSAGE(loadError(m), "expected {t}");

  m = *plainManifest();
  RfValue inputs[2] = {kPlainInputs[0], kPlainInputs[1]};
  inputs[1].buffers[0] = 8;
  m.inputs = inputs;
  EXPECT_MESSAGE(loadError(m), "input 1 component 0 refers to buffer 8");
  inputs[1].buffers[0] = 0;
  EXPECT_MESSAGE(loadError(m), "share buffer 0");
  inputs[1] = {1, 1, {3, -1, -1}};
  inputs[0].buffers[0] = 2; // N words cannot hold a polynomial over Q
  EXPECT_MESSAGE(loadError(m), "needs |Q| * N");
  inputs[0] = {0, 4, {0, 1, 3}};
  EXPECT_MESSAGE(loadError(m), "expected 2 or 3");
  inputs[0] = {3, 1, {0, -1, -1}};
  EXPECT_MESSAGE(loadError(m), "has kind 3");
  // A prepared plaintext (over Q) in N words; a Galois element on a value
  // that is not prepared, or an even one.
  inputs[0] = {RF_VALUE_PREPARED_PLAINTEXT, 1, {2, -1, -1}, 0};
  EXPECT_MESSAGE(loadError(m), "needs |Q| * N");
  inputs[0] = {RF_VALUE_PLAINTEXT, 1, {2, -1, -1}, 3};
  EXPECT_MESSAGE(loadError(m),
                 "has Galois element 3; only a prepared plaintext");
  inputs[0] = {RF_VALUE_CIPHERTEXT, 2, {0, 1, -1}, 0};
  inputs[1] = {RF_VALUE_PREPARED_PLAINTEXT, 1, {3, -1, -1}, 4};
  EXPECT_MESSAGE(loadError(m), "has Galois element 4");

  // A buffer larger than any polynomial of the program (found by the
  // manifest fuzzer: 2^34 words made the loader allocate 128 GiB).
  m = *plainManifest();
  size_t huge[8];
  std::copy(kPlainBuffers, kPlainBuffers + 8, huge);
  huge[5] = size_t(1) << 34;
  m.buffer_words = huge;
  EXPECT_MESSAGE(loadError(m), "buffer 5 of 17179869184 words is larger than "
                               "a polynomial over the program's widest basis");
  huge[5] = 7 * kN + 1; // QB, the widest basis, is 7 * N words
  EXPECT_MESSAGE(loadError(m), "larger than a polynomial");
  huge[5] = 7 * kN;
  EXPECT_EQ(loadError(m), "(no error)");

  m = *plainManifest();
  RfValue outputs[1] = {{1, 1, {2, -1, -1}}};
  m.outputs = outputs;
  m.output_count = 1;
  EXPECT_MESSAGE(loadError(m), "outputs are ciphertexts");

  m = *constantManifest();
  RfConstant constants[1] = {{2, kFive, kN + 1}};
  m.constants = constants;
  EXPECT_MESSAGE(loadError(m), "more than its buffer 2 holds");
  constants[0] = {0, kFive, 1};
  EXPECT_MESSAGE(loadError(m), "also holds an input");

  m = *rotateManifest();
  const uint64_t evenElement[] = {4};
  m.keys = evenElement;
  EXPECT_MESSAGE(loadError(m), "Galois element 4");
  m.key_count = -1;
  EXPECT_MESSAGE(loadError(m), "negative");
}

TEST_F(ProgramTest, BasesWithoutAnNttLoadButRefuseToTransform) {
  // T (65537) has an NTT of this size; a basis of 1000003 has none.
  RfBasis bases[10];
  std::copy(kBases, kBases + 9, bases);
  const uint64_t odd[] = {1000003};
  bases[9] = {odd, 1};
  RfManifest m = *plainManifest();
  m.bases = bases;
  m.basis_count = 10;
  gEdited = m;
  Program program = Program::fromFunctions(
      editedManifest, [](RfRuntime *rt, const RfKernels *k) {
        k->ntt_forward(rt, T, k->buffer(rt, 2), 0, 0, 0);
        k->ntt_forward(rt, 9, k->buffer(rt, 2), 0, 0, 0);
      });
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  EXPECT_MESSAGE(
      errorOf([&] {
        program.run({&cx, &pm});
      }),
      "ntt_forward: basis 9 {1000003} contains 1000003, which has no "
      "negacyclic NTT");
}

// dgt_forward computes ntt_forward's very words on a basis the manifest marks
// dgt, and dgt_inverse undoes it; the loader refuses to mark a basis whose
// primes have no DGT of this size.
TEST_F(ProgramTest, DgtBasesTransformToTheNttsWords) {
  RfBasis bases[9];
  std::copy(kBases, kBases + 9, bases);
  bases[Q].dgt = 1;
  RfManifest m = *plainManifest();
  m.bases = bases;
  gEdited = m;
  // Output 0 = (DGT of x0, x1), output 1 = (NTT of x0, x0 through both
  // DGTs).
  Program program = Program::fromFunctions(
      editedManifest, [](RfRuntime *rt, const RfKernels *k) {
        const uint64_t *x0 = k->buffer(rt, 0);
        uint64_t *viaDgt = k->buffer(rt, 4), *viaNtt = k->buffer(rt, 6),
                 *roundTrip = k->buffer(rt, 7);
        for (uint64_t *copy : {viaDgt, viaNtt, roundTrip})
          std::copy(x0, x0 + kQWords, copy);
        k->dgt_forward(rt, Q, viaDgt);
        k->ntt_forward(rt, Q, viaNtt, 0, 0, 0);
        k->dgt_forward(rt, Q, roundTrip);
        k->dgt_inverse(rt, Q, roundTrip);
      });
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  std::vector<Ciphertext> out = program.run({&cx, &pm});
  const std::vector<uint64_t> viaDgt(out[0].component(0),
                                     out[0].component(0) + kQWords),
      viaNtt(out[1].component(0), out[1].component(0) + kQWords),
      roundTrip(out[1].component(1), out[1].component(1) + kQWords),
      x0(cx.component(0), cx.component(0) + kQWords);
  EXPECT_EQ(viaDgt, viaNtt);
  EXPECT_EQ(roundTrip, x0);
  EXPECT_NE(viaDgt, x0);

  // A basis with a prime that has no NTT (and so no DGT) of this size.
  const uint64_t odd[] = {1000003};
  bases[T] = {odd, 1, 1};
  gEdited = m;
  EXPECT_MESSAGE(
      errorOf([] { Program::fromFunctions(editedManifest, emptyRun); }),
      "basis 8 is marked dgt, but basis 8 {1000003} contains "
      "1000003, which has no negacyclic NTT");
}

TEST_F(ProgramTest, BuffersTheMachineCannotHoldAreRefusedBeforeAllocation) {
  // The plain program with buffers over QB (448 KiB each) for twice what the
  // machine has available: an error saying so, a MemoryError in Python, and
  // nothing allocated (the system would otherwise end the process as the
  // vectors are zeroed).
  std::optional<uint64_t> available = availableHostBytes();
  ASSERT_TRUE(available) << "no /proc/meminfo here";
  const uint64_t bufferBytes = kQBWords * sizeof(uint64_t);
  std::vector<size_t> words(2 * *available / bufferBytes + 8, kQBWords);
  std::copy(kPlainBuffers, kPlainBuffers + 8, words.begin());
  gEdited = *plainManifest();
  gEdited.buffer_words = words.data();
  gEdited.buffer_count = int(words.size());
  EXPECT_THROW(Program::fromFunctions(editedManifest, emptyRun),
               OutOfHostMemory);
  EXPECT_MESSAGE(
      errorOf([] { Program::fromFunctions(editedManifest, emptyRun); }),
      "not enough memory: a run of the program (its " +
          std::to_string(words.size()) + " buffers) needs");
}

// Run-time errors ----------------------------------------------------------

TEST_F(ProgramTest, ScaleRoundAddChecksItsAddend) {
  // The plain program with a ninth buffer wide enough for QB.
  size_t words[9];
  std::copy(kPlainBuffers, kPlainBuffers + 8, words);
  words[8] = kQBWords;
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  auto runWith = [&](RfRunFunction run) {
    gEdited = *plainManifest();
    gEdited.buffer_words = words;
    gEdited.buffer_count = 9;
    Program program = Program::fromFunctions(editedManifest, run);
    return errorOf([&] { program.run({&cx, &pm}); });
  };
  EXPECT_EQ(runWith([](RfRuntime *rt, const RfKernels *k) {
              k->scale_round_add(rt, ModDownByP, k->buffer(rt, 8),
                                 k->buffer(rt, 0), k->buffer(rt, 3));
            }),
            "(no error)");
  const RefusedCall refused[] = {
      {[](RfRuntime *rt, const RfKernels *k) {
         k->scale_round_add(rt, TensorToQ, k->buffer(rt, 8), k->buffer(rt, 0),
                            k->buffer(rt, 3));
       },
       "scale_round_add: scale_round plan 2 fuses a conversion; it adds "
       "nothing"},
      {[](RfRuntime *rt, const RfKernels *k) {
         k->scale_round_add(rt, ModDownByP, k->buffer(rt, 8), k->buffer(rt, 3),
                            k->buffer(rt, 3));
       },
       "the addend overlaps the input or the output"},
      {[](RfRuntime *rt, const RfKernels *k) {
         k->scale_round_add(rt, ModDownByP, k->buffer(rt, 8), k->buffer(rt, 2),
                            k->buffer(rt, 3));
       },
       "the addend needs 24576 words from word 0 of buffer 2, which has 8192"},
  };
  for (const RefusedCall &call : refused)
    EXPECT_MESSAGE(runWith(call.run), call.message);
}

TEST_F(ProgramTest, NttKeySwitchChecksItsBuffers) {
  Ciphertext cx = encrypt(randomSlots(), 1), cy = encrypt(randomSlots(), 2);
  auto runWith = [&](RfRunFunction run) {
    Program program = Program::fromFunctions(multiplyManifest, run);
    return errorOf([&] { program.run({&cx, &cy}, relin_, nullptr); });
  };
  // Digit 0 one limb of the product (buffer 14), digits 1 and 2 over QP in
  // buffers 16 and 17, scratch 15, 16, 17, sums 18 and 19; `edit` breaks it.
  using Edit = void (*)(RfRuntime *, const RfKernels *, int *,
                        const uint64_t **, uint64_t **, uint64_t **);
  static Edit edit;
  auto call = [](RfRuntime *rt, const RfKernels *k) {
    int bases[3] = {D0, QP, QP};
    const uint64_t *digits[3] = {k->buffer(rt, 14), k->buffer(rt, 16),
                                 k->buffer(rt, 17)};
    uint64_t *scratch[3] = {k->buffer(rt, 15), k->buffer(rt, 16),
                            k->buffer(rt, 17)};
    uint64_t *sums[2] = {k->buffer(rt, 18), k->buffer(rt, 19)};
    edit(rt, k, bases, digits, scratch, sums);
    k->ntt_key_switch(rt, 0, QP, bases, digits, scratch, 3, sums[0], sums[1],
                      nullptr, 0, 0, 0);
  };
  edit = [](RfRuntime *, const RfKernels *, int *, const uint64_t **,
            uint64_t **, uint64_t **) {};
  EXPECT_EQ(runWith(call), "(no error)");
  edit = [](RfRuntime *, const RfKernels *, int *, const uint64_t **,
            uint64_t **scratch, uint64_t **sums) { sums[0] = scratch[1]; };
  EXPECT_MESSAGE(runWith(call),
                 "digit 1 or its scratch buffer overlaps an output");
  edit = [](RfRuntime *rt, const RfKernels *k, int *, const uint64_t **,
            uint64_t **scratch,
            uint64_t **) { scratch[0] = k->buffer(rt, 16); };
  EXPECT_MESSAGE(runWith(call),
                 "digit 0's scratch buffer overlaps the buffers of digit 1");
  edit = [](RfRuntime *, const RfKernels *, int *bases, const uint64_t **,
            uint64_t **, uint64_t **) { bases[0] = Q; };
  EXPECT_MESSAGE(runWith(call), "the input's basis must have one prime, not 3");
  edit = [](RfRuntime *rt, const RfKernels *k, int *, const uint64_t **digits,
            uint64_t **, uint64_t **) { digits[1] = k->buffer(rt, 14); };
  EXPECT_MESSAGE(runWith(call), "digit 1");
}

TEST_F(ProgramTest, KernelErrorsSurfaceFromRun) {
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  auto runWith = [&](RfRunFunction run) {
    gEdited = *plainManifest();
    Program program = Program::fromFunctions(editedManifest, run);
    return errorOf([&] { program.run({&cx, &pm}); });
  };
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->buffer(rt, 8)[0] = 1; // the spare buffer, not a crash
                 }),
                 "buffer 8 is out of range");
  // The argument checks both drivers share.
  for (const RefusedCall &call : kRefusedCalls)
    EXPECT_MESSAGE(runWith(call.run), call.message);
  // The CPU driver checks the GPU's shape rules too (N = 2^13 here), so a
  // program that would fail on the GPU fails everywhere.
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->ntt_inverse(rt, Q, k->buffer(rt, 0), 0, 4, 0);
                 }),
                 "ntt_inverse: NTT shape not supported: rows above 2^11 words "
                 "do not fit one block (logN1 = 0, radix 4, 0 OT stages, "
                 "logN = 13)");
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->ntt_forward(rt, Q, k->buffer(rt, 0), -6, 4, 2);
                 }),
                 "negative parameters (logN1 = -6, radix 4, 2 OT stages)");
  EXPECT_EQ(runWith([](RfRuntime *rt, const RfKernels *k) {
              k->ntt_forward(rt, Q, k->buffer(rt, 0), 6, 8, 2);
              k->ntt_inverse(rt, Q, k->buffer(rt, 0), 6, 8, 2);
            }),
            "(no error)");
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->automorphism(rt, Q, 2, k->buffer(rt, 0),
                                   k->buffer(rt, 3));
                 }),
                 "Galois element 2 is not an odd number");
  // Concurrent regions do not nest.
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->concurrent_begin(rt);
                   k->concurrent_begin(rt);
                   k->concurrent_end(rt);
                 }),
                 "regions do not nest");
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->concurrent_begin(rt);
                 }),
                 "the schedule ended inside a concurrent region");
  // Out-of-range residues in an output are caught before they leave.
  EXPECT_MESSAGE(runWith([](RfRuntime *rt, const RfKernels *k) {
                   k->buffer(rt, 4)[5] = ~uint64_t(0);
                 }),
                 "output 0 component 0 limb 0 holds");
  // A failed run leaves the program usable.
  gEdited = *plainManifest();
  Program program = Program::fromFunctions(editedManifest, plainRun<Host>);
  EXPECT_NO_THROW(program.run({&cx, &pm}));
}

TEST_F(ProgramTest, ChecksInputs) {
  Program program = Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  program.bind(relin_, nullptr);
  Ciphertext cx = encrypt(randomSlots());
  Plaintext pm = encode(randomSlots());
  EXPECT_MESSAGE(errorOf([&] { program.run({&cx}); }),
                 "takes 2 inputs (ciphertext, ciphertext), got 1");
  EXPECT_MESSAGE(
      errorOf([&] {
        program.run({&cx, &pm});
      }),
      "input 1 of program 'multiply' is a ciphertext, got a plaintext");
  Ciphertext product = multiplyHps(cx, cx);
  EXPECT_MESSAGE(
      errorOf([&] {
        program.run({&cx, &product});
      }),
      "has 3 components; the program expects 2 (relinearize it first)");
  EXPECT_MESSAGE(errorOf([&] {
                   program.run({&cx, static_cast<const Ciphertext *>(nullptr)});
                 }),
                 "null pointer");

  ParameterRequest request;
  request.polyModulusDegree = kN;
  request.plaintextModulus = 257;
  request.coeffModulusBits = {50, 50, 50};
  request.specialModulusBits = {50};
  ContextPtr other = Context::create(request);
  Prng prng = seededPrng(12);
  SecretKey otherSecret = generateSecretKey(other, prng);
  std::vector<uint64_t> zero(1, 0);
  Ciphertext foreign = encryptSymmetric(
      otherSecret, encodeCoefficients(other, zero.data(), 1), prng);
  EXPECT_MESSAGE(errorOf([&] {
                   program.run({&cx, &foreign});
                 }),
                 "another parameter set");

  Program plain = Program::fromFunctions(plainManifest, plainRun<Host>);
  Plaintext bad = pm;
  bad.coefficients[7] = kT;
  EXPECT_MESSAGE(errorOf([&] {
                   plain.run({&cx, &bad});
                 }),
                 "not below t = 65537");
  bad.coefficients.resize(kN / 2);
  EXPECT_MESSAGE(errorOf([&] { plain.run({&cx, &bad}); }), "expected N = 8192");
}

TEST_F(ProgramTest, MissingKeysNameWhatToGenerate) {
  Ciphertext cx = encrypt(randomSlots());
  Program multiply =
      Program::fromFunctions(multiplyManifest, multiplyRun<Host>);
  EXPECT_MESSAGE(errorOf([&] {
                   multiply.run({&cx, &cx});
                 }),
                 "program 'multiply' relinearizes, but no relinearization key");
  EXPECT_MESSAGE(errorOf([&] { multiply.bind(nullptr, galois_); }),
                 "no relinearization key");

  Program rotate = Program::fromFunctions(rotateManifest, rotateRun<Host, 3>);
  GaloisKeys none{context_, {}};
  EXPECT_MESSAGE(errorOf([&] { rotate.run({&cx}, relin_, &none); }),
                 "rotates with Galois element 3, but no Galois key for it was "
                 "given; generate keys with rotations=[1]");
  EXPECT_MESSAGE(errorOf([&] { rotate.run({&cx}, relin_, nullptr); }),
                 "Galois element 3");
  Program swap =
      Program::fromFunctions(rowSwapManifest, rotateRun<Host, 2 * kN - 1>);
  EXPECT_MESSAGE(errorOf([&] { swap.run({&cx}, nullptr, galois_); }),
                 "swap_rows=True");

  // Keys of another parameter set with the same shape.
  RelinKey foreign = *relin_;
  ParameterRequest request;
  request.polyModulusDegree = kN;
  request.plaintextModulus = 257;
  request.coeffModulusBits = {50, 50, 50};
  request.specialModulusBits = {50};
  foreign.context = Context::create(request);
  EXPECT_MESSAGE(errorOf([&] { multiply.bind(&foreign, nullptr); }),
                 "belongs to another parameter set");
  RelinKey truncated = *relin_;
  truncated.key.b.pop_back();
  EXPECT_MESSAGE(errorOf([&] { multiply.bind(&truncated, nullptr); }),
                 "has 2 digits");
}

TEST(ProgramDevices, LoadingForCudaWithoutADeviceSaysSo) {
  EXPECT_STREQ(deviceName(Device::Cpu), "cpu");
  EXPECT_STREQ(deviceName(Device::Cuda), "cuda");
  Program cpu = Program::fromFunctions(plainManifest, plainRun<Host>);
  EXPECT_EQ(cpu.device(), Device::Cpu);
  EXPECT_FALSE(cpu.replaysGraph());
  if (cudaAvailable())
    GTEST_SKIP() << "a CUDA device is visible: gpu_tests covers the driver";
  // Built without CUDA, or no device: either way a clear error at load.
  std::string message = errorOf([] {
    Program::fromFunctions(plainManifest, plainRun<Host>, Device::Cuda);
  });
  EXPECT_MESSAGE(message, "program 'plain'");
  EXPECT_MESSAGE(message, "CUDA");
}

TEST(ProgramLoader, NamesThePathAndTheReason) {
  std::string missing =
      errorOf([] { Program::load("/nonexistent/circuit.so"); });
  EXPECT_MESSAGE(missing, "/nonexistent/circuit.so");
  EXPECT_MESSAGE(missing, "No such file");
  EXPECT_MESSAGE(errorOf([] { Program::load("circuit-that-is-not-here.so"); }),
                 "circuit-that-is-not-here.so");
  EXPECT_MESSAGE(errorOf([] { Program::load(""); }), "path is empty");

  std::string text = ::testing::TempDir() + "ringfuse_not_a_library.so";
  std::ofstream(text) << "not an ELF file\n";
  EXPECT_MESSAGE(errorOf([&] { Program::load(text); }), text);

  // A real shared library without the program's symbols: the C library.
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void *>(&dlopen), &info), 0);
  std::string libc = info.dli_fname;
  std::string noSymbols = errorOf([&] { Program::load(libc); });
  EXPECT_MESSAGE(noSymbols, libc);
  EXPECT_MESSAGE(noSymbols, "does not export ringfuse_manifest");
}

} // namespace
} // namespace ringfuse::runtime
