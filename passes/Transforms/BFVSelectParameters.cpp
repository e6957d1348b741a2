//===- BFVSelectParameters.cpp - N, Q, P for the circuit's noise ----------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Analyses/NoiseAnalysis.h"
#include "passes/Passes.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/security.h"

#include <optional>

namespace ringfuse {
#define GEN_PASS_DEF_BFVSELECTPARAMETERS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// N, and Q's primes followed by P's one.
struct Choice {
  unsigned degree;
  std::vector<uint64_t> primes;
};

struct BFVSelectParameters
    : public impl::BFVSelectParametersBase<BFVSelectParameters> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bfv::ParamsAttr traced = findParameters(module);
    if (!traced)
      return signalPassFailure();
    CircuitNoiseAnalysis noise(module);
    uint64_t t = traced.getPlaintextModulus();

    // A circuit computes on slot vectors (what users encrypt and decrypt):
    // a t without batching would silently turn its products into polynomial
    // products, so it is refused, given parameters included.
    if (!traced.getCiphertextModulus().empty()) {
      if (!runtime::supportsBatching(t, traced.getRingDegree())) {
        module.emitError() << "t = " << t << " allows no batching at N = "
                           << traced.getRingDegree() << noBatchingHint(t);
        return signalPassFailure();
      }
      unsigned need =
          noise.requiredBits(traced.getRingDegree(), t, reserveDepth) +
          marginBits;
      unsigned have = 0;
      for (uint64_t q : traced.getCiphertextModulus())
        have += 64 - __builtin_clzll(q);
      if (need > have)
        module.emitWarning() << "the circuit's estimated noise needs about "
                             << need << " bits of Q, but the given Q has "
                             << have << "; outputs may not decrypt";
      return;
    }

    if (!batchesAtSomeDegree(traced)) {
      InFlightDiagnostic error = module.emitError() << "t = " << t;
      if (traced.hasRingDegree())
        error << " allows no batching at N = " << traced.getRingDegree();
      else
        error << " allows no batching at any N from " << kSmallestDegree
              << " to " << kLargestDegree;
      error << noBatchingHint(t);
      return signalPassFailure();
    }
    std::optional<Choice> choice = choose(noise, traced, /*wantSlots=*/true);
    if (!choice && choose(noise, traced, /*wantSlots=*/false)) {
      module.emitError()
          << "t = " << t << " allows slots only up to N = " << largestBatchingDegree(traced)
          << ", which cannot hold this circuit (multiplicative depth "
          << noise.multiplicativeDepth()
          << "); choose a prime t = 1 mod 2N for a larger N (786433 = 3 * 2^18 "
             "+ 1 batches up to N = 2^17)";
      return signalPassFailure();
    }
    if (!choice) {
      module.emitError() << "no 128-bit secure parameter set holds this "
                            "circuit (multiplicative "
                            "depth "
                         << noise.multiplicativeDepth() << ", t = " << t
                         << "); reduce its depth or the plaintext modulus";
      return signalPassFailure();
    }
    replaceParameters(module, build(*choice, t));
  }

  /// Why batching matters and how to get it.
  static std::string noBatchingHint(uint64_t t) {
    return ": circuits compute slot by slot, which needs a prime t = 1 mod 2N "
           "(65537 batches up to N = 2^15, 786433 up to 2^17)" +
           std::string(t % 2 == 0 ? "; a power of two never batches" : "");
  }

  /// The ring degrees the pass may choose from.
  static bool allowedDegree(bfv::ParamsAttr traced, unsigned n) {
    return !traced.hasRingDegree() || n == traced.getRingDegree();
  }

  static constexpr unsigned kSmallestDegree = 1 << 10, kLargestDegree = 1 << 17;

  static unsigned largestBatchingDegree(bfv::ParamsAttr traced) {
    unsigned largest = 0;
    for (unsigned n = kSmallestDegree; n <= kLargestDegree; n *= 2)
      if (allowedDegree(traced, n) &&
          runtime::supportsBatching(traced.getPlaintextModulus(), n))
        largest = n;
    return largest;
  }

  static bool batchesAtSomeDegree(bfv::ParamsAttr traced) {
    return largestBatchingDegree(traced) != 0;
  }

  std::optional<Choice> choose(const CircuitNoiseAnalysis &noise,
                               bfv::ParamsAttr traced, bool wantSlots) {
    uint64_t t = traced.getPlaintextModulus();
    for (unsigned n = kSmallestDegree; n <= kLargestDegree; n *= 2) {
      if (!allowedDegree(traced, n))
        continue;
      if (wantSlots && !runtime::supportsBatching(t, n))
        continue;
      // Rotations by k need rows longer than k; constants need their slots.
      if (n / 2 <= noise.largestRotation() || n < noise.longestConstant())
        continue;
      unsigned need = noise.requiredBits(n, t, reserveDepth) + marginBits;
      unsigned bound = *runtime::maxSecureModulusBits(n);
      // The widest primes that fit: fewer limbs for the same Q.
      for (unsigned bits = 60; bits >= 25; --bits) {
        unsigned primes = (need + bits - 1) / bits;
        // Q's primes plus one special prime of the same width (each digit is
        // one prime, so P is as wide as a digit).
        if ((primes + 1) * bits > bound)
          continue;
        // Narrow primes = 1 mod 2N run out at large N: a width with too few
        // is passed over (it left a set with fewer primes than dnum).
        std::vector<uint64_t> found =
            runtime::findPrimesBelow(bits, primes + 1, 2 * uint64_t(n),
                                     [&](uint64_t p) { return t % p == 0; });
        if (found.size() == primes + 1)
          return Choice{n, std::move(found)};
      }
    }
    return std::nullopt;
  }

  bfv::ParamsAttr build(const Choice &choice, uint64_t t) {
    ArrayRef<uint64_t> primes = choice.primes;
    ArrayRef<uint64_t> q = primes.drop_back();
    return bfv::ParamsAttr::get(&getContext(), t, choice.degree, q,
                                primes.take_back(), /*dnum=*/q.size());
  }
};
} // namespace
} // namespace ringfuse
