//===- PolyToRNS.cpp - ring operations to RNS limb operations (HPS, BEHZ) -===//
//
// A dialect conversion: every polynomial of R_M becomes limbs over the basis
// of M's moduli, in coefficient form (the type converter, naming the bases
// by their role), and each poly op becomes rns ops (one pattern per op; the
// function's signature and return by MLIR's function conversion patterns).
// Transforms are inserted around every product (rns-assign-domains is what
// keeps data in the evaluation domain later).
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/Common/BigIntegerDirective.h"
#include "dialects/Poly/IR/PolyOps.h"
#include "dialects/RNS/IR/RNSOps.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include <map>

namespace ringfuse {
#define GEN_PASS_DEF_POLYTORNS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

APInt productOf(ArrayRef<uint64_t> moduli) {
  APInt product(64 * (moduli.size() + 1), 1);
  for (uint64_t m : moduli)
    product *= APInt(product.getBitWidth(), m);
  return product;
}

bool sameValue(const APInt &a, const APInt &b) {
  unsigned width = std::max(a.getBitWidth(), b.getBitWidth());
  return a.zext(width) == b.zext(width);
}

/// Names the bases of one circuit by their role: Q (the ciphertexts'), T (a
/// plaintext modulus), B (HPS's auxiliary base), P, QB, QP, D0, D1, ...; a
/// leveled product's Q_l (Q's first l primes) is Q<l>, so Q3B, Q3P, and the
/// dropped primes Q / Q_3 are Q3hi.
class BasisNames {
public:
  BasisNames(MLIRContext *ctx, ArrayRef<uint64_t> q, uint64_t t)
      : ctx_(ctx), q_(q), t_(t) {}

  rns::BasisAttr get(ArrayRef<uint64_t> moduli, StringRef name = "") {
    std::vector<uint64_t> key(moduli.begin(), moduli.end());
    auto found = bases_.find(key);
    if (found != bases_.end())
      return found->second;
    std::string chosen = name.empty() ? nameFor(moduli) : name.str();
    return bases_[key] = rns::BasisAttr::get(ctx_, chosen, moduli);
  }

  void setSpecial(ArrayRef<uint64_t> p) { p_.assign(p.begin(), p.end()); }
  MLIRContext *context() const { return ctx_; }

private:
  std::string nameFor(ArrayRef<uint64_t> moduli) {
    ArrayRef<uint64_t> q(q_);
    if (moduli == q)
      return "Q";
    size_t shared = 0;
    while (shared < std::min(moduli.size(), q.size()) && moduli[shared] == q[shared])
      ++shared;
    std::string prefix = shared == q.size() ? "Q" : "Q" + std::to_string(shared);
    if (shared > 0 && shared == moduli.size())
      return prefix;
    if (shared > 0)
      return prefix + nameFor(moduli.drop_front(shared));
    if (moduli.size() < q.size() && q.take_back(moduli.size()) == moduli)
      return "Q" + std::to_string(q.size() - moduli.size()) + "hi";
    if (!p_.empty() && moduli == ArrayRef<uint64_t>(p_))
      return "P";
    if (moduli.size() == 1 && moduli[0] == t_)
      return "T";
    return "B";
  }

  MLIRContext *ctx_;
  SmallVector<uint64_t> q_, p_;
  uint64_t t_;
  std::map<std::vector<uint64_t>, rns::BasisAttr> bases_;
};

/// Polynomials of R_M as limbs over the basis of M's moduli, coefficient
/// form; everything else unchanged.
class LimbTypeConverter : public TypeConverter {
public:
  explicit LimbTypeConverter(BasisNames &names) {
    addConversion([](Type type) { return type; });
    addConversion([&names](poly::PolynomialType type) -> Type {
      poly::RingAttr ring = type.getRing();
      return rns::PolyType::get(type.getContext(), ring.getDegree(),
                                names.get(ring.getModuli()),
                                /*evaluation=*/false);
    });
  }
};

/// What every pattern of the lowering shares: the names of the bases and
/// whether products take BEHZ's kernels.
struct LoweringContext {
  BasisNames &names;
  bool behz; // BEHZ's lift and scaling for products; HPS for the rest
};

template <typename PolyOp>
class LimbPattern : public OpConversionPattern<PolyOp> {
public:
  LimbPattern(const TypeConverter &converter, LoweringContext &lowering)
      : OpConversionPattern<PolyOp>(converter, lowering.names.context()),
        lowering_(lowering) {}

protected:
  rns::PolyType resultType(PolyOp op) const {
    return cast<rns::PolyType>(
        this->getTypeConverter()->convertType(op->getResult(0).getType()));
  }
  static rns::PolyType withBasis(Value like, rns::BasisAttr basis) {
    return cast<rns::PolyType>(like.getType()).withBasis(basis);
  }

