//===- BFVToPoly.cpp - scheme operations to ring operations ---------------===//
//
// A traced circuit is one straight-line function, so the lowering walks it
// once, mapping every bfv value to its polynomials (a ciphertext to its
// components over R_Q, a plaintext to one polynomial of R_t), one small
// function per op.
//
// A walk, not a dialect conversion: a bfv type does not say at which level
// its value is. A leveled product whose only users are relinearizations
// hands them its components over R_{Q_l}, and they key-switch there before
// the scale-up to R_Q; no type converter can derive that ring from the
// ciphertext type, so each value maps to the polynomials its producer made.
// (poly-to-rns, whose types say everything, is a dialect conversion.)
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "dialects/Common/BigIntegerDirective.h"
#include "dialects/Poly/IR/PolyOps.h"
#include "passes/Passes.h"
#include "passes/Transforms/ParameterRewriting.h"
#include "ringfuse/runtime/ntt.h"
#include "ringfuse/runtime/number_theory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <functional>
#include <optional>

namespace ringfuse {
#define GEN_PASS_DEF_BFVTOPOLY
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;
using Parts = SmallVector<Value, 3>;

/// The rings of a product taken on Q's first primes: R_{Q_l}, R_{Q_l B_l},
/// and the dropped primes' product Q / Q_l (1 at the full level).
struct LevelRings {
  poly::RingAttr q, qb;
  APInt dropped;
};

/// The rings a circuit's polynomials live in, from its parameter set.
struct Rings {
  /// The auxiliary bases' primes are below 2^kAuxiliaryBits.
  static constexpr unsigned kAuxiliaryBits = 60;
  poly::RingAttr q, t; // R_Q, R_t
  bfv::ParamsAttr params;
  /// The largest 60-bit NTT-friendly primes outside t, Q and P, at least as
  /// many as the widest auxiliary base takes: every B_l and R is a prefix.
  std::vector<uint64_t> auxiliary;
  /// BEHZ multiplies in Q u Bsk, Bsk = B u {m_sk}: one prime past B.
  size_t redundantPrimes = 0;
  /// Bits B holds beyond one product's bound: room for sums of up to
  /// 2^sumBits products before their rounding (sum-before-rounding).
  unsigned sumBits = 0;

  static FailureOr<Rings> of(bfv::ParamsAttr params, Operation *anchor,
                             bool behz, unsigned sumBits) {
    if (!params.hasRingDegree() || params.getCiphertextModulus().empty() ||
        params.getSpecialModulus().empty())
      return anchor->emitError()
             << "bfv-to-poly needs chosen parameters (N, Q and P); run "
                "bfv-select-parameters first";
    MLIRContext *ctx = params.getContext();
    unsigned n = params.getRingDegree();
    Rings rings;
    rings.params = params;
    rings.redundantPrimes = behz ? 1 : 0;
    rings.sumBits = sumBits;
    rings.q = poly::RingAttr::get(ctx, n, params.getCiphertextModulus());
    rings.t = poly::RingAttr::get(ctx, n, {params.getPlaintextModulus()});
    ArrayRef<uint64_t> q = params.getCiphertextModulus();
    ArrayRef<uint64_t> p = params.getSpecialModulus();
    uint64_t t = params.getPlaintextModulus();
    // The counts follow from the primes' widths (R ~ Q takes more primes
    // where Q's are wider): search until the full level's B and R fit, or no
    // prime is left.
    for (size_t want = q.size() + 8;; want *= 2) {
      rings.auxiliary = runtime::findPrimesBelow(
          kAuxiliaryBits, want, 2 * uint64_t(n), [&](uint64_t prime) {
            return prime == t || llvm::is_contained(q, prime) ||
                   llvm::is_contained(p, prime);
          });
      std::optional<size_t> b = rings.auxiliaryPrefixFor(q);
      std::optional<size_t> r = rings.compactPrefix();
      if (b && r && *b + rings.redundantPrimes <= rings.auxiliary.size())
        return rings;
      if (rings.auxiliary.size() < want)
        return anchor->emitError()
               << "bfv-to-poly: too few NTT-friendly primes below 2^"
               << kAuxiliaryBits << " at N = " << n
               << " for the auxiliary base of a product over " << q.size()
               << " primes of Q";
    }
  }

  size_t primeCount() const { return params.getCiphertextModulus().size(); }

