//===- PolyOps.cpp - poly operations and their verifiers ------------------===//
#include "dialects/Poly/IR/PolyOps.h"

#include "dialects/Common/SameTypesDirective.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace ringfuse::poly;
using ringfuse::parseSameTypes;
using ringfuse::printSameTypes;

//===----------------------------------------------------------------------===//
// `custom<BigInteger>`: a non-negative integer of any size, printed in decimal
// without a type (`poly.mul_scalar %x, 1329227995784915872903807060280344577`).
//===----------------------------------------------------------------------===//

static std::string decimal(const APInt &value) {
  return llvm::toString(value, /*Radix=*/10, /*Signed=*/false);
}

static ParseResult parseBigInteger(OpAsmParser &parser, IntegerAttr &attr) {
  SMLoc loc = parser.getCurrentLocation();
  APInt value;
  OptionalParseResult parsed = parser.parseOptionalInteger(value);
  if (!parsed.has_value())
    return parser.emitError(loc, "expected a non-negative integer");
  if (failed(*parsed))
    return failure();
  if (value.isNegative())
    return parser.emitError(loc, "expected a non-negative integer");
  // One width per magnitude class keeps equal constants uniqued together.
  unsigned width = std::max(64u, llvm::alignTo(value.getActiveBits() + 1, 64));
  attr = parser.getBuilder().getIntegerAttr(
      parser.getBuilder().getIntegerType(width), value.zextOrTrunc(width));
  return success();
}

static void printBigInteger(OpAsmPrinter &printer, Operation *,
                            IntegerAttr attr) {
  printer << decimal(attr.getValue());
}

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
