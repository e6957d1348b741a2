//===- BFVOps.cpp - bfv operations and their verifiers --------------------===//
#include "dialects/BFV/IR/BFVOps.h"

#include "dialects/Common/SameTypesDirective.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace ringfuse::bfv;
using ringfuse::parseSameTypes;
using ringfuse::printSameTypes;

Type ringfuse::bfv::sumType(Type lhs, Type rhs) {
  auto a = cast<CiphertextType>(lhs), b = cast<CiphertextType>(rhs);
  return a.getSize() >= b.getSize() ? a : b;
}

/// `: type` when both operands share it, `: lhs-type, rhs-type` otherwise;
/// the result is the larger (sumType).
static ParseResult parseSumTypes(OpAsmParser &parser, Type &lhs, Type &rhs,
                                 Type &output) {
  if (parser.parseType(lhs))
    return failure();
  rhs = lhs;
  if (succeeded(parser.parseOptionalComma()) && parser.parseType(rhs))
    return failure();
  if (!isa<CiphertextType>(lhs) || !isa<CiphertextType>(rhs))
    return parser.emitError(parser.getCurrentLocation(),
                            "expected ciphertext types");
  output = sumType(lhs, rhs);
  return success();
}

static void printSumTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                          Type rhs, Type) {
  printer << lhs;
  if (rhs != lhs)
    printer << ", " << rhs;
}

#define GET_OP_CLASSES
#include "dialects/BFV/IR/BFVOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks. Each message says what was expected and what was found.
//===----------------------------------------------------------------------===//

static LogicalResult verifySameParams(Operation *op, ParamsAttr a,
                                      ParamsAttr b, StringRef what) {
  if (a == b)
    return success();
  return op->emitOpError() << what << " have different parameters: " << a
                           << " vs " << b;
}

static LogicalResult verifyResultType(Operation *op, Type expected) {
  Type result = op->getResult(0).getType();
  if (result == expected)
    return success();
  return op->emitOpError() << "result type " << result
                           << " differs from the expected " << expected;
}

static LogicalResult verifyTwoComponents(Operation *op, CiphertextType type) {
  if (type.getSize() == 2)
    return success();
  return op->emitOpError() << "needs a 2-component ciphertext, got "
                           << type.getSize() << "; relinearize it first";
}

/// Slot operations are meaningless without batching; once N is known we can
/// tell whether t allows it.
static LogicalResult verifyBatching(Operation *op, ParamsAttr params) {
  std::string obstacle = params.batchingObstacle();
  if (obstacle.empty())
    return success();
  return op->emitOpError() << "needs batching (slots), but " << obstacle;
}

static LogicalResult verifyCiphertextOperands(Operation *op, CiphertextType lhs,
                                              CiphertextType rhs) {
  return verifySameParams(op, lhs.getParams(), rhs.getParams(), "operands");
}

