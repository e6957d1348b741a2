//===- RNSOps.cpp - rns operations and their verifiers --------------------===//
#include "dialects/RNS/IR/RNSOps.h"

#include "dialects/Common/BigIntegerDirective.h"
#include "dialects/Common/SameTypesDirective.h"
#include "mlir/IR/PatternMatch.h"

#include <set>

using namespace mlir;
using namespace ringfuse::rns;
using ringfuse::parseBigInteger;
using ringfuse::parseSameTypes;
using ringfuse::printBigInteger;
using ringfuse::printSameTypes;

#define GET_OP_CLASSES
#include "dialects/RNS/IR/RNSOps.cpp.inc"

static PolyType polyType(Value value) { return cast<PolyType>(value.getType()); }

/// All operands and results of an elementwise op have one type.
static LogicalResult verifySameTypes(Operation *op) {
  Type expected = op->getOperand(0).getType();
  for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
    if (value.getType() != expected)
      return op->emitOpError() << "mixes " << expected << " and "
                               << value.getType()
                               << "; convert or transform one first";
  return success();
}

static LogicalResult verifyDomain(Operation *op, PolyType type,
                                  bool evaluation) {
  if (type.getEvaluation() == evaluation)
    return success();
  return op->emitOpError() << "needs its operand in "
                           << (evaluation ? "evaluation" : "coefficient")
                           << " form, got " << type;
}

LogicalResult AddOp::verify() { return verifySameTypes(*this); }
LogicalResult SubOp::verify() { return verifySameTypes(*this); }
LogicalResult NegOp::verify() { return verifySameTypes(*this); }
LogicalResult MulScalarOp::verify() { return verifySameTypes(*this); }

LogicalResult MulOp::verify() {
  if (failed(verifySameTypes(*this)))
    return failure();
  return verifyDomain(*this, polyType(getLhs()), /*evaluation=*/true);
}

static LogicalResult verifyTransform(Operation *op, bool forward,
                                     TransformAttr transform) {
  PolyType input = polyType(op->getOperand(0));
  if (failed(verifyDomain(op, input, /*evaluation=*/!forward)))
    return failure();
  PolyType expected = input.withDomain(forward);
  if (op->getResult(0).getType() != expected)
    return op->emitOpError() << "result must be " << expected << ", got "
                             << op->getResult(0).getType();
  if (!transform)
    return success();
  std::string problem =
      transform.problemFor(input.getDegree(), input.getBasis().getModuli());
  if (!problem.empty())
    return op->emitOpError() << "cannot run " << transform << " on "
                             << input << ": " << problem;
  return success();
}

LogicalResult NttOp::verify() {
  return verifyTransform(*this, true, getTransformAttr());
}
LogicalResult InttOp::verify() {
  return verifyTransform(*this, false, getTransformAttr());
}

/// Coefficient form, one ring degree, in and out.
static LogicalResult verifyCoefficientMap(Operation *op) {
  PolyType input = polyType(op->getOperand(0));
  PolyType output = polyType(op->getResult(0));
  if (failed(verifyDomain(op, input, false)) ||
      failed(verifyDomain(op, output, false)))
    return failure();
  if (input.getDegree() != output.getDegree())
    return op->emitOpError() << "cannot change the ring degree ("
                             << input.getDegree() << " to "
                             << output.getDegree() << ")";
  return success();
}

LogicalResult ConvertOp::verify() {
  if (failed(verifyCoefficientMap(*this)))
    return failure();
  BasisAttr input = polyType(getInput()).getBasis(), output = polyType(getOutput()).getBasis();
  if (input == output)
    return emitOpError() << "converts a basis to itself";
  switch (getMethod()) {
  case ConversionMethod::montgomery:
    // m~ = 2^32 must be invertible mod every modulus.
    for (BasisAttr basis : {input, output})
      for (uint64_t m : basis.getModuli())
        if (m % 2 == 0)
          return emitOpError() << "montgomery conversion needs odd moduli (m~ = 2^32 "
                                  "must be invertible), but "
                               << basis << " has " << m;
    break;
  case ConversionMethod::shenoy_kumaresan:
    if (input.size() < 2)
      return emitOpError() << "shenoy_kumaresan conversion needs a base and a "
                              "redundant last modulus, but "
                           << input << " has one modulus";
    break;
  default:
    break;
  }
  return success();
}

