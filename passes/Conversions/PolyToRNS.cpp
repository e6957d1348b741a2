//===- PolyToRNS.cpp - ring operations to RNS limb operations (HPS, BEHZ) -===//
//
// Every polynomial of R_M becomes limbs over the basis of M's moduli, in
// coefficient form; the walk maps each poly value to its rns value, one small
// function per op. Transforms are inserted around every product
// (rns-assign-domains is what keeps data in the evaluation domain later).
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/Common/BigIntegerDirective.h"
#include "dialects/Poly/IR/PolyOps.h"
#include "dialects/RNS/IR/RNSOps.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

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

class RingLowering {
public:
  RingLowering(func::FuncOp func, BasisNames &names, bool behz)
      : old_(func), names_(names), behz_(behz), builder_(func) {}

  LogicalResult run() {
    SmallVector<Type> inputs, outputs;
    for (Type type : old_.getFunctionType().getInputs())
      inputs.push_back(typeOf(type));
    for (Type type : old_.getFunctionType().getResults())
      outputs.push_back(typeOf(type));
    auto lowered = func::FuncOp::create(builder_, old_.getLoc(), old_.getName(),
                                        builder_.getFunctionType(inputs, outputs));
    for (StringRef attr : {"ringfuse.inputs", "ringfuse.outputs", "ringfuse.params"})
      if (Attribute value = old_->getAttr(attr))
        lowered->setAttr(attr, value);
    Block *body = lowered.addEntryBlock();
    builder_.setInsertionPointToStart(body);
    for (auto [from, to] : llvm::zip(old_.getArguments(), body->getArguments()))
      values_[from] = to;
    for (Operation &op : old_.getBody().front().getOperations())
      if (failed(lower(&op)))
        return failure();
    old_.erase();
    return success();
  }

private:
  rns::PolyType typeOf(Type polyType) {
    auto ring = cast<poly::PolynomialType>(polyType).getRing();
    return rns::PolyType::get(builder_.getContext(), ring.getDegree(),
                              names_.get(ring.getModuli()), /*evaluation=*/false);
  }

  rns::PolyType withBasis(Value like, rns::BasisAttr basis) {
    return cast<rns::PolyType>(like.getType()).withBasis(basis);
  }

  Value map(Value v) { return values_.lookup(v); }
  Location loc() { return builder_.getUnknownLoc(); }

  LogicalResult lower(Operation *op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<poly::AddOp>([&](auto op) { return binary<rns::AddOp>(op); })
        .Case<poly::SubOp>([&](auto op) { return binary<rns::SubOp>(op); })
        .Case<poly::NegOp>([&](auto op) {
          values_[op.getResult()] =
              rns::NegOp::create(builder_, loc(), typeOf(op.getType()), map(op.getInput()));
          return success();
        })
        .Case<poly::MulOp>([&](auto op) { return lowerMul(op); })
        .Case<poly::MulScalarOp>([&](auto op) {
          values_[op.getResult()] = rns::MulScalarOp::create(
              builder_, loc(), typeOf(op.getType()), map(op.getInput()),
              op.getScalarAttr());
          return success();
        })
        .Case<poly::AutomorphismOp>([&](auto op) {
          values_[op.getResult()] = rns::AutomorphismOp::create(
              builder_, loc(), typeOf(op.getType()), map(op.getInput()),
              op.getGaloisElement());
          return success();
        })
        .Case<poly::ScaleRoundOp>([&](auto op) { return lowerScaleRound(op); })
        .Case<poly::ConstantOp>([&](auto op) { return lowerConstant(op); })
        .Case<poly::KeySwitchOp>([&](auto op) { return lowerKeySwitch(op); })
        .Case<func::ReturnOp>([&](auto op) {
          SmallVector<Value> results;
          for (Value operand : op.getOperands())
            results.push_back(map(operand));
          func::ReturnOp::create(builder_, loc(), results);
          return success();
        })
        .Default([&](Operation *op) {
          return op->emitOpError() << "has no lowering to the rns dialect";
        });
  }

  template <typename RnsOp, typename PolyOp> LogicalResult binary(PolyOp op) {
    values_[op.getResult()] =
        RnsOp::create(builder_, loc(), map(op.getLhs()), map(op.getRhs()));
    return success();
  }

  /// The negacyclic product: pointwise in the evaluation domain.
  LogicalResult lowerMul(poly::MulOp op) {
    Value a = rns::NttOp::create(builder_, loc(), map(op.getLhs()));
    Value b = rns::NttOp::create(builder_, loc(), map(op.getRhs()));
    Value product = rns::MulOp::create(builder_, loc(), a, b);
    values_[op.getResult()] = rns::InttOp::create(builder_, loc(), product);
    return success();
  }

