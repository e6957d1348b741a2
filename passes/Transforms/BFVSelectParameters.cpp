//===- BFVSelectParameters.cpp - N, Q, P for the circuit's noise ----------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Analyses/NoiseAnalysis.h"
#include "passes/CostModels/WordSizeCostModel.h"
#include "passes/Passes.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "ringfuse/runtime/number_theory.h"
#include "ringfuse/runtime/security.h"

#include <cmath>
#include <optional>

namespace ringfuse {
#define GEN_PASS_DEF_BFVSELECTPARAMETERS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// N, Q's primes followed by P's, and how many primes a key-switching digit
/// (and so P) has.
struct Choice {
  unsigned degree;
  std::vector<uint64_t> primes;
  unsigned digitPrimes;
};

struct BFVSelectParameters
    : public impl::BFVSelectParametersBase<BFVSelectParameters> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (wordBits != "32" && wordBits != "64" && wordBits != "auto") {
      module.emitError() << "bfv-select-parameters: word-bits must be 32, 64 "
                            "or auto, got '"
                         << wordBits << "'";
      return signalPassFailure();
    }
    std::optional<WordSizeCostTable> table;
    if (wordBits == "auto") {
      llvm::Expected<WordSizeCostTable> loaded =
          WordSizeCostTable::load(wordSizeTable);
      if (!loaded) {
        module.emitError() << "bfv-select-parameters: "
                           << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      table = std::move(*loaded);
    }
    bfv::ParamsAttr traced = findParameters(module);
    if (!traced)
      return signalPassFailure();
    CircuitNoiseAnalysis noise(module);
    uint64_t t = traced.getPlaintextModulus();
    // A module that records 32-bit words keeps them; given parameters take
    // the measured faster word size where their moduli fit it.
    words = wordBits == "32" || bfv::wordBitsOf(module) == 32 ? 32 : 64;
    if (table && !traced.getCiphertextModulus().empty() &&
        !bfv::modulusTooWideFor32BitWords(traced) &&
        table->fasterWordBits(llvm::Log2_32(traced.getRingDegree()),
                              logQ(traced.getCiphertextModulus())) == 32)
      words = 32;
    if (words == 32) {
      if (uint64_t wide = bfv::modulusTooWideFor32BitWords(traced)) {
        module.emitError() << "with 32-bit words every modulus is below 2^"
                           << bfv::widestPrimeBits(32) << ", but " << wide
                           << " is not";
        return signalPassFailure();
      }
      bfv::setWordBits(module, 32);
    }

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
    // auto: chosen again for 32-bit words where they were measured faster
    // at the 64-bit choice's N and log Q (and a 32-bit set holds the circuit).
    if (choice && table &&
        table->fasterWordBits(
            llvm::Log2_32(choice->degree),
            logQ(ArrayRef(choice->primes).drop_back(choice->digitPrimes))) ==
            32) {
      words = 32;
      if (std::optional<Choice> narrow =
              choose(noise, traced, /*wantSlots=*/true)) {
        choice = std::move(narrow);
        bfv::setWordBits(module, 32);
      } else {
        words = 64;
      }
    }
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
                            "circuit (multiplicative depth "
                         << noise.multiplicativeDepth() << ", t = " << t
                         << (words == 32 ? ", 32-bit words" : "")
                         << "); reduce its depth or the plaintext modulus";
      return signalPassFailure();
    }
    replaceParameters(module, build(*choice, t));
  }

  /// log2 of the product of `primes`, rounded: what a set's "log Q" says.
  static unsigned logQ(ArrayRef<uint64_t> primes) {
    double bits = 0;
    for (uint64_t q : primes)
      bits += std::log2(double(q));
    return unsigned(std::lround(bits));
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
  static constexpr unsigned kNarrowestPrimeBits = 25;
  /// The program's word size: the option's, or 32 where the module says so.
  unsigned words = 64;

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
      for (unsigned bits = bfv::widestPrimeBits(words);
           bits >= kNarrowestPrimeBits; --bits) {
        unsigned primes = (need + bits - 1) / bits;
        // Q's primes plus P, as wide as a key-switching digit. A digit is one
        // prime of 64-bit words; with 32-bit words two where the bound allows
        // (digits of about 60 bits, as with 64-bit words: one digit a prime
        // of 30 bits would make twice the digits, each extended to twice the
        // primes), else one (a smaller N first).
        for (unsigned digitPrimes = words == 32 ? 2 : 1; digitPrimes >= 1;
             --digitPrimes) {
          if ((primes + digitPrimes) * bits > bound)
            continue;
          // Narrow primes = 1 mod 2N run out at large N (about 200 of 30
          // bits at N = 2^17): a width with too few is passed over.
          std::vector<uint64_t> found = runtime::findPrimesBelow(
              bits, primes + digitPrimes, 2 * uint64_t(n),
              [&](uint64_t p) { return t % p == 0; });
          if (found.size() == primes + digitPrimes)
            return Choice{n, std::move(found), digitPrimes};
        }
      }
    }
    return std::nullopt;
  }

  bfv::ParamsAttr build(const Choice &choice, uint64_t t) {
    ArrayRef<uint64_t> primes = choice.primes;
    ArrayRef<uint64_t> q = primes.drop_back(choice.digitPrimes);
    unsigned dnum = (q.size() + choice.digitPrimes - 1) / choice.digitPrimes;
    return bfv::ParamsAttr::get(&getContext(), t, choice.degree, q,
                                primes.take_back(choice.digitPrimes), dnum);
  }
};
} // namespace
} // namespace ringfuse