LogicalResult ExtractOp::verify() {
  PolyType input = polyType(getInput()), output = polyType(getOutput());
  ArrayRef<uint64_t> moduli = input.getBasis().getModuli();
  int64_t first = getFirst(), last = getLast();
  if (first < 0 || first >= last || last > int64_t(moduli.size()))
    return emitOpError() << "limbs [" << first << ", " << last
                         << ") are not a nonempty range of the " << moduli.size()
                         << " limbs";
  if (output.getBasis().getModuli() != moduli.slice(first, last - first) ||
      output.getDegree() != input.getDegree() ||
      output.getEvaluation() != input.getEvaluation())
    return emitOpError() << "result must hold exactly limbs [" << first << ", "
                         << last << ") of " << input;
  return success();
}

LogicalResult ScaleRoundOp::verify() {
  if (failed(verifyCoefficientMap(*this)))
    return failure();
  const APInt &numerator = getNumerator();
  if (numerator.isZero())
    return emitOpError() << "needs a positive numerator, got 0";
  ArrayRef<uint64_t> in = polyType(getInput()).getBasis().getModuli();
  ArrayRef<uint64_t> kept = getRoundingBasis().getModuli();
  bool disjoint = !getRoundingBasis().sharesModulusWith(polyType(getInput()).getBasis());
  if (std::optional<BasisAttr> via = getVia()) {
    if (getAddend())
      return emitOpError() << "adds nothing after a fused conversion (via "
                           << *via << ")";
    if (getFloor())
      return emitOpError() << "a fast floor has no exact conversion to fuse "
                              "(via "
                           << *via << ")";
    BasisAttr result = polyType(getOutput()).getBasis();
    if (via->contains(result))
      return emitOpError() << "result basis " << result
                           << " converts nothing: each of its moduli is in via "
                           << *via;
  }
  if (disjoint && in == getDivisor().getModuli()) {
    if (getFloor())
      return emitOpError() << "a fast floor keeps moduli of its input; it "
                              "cannot switch to disjoint moduli";
    return success();
  }
  std::multiset<uint64_t> input(in.begin(), in.end());
  std::multiset<uint64_t> parts(getDivisor().getModuli().begin(),
                                getDivisor().getModuli().end());
  parts.insert(kept.begin(), kept.end());
  if (input != parts)
    return emitOpError() << "input basis " << polyType(getInput()).getBasis()
                         << " must consist of the divisor " << getDivisor()
                         << (getVia() ? " and via " : " and the result's basis ")
                         << getRoundingBasis()
                         << " (or be the divisor, for a switch to moduli "
                            "dividing the numerator)";
  return success();
}

BasisAttr ScaleRoundOp::getRoundingBasis() {
  return getVia().value_or(polyType(getOutput()).getBasis());
}

LogicalResult ScaleUpOp::verify() {
  if (failed(verifyCoefficientMap(*this)))
    return failure();
  BasisAttr input = polyType(getInput()).getBasis();
  if (input.size() != 1)
    return emitOpError() << "scales a plaintext over one modulus t, got basis "
                         << input;
  if (polyType(getOutput()).getBasis().contains(input))
    return emitOpError() << "the plaintext modulus must not be in the result's "
                            "basis";
  return success();
}

LogicalResult AutomorphismOp::verify() {
  if (failed(verifySameTypes(*this)))
    return failure();
  int64_t g = getGaloisElement();
  int64_t twoN = 2 * int64_t(polyType(getInput()).getDegree());
  if (g < 1 || g >= twoN || g % 2 == 0)
    return emitOpError() << "Galois element " << g
                         << " is not an odd number in [1, 2N = " << twoN << ")";
  return success();
}

