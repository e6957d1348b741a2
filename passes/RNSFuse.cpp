//===- RNSFuse.cpp - RNS steps that one kernel does together --------------===//
//
// Each fusion is one rewrite pattern over rns ops whose result computes the
// same words as the ops it replaces; rns-to-kernel then gives the fused op
// one launch.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/RNS/IR/RNSOps.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ringfuse {
#define GEN_PASS_DEF_RNSFUSE
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// convert(scale_round(x by a over D) into B, exact) into T
///   -> scale_round(x by a over D) via B into T.
/// HPS rounds a tensor term t x / Q into B and converts it exactly back to
/// Q; compact HPS switches an operand from Q into B (round(B x / Q)) and
/// extends it exactly to Q u B. The fused kernel keeps the tile's rounded
/// words in shared memory instead of writing them out and reading them back
/// (and writes those T keeps, B's limbs of Q u B, as they are).
struct FuseScaleRoundWithExactConversion
    : public OpRewritePattern<rns::ConvertOp> {
  FuseScaleRoundWithExactConversion(MLIRContext *context,
                                    llvm::Statistic &fused)
      : OpRewritePattern(context), fused_(fused) {}

  LogicalResult matchAndRewrite(rns::ConvertOp convert,
                                PatternRewriter &rewriter) const override {
    if (convert.getMethod() != rns::ConversionMethod::exact)
      return rewriter.notifyMatchFailure(convert, "not an exact conversion");
    auto round = convert.getInput().getDefiningOp<rns::ScaleRoundOp>();
    if (!round || round.getFloor() || round.getVia() || round.getAddend())
      return rewriter.notifyMatchFailure(convert, "not after a rounding");
    if (!round->hasOneUse())
      return rewriter.notifyMatchFailure(convert,
                                         "the rounding has other users");
    rns::BasisAttr via = round.getRoundingBasis();
    auto target = cast<rns::PolyType>(convert.getType());
    if (via.contains(target.getBasis()))
      return rewriter.notifyMatchFailure(convert, "the conversion only copies");
    rewriter.replaceOpWithNewOp<rns::ScaleRoundOp>(
        convert, target, round.getInput(), round.getNumeratorAttr(),
        round.getDivisor(), /*floor=*/false, via, /*addend=*/Value());
    rewriter.eraseOp(round);
    ++fused_;
    return success();
  }

private:
  llvm::Statistic &fused_;
};

/// Whether v is computed before w in their block (an argument first).
static bool readyBefore(Value v, Value w) {
  Operation *later = w.getDefiningOp();
  if (!later)
    return false;
  Operation *earlier = v.getDefiningOp();
  return !earlier || (earlier->getBlock() == later->getBlock() &&
                      earlier->isBeforeInBlock(later));
}

/// add(c, scale_round(x ...)) -> scale_round(x ...) plus c.
/// Relinearization ends with c_i + round(x_i / P); the rounding's kernel
/// adds c_i's word to each word it writes, where an elementwise kernel
/// would read both back. When both terms are roundings, the one whose input
/// is ready last takes the sum: compact HPS's round(t d_0 / B) then runs
/// beside the rounding of d_2, before key switching, instead of after it.
struct FuseSumIntoScaleRound : public OpRewritePattern<rns::AddOp> {
  FuseSumIntoScaleRound(MLIRContext *context, llvm::Statistic &fused)
      : OpRewritePattern(context), fused_(fused) {}

  LogicalResult matchAndRewrite(rns::AddOp add,
                                PatternRewriter &rewriter) const override {
    auto fusable = [](Value term) {
      auto round = term.getDefiningOp<rns::ScaleRoundOp>();
      return round && !round.getVia() && !round.getAddend() &&
                     round->hasOneUse()
                 ? round
                 : rns::ScaleRoundOp();
    };
    rns::ScaleRoundOp rounds[2] = {fusable(add.getLhs()),
                                   fusable(add.getRhs())};
    const unsigned side =
        rounds[0] && !(rounds[1] &&
                       readyBefore(rounds[0].getInput(), rounds[1].getInput()))
            ? 0
            : 1;
    rns::ScaleRoundOp round = rounds[side];
    if (!round)
      return rewriter.notifyMatchFailure(
          add, "no term is a rounding of its own (without a fused conversion)");
    rewriter.replaceOpWithNewOp<rns::ScaleRoundOp>(
        add, add.getType(), round.getInput(), round.getNumeratorAttr(),
        round.getDivisor(), round.getFloor(), /*via=*/nullptr,
        add->getOperand(1 - side));
    rewriter.eraseOp(round);
    ++fused_;
    return success();
  }

private:
  llvm::Statistic &fused_;
};

struct RNSFuse : public impl::RNSFuseBase<RNSFuse> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseScaleRoundWithExactConversion>(&getContext(),
                                                    numScaleRoundsFused);
    patterns.add<FuseSumIntoScaleRound>(&getContext(), numSumsFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace ringfuse
