//===- BFVChooseLevels.cpp - the level of each leveled-HPS product --------===//
//
// The compiler sees the whole circuit, so the level of every multiplication
// is fixed here, from the noise estimates, rather than by a runtime rule.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/NoiseAnalysis.h"
#include "passes/ParameterRewriting.h"
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
    llvm::DenseMap<Value, double> noise =
        CircuitNoiseAnalysis(module).noiseBits(n, t);
    const double floor =
        CircuitNoiseAnalysis::roundingNoiseBits(n, t) + marginBits;
    module.walk([&](bfv::MulOp mul) {
      double operandNoise = std::max(noise.lookup(mul.getLhs()),
                                     noise.lookup(mul.getRhs()));
      int64_t level = levelFor(q, operandNoise - floor);
      if (level < int64_t(q.size())) {
        mul.setLevel(level);
        ++numLeveled;
      } else {
        mul.removeLevelAttr();
      }
    });
  }
};
} // namespace
} // namespace ringfuse
