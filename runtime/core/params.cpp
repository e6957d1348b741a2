//===- params.cpp - BFV parameter sets and their precomputed tables -------===//
#include "ringfuse/runtime/params.h"

#include "ringfuse/runtime/error.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace ringfuse::runtime {

std::vector<uint64_t> generatePrimes(unsigned bits, size_t count,
                                     uint64_t congruence,
                                     const std::set<uint64_t> &excluded) {
  std::vector<uint64_t> primes = findPrimesBelow(
      bits, count, congruence, [&](uint64_t p) { return excluded.count(p) > 0; });
  if (primes.size() < count)
    throw Error("not enough " + std::to_string(bits) + "-bit primes = 1 mod " +
                std::to_string(congruence) + " for this parameter set");
  return primes;
}

static void checkPrimeBits(unsigned bits, size_t n, const char *what) {
  unsigned minimum = std::max(20u, unsigned(__builtin_ctzll(2 * n)) + 2);
  if (bits < minimum || bits > kMaxRnsPrimeBits)
    throw Error(std::string(what) + " primes of " + std::to_string(bits) +
                " bits are not supported: use " + std::to_string(minimum) +
                " to " + std::to_string(kMaxRnsPrimeBits) +
                " bits (60 is the default)");
}

/// Picks, for each requested size, the largest unused prime of that size.
static std::vector<uint64_t> primesForSizes(const std::vector<unsigned> &sizes,
                                            size_t n,
                                            std::set<uint64_t> &used,
                                            const char *what) {
  std::vector<uint64_t> primes;
  for (unsigned bits : sizes) {
    checkPrimeBits(bits, n, what);
    uint64_t prime = generatePrimes(bits, 1, 2 * n, used).front();
    used.insert(prime);
    primes.push_back(prime);
  }
  return primes;
}

std::shared_ptr<const Context> Context::create(const ParameterRequest &r) {
  if (!isValidRingDegree(r.polyModulusDegree))
    throw Error("poly_modulus_degree must be a power of two in [2, 131072], got " +
                std::to_string(r.polyModulusDegree));
  if (r.coeffModulusBits.empty())
    throw Error("coeff_modulus_bits must name at least one prime");
  if (r.specialModulusBits.empty())
    throw Error("special_modulus_bits must name at least one prime "
                "(hybrid key switching needs P)");
  std::set<uint64_t> used;
  if (r.plaintextModulus > 1)
    used.insert(r.plaintextModulus);
  std::vector<uint64_t> q = primesForSizes(r.coeffModulusBits,
                                           r.polyModulusDegree, used, "coeff_modulus");
  std::vector<uint64_t> p = primesForSizes(r.specialModulusBits,
                                           r.polyModulusDegree, used, "special_modulus");
  return fromPrimes(r.polyModulusDegree, r.plaintextModulus, std::move(q),
                    std::move(p), r.dnum, r.allowInsecure);
}

std::shared_ptr<const Context>
Context::fromPrimes(size_t n, uint64_t t, std::vector<uint64_t> q,
                    std::vector<uint64_t> p, size_t dnum, bool allowInsecure) {
  if (!isValidRingDegree(n))
    throw Error("poly_modulus_degree must be a power of two in [2, 131072], got " +
                std::to_string(n));
  if (t < 2 || t >= (uint64_t(1) << 62))
    throw Error("plaintext_modulus must be in [2, 2^62), got " + std::to_string(t));
  if (q.empty() || p.empty())
    throw Error("a parameter set needs at least one prime in Q and one in P");
  for (uint64_t prime : q) {
    if (!isPrime(prime) || prime % (2 * n) != 1 ||
        prime >= (uint64_t(1) << kMaxRnsPrimeBits))
      throw Error("ciphertext prime " + std::to_string(prime) +
                  " is not an NTT-friendly prime (1 mod 2N, below 2^" +
                  std::to_string(kMaxRnsPrimeBits) + ")");
    if (std::gcd(prime, t) != 1)
      throw Error("ciphertext prime " + std::to_string(prime) +
                  " divides the plaintext modulus " + std::to_string(t));
  }

  auto context = std::shared_ptr<Context>(new Context());
  Context &c = *context;
  c.n_ = n;
  c.t_ = t;
  c.tModulus_ = Modulus(t);
  c.q_ = RnsBasis(q);
  c.p_ = RnsBasis(p);
  c.qp_ = c.q_.concat(c.p_); // also rejects primes shared by Q and P

  const unsigned logQP = c.qp_.product().bitLength();
  std::optional<unsigned> bound = maxSecureModulusBits(n);
  c.insecure_ = !bound || logQP > *bound;
  if (c.insecure_ && !allowInsecure)
    throw Error(
        "parameters are not 128-bit secure: log2(QP) = " + std::to_string(logQP) +
        " bits, but N = " + std::to_string(n) +
        (bound ? " allows at most " + std::to_string(*bound) + " bits"
               : " is below 1024, which no bound covers") +
        " (Security Guidelines for Implementing Homomorphic Encryption, 2024, "
        "128-bit classical, ternary secrets). Use a larger poly_modulus_degree "
        "or fewer or smaller primes; allow_insecure=True is for tests only.");
  if (c.q_.product() <= BigUInt(t))
    throw Error("the ciphertext modulus Q must exceed the plaintext modulus t");

  const size_t l = q.size();
  c.dnum_ = dnum ? dnum : (l + p.size() - 1) / p.size();
  if (c.dnum_ < 1 || c.dnum_ > l)
    throw Error("dnum must be between 1 and the number of ciphertext primes (" +
                std::to_string(l) + "), got " + std::to_string(dnum));
  c.alpha_ = (l + c.dnum_ - 1) / c.dnum_;
  c.dnum_ = (l + c.alpha_ - 1) / c.alpha_; // no empty digits
  unsigned widestDigit = 0;
  for (size_t j = 0; j < c.dnum_; ++j)
    widestDigit = std::max(
        widestDigit,
        c.q_.slice(j * c.alpha_, std::min(l, (j + 1) * c.alpha_)).product().bitLength());
  if (c.p_.product().bitLength() < widestDigit)
    throw Error("the special modulus P (" +
                std::to_string(c.p_.product().bitLength()) +
                " bits) must be at least as wide as each key-switching digit (" +
                std::to_string(widestDigit) + " bits): raise dnum or add "
                "special primes");
  c.precompute();
  return context;
}