  LevelRings atLevel(size_t level) const {
    MLIRContext *ctx = params.getContext();
    unsigned n = params.getRingDegree();
    ArrayRef<uint64_t> q = params.getCiphertextModulus();
    APInt dropped(64 * (q.size() + 1), 1);
    for (uint64_t prime : q.drop_front(level))
      dropped *= APInt(dropped.getBitWidth(), prime);
    return {poly::RingAttr::get(ctx, n, q.take_front(level)),
            poly::RingAttr::get(ctx, n, withAuxiliaryBase(q.take_front(level))),
            dropped};
  }

  /// The primes of B for a ciphertext modulus q: B > t N q so that HPS's
  /// scaled tensor product, |round(t c / q)| <= t N q / 2, has a unique
  /// centered residue mod B.
  size_t auxiliaryCountFor(ArrayRef<uint64_t> q) const {
    std::optional<size_t> count = auxiliaryPrefixFor(q);
    assert(count && "Rings::of found the primes of the full level's B");
    return *count;
  }

  /// The shortest prefix of `auxiliary` whose product has productBits(q) +
  /// sumBits bits; none if the primes found are too few.
  std::optional<size_t> auxiliaryPrefixFor(ArrayRef<uint64_t> q) const {
    return prefixWithBits(productBits(q) + sumBits);
  }

  /// Compact HPS's R: as many primes as Q, and more where they are narrower
  /// than Q's (Q given with 61-bit primes), so that R ~ Q, each prime counted
  /// by its floor(log2).
  std::optional<size_t> compactPrefix() const {
    unsigned bits = 0;
    for (uint64_t prime : params.getCiphertextModulus())
      bits += floorBits(prime);
    std::optional<size_t> count = prefixWithBits(bits);
    if (!count || auxiliary.size() < primeCount())
      return std::nullopt;
    return std::max(*count, primeCount());
  }

  /// The shortest prefix of `auxiliary` of at least `need` bits, each prime
  /// counted by its floor(log2), a lower bound (59 for a 60-bit prime).
  std::optional<size_t> prefixWithBits(unsigned need) const {
    unsigned have = 0;
    for (size_t count = 0; count < auxiliary.size(); ++count) {
      if (have >= need)
        return count;
      have += floorBits(auxiliary[count]);
    }
    return have >= need ? std::optional<size_t>(auxiliary.size())
                        : std::nullopt;
  }

  static unsigned floorBits(uint64_t prime) {
    return 63 - __builtin_clzll(prime);
  }

  /// Bits B needs for one product over q (an upper bound).
  unsigned productBits(ArrayRef<uint64_t> q) const {
    unsigned logQ = 0;
    for (uint64_t prime : q)
      logQ += 64 - __builtin_clzll(prime);
    return logQ + __builtin_ctz(params.getRingDegree()) +
           (64 - __builtin_clzll(params.getPlaintextModulus())) + 2;
  }

  /// How many full-level products B holds the sum of: a sum of k needs
  /// log2 k bits more than one product (B's primes counted by floor(log2)).
  uint64_t summableProducts() const {
    ArrayRef<uint64_t> q = params.getCiphertextModulus();
    unsigned bBits = 0;
    for (uint64_t prime : ArrayRef(auxiliary).take_front(auxiliaryCountFor(q)))
      bBits += floorBits(prime);
    int64_t spare = int64_t(bBits) - int64_t(productBits(q));
    return uint64_t(1) << std::min<int64_t>(spare, 32);
  }

  /// q followed by its B (BEHZ: its Bsk, B and then m_sk).
  SmallVector<uint64_t> withAuxiliaryBase(ArrayRef<uint64_t> q) const {
    SmallVector<uint64_t> extended(q.begin(), q.end());
    llvm::append_range(extended, ArrayRef(auxiliary).take_front(auxiliaryCountFor(q) +
                                                                redundantPrimes));
    return extended;
  }

  /// Compact HPS's R (R ~ Q: compactPrefix) and R_{QR}.
  std::pair<poly::RingAttr, poly::RingAttr> compactRings() const {
    MLIRContext *ctx = params.getContext();
    unsigned n = params.getRingDegree();
    ArrayRef<uint64_t> r = ArrayRef(auxiliary).take_front(*compactPrefix());
    SmallVector<uint64_t> qr(params.getCiphertextModulus());
    llvm::append_range(qr, r);
    return {poly::RingAttr::get(ctx, n, r), poly::RingAttr::get(ctx, n, qr)};
  }
};

class CircuitLowering {
public:
  CircuitLowering(func::FuncOp func, const Rings &rings, bool compact,
                  bool sumBeforeRounding)
      : old_(func), rings_(rings), compact_(compact),
        sumBeforeRounding_(sumBeforeRounding), builder_(func) {}

