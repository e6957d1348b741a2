//===- BFVChooseLevels.cpp - the level of each leveled-HPS product --------===//
//
// The compiler sees the whole circuit, so the level of every multiplication
// is fixed here, from the noise estimates, rather than by a runtime rule: a
// product may spend on its rounding whatever noise the outputs can still
// afford, not only what its own operands would hide.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Analyses/NoiseAnalysis.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "passes/Passes.h"

#include <cmath>

namespace ringfuse {
#define GEN_PASS_DEF_BFVCHOOSELEVELS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// The fewest leading primes of q whose dropped tail has at most `droppable`
/// bits (at least one prime is kept).
int64_t levelFor(ArrayRef<uint64_t> q, double droppable) {
  int64_t level = int64_t(q.size());
  double dropped = 0;
  while (level > 1) {
    dropped += std::log2(double(q[level - 1]));
    if (dropped > droppable)
      break;
    --level;
  }
  return level;
}

/// The bits of q's primes past the first `level`.
double droppedBits(ArrayRef<uint64_t> q, int64_t level) {
  double bits = 0;
  for (uint64_t prime : q.drop_front(level))
    bits += std::log2(double(prime));
  return bits;
}

struct BFVChooseLevels : public impl::BFVChooseLevelsBase<BFVChooseLevels> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bfv::ParamsAttr params = findParameters(module);
    if (!params)
      return signalPassFailure();
    ArrayRef<uint64_t> q = params.getCiphertextModulus();
    if (!params.hasRingDegree() || q.empty()) {
      module.emitError() << "bfv-choose-levels needs chosen parameters (N and "
                            "Q); run bfv-select-parameters first";
      return signalPassFailure();
    }
    const unsigned n = params.getRingDegree();
    const uint64_t t = params.getPlaintextModulus();
    const CircuitNoiseAnalysis analysis(module);
    const llvm::DenseMap<Value, double> allowance =
        analysis.allowanceBits(n, t, droppedBits(q, 0) - outputMarginBits,
                               reserveDepth, analysis.noiseBits(n, t));
    const double rounding = CircuitNoiseAnalysis::roundingNoiseBits(n, t);
    const double product = CircuitNoiseAnalysis::productNoiseBits(n, t);
    // In program order, so that each product sees its operands' noise as
    // the levels chosen before it left them.
    analysis.noiseBits(n, t, [&](bfv::MulOp mul, double operandNoise) {
      // Dropping d bits of Q makes the rounding noise 2^(rounding + d) at Q's
      // scale. Always allowed: d that leaves the operands' noise marginBits
      // above it (the product's noise grows by a fraction of a bit).
      double droppable = operandNoise - rounding - marginBits;
      // Beyond that: d whose rounding noise, added to the operands', keeps
      // the product within its allowance.
      if (auto it = allowance.find(mul.getResult()); it != allowance.end()) {
        const double allowed = it->second - product;
        if (allowed > operandNoise)
          droppable = std::max(
              droppable, allowed +
                             std::log2(1 - std::exp2(operandNoise - allowed)) -
                             rounding);
      }
      const int64_t level = levelFor(q, droppable);
      if (level == int64_t(q.size())) {
        mul.removeLevelAttr();
        return operandNoise;
      }
      mul.setLevel(level);
      ++numLeveled;
      return CircuitNoiseAnalysis::sumOfMagnitudes(
          operandNoise, rounding + droppedBits(q, level));
    });
  }
};
} // namespace
} // namespace ringfuse
