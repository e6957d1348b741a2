//===- PolyOps.cpp - poly operations and their verifiers ------------------===//
#include "dialects/Poly/IR/PolyOps.h"

#include "dialects/Common/BigIntegerDirective.h"
#include "dialects/Common/NumberTheory.h"
#include "dialects/Common/SameTypesDirective.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ringfuse::poly;
using ringfuse::parseSameTypes;
using ringfuse::printSameTypes;
using ringfuse::decimal;
using ringfuse::parseBigInteger;
using ringfuse::printBigInteger;

/// `custom<Ratio>`: `a / b` of two big integers.
static ParseResult parseRatio(OpAsmParser &parser, IntegerAttr &numerator,
                              IntegerAttr &denominator) {
  return failure(parseBigInteger(parser, numerator) || parser.parseSlash() ||
                 parseBigInteger(parser, denominator));
}

static void printRatio(OpAsmPrinter &printer, Operation *op,
                       IntegerAttr numerator, IntegerAttr denominator) {
  printBigInteger(printer, op, numerator);
  printer << " / ";
  printBigInteger(printer, op, denominator);
}

#define GET_OP_CLASSES
#include "dialects/Poly/IR/PolyOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifySameRing(Operation *op) {
  auto expected = cast<PolynomialType>(op->getOperand(0).getType());
  for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (value.getType() != expected)
      return op->emitOpError()
             << "mixes rings: " << expected.getRing() << " and "
             << cast<PolynomialType>(value.getType()).getRing()
             << "; move one into the other's ring with poly.scale_round first";
  return success();
}

LogicalResult AddOp::verify() { return verifySameRing(*this); }
LogicalResult SubOp::verify() { return verifySameRing(*this); }
LogicalResult MulOp::verify() { return verifySameRing(*this); }
LogicalResult NegOp::verify() { return verifySameRing(*this); }

static bool ult(const APInt &a, const APInt &b) {
  unsigned width = std::max(a.getBitWidth(), b.getBitWidth());
  return a.zext(width).ult(b.zext(width));
}

LogicalResult MulScalarOp::verify() {
  if (failed(verifySameRing(*this)))
    return failure();
  APInt modulus = getInput().getType().getRing().getModulusProduct();
  if (!ult(getScalar(), modulus))
    return emitOpError() << "scalar "
                         << decimal(getScalar())
                         << " is not reduced below the ring modulus "
                         << decimal(modulus);
  return success();
}

LogicalResult ScaleRoundOp::verify() {
  unsigned from = getInput().getType().getRing().getDegree();
  unsigned to = getOutput().getType().getRing().getDegree();
  if (from != to)
    return emitOpError() << "cannot change the ring degree (N = " << from
                         << " to N = " << to << ")";
  if (getNumerator().isZero() || getDenominator().isZero())
    return emitOpError() << "needs a positive factor, got "
                         << decimal(getNumerator()) << " / "
                         << decimal(getDenominator());
  return success();
}

/// a and b at one width, wide enough for their product.
static std::pair<APInt, APInt> atCommonWidth(const APInt &a, const APInt &b) {
  unsigned width = a.getActiveBits() + b.getActiveBits() + 1;
  return {a.zextOrTrunc(width), b.zextOrTrunc(width)};
}

