//===- RNSHoistRotations.cpp - one decomposition for every rotation
//--------===//
//
// Rotations of one ciphertext each key-switch c1(X^g), and poly-to-rns
// decomposes each c1(X^g) on its own: extract the digits, extend them to QP,
// transform. The automorphism commutes with all three (see the pass's
// description in Passes.td for why the fast conversion's difference is
// harmless), so the digits of c1(X^g) are taken as the automorphism of c1's
// digits, and cse leaves one decomposition of c1 for all its rotations.
//
//===----------------------------------------------------------------------===//
#include "dialects/RNS/IR/RNSOps.h"
#include "passes/Passes.h"
#include "passes/Transforms/SumTrees.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace ringfuse {
#define GEN_PASS_DEF_RNSHOISTROTATIONS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// A key-switching digit as poly-to-rns makes it:
/// ntt(convert(extract(automorphism(c, g)))), with a fast conversion.
struct RotatedDigit {
  rns::ExtractOp extract;
  rns::ConvertOp convert;
  rns::AutomorphismOp automorphism;

  static std::optional<RotatedDigit> match(Value digit) {
    auto ntt = digit.getDefiningOp<rns::NttOp>();
    auto convert =
        ntt ? ntt.getInput().getDefiningOp<rns::ConvertOp>() : nullptr;
    if (!convert || convert.getMethod() != rns::ConversionMethod::fast)
      return std::nullopt;
    auto extract = convert.getInput().getDefiningOp<rns::ExtractOp>();
    auto automorphism =
        extract ? extract.getInput().getDefiningOp<rns::AutomorphismOp>()
                : nullptr;
    if (!automorphism ||
        cast<rns::PolyType>(automorphism.getType()).getEvaluation())
      return std::nullopt;
    return RotatedDigit{extract, convert, automorphism};
  }
};

/// A key switch all of whose digits are digits of one rotated polynomial.
struct RotatedKeySwitch {
  rns::KeySwitchInnerProductOp keySwitch;
  SmallVector<RotatedDigit> digits;

  static std::optional<RotatedKeySwitch>
  match(rns::KeySwitchInnerProductOp op) {
    RotatedKeySwitch found{op, {}};
    for (Value digit : op.getDigits()) {
      std::optional<RotatedDigit> rotated = RotatedDigit::match(digit);
      if (!rotated ||
          (!found.digits.empty() &&
           rotated->automorphism != found.digits.front().automorphism))
        return std::nullopt;
      found.digits.push_back(*rotated);
    }
    if (found.digits.empty())
      return std::nullopt;
    return found;
  }

  /// The polynomial rotated (c, of c(X^g)).
  Value source() { return digits.front().automorphism.getInput(); }
};

struct RNSHoistRotations
    : public impl::RNSHoistRotationsBase<RNSHoistRotations> {
  void runOnOperation() override {
    // Rotations of one polynomial, in program order. A lone rotation keeps
    // its own decomposition: hoisting would save nothing, and its digits'
    // transforms would no longer fuse with the inner product (ntt_key_switch).
    llvm::MapVector<Value, SmallVector<RotatedKeySwitch>> bySource;
    getOperation()->walk([&](rns::KeySwitchInnerProductOp op) {
      if (std::optional<RotatedKeySwitch> rotated = RotatedKeySwitch::match(op))
        bySource[rotated->source()].push_back(*rotated);
    });
    // Distinct rotations: copies of one (cse has not run yet) are one.
    for (auto &[source, keySwitches] : bySource) {
      llvm::SmallDenseSet<int64_t> elements;
      for (RotatedKeySwitch &rotated : keySwitches)
        elements.insert(rotated.digits.front().automorphism.getGaloisElement());
      if (elements.size() >= 2)
        for (RotatedKeySwitch &rotated : keySwitches)
          hoist(rotated);
    }
    getOperation()->walk(
        [](func::FuncOp function) { eraseUnusedPureOps(function); });
  }

  /// The key switch's digits as the automorphism of the source's digits.
  void hoist(RotatedKeySwitch &rotated) {
    OpBuilder builder(rotated.keySwitch);
    Value source = rotated.source();
    int64_t galoisElement =
        rotated.digits.front().automorphism.getGaloisElement();
    for (auto [index, digit] : llvm::enumerate(rotated.digits)) {
      Location loc = digit.extract.getLoc();
      Value limbs = rns::ExtractOp::create(
          builder, loc, digit.extract.getType(), source,
          digit.extract.getFirst(), digit.extract.getLast());
      Value extended =
          rns::ConvertOp::create(builder, loc, digit.convert.getType(), limbs,
                                 rns::ConversionMethod::fast);
      Value permuted = rns::AutomorphismOp::create(
          builder, loc, extended.getType(), extended, galoisElement);
      rotated.keySwitch.getDigitsMutable()[index].set(
          rns::NttOp::create(builder, loc, permuted));
    }
    ++numKeySwitchesHoisted;
  }
};
} // namespace
} // namespace ringfuse
