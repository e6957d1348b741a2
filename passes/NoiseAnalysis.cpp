//===- NoiseAnalysis.cpp - noise growth of a bfv circuit ------------------===//
#include "passes/NoiseAnalysis.h"

#include "dialects/BFV/IR/BFVOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;

namespace ringfuse {

CircuitNoiseAnalysis::CircuitNoiseAnalysis(ModuleOp module) : module_(module) {
  llvm::DenseMap<Value, unsigned> depth;
  module.walk([&](Operation *op) {
    if (isa<bfv::RotateOp, bfv::SwapRowsOp, bfv::SumSlotsOp>(op))
      usesSlots_ = true;
    if (auto rotate = dyn_cast<bfv::RotateOp>(op))
      largestRotation_ =
          std::max<uint64_t>(largestRotation_, std::abs(rotate.getStepsAttr().getInt()));
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
CircuitNoiseAnalysis::noiseBits(unsigned n, uint64_t plaintextModulus) const {
  const double logT = std::log2(double(plaintextModulus));
  const double halfLogN = 0.5 * llvm::Log2_64(n);
  const double fresh = logT + halfLogN + 4;
  const double product = logT + halfLogN + 8;
  const double plainProduct = logT + halfLogN + 4;
  llvm::DenseMap<Value, double> noise;
  ModuleOp module = module_;
  // Pre-order: a function's arguments get their fresh noise before its body.
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      for (BlockArgument arg : func.getArguments())
        noise[arg] = isa<bfv::CiphertextType>(arg.getType()) ? fresh : 0;
      return;
    }
    double in = 0;
    for (Value operand : op->getOperands())
      in = std::max(in, noise.lookup(operand));
    double out = in;
    if (isa<bfv::MulOp>(op))
      out = in + product;
    else if (isa<bfv::MulPlainOp>(op))
      out = in + plainProduct;
    else if (isa<bfv::AddOp, bfv::SubOp>(op))
      out = std::log2(std::exp2(noise.lookup(op->getOperand(0))) +
                      std::exp2(noise.lookup(op->getOperand(1))));
    else if (isa<bfv::RotateOp, bfv::SwapRowsOp, bfv::RelinearizeOp>(op))
      out = std::max(in, fresh) + 1; // the key switch adds about a fresh noise
    else if (isa<bfv::SumSlotsOp>(op))
      out = std::max(in, fresh) + 2 * llvm::Log2_64(n);
    for (Value result : op->getResults())
      noise[result] = out;
  });
  return noise;
}

double CircuitNoiseAnalysis::roundingNoiseBits(unsigned n,
                                               uint64_t plaintextModulus) {
  // Each rounding error is at most 1/2; the sum of N of them times a ternary
  // s stays below about 1.4 sqrt(N) (six standard deviations).
  return std::log2(double(plaintextModulus)) + 0.5 * llvm::Log2_64(n) + 1;
}

unsigned CircuitNoiseAnalysis::requiredBits(unsigned n,
                                            uint64_t plaintextModulus) const {
  llvm::DenseMap<Value, double> noise = noiseBits(n, plaintextModulus);
  double worst = 0;
  ModuleOp module = module_;
  module.walk([&](func::ReturnOp op) {
    for (Value operand : op.getOperands())
      worst = std::max(worst, noise.lookup(operand));
  });
  return unsigned(std::ceil(worst));
}

} // namespace ringfuse