OpFoldResult ScaleRoundOp::fold(FoldAdaptor) {
  auto [numerator, denominator] = atCommonWidth(getNumerator(), getDenominator());
  if (numerator == denominator && getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// round(b/c * (a x)) with a x exact (the inner op scales by an integer a and
/// its ring holds a x for every centered x) is round(ab/c * x): one op from
/// x's ring, the ratio reduced. Leveled HPS's scale-up by Q/Q_l followed by
/// the next product's rounding to Q_l' becomes a rounding from Q_l to Q_l'
/// (nothing at all when l' = l).
struct ComposeExactScale : public OpRewritePattern<ScaleRoundOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaleRoundOp outer,
                                PatternRewriter &rewriter) const override {
    auto inner = outer.getInput().getDefiningOp<ScaleRoundOp>();
    if (!inner || !inner.getDenominator().isOne())
      return failure();
    // Exact when a * M_x <= M_inner: |a x| <= a M_x / 2 stays centered.
    APInt from = inner.getInput().getType().getRing().getModulusProduct();
    APInt held = inner.getType().getRing().getModulusProduct();
    auto [a, fromWide] = atCommonWidth(inner.getNumerator(), from);
    auto [product, heldWide] = atCommonWidth(a * fromWide, held);
    if (product.ugt(heldWide))
      return failure();
    auto [numerator, b] = atCommonWidth(inner.getNumerator(), outer.getNumerator());
    numerator *= b;
    auto [wideNumerator, c] = atCommonWidth(numerator, outer.getDenominator());
    APInt divisor = llvm::APIntOps::GreatestCommonDivisor(wideNumerator, c);
    rewriter.replaceOpWithNewOp<ScaleRoundOp>(
        outer, outer.getType(), inner.getInput(),
        ringfuse::bigIntegerAttr(rewriter, wideNumerator.udiv(divisor)),
        ringfuse::bigIntegerAttr(rewriter, c.udiv(divisor)));
    return success();
  }
};
} // namespace

void ScaleRoundOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                               MLIRContext *context) {
  patterns.add<ComposeExactScale>(context);
}

LogicalResult AutomorphismOp::verify() {
  if (failed(verifySameRing(*this)))
    return failure();
  int64_t k = getGaloisElement();
  int64_t twoN = 2 * int64_t(getInput().getType().getRing().getDegree());
  if (k < 1 || k >= twoN || k % 2 == 0)
    return emitOpError() << "Galois element " << k
                         << " is not an odd number in [1, 2N = " << twoN
                         << "), so X -> X^" << k << " is no automorphism";
  return success();
}

LogicalResult ConstantOp::verify() {
  RingAttr ring = getOutput().getType().getRing();
  auto shape = getCoefficients().getType().getShape();
  if (shape.size() != 1 || shape[0] != ring.getDegree())
    return emitOpError() << "needs N = " << ring.getDegree()
                         << " coefficients, got shape "
                         << getCoefficients().getType();
  APInt modulus = ring.getModulusProduct();
  for (const APInt &c : getCoefficients())
    if (c.isNegative() || !ult(c, modulus))
      return emitOpError() << "coefficient " << c.getSExtValue()
                           << " is outside [0, " << decimal(modulus) << ")";
  return success();
}

LogicalResult KeySwitchOp::verify() {
  if (failed(verifySameRing(*this)))
    return failure();
  RingAttr ring = getInput().getType().getRing();
  int64_t g = getGaloisElement(), twoN = 2 * int64_t(ring.getDegree());
  if (g != 0 && (g < 1 || g >= twoN || g % 2 == 0))
    return emitOpError() << "Galois element " << g
                         << " is neither 0 (relinearization) nor an odd number "
                            "below 2N = "
                         << twoN;
  for (uint64_t q : ring.getModuli())
    if (!ringfuse::isPrime(q) || q % uint64_t(twoN) != 1)
      return emitOpError() << "needs a ring of NTT-friendly primes; " << q
                           << " is not one";
  if (getSpecial().empty())
    return emitOpError() << "needs at least one special prime";
  for (int64_t p : getSpecial()) {
    if (p < 2 || !ringfuse::isPrime(p) || p % twoN != 1)
      return emitOpError() << "special modulus " << p
                           << " is not an NTT-friendly prime";
    if (llvm::is_contained(ring.getModuli(), uint64_t(p)))
      return emitOpError() << "special prime " << p << " is also in Q";
  }
  const int64_t primes = int64_t(ring.getModuli().size());
  const int64_t keyPrimes = getKeyPrimeCount();
  if (keyPrimes < primes)
    return emitOpError() << "key_primes = " << keyPrimes
                         << " is below the ring's " << primes << " primes";
  int64_t digits = getDnum();
  if (digits < 1 || digits > keyPrimes)
    return emitOpError() << "dnum = " << digits << " is not in [1, |Q| = "
                         << keyPrimes << "]";
  return success();
}

int64_t KeySwitchOp::getKeyPrimeCount() {
  return getKeyPrimes().value_or(int64_t(getInput().getType().getRing().getModuli().size()));
}

// Constants fold to their coefficients (see rns.constant).
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getCoefficientsAttr(); }