  LogicalResult run() {
    SmallVector<Type> inputs, outputs;
    SmallVector<int64_t> inputParts, outputParts, inputGalois;
    for (BlockArgument arg : old_.getArguments()) {
      // A prepared plaintext (bfv-prepare-plaintext-inputs) arrives over R_Q,
      // lifted, rotated by the Galois element its input records.
      if (auto steps = old_.getArgAttrOfType<IntegerAttr>(
              arg.getArgNumber(), bfv::BFVDialect::kPreparedAttrName)) {
        inputs.push_back(typeOf(rings_.q));
        inputParts.push_back(1);
        inputGalois.push_back(steps.getInt() ? rotationElement(steps.getInt())
                                             : 0);
        prepared_.insert(arg);
        continue;
      }
      flatten(arg.getType(), inputs, inputParts);
      inputGalois.push_back(0);
    }
    for (Type type : old_.getFunctionType().getResults())
      flatten(type, outputs, outputParts);

    auto lowered = func::FuncOp::create(
        builder_, old_.getLoc(), old_.getName(),
        builder_.getFunctionType(inputs, outputs));
    lowered->setAttr("ringfuse.inputs", builder_.getDenseI64ArrayAttr(inputParts));
    if (!prepared_.empty())
      lowered->setAttr("ringfuse.input_galois",
                       builder_.getDenseI64ArrayAttr(inputGalois));
    lowered->setAttr("ringfuse.outputs",
                     builder_.getDenseI64ArrayAttr(outputParts));
    lowered->setAttr("ringfuse.params", rings_.params);
    Block *body = lowered.addEntryBlock();
    builder_.setInsertionPointToStart(body);

    unsigned next = 0;
    for (BlockArgument arg : old_.getArguments()) {
      Parts &parts = values_[arg];
      for (int64_t i = 0, e = partCount(arg.getType()); i < e; ++i)
        parts.push_back(body->getArgument(next++));
    }
    for (Operation &op : old_.getBody().front().getOperations())
      if (failed(lower(&op)))
        return failure();
    old_.erase();
    return success();
  }

private:
  static int64_t partCount(Type type) {
    if (auto ct = dyn_cast<bfv::CiphertextType>(type))
      return ct.getSize();
    return 1;
  }

  void flatten(Type type, SmallVectorImpl<Type> &types,
               SmallVectorImpl<int64_t> &parts) {
    if (auto ct = dyn_cast<bfv::CiphertextType>(type)) {
      types.append(ct.getSize(), typeOf(rings_.q));
      parts.push_back(ct.getSize());
    } else {
      types.push_back(typeOf(rings_.t));
      parts.push_back(0); // a plaintext
    }
  }

  Type typeOf(poly::RingAttr ring) {
    return poly::PolynomialType::get(builder_.getContext(), ring);
  }

  LogicalResult lower(Operation *op) {
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<bfv::AddOp>(
            [&](auto op) { return componentwise<poly::AddOp>(op, false); })
        .Case<bfv::SubOp>(
            [&](auto op) { return componentwise<poly::SubOp>(op, true); })
        .Case<bfv::NegateOp>([&](auto op) { return lowerNegate(op); })
        .Case<bfv::MulOp>([&](auto op) { return lowerMul(op); })
        .Case<bfv::RelinearizeOp>([&](auto op) { return lowerRelinearize(op); })
        .Case<bfv::AddPlainOp>(
            [&](auto op) { return lowerAddPlain(op, false); })
        .Case<bfv::SubPlainOp>([&](auto op) { return lowerAddPlain(op, true); })
        .Case<bfv::MulPlainOp>([&](auto op) { return lowerMulPlain(op); })
        .Case<bfv::RotateOp>([&](auto op) {
          return lowerGalois(op, op.getInput(), rotationElement(op.getSteps()));
        })
        .Case<bfv::RotatePlainOp>([&](auto op) { return lowerRotatePlain(op); })
        .Case<bfv::SwapRowsOp>([&](auto op) {
          return lowerGalois(op, op.getInput(), 2 * degree() - 1);
        })
        .Case<bfv::EncodeOp>([&](auto op) { return lowerEncode(op); })
        .Case<func::ReturnOp>([&](auto op) { return lowerReturn(op); })
        .Case<bfv::SumSlotsOp>([&](auto op) {
          return op.emitOpError()
                 << "must be expanded first (run bfv-expand-slot-sums)";
        })
        .Default([&](Operation *op) {
          return op->emitOpError() << "has no lowering to the poly dialect";
        });
  }

