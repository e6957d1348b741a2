//===- serialize_files_test.cpp - reading and writing object files ------===//
//
// serialize_files.cpp: files round trip, name their path when missing, and
// are read no further than the payload their header announces and their kind
// allows, so an endless device or a lying header never fills memory.
//
//===----------------------------------------------------------------------===//
#include "ringfuse/runtime/serialize.h"
#include "serialization_fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace ringfuse::runtime {
namespace {
using namespace testing;

// Files
// ----------------------------------------------------------------------------

/// A fresh directory for one test's files, removed with it.
class SerializationFiles : public Serialization {
protected:
  void SetUp() override {
    Serialization::SetUp();
    // Named by test and process: ctest runs the tests in parallel processes.
    dir =
        std::filesystem::path(::testing::TempDir()) /
        ("ringfuse_serialize_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string &name,
                    const std::vector<uint8_t> &bytes) {
    const std::string path = (dir / name).string();
    writeFile(path, bytes);
    return path;
  }
  std::filesystem::path dir;
};

TEST_F(SerializationFiles, RoundTripThroughATemporaryDirectory) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  const std::string path = write("ciphertext.rf", bytes);
  std::vector<uint8_t> loaded = readObjectFile(path, context);
  EXPECT_EQ(loaded, bytes);
  EXPECT_EQ(deserializeCiphertext(context, loaded.data(), loaded.size()).data,
            ciphertext.data);
  std::vector<uint8_t> parameters = serialize(*context);
  EXPECT_EQ(readObjectFile(write("params.rf", parameters), nullptr),
            parameters);
}

TEST_F(SerializationFiles, ReadingAMissingFileNamesThePath) {
  const std::string path = (dir / "missing.rf").string();
  EXPECT_ERROR(readObjectFile(path, context), path);
  EXPECT_ERROR(readObjectFile(path, context), "No such file or directory");
  EXPECT_ERROR(writeFile((dir / "no" / "such.rf").string(), {1, 2, 3}),
               "no/such.rf");
}

// Devices that never end fail at the header instead of filling memory.
TEST_F(SerializationFiles, EndlessDevicesFailAtTheHeader) {
  EXPECT_ERROR(
      readObjectFile("/dev/zero", context),
      "/dev/zero: not a ringfuse file: it does not start with \"RINGFUSE\"");
  EXPECT_ERROR(readObjectFile("/dev/urandom", context),
               "/dev/urandom: not a ringfuse file");
}

TEST_F(SerializationFiles,
       HeadersAnnouncingMoreThanTheParametersAllowAreRefused) {
  std::vector<uint8_t> bytes = serialize(ciphertext);
  // 16 components of |Q| x N words is the most a ciphertext holds.
  const uint64_t most = 8 + 16 * 2 * 1024 * 8;
  putU64(bytes, 24, most + 1);
  const std::string path = write("huge.rf", bytes);
  EXPECT_ERROR(readObjectFile(path, context),
               "announces a " + std::to_string(most + 1) +
                   "-byte payload, more than a ciphertext can hold under");
  putU64(bytes, 24, uint64_t(1) << 62);
  EXPECT_ERROR(readObjectFile(write("huger.rf", bytes), context),
               "more than a ciphertext can hold");
  // Parameters are bounded without a context; other kinds need one.
  std::vector<uint8_t> parameters = serialize(*context);
  putU64(parameters, 24, uint64_t(1) << 40);
  EXPECT_ERROR(readObjectFile(write("params.rf", parameters), nullptr),
               "more than a parameter set can hold");
  EXPECT_ERROR(readObjectFile(write("ct.rf", serialize(ciphertext)), nullptr),
               "reading a ciphertext needs its parameter set");
}

TEST_F(SerializationFiles, ReadsABatchFileAndBoundsItsHeader) {
  Prng prng = seededPrng(13);
  std::vector<Ciphertext> batch = {ciphertext,
                                   multiplyHps(ciphertext, ciphertext),
                                   encryptSymmetric(secret, plaintext, prng)};
  std::vector<uint8_t> bytes = serialize(batch);
  std::vector<uint8_t> read = readObjectFile(write("batch.rf", bytes), context);
  EXPECT_EQ(read, bytes);
  std::vector<Ciphertext> loaded =
      deserializeCiphertextBatch(context, read.data(), read.size());
  ASSERT_EQ(loaded.size(), 3u);
  EXPECT_EQ(loaded[1].data, batch[1].data);

  // 2^20 ciphertexts of 16 components is the most a batch holds.
  const uint64_t most = 8 + (uint64_t(1) << 20) * (8 + 16 * 2 * 1024 * 8);
  std::vector<uint8_t> lying = bytes;
  putU64(lying, 24, most + 1);
  EXPECT_ERROR(readObjectFile(write("huge.rf", lying), context),
               "announces a " + std::to_string(most + 1) +
                   "-byte payload, more than a ciphertext batch can hold "
                   "under");
  // Within the bound (64 GiB) a short file is read as far as it goes, the
  // announced length never allocated; its deserializer calls it truncated.
  putU64(lying, 24, uint64_t(1) << 36);
  read = readObjectFile(write("short.rf", lying), context);
  EXPECT_EQ(read, lying);
  EXPECT_ERROR(deserializeCiphertextBatch(context, read.data(), read.size()),
               "truncated ciphertext batch");
  EXPECT_ERROR(readObjectFile(write("no-context.rf", bytes), nullptr),
               "reading a ciphertext batch needs its parameter set");
}

TEST_F(SerializationFiles, ReadsNoFurtherThanTheAnnouncedPayload) {
  std::vector<uint8_t> bytes = serialize(plaintext);
  std::vector<uint8_t> longer = bytes;
  longer.insert(longer.end(), 1 << 20, 0);
  EXPECT_ERROR(readObjectFile(write("longer.rf", longer), context),
               "trailing data after the 8192-byte payload");
  // A short file comes back short; the loader says it is truncated.
  std::vector<uint8_t> shorter(bytes.begin(), bytes.end() - 8);
  std::vector<uint8_t> read =
      readObjectFile(write("shorter.rf", shorter), context);
  EXPECT_EQ(read, shorter);
  EXPECT_ERROR(deserializePlaintext(context, read.data(), read.size()),
               "truncated plaintext");
}

} // namespace
} // namespace ringfuse::runtime
