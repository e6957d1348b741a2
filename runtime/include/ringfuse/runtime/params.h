//===- params.h - BFV parameter sets and their precomputed tables -*- C++ -*-===//
#ifndef RINGFUSE_RUNTIME_PARAMS_H
#define RINGFUSE_RUNTIME_PARAMS_H

#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/rns.h"
#include "ringfuse/runtime/security.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ringfuse::runtime {

/// What a user asks for (names as SEAL and OpenFHE users know them).
struct ParameterRequest {
  size_t polyModulusDegree = 0;               // N
  uint64_t plaintextModulus = 0;              // t
  std::vector<unsigned> coeffModulusBits;     // one prime per entry: Q
  std::vector<unsigned> specialModulusBits;   // P, for hybrid key switching
  size_t dnum = 0;                            // digits; 0: ceil(|Q| / |P|)
  bool allowInsecure = false;
};

/// The largest `count` primes below 2^bits that are 1 mod `congruence`,
/// skipping `excluded`; deterministic for a given request.
std::vector<uint64_t> generatePrimes(unsigned bits, size_t count,
                                     uint64_t congruence,
                                     const std::set<uint64_t> &excluded);

/// A BFV parameter set with everything precomputed from it. Immutable and
/// shared by every key, plaintext and ciphertext made under it.
class Context {
public:
  static std::shared_ptr<const Context> create(const ParameterRequest &request);
  /// For deserialization: the exact primes, checked like a request would be.
  static std::shared_ptr<const Context>
  fromPrimes(size_t n, uint64_t t, std::vector<uint64_t> q,
             std::vector<uint64_t> p, size_t dnum, bool allowInsecure);

  size_t degree() const { return n_; }
  uint64_t plaintextModulus() const { return t_; }
  const Modulus &plaintextModulusReducer() const { return tModulus_; }
  bool supportsBatching() const { return batchingTables_ != nullptr; }
  size_t slotCount() const { return n_; }
  size_t dnum() const { return dnum_; }
  /// Q's primes in digit j are [j * alpha, min((j+1) * alpha, |Q|)).
  size_t digitSize() const { return alpha_; }
  bool insecure() const { return insecure_; }

  const RnsBasis &q() const { return q_; }
  const RnsBasis &p() const { return p_; }
  const RnsBasis &qp() const { return qp_; }
  /// The auxiliary bases of the multiplication variants: B (HPS's R, BEHZ's
  /// B), m_sk (BEHZ's Bsk = B u {m_sk}), m_tilde = 2^32 and gamma.
  const RnsBasis &auxiliary() const { return auxiliary_; }
  uint64_t mSk() const { return mSk_; }
  uint64_t mTilde() const { return uint64_t(1) << 32; }
  uint64_t gamma() const { return gamma_; }

  /// NTT tables for the primes of QP (Q first), of B, and m_sk.
  const NttTables &nttQP(size_t i) const { return nttQP_[i]; }
  const NttTables &nttAuxiliary(size_t i) const { return nttAuxiliary_[i]; }
  /// The NTT mod t that batching uses (only if supportsBatching()).
  const NttTables &batchingTables() const { return *batchingTables_; }

  /// round(t * x / Q) mod t: decryption's scale-and-round.
  const ScaleRoundPlan &decryptionScaling() const { return *decryptScale_; }
  /// round(x / P) over Q, from Q u P: the end of key switching.
  const ScaleRoundPlan &modDownByP() const { return *modDown_; }
  /// round(Q * m / t) = floor(Q/t) * m + round((Q mod t) * m / t): the
  /// plaintext scaling of encryption and add_plain.
  const std::vector<uint64_t> &deltaModQ() const { return deltaModQ_; }
  uint64_t qModT() const { return qModT_; }

  /// Key switching: the Q primes [first, last) of digit j, and the fast
  /// conversion from them to the other primes of QP (in QP order).
  std::pair<size_t, size_t> digitRange(size_t j) const;
  const BaseConverter &digitExtension(size_t j) const {
    return digitExtensions_[j];
  }
  /// HPS multiplication: exact Q -> B, round(t x / Q) over B, exact B -> Q.
  const BaseConverter &extendQToAuxiliary() const { return *qToAuxiliary_; }
  const ScaleRoundPlan &tensorScaling() const { return *tensorScale_; }
  const BaseConverter &auxiliaryToQ() const { return *auxiliaryToQ_; }

  /// 64-bit fingerprint of (N, t, Q, P, dnum), stored in every serialized
  /// object to catch mixing parameter sets.
  uint64_t fingerprint() const { return fingerprint_; }
  std::string describe() const;

private:
  Context() = default;
  void precompute();

  size_t n_ = 0;
  uint64_t t_ = 0;
  Modulus tModulus_;
  size_t dnum_ = 0, alpha_ = 0;
  bool insecure_ = false;
  RnsBasis q_, p_, qp_, auxiliary_;
  uint64_t mSk_ = 0, gamma_ = 0;
  std::vector<NttTables> nttQP_, nttAuxiliary_;
  std::unique_ptr<NttTables> batchingTables_;
  std::unique_ptr<ScaleRoundPlan> decryptScale_, modDown_, tensorScale_;
  std::vector<BaseConverter> digitExtensions_;
  std::unique_ptr<BaseConverter> qToAuxiliary_, auxiliaryToQ_;
  std::vector<uint64_t> deltaModQ_;
  uint64_t qModT_ = 0;
  uint64_t fingerprint_ = 0;
};

using ContextPtr = std::shared_ptr<const Context>;

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_PARAMS_H