static LogicalResult verifySlotOp(Operation *op, CiphertextType input) {
  if (failed(verifyTwoComponents(op, input)) ||
      failed(verifyBatching(op, input.getParams())))
    return failure();
  return verifyResultType(op, input);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult AddOp::verify() {
  if (failed(verifyCiphertextOperands(*this, getLhs().getType(),
                                      getRhs().getType())))
    return failure();
  return verifyResultType(*this,
                          sumType(getLhs().getType(), getRhs().getType()));
}

LogicalResult SubOp::verify() {
  if (failed(verifyCiphertextOperands(*this, getLhs().getType(),
                                      getRhs().getType())))
    return failure();
  return verifyResultType(*this,
                          sumType(getLhs().getType(), getRhs().getType()));
}

LogicalResult NegateOp::verify() {
  return verifyResultType(*this, getInput().getType());
}

LogicalResult MulOp::verify() {
  CiphertextType lhs = getLhs().getType(), rhs = getRhs().getType();
  if (failed(verifySameParams(*this, lhs.getParams(), rhs.getParams(),
                              "operands")))
    return failure();
  for (CiphertextType operand : {lhs, rhs})
    if (operand.getSize() != 2)
      return emitOpError() << "multiplies 2-component ciphertexts, got one "
                              "with "
                           << operand.getSize()
                           << " components; relinearize it first";
  size_t primes = lhs.getParams().getCiphertextModulus().size();
  if (std::optional<int64_t> level = getLevel(); level && primes && *level > int64_t(primes))
    return emitOpError() << "level " << *level << " exceeds the " << primes
                         << " primes of Q";
  return verifyResultType(
      *this, CiphertextType::get(getContext(), lhs.getParams(), 3));
}

LogicalResult RelinearizeOp::verify() {
  CiphertextType input = getInput().getType();
  if (input.getSize() != 3)
    return emitOpError() << "expects a 3-component ciphertext, got "
                         << input.getSize() << " components";
  return verifyResultType(
      *this, CiphertextType::get(getContext(), input.getParams(), 2));
}

template <typename PlainOperandOp>
static LogicalResult verifyPlainOperandOp(PlainOperandOp op) {
  CiphertextType ciphertext = op.getCiphertext().getType();
  if (failed(verifySameParams(op, ciphertext.getParams(),
                              op.getPlaintext().getType().getParams(),
                              "ciphertext and plaintext")))
    return failure();
  return verifyResultType(op, ciphertext);
}

LogicalResult AddPlainOp::verify() { return verifyPlainOperandOp(*this); }
LogicalResult SubPlainOp::verify() { return verifyPlainOperandOp(*this); }
LogicalResult MulPlainOp::verify() { return verifyPlainOperandOp(*this); }

/// Rotation steps: nonzero and, once N is known, within a row of N/2 slots.
static LogicalResult verifyRotationSteps(Operation *op, ParamsAttr params,
                                         int64_t steps) {
  if (steps == 0)
    return op->emitOpError() << "rotates by 0 steps, which is no rotation";
  if (params.hasRingDegree()) {
    int64_t rowLength = params.getRingDegree() / 2;
    if (steps <= -rowLength || steps >= rowLength)
      return op->emitOpError()
             << "rotation by " << steps
             << " steps is out of range: |steps| must be below "
                "the row length N/2 = "
             << rowLength;
  }
  return success();
}

LogicalResult RotateOp::verify() {
  CiphertextType input = getInput().getType();
  if (failed(verifyRotationSteps(*this, input.getParams(), getSteps())))
    return failure();
  return verifySlotOp(*this, input);
}

LogicalResult RotatePlainOp::verify() {
  PlaintextType input = getInput().getType();
  if (failed(verifyRotationSteps(*this, input.getParams(), getSteps())) ||
      failed(verifyBatching(*this, input.getParams())))
    return failure();
  return verifyResultType(*this, input);
}

LogicalResult SwapRowsOp::verify() {
  return verifySlotOp(*this, getInput().getType());
}

LogicalResult SumSlotsOp::verify() {
  return verifySlotOp(*this, getInput().getType());
}

LogicalResult EncodeOp::verify() {
  ParamsAttr params = getOutput().getType().getParams();
  uint64_t t = params.getPlaintextModulus();
  auto verifyInRange = [&](const APInt &value) -> LogicalResult {
    if (value.isNegative() || value.getZExtValue() >= t)
      return emitOpError() << "value " << value.getSExtValue()
                           << " is outside [0, t) for t = " << t;
    return success();
  };

  if (auto scalar = dyn_cast<IntegerAttr>(getValue()))
    return verifyInRange(scalar.getValue());

  auto values = cast<DenseIntElementsAttr>(getValue());
  auto shape = values.getType().getShape();
  if (shape.size() != 1 || shape[0] == 0)
    return emitOpError() << "encodes a non-empty 1-D vector of slot values, "
                            "got shape "
                         << values.getType();
  if (params.hasRingDegree() && shape[0] > params.getRingDegree())
    return emitOpError() << "has " << shape[0] << " slot values but only N = "
                         << params.getRingDegree() << " slots exist";
  for (const APInt &value : values)
    if (failed(verifyInRange(value)))
      return failure();
  return verifyBatching(*this, params);
}