  LoweringContext &lowering_;
};

/// add, sub: limb by limb.
template <typename PolyOp, typename RnsOp>
struct BinaryPattern : LimbPattern<PolyOp> {
  using LimbPattern<PolyOp>::LimbPattern;
  LogicalResult
  matchAndRewrite(PolyOp op, typename PolyOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<RnsOp>(op, adaptor.getLhs(), adaptor.getRhs());
    return success();
  }
};

struct NegPattern : LimbPattern<poly::NegOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::NegOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<rns::NegOp>(op, resultType(op), adaptor.getInput());
    return success();
  }
};

/// The negacyclic product: pointwise in the evaluation domain.
struct MulPattern : LimbPattern<poly::MulOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::MulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = rns::NttOp::create(rewriter, loc, adaptor.getLhs());
    Value b = rns::NttOp::create(rewriter, loc, adaptor.getRhs());
    Value product = rns::MulOp::create(rewriter, loc, a, b);
    rewriter.replaceOpWithNewOp<rns::InttOp>(op, product);
    return success();
  }
};

struct MulScalarPattern : LimbPattern<poly::MulScalarOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::MulScalarOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<rns::MulScalarOp>(
        op, resultType(op), adaptor.getInput(), op.getScalarAttr());
    return success();
  }
};

struct AutomorphismPattern : LimbPattern<poly::AutomorphismOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::AutomorphismOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<rns::AutomorphismOp>(
        op, resultType(op), adaptor.getInput(), op.getGaloisElement());
    return success();
  }
};

/// The coefficients' residues, limb-major.
struct ConstantPattern : LimbPattern<poly::ConstantOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::ConstantOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rns::PolyType type = resultType(op);
    SmallVector<int64_t> residues;
    for (uint64_t m : type.getBasis().getModuli())
      for (const APInt &c : op.getCoefficients())
        residues.push_back(int64_t(c.getZExtValue() % m));
    auto attr = DenseIntElementsAttr::get(
        RankedTensorType::get({int64_t(residues.size())}, rewriter.getI64Type()),
        ArrayRef<int64_t>(residues));
    rewriter.replaceOpWithNewOp<rns::ConstantOp>(op, type, attr);
    return success();
  }
};

/// The shapes BFV produces: exact lifts (1/1 into another basis), t/Q from
/// Q u B (HPS: scale into B, convert back exactly), Q/t from {t} (the
/// plaintext scaling) and 1/P from Q u P. BEHZ lifts a ciphertext into
/// Q u Bsk and brings its product back with its own kernels.
struct ScaleRoundPattern : LimbPattern<poly::ScaleRoundOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::ScaleRoundOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<Value> lowered = lower(op, adaptor.getInput(), rewriter);
    if (failed(lowered))
      return failure();
    rewriter.replaceOp(op, *lowered);
    return success();
  }

