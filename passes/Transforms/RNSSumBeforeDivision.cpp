//===- RNSSumBeforeDivision.cpp - one division by P per sum
//----------------===//
//
// Each key switch ends with round(k / P) for both of its sums k over QP. A
// sum of key-switched values (rotations of one ciphertext, the giant steps
// of baby-step giant-step) pays that inverse transform and division once per
// term. Division by P is linear up to its rounding, and the rounding's input
// is all of QP (the divisor's and the result's moduli), so a wrap-around of
// the sum mod QP changes the quotient by a multiple of Q: the terms' k are
// added over QP, in the evaluation domain, and divided once.
//
//===----------------------------------------------------------------------===//
#include "dialects/RNS/IR/RNSOps.h"
#include "passes/Passes.h"
#include "passes/Transforms/SumTrees.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

namespace ringfuse {
#define GEN_PASS_DEF_RNSSUMBEFOREDIVISION
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// A key switch's last step as poly-to-rns makes it: round(intt(k) / P),
/// k a sum of the inner product, with one user.
rns::ScaleRoundOp divisionOfKeySwitchSum(Value value) {
  auto division = value.getDefiningOp<rns::ScaleRoundOp>();
  if (!division || !value.hasOneUse() || division.getFloor() ||
      division.getVia() || division.getAddend() ||
      !division.getNumerator().isOne())
    return nullptr;
  auto intt = division.getInput().getDefiningOp<rns::InttOp>();
  if (!intt || !intt.getInput().getDefiningOp<rns::KeySwitchInnerProductOp>())
    return nullptr;
  return division;
}

struct RNSSumBeforeDivision
    : public impl::RNSSumBeforeDivisionBase<RNSSumBeforeDivision> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp function) {
      for (rns::AddOp root : sumRoots<rns::AddOp>(function))
        rewrite(root);
      eraseUnusedPureOps(function);
    });
  }

  void rewrite(rns::AddOp root) {
    SmallVector<Value> leaves;
    collectSummands<rns::AddOp>(root.getResult(), leaves);
    // Divisions alike (input type, divisor, result type) sum before dividing.
    using Key = std::tuple<Type, Attribute, Type>;
    llvm::MapVector<Key, SmallVector<rns::ScaleRoundOp>> divisions;
    SmallVector<Value> others;
    for (Value leaf : leaves) {
      if (rns::ScaleRoundOp division = divisionOfKeySwitchSum(leaf))
        divisions[{division.getInput().getType(), division.getDivisor(),
                   division.getType()}]
            .push_back(division);
      else
        others.push_back(leaf);
    }
    if (llvm::all_of(divisions,
                     [](auto &group) { return group.second.size() < 2; }))
      return;
    OpBuilder builder(root);
    Location loc = root.getLoc();
    SmallVector<Value> parts(others);
    for (auto &[key, group] : divisions) {
      if (group.size() == 1) {
        parts.push_back(group.front());
        continue;
      }
      SmallVector<Value> sums;
      for (rns::ScaleRoundOp division : group)
        sums.push_back(
            division.getInput().getDefiningOp<rns::InttOp>().getInput());
      rns::ScaleRoundOp first = group.front();
      Value coefficients = rns::InttOp::create(
          builder, loc, balancedSum<rns::AddOp>(builder, loc, sums));
      parts.push_back(rns::ScaleRoundOp::create(
          builder, loc, first.getType(), coefficients, first.getNumeratorAttr(),
          first.getDivisor(), /*floor=*/false, /*via=*/nullptr,
          /*addend=*/Value()));
      numDivisionsSaved += group.size() - 1;
    }
    root.getResult().replaceAllUsesWith(
        balancedSum<rns::AddOp>(builder, loc, parts));
  }
};
} // namespace
} // namespace ringfuse