  Value convert(Value x, rns::BasisAttr to, rns::ConversionMethod method) {
    auto op = rns::ConvertOp::create(builder_, loc(), withBasis(x, to), x);
    op.setMethod(method);
    return op;
  }
  Value convertExact(Value x, rns::BasisAttr to) {
    return convert(x, to, rns::ConversionMethod::exact);
  }

  /// The shapes BFV produces: exact lifts (1/1 into another basis), t/Q from
  /// Q u B (HPS: scale into B, convert back exactly), Q/t from {t} (the
  /// plaintext scaling) and 1/P from Q u P. BEHZ lifts a ciphertext into
  /// Q u Bsk and brings its product back with its own kernels.
  LogicalResult lowerScaleRound(poly::ScaleRoundOp op) {
    ArrayRef<uint64_t> from =
        cast<poly::PolynomialType>(op.getInput().getType()).getRing().getModuli();
    ArrayRef<uint64_t> to = op.getType().getRing().getModuli();
    const APInt &numerator = op.getNumerator(), &denominator = op.getDenominator();
    Value x = map(op.getInput());
    rns::BasisAttr toBasis = names_.get(to);

    // BEHZ lifts a ciphertext (its basis a prefix of the target's) to
    // Q u Bsk by SmMRq: not the centered x, but x plus a small multiple of
    // Q, which the product's fast floor absorbs.
    bool extendsPrefix = to.size() > from.size() && to.take_front(from.size()) == from;
    if (behz_ && numerator.isOne() && denominator.isOne() && extendsPrefix) {
      values_[op.getResult()] = convert(x, toBasis, rns::ConversionMethod::montgomery);
      return success();
    }
    // round(x) of the centered x: exactly what an exact conversion gives.
    if (numerator.isOne() && denominator.isOne()) {
      values_[op.getResult()] = convertExact(x, toBasis);
      return success();
    }
    if (from.size() == 1 && !llvm::is_contained(to, from[0]) &&
        sameValue(denominator, APInt(64, from[0])) &&
        sameValue(numerator, productOf(to))) {
      values_[op.getResult()] =
          rns::ScaleUpOp::create(builder_, loc(), withBasis(x, toBasis), x);
      return success();
    }
    // round(a x) = a x: the exact lift times a (leveled HPS's scale-up by
    // the dropped primes, Q / Q_l).
    if (denominator.isOne()) {
      Value lifted = from == to ? x : convertExact(x, toBasis);
      values_[op.getResult()] = rns::MulScalarOp::create(
          builder_, loc(), lifted.getType(), lifted, op.getNumeratorAttr());
      return success();
    }
    // Into disjoint moduli that divide a (compact HPS's round(R x / Q) into
    // R): a modulus switch, one scale-and-round from x's own basis.
    bool disjoint = llvm::none_of(to, [&](uint64_t m) { return llvm::is_contained(from, m); });
    if (disjoint && sameValue(denominator, productOf(from)) &&
        llvm::all_of(to, [&](uint64_t m) { return numerator.urem(m) == 0; })) {
      values_[op.getResult()] = rns::ScaleRoundOp::create(
          builder_, loc(), withBasis(x, toBasis), x, op.getNumeratorAttr(),
          names_.get(from), /*floor=*/false, /*via=*/nullptr, /*addend=*/Value());
      return success();
    }
    SmallVector<uint64_t> shared, rest;
    for (uint64_t m : from)
      (llvm::is_contained(to, m) ? shared : rest).push_back(m);
    // BEHZ's t/Q from Q u Bsk into Q: the fast floor into Bsk, then
    // Shenoy-Kumaresan back to Q (Bsk's last prime, m_sk, is the redundant
    // one). Bsk holds the floor's value, |t/Q x| + |Q| < B / 2, exactly.
    if (behz_ && ArrayRef<uint64_t>(shared) == to && rest.size() >= 2 &&
        sameValue(denominator, productOf(shared))) {
      Value floored = rns::ScaleRoundOp::create(
          builder_, loc(), withBasis(x, names_.get(rest)), x, op.getNumeratorAttr(),
          toBasis, /*floor=*/true, /*via=*/nullptr, /*addend=*/Value());
      values_[op.getResult()] =
          convert(floored, toBasis, rns::ConversionMethod::shenoy_kumaresan);
      return success();
    }
    // Divide by the moduli of `from` whose product is the denominator; the
    // others are kept, then converted exactly if the target differs.
    for (auto [divisor, kept] : {std::pair(shared, rest), std::pair(rest, shared)}) {
      if (divisor.empty() || kept.empty() ||
          !sameValue(denominator, productOf(divisor)))
        continue;
      rns::BasisAttr keptBasis = names_.get(kept);
      Value scaled = rns::ScaleRoundOp::create(
          builder_, loc(), withBasis(x, keptBasis), x, op.getNumeratorAttr(),
          names_.get(divisor), /*floor=*/false, /*via=*/nullptr, /*addend=*/Value());
      values_[op.getResult()] =
          keptBasis == toBasis ? scaled : convertExact(scaled, toBasis);
      return success();
    }
    return op.emitOpError()
           << "has no RNS lowering: the denominator must be the product of "
              "some of the input's moduli (or the plaintext modulus)";
  }