  int64_t degree() const { return rings_.q.getDegree(); }
  Location loc() { return builder_.getUnknownLoc(); }

  /// Component by component; the shorter operand's missing components are
  /// 0 (a 3-component product plus a 2-component ciphertext), so the longer
  /// one's pass through, negated when they are subtracted.
  template <typename PolyOp, typename BfvOp>
  LogicalResult componentwise(BfvOp op, bool negateMissingRhs) {
    if (addUnrounded<PolyOp>(op))
      return success();
    const Parts &lhs = partsOf(op.getLhs()), &rhs = partsOf(op.getRhs());
    Parts out;
    for (size_t i = 0, e = std::max(lhs.size(), rhs.size()); i < e; ++i) {
      if (i < lhs.size() && i < rhs.size())
        out.push_back(PolyOp::create(builder_, op.getLoc(), lhs[i], rhs[i]));
      else if (i < lhs.size())
        out.push_back(lhs[i]);
      else if (negateMissingRhs)
        out.push_back(poly::NegOp::create(builder_, op.getLoc(),
                                          rhs[i].getType(), rhs[i]));
      else
        out.push_back(rhs[i]);
    }
    values_[op.getResult()] = out;
    return success();
  }

  LogicalResult lowerNegate(bfv::NegateOp op) {
    Parts out;
    for (Value part : partsOf(op.getInput()))
      out.push_back(poly::NegOp::create(builder_, op.getLoc(), part.getType(), part));
    values_[op.getResult()] = out;
    return success();
  }

  /// round(numerator * x / denominator) into `ring`, x centered.
  Value scaleRound(Value x, poly::RingAttr ring, const APInt &numerator,
                   const APInt &denominator) {
    return poly::ScaleRoundOp::create(
        builder_, loc(), typeOf(ring), x, bigIntegerAttr(builder_, numerator),
        bigIntegerAttr(builder_, denominator));
  }

  /// The exact (centered) lift of x into a ring of larger modulus.
  Value lift(Value x, poly::RingAttr ring) {
    APInt one(64, 1);
    return scaleRound(x, ring, one, one);
  }

  Value mul(Value a, Value b) {
    return poly::MulOp::create(builder_, loc(), a.getType(), a, b);
  }

  /// The tensor product over Z (in R_QB, which holds it exactly), scaled by
  /// t/Q back into R_Q: c_k = round(t/Q * sum_{i+j=k} a_i b_j). At a level l
  /// (leveled HPS) the operands are first rounded to R_{Q_l}, the product is
  /// scaled by t/Q_l into R_{Q_l} and multiplied back up by Q/Q_l, unless
  /// only relinearizations use it: they key-switch at the level and scale up
  /// after (the scale-down and scale-up of a separate relinearization cancel).
  LogicalResult lowerMul(bfv::MulOp op) {
    if (compact_ && !op.getLevel())
      return lowerCompactMul(op);
    size_t level = op.getLevel().value_or(rings_.primeCount());
    LevelRings at = rings_.atLevel(level);
    auto liftedOperand = [&](Value operand) {
      Parts lifted;
      for (Value part : partsOf(operand))
        lifted.push_back(lift(toLevel(part, at), at.qb));
      return lifted;
    };
    Parts a = liftedOperand(op.getLhs()), b = liftedOperand(op.getRhs());
    APInt t(64, rings_.params.getPlaintextModulus());
    if (level == rings_.primeCount() && deferRounding(op.getResult())) {
      unrounded_[op.getResult()] = {tensorProduct(a, b, op.getLoc()), t,
                                    at.q.getModulusProduct(), 1};
      return success();
    }
    Parts scaled;
    for (Value component : tensorProduct(a, b, op.getLoc()))
      scaled.push_back(scaleRound(component, at.q, t, at.q.getModulusProduct()));
    if (level == rings_.primeCount()) {
      values_[op.getResult()] = scaled;
      return success();
    }
    leveled_[op.getResult()] = {scaled, at.dropped};
    bool onlyRelinearized = llvm::all_of(op->getUsers(), [](Operation *user) {
      return isa<bfv::RelinearizeOp>(user);
    });
    if (!onlyRelinearized)
      values_[op.getResult()] = scaledUp(scaled, at.dropped);
    return success();
  }

