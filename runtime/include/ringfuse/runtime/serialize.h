//===- serialize.h - the binary format of parameters, keys and data -*- C++
//-*-===//
//
// Format version 2, every integer little-endian. A 48-byte header:
//
//   magic "RINGFUSE" (8) | u32 format version | u32 object kind |
//   u64 parameter fingerprint | u64 payload length | u64 payload checksum
//   (payloadChecksum) | u64 reserved (0)
//
// Version 1 differs only in its checksum (FNV-1a over bytes, 8x slower on a
// ciphertext than version 2's over words); this build reads both.
//
// then the payload of the object kind:
//
//   parameters    u64 N, u64 t, u64 dnum, u8 insecure flag,
//                 u64 |Q|, Q's primes, u64 |P|, P's primes
//   secret key    N x int8 ternary coefficients (the NTT form is recomputed)
//   public key    b, a: each |QP| x N residues (NTT form)
//   relin key     a key switch key
//   Galois keys   u64 count, then per key: u64 Galois element, key switch key
//   plaintext     N coefficients below t
//   ciphertext    u64 components (2..16), then components x |Q| x N residues
//   evaluation keys  u8 relinearization key present (0/1), [a key switch key],
//                 u8 Galois keys present (0/1), [the Galois keys' payload]
//   ciphertext batch  u64 count (1..kMaxBatchCiphertexts), then per
//                 ciphertext: u64 components (2..16), then components x |Q| x
//                 N residues (a ciphertext's payload, count times)
//   key switch key: u64 digits (= dnum), then per digit b_j, a_j over QP
//
// Polynomials use the in-memory layouts of bfv.h (limb-major). The fingerprint
// of parameters is their own; of everything else, that of the context it was
// made under, so loading an object under other parameters fails instead of
// decrypting to garbage. Loading checks everything it reads (header fields,
// lengths, checksum, residue ranges) and either returns a whole object or
// throws Error.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_SERIALIZE_H
#define RINGFUSE_RUNTIME_SERIALIZE_H

#include "ringfuse/runtime/bfv.h"
#include "ringfuse/runtime/params.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringfuse::runtime {

/// The format version this build writes; it reads every version from
/// kOldestReadableFormatVersion on.
inline constexpr uint32_t kSerializationFormatVersion = 2;
inline constexpr uint32_t kOldestReadableFormatVersion = 1;
inline constexpr size_t kSerializationHeaderSize = 48;

/// A payload's checksum in a format version (1 or 2): it catches accidental
/// corruption, not tampering. Version 1: FNV-1a 64 over the bytes. Version
/// 2: over little-endian 64-bit words (the last one zero-padded), each
/// step h = (h ^ word) * FNV's prime, then h ^= h >> 32; every step is a
/// bijection of h, so a single changed word always changes the checksum.
uint64_t payloadChecksum(uint32_t version, const uint8_t *payload, size_t size);

enum class ObjectKind : uint32_t {
  Parameters = 1,
  SecretKey,
  PublicKey,
  RelinKey,
  GaloisKeys,
  Plaintext,
  Ciphertext,
  EvaluationKeys,
  CiphertextBatch, // appended: kinds keep their numbers across builds
};

/// The most ciphertexts one batch file holds: far more than one call's batch
/// needs, so that only a corrupt count exceeds it.
inline constexpr uint64_t kMaxBatchCiphertexts = uint64_t(1) << 20;

/// The keys a server needs to run a compiled circuit, in one file: a circuit
/// without multiplications needs no relinearization key, one without
/// rotations no Galois keys, so either may be absent. Every key present
/// belongs to `context`.
struct EvaluationKeys {
  ContextPtr context;
  std::optional<RelinKey> relin;
  std::optional<GaloisKeys> galois;
};

/// "parameter set", "secret key", ..., "Galois keys", "ciphertext batch".
std::string objectKindName(ObjectKind kind);

std::vector<uint8_t> serialize(const Context &context); // parameters
std::vector<uint8_t> serialize(const Ciphertext &ciphertext);
std::vector<uint8_t> serialize(const Plaintext &plaintext);
std::vector<uint8_t> serialize(const SecretKey &secret);
std::vector<uint8_t> serialize(const PublicKey &key);
std::vector<uint8_t> serialize(const RelinKey &key);
std::vector<uint8_t> serialize(const GaloisKeys &keys);
std::vector<uint8_t> serialize(const EvaluationKeys &keys);
/// Many ciphertexts of one parameter set in one object (a batch's inputs or
/// outputs); an empty batch, one of more than kMaxBatchCiphertexts or one
/// that mixes parameter sets is an Error. Their component counts may differ.
std::vector<uint8_t> serialize(const std::vector<Ciphertext> &batch);

/// Rebuilds the context through Context::fromPrimes, so the security and
/// prime checks run again; an insecure set loads only if it was saved as one.
ContextPtr deserializeParameters(const uint8_t *data, size_t size);
/// Each object must have been made under `context` (same fingerprint).
Ciphertext deserializeCiphertext(const ContextPtr &context, const uint8_t *data,
                                 size_t size);
Plaintext deserializePlaintext(const ContextPtr &context, const uint8_t *data,
                               size_t size);
SecretKey deserializeSecretKey(const ContextPtr &context, const uint8_t *data,
                               size_t size);
PublicKey deserializePublicKey(const ContextPtr &context, const uint8_t *data,
                               size_t size);
RelinKey deserializeRelinKey(const ContextPtr &context, const uint8_t *data,
                             size_t size);
GaloisKeys deserializeGaloisKeys(const ContextPtr &context, const uint8_t *data,
                                 size_t size);
EvaluationKeys deserializeEvaluationKeys(const ContextPtr &context,
                                         const uint8_t *data, size_t size);
/// Every check of deserializeCiphertext on each ciphertext, and a count that
/// the payload holds exactly (errors name the ciphertext's index).
std::vector<Ciphertext> deserializeCiphertextBatch(const ContextPtr &context,
                                                   const uint8_t *data,
                                                   size_t size);

/// Reads just the header (for tools that must say what a file holds): checks
/// the magic, the version and the kind, not the payload.
ObjectKind peekKind(const uint8_t *data, size_t size);

/// Writes a whole file; failures are Errors naming the path and the reason.
void writeFile(const std::string &path, const std::vector<uint8_t> &bytes);
/// The bytes of a file that holds one object: its header first (magic,
/// version, a known kind), then no more than the payload the header
/// announces, which must not exceed what an object of its kind can hold
/// under `context` (null for a parameter set); more data after it is an
/// error. So a device or pipe (/dev/zero, /dev/urandom) fails at the header
/// and a lying header cannot make it read or allocate without bound. The
/// payload is read in bounded chunks: memory grows with the bytes the file
/// holds, never with the length its header announces (a batch's bound is
/// terabytes), and a short file comes back short for its deserializer to
/// call truncated. The object's own checks are its deserializer's. Errors
/// name the path.
std::vector<uint8_t> readObjectFile(const std::string &path,
                                    const ContextPtr &context);

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_SERIALIZE_H
