//===- NoiseAnalysis.cpp - noise growth of a bfv circuit ------------------===//
#include "passes/Analyses/NoiseAnalysis.h"

#include "dialects/BFV/IR/BFVOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;

namespace ringfuse {

namespace {

/// The estimate's constants at one (N, t), in bits of Q.
struct Growth {
  Growth(unsigned n, uint64_t plaintextModulus) {
    const double logT = std::log2(double(plaintextModulus));
    const double halfLogN = 0.5 * llvm::Log2_64(n);
    fresh = logT + halfLogN + 4;
    product = logT + halfLogN + 8;
    plainProduct = logT + halfLogN + 4;
    slotSum = 2 * llvm::Log2_64(n);
  }

  double fresh, product, plainProduct, slotSum;
  /// A key switch adds about a fresh encryption's noise.
  static constexpr double kKeySwitch = 1;

  /// Whether op switches keys, so that its result carries at least a fresh
  /// encryption's noise.
  static bool switchesKeys(Operation *op) {
    return isa<bfv::RotateOp, bfv::SwapRowsOp, bfv::RelinearizeOp,
               bfv::SumSlotsOp>(op);
  }

  /// The bits op adds to its noisier operand's noise (after switchesKeys'
  /// floor), for every op but a sum (sumOfMagnitudes): noiseBits adds them,
  /// allowanceBits takes them off.
  double addedBy(Operation *op) const {
    if (isa<bfv::MulOp>(op))
      return product;
    if (isa<bfv::MulPlainOp>(op))
      return plainProduct;
    if (isa<bfv::SumSlotsOp>(op))
      return slotSum;
    if (switchesKeys(op))
      return kKeySwitch;
    return 0;
  }

  /// A product by a fresh ciphertext, relinearized.
  double relinearizedProduct() const { return product + kKeySwitch; }
};

} // namespace

CircuitNoiseAnalysis::CircuitNoiseAnalysis(ModuleOp module) : module_(module) {
  llvm::DenseMap<Value, unsigned> depth;
  module.walk([&](Operation *op) {
    if (isa<bfv::RotateOp, bfv::RotatePlainOp, bfv::SwapRowsOp,
            bfv::SumSlotsOp>(op))
      usesSlots_ = true;
    auto steps = op->getAttrOfType<IntegerAttr>("steps");
    if (steps && isa<bfv::RotateOp, bfv::RotatePlainOp>(op))
      largestRotation_ =
          std::max<uint64_t>(largestRotation_, std::abs(steps.getInt()));
    if (auto encode = dyn_cast<bfv::EncodeOp>(op))
      if (auto values = dyn_cast<DenseIntElementsAttr>(encode.getValue())) {
        usesSlots_ = true;
        longestConstant_ =
            std::max<uint64_t>(longestConstant_, values.getNumElements());
      }
    unsigned level = 0;
    for (Value operand : op->getOperands())
      level = std::max(level, depth.lookup(operand));
    if (isa<bfv::MulOp>(op))
      ++level;
    for (Value result : op->getResults())
      depth[result] = level;
    depth_ = std::max(depth_, level);
  });
}

llvm::DenseMap<Value, double>
CircuitNoiseAnalysis::noiseBits(unsigned n, uint64_t plaintextModulus,
                                RoundedOperands rounded) const {
  const Growth growth(n, plaintextModulus);
  llvm::DenseMap<Value, double> noise;
  ModuleOp module = module_;
  // Pre-order: a function's arguments get their fresh noise before its body.
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (BlockArgument arg : func.getArguments())
        noise[arg] = isa<bfv::CiphertextType>(arg.getType()) ? growth.fresh : 0;
      return;
    }
    double in = 0;
    for (Value operand : op->getOperands())
      in = std::max(in, noise.lookup(operand));
    double out;
    if (isa<bfv::AddOp, bfv::SubOp>(op)) {
      out = sumOfMagnitudes(noise.lookup(op->getOperand(0)),
                            noise.lookup(op->getOperand(1)));
    } else {
      if (auto mul = dyn_cast<bfv::MulOp>(op); mul && rounded)
        in = rounded(mul, in);
      if (Growth::switchesKeys(op))
        in = std::max(in, growth.fresh);
      out = in + growth.addedBy(op);
    }
    for (Value result : op->getResults())
      noise[result] = out;
  });
  return noise;
}