  /// Compact HPS: the left operand is switched to R (round(R/Q x)), both are
  /// lifted to R_{QR}, and the tensor product there, which R_{QR} need not
  /// hold (its wrap-around is a multiple of QR), is scaled by t/R straight
  /// into R_Q: ct_lhs ct_rhs R/Q t/R = t/Q ct_lhs ct_rhs.
  LogicalResult lowerCompactMul(bfv::MulOp op) {
    auto [r, qr] = rings_.compactRings();
    APInt rProduct = r.getModulusProduct(), q = rings_.q.getModulusProduct();
    Parts a, b;
    for (Value part : partsOf(op.getLhs()))
      a.push_back(lift(scaleRound(part, r, rProduct, q), qr));
    for (Value part : partsOf(op.getRhs()))
      b.push_back(lift(part, qr));
    APInt t(64, rings_.params.getPlaintextModulus());
    if (deferRounding(op.getResult())) {
      unrounded_[op.getResult()] = {tensorProduct(a, b, op.getLoc()), t,
                                    rProduct, 1};
      return success();
    }
    Parts &out = values_[op.getResult()];
    for (Value component : tensorProduct(a, b, op.getLoc()))
      out.push_back(scaleRound(component, rings_.q, t, rProduct));
    return success();
  }

  Parts tensorProduct(ArrayRef<Value> a, ArrayRef<Value> b, Location loc) {
    return {mul(a[0], b[0]),
            poly::AddOp::create(builder_, loc, mul(a[0], b[1]), mul(a[1], b[0])),
            mul(a[1], b[1])};
  }

  /// round(Q_l / Q x) in R_{Q_l}; x itself at the full level.
  Value toLevel(Value x, const LevelRings &at) {
    if (at.dropped.isOne())
      return x;
    return scaleRound(x, at.q, APInt(64, 1), at.dropped);
  }

  /// (Q / Q_l) x in R_Q: exact, the dropped primes' product times x.
  Parts scaledUp(ArrayRef<Value> parts, const APInt &dropped) {
    Parts up;
    for (Value x : parts)
      up.push_back(scaleRound(x, rings_.q, dropped, APInt(64, 1)));
    return up;
  }

  std::pair<Value, Value> keySwitch(Value c, int64_t galoisElement) {
    SmallVector<int64_t> special(rings_.params.getSpecialModulus().begin(),
                                 rings_.params.getSpecialModulus().end());
    auto ring = cast<poly::PolynomialType>(c.getType()).getRing();
    IntegerAttr keyPrimes;
    if (ring.getModuli().size() < rings_.primeCount())
      keyPrimes = builder_.getI64IntegerAttr(rings_.primeCount());
    auto ks = poly::KeySwitchOp::create(
        builder_, loc(), c.getType(), c.getType(), c, galoisElement, special,
        rings_.params.getDigitCount(), keyPrimes);
    return {ks.getK0(), ks.getK1()};
  }

  /// A leveled product's relinearization runs at its level, then scales up.
  LogicalResult lowerRelinearize(bfv::RelinearizeOp op) {
    auto found = leveled_.find(op.getInput());
    const Parts &in =
        found != leveled_.end() ? found->second.parts : partsOf(op.getInput());
    auto [k0, k1] = keySwitch(in[2], /*galoisElement=*/0);
    Parts out = {poly::AddOp::create(builder_, op.getLoc(), in[0], k0),
                 poly::AddOp::create(builder_, op.getLoc(), in[1], k1)};
    values_[op.getResult()] =
        found != leveled_.end() ? scaledUp(out, found->second.dropped) : out;
    return success();
  }

