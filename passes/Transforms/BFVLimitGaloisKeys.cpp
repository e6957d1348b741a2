//===- BFVLimitGaloisKeys.cpp - rotations from power-of-two keys ----------===//
//
// A matrix-vector product over 4096 slots rotates by thousands of distinct
// steps, each with a Galois key of dnum (|Q| + |P|) N words. Every rotation
// by k is also a chain of rotations by the powers of two in k's binary
// digits (mod N/2), so log2(N/2) keys serve every step, at one key switch per
// digit. Over budget, the pass keeps as many of the circuit's own steps as
// the budget allows (the most used first) and builds the rest from the
// powers of two, sharing chain prefixes of one ciphertext.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <algorithm>
#include <set>

namespace ringfuse {
#define GEN_PASS_DEF_BFVLIMITGALOISKEYS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// Bytes of one key-switching key: (b_j, a_j) over QP for each digit.
uint64_t keyBytes(bfv::ParamsAttr params) {
  uint64_t q = params.getCiphertextModulus().size();
  uint64_t p = params.getSpecialModulus().size();
  uint64_t width = (q + params.getDigitCount() - 1) / params.getDigitCount();
  uint64_t digits = (q + width - 1) / width;
  return 2 * digits * (q + p) * params.getRingDegree() * sizeof(uint64_t);
}

struct BFVLimitGaloisKeys
    : public impl::BFVLimitGaloisKeysBase<BFVLimitGaloisKeys> {
  using Base::Base;

  void runOnOperation() override {
    if (maxKeys == 0 && maxBytes == 0)
      return;
    SmallVector<bfv::RotateOp> rotations;
    bool swapsRows = false;
    bfv::ParamsAttr params;
    getOperation()->walk([&](Operation *op) {
      if (auto rotate = dyn_cast<bfv::RotateOp>(op)) {
        rotations.push_back(rotate);
        params = rotate.getType().getParams();
      } else if (auto swap = dyn_cast<bfv::SwapRowsOp>(op)) {
        swapsRows = true;
        params = swap.getType().getParams();
      }
    });
    if (!params)
      return;
    if (!params.hasRingDegree() || params.getCiphertextModulus().empty() ||
        params.getSpecialModulus().empty()) {
      getOperation().emitError()
          << "bfv-limit-galois-keys needs chosen "
             "parameters (run bfv-select-parameters first)";
      return signalPassFailure();
    }
    row_ = params.getRingDegree() / 2;
    const uint64_t perKey = keyBytes(params);
    uint64_t allowed = maxKeys ? uint64_t(maxKeys) : UINT64_MAX;
    if (maxBytes)
      allowed = std::min<uint64_t>(allowed, maxBytes / perKey);
    if (swapsRows) {
      if (allowed == 0)
        return refuse(perKey, 1);
      --allowed;
    }

    // The steps in use, most used first.
    llvm::MapVector<int64_t, unsigned> uses;
    for (bfv::RotateOp rotate : rotations)
      ++uses[normalized(rotate.getSteps())];
    if (uses.size() <= allowed)
      return;
    std::set<int64_t> powers;
    for (auto &[step, count] : uses)
      for (int64_t bit = 1; bit < row_; bit *= 2)
        if (step & bit)
          powers.insert(bit);
    if (powers.size() > allowed)
      return refuse(perKey, powers.size() + swapsRows);
    SmallVector<std::pair<int64_t, unsigned>> byUse(uses.begin(), uses.end());
    std::stable_sort(byUse.begin(), byUse.end(),
                     [](auto &a, auto &b) { return a.second > b.second; });
    keys_ = powers;
    for (auto &[step, count] : byUse)
      if (!keys_.count(step) && keys_.size() < allowed)
        keys_.insert(step);

    for (bfv::RotateOp rotate : rotations)
      if (!keys_.count(normalized(rotate.getSteps())))
        decompose(rotate);
  }

  void refuse(uint64_t perKey, size_t fewest) {
    getOperation().emitError()
        << "the Galois-key budget (max-keys " << uint64_t(maxKeys)
        << ", max-bytes " << uint64_t(maxBytes)
        << "; 0 is no limit) is below what this circuit needs even with "
           "power-of-two rotations: "
        << fewest << " keys of " << perKey << " bytes";
    signalPassFailure();
  }

  int64_t normalized(int64_t step) const {
    return ((step % row_) + row_) % row_;
  }

  /// rotate(x, k) as rotations by k's binary digits, each on the last; the
  /// chain's prefixes of one x are shared.
  void decompose(bfv::RotateOp rotate) {
    OpBuilder builder(rotate);
    Value x = rotate.getInput();
    int64_t step = normalized(rotate.getSteps()), done = 0;
    Value acc = x;
    for (int64_t bit = 1; bit < row_; bit *= 2) {
      if (!(step & bit))
        continue;
      done += bit;
      Value &next = chains_[{x, done}];
      if (!next)
        next = bfv::RotateOp::create(builder, rotate.getLoc(), acc.getType(),
                                     acc, bit);
      acc = next;
    }
    rotate.getResult().replaceAllUsesWith(acc);
    rotate.erase();
  }

  int64_t row_ = 0;
  std::set<int64_t> keys_;
  DenseMap<std::pair<Value, int64_t>, Value> chains_;
};
} // namespace
} // namespace ringfuse