llvm::DenseMap<Value, double> CircuitNoiseAnalysis::allowanceBits(
    unsigned n, uint64_t plaintextModulus, double outputLimit,
    unsigned reserveDepth, const llvm::DenseMap<Value, double> &noise) const {
  const Growth growth(n, plaintextModulus);
  // The inverse of afterReservedProducts.
  const double atOutputs =
      outputLimit - reserveDepth * growth.relinearizedProduct();
  llvm::DenseMap<Value, double> allowance;
  auto tighten = [&](Value value, double limit) {
    auto [it, inserted] = allowance.try_emplace(value, limit);
    if (!inserted)
      it->second = std::min(it->second, limit);
  };
  SmallVector<Operation *> ops;
  ModuleOp module = module_;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
  // Each op after every use of its results (a circuit is straight-line code).
  for (Operation *op : llvm::reverse(ops)) {
    if (isa<func::ReturnOp>(op)) {
      for (Value output : op->getOperands())
        tighten(output, isa<bfv::CiphertextType>(output.getType())
                            ? atOutputs
                            : outputLimit);
      continue;
    }
    double out = std::numeric_limits<double>::infinity();
    for (Value result : op->getResults())
      if (auto it = allowance.find(result); it != allowance.end())
        out = std::min(out, it->second);
    if (std::isinf(out))
      continue;
    for (Value operand : op->getOperands()) {
      // A sum's terms get shares proportional to their estimates, which add
      // up to the sum's allowance: 2^(out + a - s) + 2^(out + b - s) = 2^out.
      const double allowed =
          isa<bfv::AddOp, bfv::SubOp>(op)
              ? out + noise.lookup(operand) - noise.lookup(op->getResult(0))
              : out - growth.addedBy(op);
      tighten(operand, allowed);
    }
  }
  return allowance;
}

double CircuitNoiseAnalysis::sumOfMagnitudes(double a, double b) {
  const double larger = std::max(a, b);
  return larger + std::log2(1 + std::exp2(std::min(a, b) - larger));
}

double CircuitNoiseAnalysis::roundingNoiseBits(unsigned n,
                                               uint64_t plaintextModulus) {
  // Each rounding error is at most 1/2; the sum of N of them times a ternary
  // s stays below about 1.4 sqrt(N) (six standard deviations).
  return std::log2(double(plaintextModulus)) + 0.5 * llvm::Log2_64(n) + 1;
}

double CircuitNoiseAnalysis::productNoiseBits(unsigned n,
                                              uint64_t plaintextModulus) {
  return Growth(n, plaintextModulus).product;
}

double CircuitNoiseAnalysis::afterReservedProducts(double noise, unsigned depth,
                                                   unsigned n,
                                                   uint64_t plaintextModulus) {
  const Growth growth(n, plaintextModulus);
  for (unsigned i = 0; i < depth; ++i)
    noise = std::max(noise, growth.fresh) + growth.relinearizedProduct();
  return noise;
}

unsigned CircuitNoiseAnalysis::requiredBits(unsigned n,
                                            uint64_t plaintextModulus,
                                            unsigned reserveDepth) const {
  llvm::DenseMap<Value, double> noise = noiseBits(n, plaintextModulus);
  double worst = 0;
  ModuleOp module = module_;
  module.walk([&](func::ReturnOp op) {
    for (Value operand : op.getOperands()) {
      double need = noise.lookup(operand);
      if (isa<bfv::CiphertextType>(operand.getType()))
        need = afterReservedProducts(need, reserveDepth, n, plaintextModulus);
      worst = std::max(worst, need);
    }
  });
  return unsigned(std::ceil(worst));
}

} // namespace ringfuse