  /// (c0(X^g), c1(X^g)) decrypts under s(X^g); switching c1(X^g) back to s
  /// gives (c0(X^g) + k0, k1).
  LogicalResult lowerGalois(Operation *op, Value input, int64_t g) {
    const Parts &in = partsOf(input);
    auto automorphism = [&](Value x) {
      return poly::AutomorphismOp::create(builder_, op->getLoc(), x.getType(), x, g);
    };
    Value c0 = automorphism(in[0]), c1 = automorphism(in[1]);
    auto [k0, k1] = keySwitch(c1, g);
    values_[op->getResult(0)] = {
        poly::AddOp::create(builder_, op->getLoc(), c0, k0), k1};
    return success();
  }

  /// A plaintext's rotation is its automorphism in R_t: no key switch.
  LogicalResult lowerRotatePlain(bfv::RotatePlainOp op) {
    Value m = partsOf(op.getInput()).front();
    values_[op.getResult()] = {poly::AutomorphismOp::create(
        builder_, op.getLoc(), m.getType(), m, rotationElement(op.getSteps()))};
    return success();
  }

  int64_t rotationElement(int64_t steps) const {
    const int64_t row = degree() / 2, twoN = 2 * degree();
    int64_t left = ((steps % row) + row) % row, g = 1;
    for (int64_t i = 0; i < left; ++i)
      g = g * 3 % twoN;
    return g;
  }

  /// c0 +- round(Q m / t).
  template <typename PlainOp>
  LogicalResult lowerAddPlain(PlainOp op, bool subtract) {
    Parts in = partsOf(op.getCiphertext());
    Value m = partsOf(op.getPlaintext()).front();
    APInt q = rings_.q.getModulusProduct();
    Value scaled = scaleRound(m, rings_.q, q, APInt(64, rings_.params.getPlaintextModulus()));
    in[0] = subtract ? Value(poly::SubOp::create(builder_, op.getLoc(), in[0], scaled))
                     : Value(poly::AddOp::create(builder_, op.getLoc(), in[0], scaled));
    values_[op.getResult()] = in;
    return success();
  }

  /// Every component times the centered lift of m into R_Q (a prepared
  /// input is that lift already).
  LogicalResult lowerMulPlain(bfv::MulPlainOp op) {
    Value m = partsOf(op.getPlaintext()).front();
    if (!prepared_.contains(op.getPlaintext()))
      m = lift(m, rings_.q);
    Parts out;
    for (Value part : partsOf(op.getCiphertext()))
      out.push_back(mul(part, m));
    values_[op.getResult()] = out;
    return success();
  }

  /// Constants are encoded here, once: a scalar is the constant polynomial;
  /// a slot vector goes through the runtime's inverse NTT mod t.
  LogicalResult lowerEncode(bfv::EncodeOp op) {
    const size_t n = degree();
    std::vector<uint64_t> coefficients(n, 0);
    if (auto scalar = dyn_cast<IntegerAttr>(op.getValue())) {
      coefficients[0] = scalar.getValue().getZExtValue();
    } else {
      auto values = cast<DenseIntElementsAttr>(op.getValue());
      std::vector<size_t> positions = runtime::batchingSlotPositions(n);
      size_t slot = 0;
      for (const APInt &value : values)
        coefficients[positions[slot++]] = value.getZExtValue();
      runtime::NttTables(rings_.params.getPlaintextModulus(), n)
          .inverse(coefficients.data());
    }
    SmallVector<int64_t> signedCoefficients(coefficients.begin(), coefficients.end());
    auto attr = DenseIntElementsAttr::get(
        RankedTensorType::get({int64_t(n)}, builder_.getI64Type()),
        ArrayRef<int64_t>(signedCoefficients));
    values_[op.getResult()] = {
        poly::ConstantOp::create(builder_, op.getLoc(), typeOf(rings_.t), attr)};
    return success();
  }

  LogicalResult lowerReturn(func::ReturnOp op) {
    SmallVector<Value> results;
    for (Value operand : op.getOperands()) {
      const Parts &parts = partsOf(operand);
      results.append(parts.begin(), parts.end());
    }
    func::ReturnOp::create(builder_, op.getLoc(), results);
    return success();
  }

  /// A sum of products before its scale by numerator / denominator into
  /// R_Q: the tensor components over the products' ring.
  struct Unrounded {
    Parts tensor;
    APInt numerator, denominator;
    uint64_t products;
  };

  /// Whether a product or sum of products waits for its user to add to it.
  bool deferRounding(Value value) const {
    return sumBeforeRounding_ && value.hasOneUse() &&
           isa<bfv::AddOp, bfv::SubOp>(*value.user_begin());
  }