LogicalResult KeySwitchInnerProductOp::verify() {
  if (getDigits().empty())
    return emitOpError() << "needs at least one digit";
  PolyType type = polyType(getDigits().front());
  if (failed(verifyDomain(*this, type, true)))
    return failure();
  for (Value value : llvm::concat<Value>(getDigits(), getResults()))
    if (value.getType() != type)
      return emitOpError() << "digits and results must all be " << type
                           << ", got " << value.getType();
  if (failed(verifyAddend()))
    return failure();
  // The attribute is signless: read it signed, as poly.key_switch does.
  const int64_t g = static_cast<int64_t>(getKey()),
                twoN = 2 * static_cast<int64_t>(type.getDegree());
  if (g != 0 && (g < 1 || g >= twoN || g % 2 == 0))
    return emitOpError() << "key " << g
                         << " is neither 0 (relinearization) nor a Galois "
                            "element (an odd number below 2N = "
                         << twoN << ")";
  return success();
}

LogicalResult KeySwitchInnerProductOp::verifyAddend() {
  Value e0 = getAddend0(), e1 = getAddend1();
  std::optional<ArrayRef<int64_t>> scales = getAddendScales();
  if (!e0 && !e1 && !scales)
    return success();
  if (!e0 || !e1 || !scales)
    return emitOpError() << "needs both addends and their scales, or none";
  // One type for both: OptionalTypesMatchWith.
  PolyType type = polyType(getDigits().front()), added = polyType(e0);
  ArrayRef<uint64_t> moduli = type.getBasis().getModuli(),
                     addedModuli = added.getBasis().getModuli();
  if (!added.getEvaluation() || added.getDegree() != type.getDegree() ||
      addedModuli.size() >= moduli.size() ||
      addedModuli != moduli.take_front(addedModuli.size()))
    return emitOpError() << "addends must be in evaluation form over the "
                            "first moduli of the digits' basis "
                         << type.getBasis() << ", got " << added;
  if (scales->size() != addedModuli.size())
    return emitOpError() << "needs one scale per addend limb ("
                         << addedModuli.size() << "), got " << scales->size();
  for (auto [scale, modulus] : llvm::zip(*scales, addedModuli))
    if (scale < 0 || uint64_t(scale) >= modulus)
      return emitOpError() << "scale " << scale
                           << " is not below its modulus " << modulus;
  return success();
}

LogicalResult ConstantOp::verify() {
  PolyType type = polyType(getOutput());
  ArrayRef<uint64_t> moduli = type.getBasis().getModuli();
  auto shape = getResidues().getType().getShape();
  int64_t expected = int64_t(moduli.size()) * type.getDegree();
  if (shape.size() != 1 || shape[0] != expected)
    return emitOpError() << "needs " << expected << " residues ("
                         << moduli.size() << " limbs of " << type.getDegree()
                         << "), got shape " << getResidues().getType();
  int64_t index = 0;
  for (const APInt &value : getResidues()) {
    uint64_t modulus = moduli[index++ / type.getDegree()];
    if (value.isNegative() || value.getZExtValue() >= modulus)
      return emitOpError() << "residue " << value.getSExtValue()
                           << " is not below its modulus " << modulus;
  }
  return success();
}

namespace {
/// op(intt a, intt b) -> intt(op(a, b)) for a linear op, when nothing else
/// needs the coefficient forms.
template <typename LinearOp>
struct CombineInverseTransforms : public OpRewritePattern<LinearOp> {
  using OpRewritePattern<LinearOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().template getDefiningOp<InttOp>();
    auto rhs = op.getRhs().template getDefiningOp<InttOp>();
    if (!lhs || !rhs || !lhs->hasOneUse() || !rhs->hasOneUse())
      return failure();
    Value combined =
        LinearOp::create(rewriter, op.getLoc(), lhs.getInput(), rhs.getInput());
    rewriter.replaceOpWithNewOp<InttOp>(op, op.getType(), combined);
    return success();
  }
};
} // namespace

void AddOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<CombineInverseTransforms<AddOp>>(context);
}

void SubOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *context) {
  patterns.add<CombineInverseTransforms<SubOp>>(context);
}

// Constants fold to their residues, which is what lets canonicalization tell
// two constants apart (and merge only equal ones).
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getResiduesAttr(); }

bool ringfuse::rns::isElementwise(Operation *op) {
  return isa<AddOp, SubOp, NegOp, MulOp, MulScalarOp>(op);
}