private:
  Value convert(ConversionPatternRewriter &rewriter, Location loc, Value x,
                rns::BasisAttr to, rns::ConversionMethod method) const {
    auto op = rns::ConvertOp::create(rewriter, loc, withBasis(x, to), x);
    op.setMethod(method);
    return op;
  }

  FailureOr<Value> lower(poly::ScaleRoundOp op, Value x,
                         ConversionPatternRewriter &rewriter) const {
    BasisNames &names = lowering_.names;
    Location loc = op.getLoc();
    ArrayRef<uint64_t> from =
        cast<poly::PolynomialType>(op.getInput().getType()).getRing().getModuli();
    ArrayRef<uint64_t> to = op.getType().getRing().getModuli();
    const APInt &numerator = op.getNumerator(), &denominator = op.getDenominator();
    rns::BasisAttr toBasis = names.get(to);
    auto exact = [&](Value v, rns::BasisAttr basis) {
      return convert(rewriter, loc, v, basis, rns::ConversionMethod::exact);
    };

    // BEHZ lifts a ciphertext (its basis a prefix of the target's) to
    // Q u Bsk by SmMRq: not the centered x, but x plus a small multiple of
    // Q, which the product's fast floor absorbs.
    bool extendsPrefix = to.size() > from.size() && to.take_front(from.size()) == from;
    if (lowering_.behz && numerator.isOne() && denominator.isOne() && extendsPrefix)
      return convert(rewriter, loc, x, toBasis, rns::ConversionMethod::montgomery);
    // round(x) of the centered x: exactly what an exact conversion gives.
    if (numerator.isOne() && denominator.isOne())
      return exact(x, toBasis);
    if (from.size() == 1 && !llvm::is_contained(to, from[0]) &&
        sameValue(denominator, APInt(64, from[0])) &&
        sameValue(numerator, productOf(to)))
      return Value(rns::ScaleUpOp::create(rewriter, loc, withBasis(x, toBasis), x));
    // round(a x) = a x: the exact lift times a (leveled HPS's scale-up by
    // the dropped primes, Q / Q_l).
    if (denominator.isOne()) {
      Value lifted = from == to ? x : exact(x, toBasis);
      return Value(rns::MulScalarOp::create(rewriter, loc, lifted.getType(), lifted,
                                            op.getNumeratorAttr()));
    }
    // Into disjoint moduli that divide a (compact HPS's round(R x / Q) into
    // R): a modulus switch, one scale-and-round from x's own basis.
    bool disjoint = llvm::none_of(to, [&](uint64_t m) { return llvm::is_contained(from, m); });
    if (disjoint && sameValue(denominator, productOf(from)) &&
        llvm::all_of(to, [&](uint64_t m) { return numerator.urem(m) == 0; }))
      return Value(rns::ScaleRoundOp::create(
          rewriter, loc, withBasis(x, toBasis), x, op.getNumeratorAttr(),
          names.get(from), /*floor=*/false, /*via=*/nullptr, /*addend=*/Value()));
    SmallVector<uint64_t> shared, rest;
    for (uint64_t m : from)
      (llvm::is_contained(to, m) ? shared : rest).push_back(m);
    // BEHZ's t/Q from Q u Bsk into Q: the fast floor into Bsk, then
    // Shenoy-Kumaresan back to Q (Bsk's last prime, m_sk, is the redundant
    // one). Bsk holds the floor's value, |t/Q x| + |Q| < B / 2, exactly.
    if (lowering_.behz && ArrayRef<uint64_t>(shared) == to && rest.size() >= 2 &&
        sameValue(denominator, productOf(shared))) {
      Value floored = rns::ScaleRoundOp::create(
          rewriter, loc, withBasis(x, names.get(rest)), x, op.getNumeratorAttr(),
          toBasis, /*floor=*/true, /*via=*/nullptr, /*addend=*/Value());
      return convert(rewriter, loc, floored, toBasis,
                     rns::ConversionMethod::shenoy_kumaresan);
    }
    // Divide by the moduli of `from` whose product is the denominator; the
    // others are kept, then converted exactly if the target differs.
    for (auto [divisor, kept] : {std::pair(shared, rest), std::pair(rest, shared)}) {
      if (divisor.empty() || kept.empty() ||
          !sameValue(denominator, productOf(divisor)))
        continue;
      rns::BasisAttr keptBasis = names.get(kept);
      Value scaled = rns::ScaleRoundOp::create(
          rewriter, loc, withBasis(x, keptBasis), x, op.getNumeratorAttr(),
          names.get(divisor), /*floor=*/false, /*via=*/nullptr, /*addend=*/Value());
      return keptBasis == toBasis ? scaled : exact(scaled, toBasis);
    }
    return op.emitOpError()
           << "has no RNS lowering: the denominator must be the product of "
              "some of the input's moduli (or the plaintext modulus)";
  }
};