void Context::precompute() {
  // The auxiliary base B must hold HPS's scaled tensor product exactly:
  // |round(t c' / Q)| <= t N Q / 2 must stay below B / 2.
  std::set<uint64_t> used(qp_.values().begin(), qp_.values().end());
  used.insert(t_);
  const unsigned auxiliaryBits = 60;
  unsigned needed = q_.product().bitLength() + __builtin_ctzll(n_) +
                    BigUInt(t_).bitLength() + 2;
  std::vector<uint64_t> b = generatePrimes(
      auxiliaryBits, (needed + auxiliaryBits - 2) / (auxiliaryBits - 1),
      2 * n_, used);
  used.insert(b.begin(), b.end());
  auxiliary_ = RnsBasis(b);
  mSk_ = generatePrimes(auxiliaryBits, 1, 2 * n_, used).front();
  used.insert(mSk_);
  // gamma only needs to be coprime to t and Q, and odd; an NTT-friendly prime
  // keeps it usable in the transform domain too.
  gamma_ = generatePrimes(auxiliaryBits, 1, 2 * n_, used).front();

  for (uint64_t prime : qp_.values())
    nttQP_.emplace_back(prime, n_);
  for (uint64_t prime : auxiliary_.values())
    nttAuxiliary_.emplace_back(prime, n_);
  nttAuxiliary_.emplace_back(mSk_, n_);
  if (runtime::supportsBatching(t_, n_))
    batchingTables_ = std::make_unique<NttTables>(t_, n_);

  decryptScale_ = std::make_unique<ScaleRoundPlan>(q_, RnsBasis(), t_, t_);
  modDown_ = std::make_unique<ScaleRoundPlan>(p_, q_, 1);
  tensorScale_ = std::make_unique<ScaleRoundPlan>(q_, auxiliary_, t_);
  qToAuxiliary_ = std::make_unique<BaseConverter>(q_, auxiliary_);
  auxiliaryToQ_ = std::make_unique<BaseConverter>(auxiliary_, q_);
  for (size_t j = 0; j < dnum_; ++j) {
    auto [first, last] = digitRange(j);
    std::vector<uint64_t> others;
    for (size_t i = 0; i < qp_.size(); ++i)
      if (i < first || i >= last)
        others.push_back(qp_.values()[i]);
    digitExtensions_.emplace_back(q_.slice(first, last), RnsBasis(others));
  }

  auto [delta, remainder] = q_.product().divModWord(t_);
  qModT_ = remainder;
  for (uint64_t prime : q_.values())
    deltaModQ_.push_back(delta.modWord(prime));

  // FNV-1a over the defining numbers.
  uint64_t hash = 1469598103934665603ull;
  auto mix = [&](uint64_t value) {
    for (int byte = 0; byte < 8; ++byte, value >>= 8) {
      hash ^= value & 0xff;
      hash *= 1099511628211ull;
    }
  };
  mix(n_);
  mix(t_);
  mix(dnum_);
  mix(q_.size());
  for (uint64_t prime : qp_.values())
    mix(prime);
  fingerprint_ = hash;
}

std::pair<size_t, size_t> Context::digitRange(size_t j) const {
  return {j * alpha_, std::min(q_.size(), (j + 1) * alpha_)};
}

std::string Context::describe() const {
  std::ostringstream text;
  text << "BFV(N=" << n_ << ", t=" << t_ << ", log2 Q=" << q_.product().bitLength()
       << " (" << q_.size() << " primes), log2 P=" << p_.product().bitLength()
       << " (" << p_.size() << " primes), dnum=" << dnum_
       << (insecure_ ? ", INSECURE" : "") << ")";
  return text.str();
}

} // namespace ringfuse::runtime