  /// A value's components, rounding a deferred sum of products now. A copy:
  /// rounding adds to values_, which moves its entries.
  Parts partsOf(Value value) {
    auto found = values_.find(value);
    if (found != values_.end())
      return found->second;
    auto deferred = unrounded_.find(value);
    if (deferred == unrounded_.end())
      return values_[value];
    Parts rounded;
    for (Value component : deferred->second.tensor)
      rounded.push_back(scaleRound(component, rings_.q,
                                   deferred->second.numerator,
                                   deferred->second.denominator));
    return values_[value] = rounded;
  }

  /// The sum or difference of two deferred sums of products, deferred
  /// itself, where their ring holds it (compact HPS: always, see the pass).
  template <typename PolyOp, typename BfvOp> bool addUnrounded(BfvOp op) {
    auto lhs = unrounded_.find(op.getLhs()), rhs = unrounded_.find(op.getRhs());
    if (lhs == unrounded_.end() || rhs == unrounded_.end() ||
        values_.count(op.getLhs()) || values_.count(op.getRhs()) ||
        lhs->second.tensor[0].getType() != rhs->second.tensor[0].getType() ||
        lhs->second.denominator != rhs->second.denominator)
      return false;
    uint64_t products = lhs->second.products + rhs->second.products;
    if (!compact_ && products > rings_.summableProducts())
      return false;
    Unrounded sum{{}, lhs->second.numerator, lhs->second.denominator, products};
    for (auto [a, b] : llvm::zip(lhs->second.tensor, rhs->second.tensor))
      sum.tensor.push_back(PolyOp::create(builder_, op.getLoc(), a, b));
    unrounded_[op.getResult()] = sum;
    return true;
  }

  /// A leveled product before its scale-up: components over R_{Q_l}.
  struct LeveledParts {
    Parts parts;
    APInt dropped;
  };

  func::FuncOp old_;
  const Rings &rings_;
  bool compact_; // compact HPS for products at the full level
  bool sumBeforeRounding_;
  OpBuilder builder_;
  llvm::DenseMap<Value, Parts> values_;
  llvm::DenseMap<Value, LeveledParts> leveled_;
  llvm::DenseMap<Value, Unrounded> unrounded_;
  llvm::DenseSet<Value> prepared_; // plaintext arguments given over R_Q
};

struct BFVToPoly : public impl::BFVToPolyBase<BFVToPoly> {
  using Base::Base;

  /// The bits B needs for the largest sum of products added before their
  /// rounding: log2 of the most full-level products one tree of additions
  /// and subtractions (inner nodes of one use) sums.
  static unsigned sumBits(ModuleOp module) {
    auto isSum = [](Operation *op) {
      return isa_and_nonnull<bfv::AddOp, bfv::SubOp>(op);
    };
    std::function<uint64_t(Value, bool)> products = [&](Value value,
                                                        bool root) -> uint64_t {
      Operation *op = value.getDefiningOp();
      if (auto mul = dyn_cast_or_null<bfv::MulOp>(op))
        return !mul.getLevel() && value.hasOneUse() ? 1 : 0;
      if (!isSum(op) || (!root && !value.hasOneUse()))
        return 0;
      return products(op->getOperand(0), false) +
             products(op->getOperand(1), false);
    };
    uint64_t most = 0;
    module.walk([&](Operation *op) {
      if (!isSum(op))
        return;
      Value result = op->getResult(0);
      if (!result.hasOneUse() || !isSum(*result.user_begin()))
        most = std::max(most, products(result, true));
    });
    return most < 2 ? 0 : llvm::Log2_64_Ceil(most);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const bfv::Variant variant = bfv::variantOf(module);
    bfv::ParamsAttr params = findParameters(module);
    if (!params)
      return signalPassFailure();
    FailureOr<Rings> rings =
        Rings::of(params, module, variant == bfv::Variant::behz,
                  sumBeforeRounding ? sumBits(module) : 0);
    if (failed(rings))
      return signalPassFailure();
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() &&
          failed(CircuitLowering(function, *rings,
                                 variant == bfv::Variant::chps,
                                 sumBeforeRounding)
                     .run()))
        return signalPassFailure();
  }
};
} // namespace
} // namespace ringfuse