  LogicalResult lowerConstant(poly::ConstantOp op) {
    rns::PolyType type = typeOf(op.getType());
    SmallVector<int64_t> residues;
    for (uint64_t m : type.getBasis().getModuli())
      for (const APInt &c : op.getCoefficients())
        residues.push_back(int64_t(c.getZExtValue() % m));
    auto attr = DenseIntElementsAttr::get(
        RankedTensorType::get({int64_t(residues.size())}, builder_.getI64Type()),
        ArrayRef<int64_t>(residues));
    values_[op.getResult()] = rns::ConstantOp::create(builder_, loc(), type, attr);
    return success();
  }

  /// Hybrid key switching (Algorithm 5 of the variants paper): digit j holds
  /// Q's limbs [j alpha, (j+1) alpha); each is extended to QP by fast
  /// conversion (its u D_j overflow vanishes in the division by P), moved to
  /// the evaluation domain, multiplied by the key and summed; the sum returns
  /// to coefficients and is divided by P with rounding. At a level (a ring
  /// of the key's first l primes) alpha stays the key's and the digits stop
  /// at l: the key's limbs over Q_l P are the runtime's to pick.
  LogicalResult lowerKeySwitch(poly::KeySwitchOp op) {
    Value c = map(op.getInput());
    auto type = cast<rns::PolyType>(c.getType());
    ArrayRef<uint64_t> q = type.getBasis().getModuli();
    SmallVector<uint64_t> p(op.getSpecial().begin(), op.getSpecial().end());
    names_.setSpecial(p);
    SmallVector<uint64_t> qp(q.begin(), q.end());
    qp.append(p.begin(), p.end());
    rns::BasisAttr qpBasis = names_.get(qp), pBasis = names_.get(p);

    const size_t l = q.size();
    const size_t keyPrimes = size_t(op.getKeyPrimeCount());
    const size_t alpha = (keyPrimes + op.getDnum() - 1) / op.getDnum();
    SmallVector<Value> digits;
    for (size_t first = 0, j = 0; first < l; first += alpha, ++j) {
      size_t last = std::min(l, first + alpha);
      rns::BasisAttr digitBasis =
          names_.get(q.slice(first, last - first), "D" + std::to_string(j));
      Value digit = rns::ExtractOp::create(builder_, loc(), withBasis(c, digitBasis),
                                           c, first, last);
      Value extended = rns::ConvertOp::create(builder_, loc(),
                                              withBasis(c, qpBasis), digit);
      digits.push_back(rns::NttOp::create(builder_, loc(), extended));
    }
    auto evalType = withBasis(c, qpBasis).withDomain(true);
    auto product = rns::KeySwitchInnerProductOp::create(
        builder_, loc(), evalType, evalType, digits, /*addend0=*/Value(),
        /*addend1=*/Value(), op.getGaloisElement(), /*addend_scales=*/nullptr);
    for (auto [result, k] : llvm::zip(op.getResults(), product.getResults())) {
      Value coefficients = rns::InttOp::create(builder_, loc(), k);
      values_[result] = rns::ScaleRoundOp::create(
          builder_, loc(), type, coefficients, bigIntegerAttr(builder_, APInt(64, 1)), pBasis,
          /*floor=*/false, /*via=*/nullptr, /*addend=*/Value());
    }
    return success();
  }

  func::FuncOp old_;
  BasisNames &names_;
  bool behz_; // BEHZ's lift and scaling for products; HPS for the rest
  OpBuilder builder_;
  llvm::DenseMap<Value, Value> values_;
};

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
      if (failed(RingLowering(function, names, behz).run()))
        return signalPassFailure();
    }
  }
};
} // namespace
} // namespace ringfuse
