//===- RNSFuse.cpp - RNS steps that one kernel does together --------------===//
//
// Each fusion is one rewrite pattern over rns ops whose result computes the
// same words as the ops it replaces; rns-to-kernel then gives the fused op
// one launch.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/RNS/IR/RNSOps.h"
#include "ringfuse/runtime/number_theory.h"

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

/// The product of `moduli` mod m.
static uint64_t productMod(ArrayRef<uint64_t> moduli, uint64_t m) {
  uint64_t product = 1 % m;
  for (uint64_t factor : moduli)
    product = runtime::mulModSlow(product, factor % m, m);
  return product;
}

/// Relinearization's two roundings, with the kept limbs' terms of the
/// tensor's in the evaluation domain:
///   scale_round(intt(k_i) by a over P) plus scale_round(intt(d_i) by b over
///   B) into K, for i = 0, 1 (k_i key switching's sums over K P, d_i a
///   tensor term over K B, K first in both)
///   -> scale_round(intt(k'_i) by a over P) plus scale_round(intt(d_i's B
///   limbs) by b over B),
/// where k'_i = k_i + s d_i's K limbs, key switching's sums with
/// s_k = [b B^-1]_k / [a P^-1]_k added in its kernel. A rounding over D u K
/// into K is its kept limb's term, [num D^-1]_k x_k, plus a part that D's
/// limbs decide (the rounding of x over D alone, rns.scale_round's); the
/// kept term is linear, so it commutes with the NTT, and the P-rounding's
/// kept term [a P^-1]_k (k_k + s_k d_k) carries d_i's. So d_i's K limbs
/// are never transformed back: |K| inverse-NTT limbs fewer per component,
/// and the B-rounding reads no kept limbs. The words are the same.
struct FuseKeptTermsIntoKeySwitch
    : public OpRewritePattern<rns::KeySwitchInnerProductOp> {
  FuseKeptTermsIntoKeySwitch(MLIRContext *context, llvm::Statistic &fused)
      : OpRewritePattern(context), fused_(fused) {}

  /// One output's chain: k_i -> intt -> P-rounding plus the B-rounding of
  /// intt(d_i).
  struct Chain {
    rns::InttOp keyInverse;
    rns::ScaleRoundOp byP;
    rns::ScaleRoundOp byB;
    rns::InttOp termInverse;
  };

  static FailureOr<Chain> chainOf(Value k, ArrayRef<uint64_t> moduli) {
    auto plain = [](rns::ScaleRoundOp round) {
      return round && !round.getFloor() && !round.getVia() &&
             round->hasOneUse();
    };
    Chain chain;
    if (!k.hasOneUse() ||
        !(chain.keyInverse = dyn_cast<rns::InttOp>(*k.user_begin())) ||
        !chain.keyInverse->hasOneUse())
      return failure();
    chain.byP =
        dyn_cast<rns::ScaleRoundOp>(*chain.keyInverse->user_begin());
    if (!chain.byP || chain.byP.getFloor() || chain.byP.getVia() ||
        !chain.byP.getAddend())
      return failure();
    chain.byB = chain.byP.getAddend().getDefiningOp<rns::ScaleRoundOp>();
    if (!plain(chain.byB) || chain.byB.getAddend())
      return failure();
    chain.termInverse = chain.byB.getInput().getDefiningOp<rns::InttOp>();
    if (!chain.termInverse || !chain.termInverse->hasOneUse())
      return failure();
    // K first in both inputs, then P (or B) as the divisor.
    ArrayRef<uint64_t> kept =
        cast<rns::PolyType>(chain.byP.getType()).getBasis().getModuli();
    ArrayRef<uint64_t> term = cast<rns::PolyType>(chain.byB.getInput().getType())
                                  .getBasis()
                                  .getModuli();
    if (kept.size() >= term.size() || moduli.take_front(kept.size()) != kept ||
        moduli.drop_front(kept.size()) != chain.byP.getDivisor().getModuli() ||
        term.take_front(kept.size()) != kept ||
        term.drop_front(kept.size()) != chain.byB.getDivisor().getModuli())
      return failure();
    return chain;
  }

  LogicalResult matchAndRewrite(rns::KeySwitchInnerProductOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getAddend0())
      return rewriter.notifyMatchFailure(op, "already has an addend");
    ArrayRef<uint64_t> moduli =
        cast<rns::PolyType>(op.getK0().getType()).getBasis().getModuli();
    FailureOr<Chain> chains[2] = {chainOf(op.getK0(), moduli),
                                  chainOf(op.getK1(), moduli)};
    if (failed(chains[0]) || failed(chains[1]))
      return rewriter.notifyMatchFailure(
          op, "its sums are not both rounded by P plus a rounded term");
    rns::ScaleRoundOp byP = chains[0]->byP, byB = chains[0]->byB;
    if (byP.getDivisor() != chains[1]->byP.getDivisor() ||
        byP.getNumerator() != chains[1]->byP.getNumerator() ||
        byB.getDivisor() != chains[1]->byB.getDivisor() ||
        byB.getNumerator() != chains[1]->byB.getNumerator() ||
        byP.getType() != chains[1]->byP.getType())
      return rewriter.notifyMatchFailure(op, "its two roundings differ");

    auto keptType = cast<rns::PolyType>(byP.getType());
    ArrayRef<uint64_t> kept = keptType.getBasis().getModuli();
    SmallVector<int64_t> scales;
    for (uint64_t k : kept) {
      // s_k = [b B^-1]_k / [a P^-1]_k = b P / (a B) mod k.
      uint64_t a = byP.getNumerator().urem(k), b = byB.getNumerator().urem(k);
      if (a == 0)
        return rewriter.notifyMatchFailure(op, "the P-rounding's kept term "
                                               "vanishes");
      uint64_t denominator = runtime::mulModSlow(
          a, productMod(byB.getDivisor().getModuli(), k), k);
      uint64_t numerator = runtime::mulModSlow(
          b, productMod(byP.getDivisor().getModuli(), k), k);
      scales.push_back(int64_t(runtime::mulModSlow(
          numerator, runtime::invertModSlow(denominator, k), k)));
    }

    // d_i's K limbs (evaluation form) for the key switch, its B limbs
    // transformed back and rounded alone, where d_i was.
    Value termKept[2];
    for (int i = 0; i < 2; ++i) {
      Chain chain = *chains[i];
      Value term = chain.termInverse.getInput();
      auto termType = cast<rns::PolyType>(term.getType());
      const int64_t size = termType.getBasis().size();
      rewriter.setInsertionPoint(chain.termInverse);
      termKept[i] = rns::ExtractOp::create(
          rewriter, chain.termInverse.getLoc(),
          termType.withBasis(keptType.getBasis()), term, 0,
          int64_t(kept.size()));
      Value termB = rns::ExtractOp::create(
          rewriter, chain.termInverse.getLoc(),
          termType.withBasis(chain.byB.getDivisor()), term,
          int64_t(kept.size()), size);
      Value coefficients =
          rns::InttOp::create(rewriter, chain.termInverse.getLoc(), termB);
      rewriter.setInsertionPoint(chain.byB);
      rewriter.replaceOpWithNewOp<rns::ScaleRoundOp>(
          chain.byB, keptType, coefficients, chain.byB.getNumeratorAttr(),
          chain.byB.getDivisor(), /*floor=*/false, /*via=*/nullptr,
          /*addend=*/Value());
      rewriter.eraseOp(chain.termInverse);
    }
    rewriter.setInsertionPoint(op);
    auto added = rns::KeySwitchInnerProductOp::create(
        rewriter, op.getLoc(), op.getK0().getType(), op.getK1().getType(),
        op.getDigits(), termKept[0], termKept[1], op.getKey(),
        rewriter.getDenseI64ArrayAttr(scales));
    rewriter.replaceOp(op, added.getResults());
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
    patterns.add<FuseKeptTermsIntoKeySwitch>(&getContext(),
                                             numKeptTermsInKeySwitch);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
} // namespace ringfuse
