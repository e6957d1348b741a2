//===- VariantCostModel.cpp - what a lowered circuit costs on the GPU -----===//
#include "passes/VariantCostModel.h"

#include "dialects/RNS/IR/RNSOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

namespace ringfuse {
using namespace mlir;

namespace {

// A fit, weighted by 1/time, to bench/rns_kernel_costs.py on an H200
// (bench/results/rns-kernel-costs-h200-133bfaa.json: logN 13..16, 2 to 28
// limbs in and out): time = fixed + MACs / rate + bytes / rate, MACs = N x
// input limbs x computed output limbs, bytes = 8 N x (input + output limbs).
// Its worst error is about 50% (small grids run below the fitted rates); the
// fixed part includes a one-launch graph's own replay cost.
struct LaunchCost {
  double fixedMicroseconds, macsPerMicrosecond, bytesPerMicrosecond;

  /// Its cost for `macs` and `bytes`, times `ratio` (a kernel priced by its
  /// measured ratio to this one).
  KernelCost of(double macs, double bytes, double ratio = 1) const {
    return {ratio * fixedMicroseconds,
            ratio * (macs / macsPerMicrosecond + bytes / bytesPerMicrosecond)};
  }
};
constexpr LaunchCost kFastConversion{5.2, 7.60e5, 1.95e6};
constexpr LaunchCost kExactConversion{5.8, 6.67e5, 1.88e6};
constexpr LaunchCost kScaleRound{5.7, 6.91e5, 1.34e6};
// Per shape, over the same 28 shapes: BEHZ's fast floor takes 0.80 to 0.90
// times a scale-and-round (median 0.87); its corrected conversions (a
// correction row, then one more product per output) 0.88 to 1.31 times an
// exact conversion (median 1.08).
constexpr double kFastFloorRatio = 0.87;
constexpr double kCorrectedConversionRatio = 1.08;
// Elementwise kernels and the key-switching inner product: bytes at about
// 70% of the 4.25 TB/s copy ceiling, and a launch.
constexpr LaunchCost kElementwise{2.0, 1.0, 3.0e6};

size_t limbsOf(Value value) {
  return cast<rns::PolyType>(value.getType()).getBasis().getModuli().size();
}

double degreeOf(Value value) {
  return double(cast<rns::PolyType>(value.getType()).getDegree());
}

/// Bytes an elementwise op moves: every operand and result, limb by limb.
double elementwiseBytes(Operation *op) {
  double words = 0;
  for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
    words += degreeOf(value) * double(limbsOf(value));
  return 8 * words;
}

} // namespace

KernelCost CircuitCostModel::cost(Operation *op) const {
  return llvm::TypeSwitch<Operation *, KernelCost>(op)
      .Case<rns::NttOp, rns::InttOp>([&](auto transform) {
        auto type = cast<rns::PolyType>(transform.getInput().getType());
        bool forward = isa<rns::NttOp>(op);
        std::optional<TransformCostModel::Choice> choice = transforms_.choose(
            type.getDegree(), type.getBasis().getModuli(), forward);
        TransformShape shape = choice ? choice->shape : TransformShape{};
        double total = choice ? choice->microseconds
                              : TransformCostModel::modelMicroseconds(
                                    shape, __builtin_ctz(type.getDegree()),
                                    type.getBasis().getModuli().size());
        double launches = std::min(total, TransformCostModel::launchMicroseconds(shape));
        return KernelCost{launches, total - launches};
      })
      .Case<rns::ConvertOp>([&](rns::ConvertOp convert) {
        ArrayRef<uint64_t> from =
            cast<rns::PolyType>(convert.getInput().getType()).getBasis().getModuli();
        ArrayRef<uint64_t> to = convert.getType().getBasis().getModuli();
        double computed = double(llvm::count_if(
            to, [&](uint64_t m) { return !llvm::is_contained(from, m); }));
        double n = degreeOf(convert.getInput());
        rns::ConversionMethod method = convert.getMethod();
        const LaunchCost &cost =
            method == rns::ConversionMethod::fast ? kFastConversion : kExactConversion;
        bool corrected = method == rns::ConversionMethod::montgomery ||
                         method == rns::ConversionMethod::shenoy_kumaresan;
        return cost.of(n * double(from.size()) * computed,
                       8 * n * double(from.size() + to.size()),
                       corrected ? kCorrectedConversionRatio : 1);
      })
      .Case<rns::ScaleRoundOp>([&](rns::ScaleRoundOp scale) {
        double n = degreeOf(scale.getInput());
        double divisor = double(scale.getDivisor().getModuli().size());
        double in = double(limbsOf(scale.getInput())), out = double(limbsOf(scale));
        // rns-fuse's forms: an addend read as the words are written; a
        // rounding over `via` whose words, converted (exact) into the
        // result's basis, never leave the kernel (those the result keeps are
        // written as they are): one launch, both works.
        double addend = scale.getAddend() ? out : 0;
        double rounded = double(scale.getRoundingBasis().getModuli().size());
        // BEHZ's fast floor has no fractions to sum (kFastFloorRatio).
        KernelCost rounding =
            kScaleRound.of(n * divisor * rounded,
                           8 * n * (in + addend + (scale.getVia() ? 0 : out)),
                           scale.getFloor() ? kFastFloorRatio : 1);
        if (!scale.getVia())
          return rounding;
        auto result = cast<rns::PolyType>(scale.getType()).getBasis();
        double converted =
            double(llvm::count_if(result.getModuli(), [&](uint64_t m) {
              return !llvm::is_contained(scale.getVia()->getModuli(), m);
            }));
        KernelCost conversion =
            kExactConversion.of(n * rounded * converted, 8 * n * out);
        return KernelCost{std::max(rounding.launch, conversion.launch),
                          rounding.work + conversion.work};
      })
      .Case<rns::ExtractOp, rns::ConstantOp>([](Operation *) { return KernelCost{}; })
      .Default([&](Operation *other) {
        if (other->getNumResults() == 0 || !isa<rns::RNSDialect>(other->getDialect()))
          return KernelCost{};
        return kElementwise.of(0, elementwiseBytes(other));
      });
}

double CircuitCostModel::microseconds(Operation *op) const {
  KernelCost c = cost(op);
  return c.launch + c.work;
}

/// kernel-concurrent runs independent library kernels side by side: ops at
/// the same depth of the dataflow (1 + their operands' deepest producer)
/// overlap their launches and add their work. Elementwise ops become
/// generated kernels, which run alone.
double CircuitCostModel::microseconds(ModuleOp module) const {
  double total = 0;
  module.walk([&](func::FuncOp function) {
    if (function.isExternal())
      return;
    llvm::DenseMap<Operation *, unsigned> depth;
    std::map<unsigned, KernelCost> stages; // overlapped launch, summed work
    for (Operation &op : function.getBody().front()) {
      unsigned d = 0;
      for (Value operand : op.getOperands())
        if (Operation *producer = operand.getDefiningOp())
          d = std::max(d, depth.lookup(producer) + 1);
      depth[&op] = d;
      KernelCost c = cost(&op);
      if (rns::isElementwise(&op)) {
        total += c.launch + c.work;
        continue;
      }
      KernelCost &stage = stages[d];
      stage.launch = std::max(stage.launch, c.launch);
      stage.work += c.work;
    }
    for (const auto &[d, stage] : stages)
      total += stage.launch + stage.work;
  });
  return total;
}

} // namespace ringfuse