/// Hybrid key switching (Algorithm 5 of the variants paper): digit j holds
/// Q's limbs [j alpha, (j+1) alpha); each is extended to QP by fast
/// conversion (its u D_j overflow vanishes in the division by P), moved to
/// the evaluation domain, multiplied by the key and summed; the sum returns
/// to coefficients and is divided by P with rounding. At a level (a ring of
/// the key's first l primes) alpha stays the key's and the digits stop at l:
/// the key's limbs over Q_l P are the runtime's to pick.
struct KeySwitchPattern : LimbPattern<poly::KeySwitchOp> {
  using LimbPattern::LimbPattern;
  LogicalResult
  matchAndRewrite(poly::KeySwitchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    BasisNames &names = lowering_.names;
    Location loc = op.getLoc();
    Value c = adaptor.getInput();
    auto type = cast<rns::PolyType>(c.getType());
    ArrayRef<uint64_t> q = type.getBasis().getModuli();
    SmallVector<uint64_t> p(op.getSpecial().begin(), op.getSpecial().end());
    names.setSpecial(p);
    SmallVector<uint64_t> qp(q.begin(), q.end());
    qp.append(p.begin(), p.end());
    rns::BasisAttr qpBasis = names.get(qp), pBasis = names.get(p);

    const size_t l = q.size();
    const size_t keyPrimes = size_t(op.getKeyPrimeCount());
    const size_t alpha = (keyPrimes + op.getDnum() - 1) / op.getDnum();
    SmallVector<Value> digits;
    for (size_t first = 0, j = 0; first < l; first += alpha, ++j) {
      size_t last = std::min(l, first + alpha);
      rns::BasisAttr digitBasis =
          names.get(q.slice(first, last - first), "D" + std::to_string(j));
      Value digit = rns::ExtractOp::create(rewriter, loc, withBasis(c, digitBasis),
                                           c, first, last);
      Value extended =
          rns::ConvertOp::create(rewriter, loc, withBasis(c, qpBasis), digit);
      digits.push_back(rns::NttOp::create(rewriter, loc, extended));
    }
    auto evalType = withBasis(c, qpBasis).withDomain(true);
    auto product = rns::KeySwitchInnerProductOp::create(
        rewriter, loc, evalType, evalType, digits, /*addend0=*/Value(),
        /*addend1=*/Value(), op.getGaloisElement(), /*addend_scales=*/nullptr);
    SmallVector<Value, 2> results;
    for (Value k : product.getResults()) {
      Value coefficients = rns::InttOp::create(rewriter, loc, k);
      results.push_back(rns::ScaleRoundOp::create(
          rewriter, loc, type, coefficients,
          bigIntegerAttr(rewriter, APInt(64, 1)), pBasis,
          /*floor=*/false, /*via=*/nullptr, /*addend=*/Value()));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Every poly op of `function` to rns ops, its signature and return too.
LogicalResult lowerFunction(func::FuncOp function, BasisNames &names, bool behz) {
  MLIRContext *ctx = function.getContext();
  LimbTypeConverter converter(names);
  LoweringContext lowering{names, behz};
  RewritePatternSet patterns(ctx);
  patterns.add<BinaryPattern<poly::AddOp, rns::AddOp>,
               BinaryPattern<poly::SubOp, rns::SubOp>, NegPattern, MulPattern,
               MulScalarPattern, AutomorphismPattern, ConstantPattern,
               ScaleRoundPattern, KeySwitchPattern>(converter, lowering);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                 converter);
  populateReturnOpTypeConversionPattern(patterns, converter);

  ConversionTarget target(*ctx);
  target.addLegalDialect<rns::RNSDialect>();
  target.addIllegalDialect<poly::PolyDialect>();
  target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
    return converter.isSignatureLegal(op.getFunctionType());
  });
  target.addDynamicallyLegalOp<func::ReturnOp>(
      [&](func::ReturnOp op) { return converter.isLegal(op.getOperandTypes()); });
  return applyFullConversion(function.getOperation(), target, std::move(patterns));
}

struct PolyToRNS : public impl::PolyToRNSBase<PolyToRNS> {
  using Base::Base;

  void runOnOperation() override {
    // Leveled and compact HPS are HPS on the rings bfv-to-poly chose (and
    // bfv-choose-levels): their lowering is HPS's, op for op. BEHZ differs
    // in a product's lift and scaling only.
    const bool behz = bfv::variantOf(getOperation()) == bfv::Variant::behz;
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      // The ciphertexts' basis Q is that of the outputs.
      ArrayRef<Type> results = function.getFunctionType().getResults();
      auto isPoly = [](Type type) { return isa<poly::PolynomialType>(type); };
      if (results.empty() ||
          !llvm::all_of(function.getFunctionType().getInputs(), isPoly) ||
          !llvm::all_of(results, isPoly)) {
        function.emitError() << "poly-to-rns expects a function of "
                                "polynomials returning ciphertext components "
                                "(run bfv-to-poly first)";
        return signalPassFailure();
      }
      auto params = function->getAttrOfType<bfv::ParamsAttr>("ringfuse.params");
      BasisNames names(&getContext(),
                       cast<poly::PolynomialType>(results.front()).getRing().getModuli(),
                       params ? params.getPlaintextModulus() : 0);
      if (failed(lowerFunction(function, names, behz)))
        return signalPassFailure();
    }
  }
};
} // namespace
} // namespace ringfuse
