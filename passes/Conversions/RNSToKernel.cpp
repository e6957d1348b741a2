//===- RNSToKernel.cpp - RNS operations to kernels on buffers -------------===//
//
// One walk over the straight-line RNS function: each value is given a buffer
// and each op a kernel. Elementwise ops are grouped first (a group is a tree
// whose inner values have one user; its last op, the root, is where the fused
// kernel runs). A fast conversion from one prime that only a forward NTT
// reads (key switching's one-limb digits) is not written out: the NTT reads
// the prime's words for every limb (ntt_forward_from). Neither are
// key switching's transformed digits: the inner product and the digits'
// forward NTTs are one launch (ntt_key_switch), whose NTTs sum each word into
// the inner product instead of writing it. Nor are the factors of a
// ciphertext product's tensor terms: sums of products of forward NTTs that
// only those sums read are one launch (ntt_products) with the NTTs.
// A transform rns-choose-transform gave the DGT is dgt_forward / dgt_inverse
// and never fused: the fused kernels run the NTT. kernel-plan-slots then
// places the buffers.
//
// A walk, not a dialect conversion: what each value becomes depends on the
// whole function, not on its op and type. Whether an NTT runs in place
// depends on the later uses of its input's limbs; a fused launch covers
// several ops (an elementwise tree, key switching with its digits'
// transforms, a product set), lowered where its root is.
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "dialects/RNS/IR/RNSOps.h"
#include "passes/Conversions/ElementwiseGroups.h"
#include "passes/Passes.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/sum_of_products.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

namespace ringfuse {
#define GEN_PASS_DEF_RNSTOKERNEL
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

kernel::BufferType bufferTypeOf(Type rnsType) {
  auto poly = cast<rns::PolyType>(rnsType);
  return kernel::BufferType::get(poly.getContext(), poly.getDegree(), poly.getBasis());
}

/// Whether a transform attribute (or none: the default) is the NTT, the
/// only transform with fused kernels.
bool isNtt(rns::TransformAttr shape) {
  return !shape || shape.getKind() == rns::TransformKind::ntt;
}

/// The forward NTT that transforms `op`'s output straight from its input,
/// or null: a fast conversion from one prime whose words every output
/// prime's NTT takes as they are, read by that NTT alone.
rns::NttOp transformOfConversion(rns::ConvertOp op) {
  if (op.getMethod() != rns::ConversionMethod::fast || !op->hasOneUse())
    return nullptr;
  auto transform = dyn_cast<rns::NttOp>(*op->user_begin());
  ArrayRef<uint64_t> from =
      cast<rns::PolyType>(op.getInput().getType()).getBasis().getModuli();
  if (!transform || from.size() != 1 || !isNtt(transform.getTransformAttr()))
    return nullptr;
  for (uint64_t q : op.getType().getBasis().getModuli())
    if (!runtime::isLazyNttInput(from[0], q))
      return nullptr;
  return transform;
}

/// Whether a fused forward NTT (ntt_key_switch, ntt_products) runs the
/// transform attribute's shape, or without one the default.
bool isFusedShape(rns::TransformAttr shape, rns::PolyType type) {
  unsigned logN = llvm::Log2_64(type.getDegree());
  runtime::NttShape nttShape = runtime::defaultNttShape(logN);
  if (shape) {
    if (!isNtt(shape))
      return false;
    nttShape = shape.nttShape();
  }
  return runtime::isSupportedFusedNttShape(logN, nttShape);
}

/// The shape a fused forward NTT launches for its transforms' `shape`:
/// ntt_shape.h's fusedNttShape, whose rows are shorter than a lone NTT's.
rns::TransformAttr fusedTransform(rns::TransformAttr shape,
                                  rns::PolyType type) {
  runtime::NttShape fused =
      runtime::fusedNttShape(llvm::Log2_64(type.getDegree()), shape.nttShape());
  return rns::TransformAttr::get(shape.getContext(), shape.getKind(),
                                 fused.logN1, fused.radix, fused.otStages);
}

/// Whether the inner product runs in its digits' NTTs (ntt_key_switch): every
/// digit a forward NTT that only it reads, all of one shape that the fused
/// kernel runs.
bool transformsItsDigits(rns::KeySwitchInnerProductOp op) {
  rns::TransformAttr shape;
  for (auto [j, digit] : llvm::enumerate(op.getDigits())) {
    auto transform = digit.getDefiningOp<rns::NttOp>();
    if (!transform || !digit.hasOneUse())
      return false;
    if (j == 0)
      shape = transform.getTransformAttr();
    else if (transform.getTransformAttr() != shape)
      return false;
  }
  return isFusedShape(shape, cast<rns::PolyType>(op.getK0().getType()));
}

/// The inner product that op's output goes into as a digit it transforms
/// itself, or null.
rns::KeySwitchInnerProductOp keySwitchOfTransform(rns::NttOp op) {
  if (!op->hasOneUse())
    return nullptr;
  auto keySwitch = dyn_cast<rns::KeySwitchInnerProductOp>(*op->user_begin());
  return keySwitch && transformsItsDigits(keySwitch) ? keySwitch : nullptr;
}

/// The conversion that `op` transforms straight from its input
/// (transformOfConversion), or null.
rns::ConvertOp conversionOfTransform(rns::NttOp op) {
  auto convert = op.getInput().getDefiningOp<rns::ConvertOp>();
  return convert && transformOfConversion(convert) == op ? convert : nullptr;
}

/// Sums of products of forward NTTs that one ntt_products launch computes
/// (a ciphertext product's tensor terms): each sum an elementwise group
/// whose ops add products of two factors, each factor an NTT read only by
/// the set's products. The launch runs at the last sum's root.
struct ProductSet {
  SmallVector<rns::NttOp> factors; // in program order
  SmallVector<Operation *> roots;  // one per sum, in program order
  SmallVector<int32_t> products;   // (sum, factor, factor) triples
  Operation *runsAt = nullptr;
};

/// The (factor, factor) pairs whose products the group at `root` adds, or
/// none if it is not such a sum: adds of members and products of two NTTs
/// from outside the group.
std::optional<SmallVector<std::pair<rns::NttOp, rns::NttOp>>>
productsOfGroup(Operation *root,
                const llvm::DenseMap<Operation *, Operation *> &rootOf) {
  std::optional<SumOfProducts> sum = sumOfProducts(root, rootOf);
  if (!sum || !sum->addends.empty())
    return std::nullopt;
  SmallVector<std::pair<rns::NttOp, rns::NttOp>> pairs;
  for (auto [x, y] : sum->products) {
    auto a = x.getDefiningOp<rns::NttOp>(), b = y.getDefiningOp<rns::NttOp>();
    if (!a || !b)
      return std::nullopt;
    pairs.push_back({a, b});
  }
  return pairs;
}

/// The product sets of a block's elementwise groups (rootOf), each with its
/// roots and factors mapped to it. A set's groups are those connected by
/// shared factors; it is kept when every factor is read by its products
/// alone, all of one transform shape that the fused kernel runs, of degree
/// at least 2^fromLogN, within ntt_shape.h's bounds, and no sum is read
/// before the last is computed.
std::vector<ProductSet> findProductSets(
    Block &body, const llvm::DenseMap<Operation *, Operation *> &rootOf,
    const llvm::DenseMap<Operation *, unsigned> &position, unsigned fromLogN,
    llvm::DenseMap<Operation *, unsigned> &setOf) {
  llvm::DenseMap<Operation *, SmallVector<std::pair<rns::NttOp, rns::NttOp>>>
      sums;
  for (Operation &op : body)
    if (rootOf.lookup(&op) == &op)
      if (auto pairs = productsOfGroup(&op, rootOf))
        sums[&op] = std::move(*pairs);
  std::vector<ProductSet> sets;
  llvm::DenseSet<Operation *> seen;
  for (Operation &op : body) {
    if (!sums.count(&op) || !seen.insert(&op).second)
      continue;
    // The groups connected to op through shared factors.
    ProductSet set;
    SmallVector<Operation *> pending = {&op};
    llvm::SetVector<Operation *> factors;
    bool fusable = true;
    while (!pending.empty()) {
      Operation *root = pending.pop_back_val();
      set.roots.push_back(root);
      for (auto [a, b] : sums[root])
        for (rns::NttOp factor : {a, b}) {
          if (!factors.insert(factor))
            continue;
          for (Operation *user : factor->getUsers()) {
            Operation *userRoot = rootOf.lookup(user);
            if (!isa<rns::MulOp>(user) || !userRoot || !sums.count(userRoot)) {
              fusable = false;
              continue;
            }
            if (seen.insert(userRoot).second)
              pending.push_back(userRoot);
          }
        }
    }
    auto byPosition = [&](Operation *x, Operation *y) {
      return position.lookup(x) < position.lookup(y);
    };
    llvm::sort(set.roots, byPosition);
    SmallVector<Operation *> factorOps(factors.begin(), factors.end());
    llvm::sort(factorOps, byPosition);
    for (Operation *factor : factorOps)
      set.factors.push_back(cast<rns::NttOp>(factor));
    set.runsAt = set.roots.back();
    rns::NttOp first = set.factors.front();
    size_t products = 0;
    for (Operation *root : set.roots)
      products += sums[root].size();
    fusable = fusable &&
              set.factors.size() <= size_t(runtime::kMaxProductFactors) &&
              set.roots.size() <= size_t(runtime::kMaxProductOutputs) &&
              products <= size_t(runtime::kMaxProducts) &&
              first.getType().getDegree() >= (uint64_t(1) << fromLogN) &&
              isFusedShape(first.getTransformAttr(), first.getType());
    for (rns::NttOp factor : set.factors)
      fusable = fusable &&
                factor.getTransformAttr() == first.getTransformAttr() &&
                factor.getType() == first.getType();
    for (Operation *root : set.roots)
      for (Operation *user : root->getResult(0).getUsers())
        fusable =
            fusable && position.lookup(user) > position.lookup(set.runsAt);
    if (!fusable)
      continue;
    for (auto [k, root] : llvm::enumerate(set.roots))
      for (auto [a, b] : sums[root])
        set.products.append(
            {int32_t(k),
             int32_t(llvm::find(set.factors, a) - set.factors.begin()),
             int32_t(llvm::find(set.factors, b) - set.factors.begin())});
    for (Operation *root : set.roots)
      setOf[root] = sets.size();
    for (rns::NttOp factor : set.factors)
      setOf[factor] = sets.size();
    sets.push_back(std::move(set));
  }
  return sets;
}

class KernelLowering {
public:
  KernelLowering(func::FuncOp func, unsigned productsFromLogN,
                 Pass::Statistic &kernels, Pass::Statistic &fused)
      : old_(func), builder_(func), productsFromLogN_(productsFromLogN),
        numKernels_(kernels), numFused_(fused) {}

  LogicalResult run() {
    Block &oldBody = old_.getBody().front();
    unsigned index = 0;
    for (Operation &op : oldBody)
      position_[&op] = index++;
    rootOf_ = groupElementwise(oldBody);
    productSets_ = findProductSets(oldBody, rootOf_, position_,
                                   productsFromLogN_, productSetOf_);
    // A fused kernel runs at its root, a conversion its NTT does at the
    // NTT, an NTT its inner product does at the inner product, and the NTTs
    // and sums of a product set at the set's last root, so they read their
    // operands there, not where they stood.
    for (Operation &op : oldBody) {
      Operation *runsAt = rootOf_.lookup(&op) ? rootOf_[&op] : &op;
      if (auto convert = dyn_cast<rns::ConvertOp>(op))
        if (rns::NttOp transform = transformOfConversion(convert))
          runsAt = transform;
      if (auto transform = dyn_cast<rns::NttOp>(runsAt))
        if (rns::KeySwitchInnerProductOp keySwitch =
                keySwitchOfTransform(transform))
          runsAt = keySwitch;
      if (const ProductSet *set = productSetOf(runsAt))
        runsAt = set->runsAt;
      unsigned readAt = position_[runsAt];
      for (Value operand : op.getOperands())
        lastUse_[operand] = std::max(lastUse_.lookup(operand), readAt);
    }

    SmallVector<Type> inputs, outputs;
    for (Type type : old_.getFunctionType().getInputs())
      inputs.push_back(bufferTypeOf(type));
    for (Type type : old_.getFunctionType().getResults())
      outputs.push_back(bufferTypeOf(type));
    auto lowered = func::FuncOp::create(builder_, old_.getLoc(), old_.getName(),
                                        builder_.getFunctionType(inputs, outputs));
    for (NamedAttribute attr : old_->getDiscardableAttrs())
      lowered->setAttr(attr.getName(), attr.getValue());
    Block *body = lowered.addEntryBlock();
    builder_.setInsertionPointToStart(body);
    for (auto [from, to] : llvm::zip(old_.getArguments(), body->getArguments())) {
      buffers_[from] = to;
      origin_[from] = from;
    }
    for (Operation &op : oldBody)
      if (failed(lower(&op)))
        return failure();
    old_.erase();
    return success();
  }

private:
  Location loc() { return builder_.getUnknownLoc(); }

  /// A value's buffer may be overwritten at op `at` if no value sharing
  /// limbs of that buffer is used after it (views of other limbs may be).
  bool canOverwrite(Value value, unsigned at) {
    Value origin = origin_[value];
    LimbRange limbs = limbsOf(value);
    for (auto &[other, otherOrigin] : origin_)
      if (otherOrigin == origin && lastUse_.lookup(other) > at &&
          limbsOf(other).overlaps(limbs))
        return false;
    return true;
  }

  /// The limbs [first, last) of its origin's buffer that a value holds.
  struct LimbRange {
    int64_t first, last;
    bool overlaps(LimbRange other) const {
      return first < other.last && other.first < last;
    }
  };
  LimbRange limbsOf(Value value) const {
    auto found = limbs_.find(value);
    return found == limbs_.end()
               ? LimbRange{0, static_cast<int64_t>(
                                  cast<rns::PolyType>(value.getType())
                                      .getBasis()
                                      .size())}
               : found->second;
  }

  Value alloc(Type rnsType) {
    return kernel::AllocOp::create(builder_, loc(), bufferTypeOf(rnsType),
                                   IntegerAttr());
  }

  /// A fresh buffer for `result`, recorded as its own origin.
  Value define(Value result, Value buffer) {
    buffers_[result] = buffer;
    origin_[result] = result;
    return buffer;
  }

  kernel::LaunchOp launch(StringRef kernel, ValueRange ins, ValueRange outs) {
    ++numKernels_;
    return kernel::LaunchOp::create(
        builder_, loc(), builder_.getStringAttr(kernel), ins, outs,
        rns::ConversionMethodAttr(), UnitAttr(), IntegerAttr(),
        rns::BasisAttr(), rns::BasisAttr(), IntegerAttr(), IntegerAttr(),
        rns::TransformAttr(), DenseI32ArrayAttr(), UnitAttr(), UnitAttr());
  }

  /// out = in, as a generated kernel.
  void copy(Value in, Value out) {
    emitElementwise({in}, out, [&](ArrayRef<Value> args) {
      return args[0];
    });
  }

  template <typename BuildBody>
  void emitElementwise(ArrayRef<Value> ins, Value out, BuildBody buildBody) {
    ++numKernels_;
    auto kernel = kernel::ElementwiseOp::create(builder_, loc(), ins, ValueRange{out});
    Block *block = builder_.createBlock(&kernel.getBody());
    for (size_t i = 0; i < ins.size(); ++i)
      block->addArgument(builder_.getI64Type(), loc());
    SmallVector<Value> args(block->getArguments().begin(), block->getArguments().end());
    Value result = buildBody(ArrayRef<Value>(args));
    kernel::YieldOp::create(builder_, loc(), ValueRange{result});
    builder_.setInsertionPointAfter(kernel);
  }

  /// The product set op (a sum's root or a factor) belongs to, or null.
  const ProductSet *productSetOf(Operation *op) const {
    auto found = productSetOf_.find(op);
    return found == productSetOf_.end() ? nullptr
                                        : &productSets_[found->second];
  }

  LogicalResult lower(Operation *op) {
    if (rns::isElementwise(op)) {
      if (rootOf_[op] != op)
        return success();
      if (const ProductSet *set = productSetOf(op))
        return set->runsAt == op ? lowerProducts(*set) : success();
      return lowerGroup(op);
    }
    return llvm::TypeSwitch<Operation *, LogicalResult>(op)
        .Case<rns::NttOp>([&](auto op) {
          if (keySwitchOfTransform(op))
            return success(); // its inner product transforms op's input
          if (productSetOf(op))
            return success(); // its products' launch transforms op's input
          return lowerTransform(op);
        })
        .Case<rns::InttOp>([&](auto op) { return lowerTransform(op); })
        .Case<rns::ConvertOp>([&](auto op) {
          if (transformOfConversion(op))
            return success(); // its NTT reads op's input
          Value out = define(op.getResult(), alloc(op.getType()));
          auto kernel = launch("convert", {buffers_[op.getInput()]}, {out});
          if (op.getMethod() != rns::ConversionMethod::fast)
            kernel.setMethodAttr(op.getMethodAttr());
          return success();
        })
        .Case<rns::ExtractOp>([&](auto op) {
          Value view = kernel::ViewOp::create(
              builder_, loc(), bufferTypeOf(op.getType()), buffers_[op.getInput()],
              op.getFirst(), op.getLast());
          buffers_[op.getResult()] = view;
          origin_[op.getResult()] = origin_.lookup(op.getInput()); // a copy: [] may rehash
          const int64_t first = limbsOf(op.getInput()).first;
          limbs_[op.getResult()] = {first + int64_t(op.getFirst()),
                                    first + int64_t(op.getLast())};
          return success();
        })
        .Case<rns::ScaleRoundOp>([&](auto op) {
          Value out = define(op.getResult(), alloc(op.getType()));
          SmallVector<Value, 2> ins = {buffers_[op.getInput()]};
          if (Value addend = op.getAddend())
            ins.push_back(buffers_[addend]);
          auto kernel = launch(ins.size() == 2 ? "scale_round_add" : "scale_round",
                               ins, {out});
          kernel.setNumeratorAttr(op.getNumeratorAttr());
          kernel.setDivisorAttr(op.getDivisor());
          kernel.setFloor(op.getFloor());
          if (std::optional<rns::BasisAttr> via = op.getVia())
            kernel.setViaAttr(*via);
          return success();
        })
        .Case<rns::ScaleUpOp>([&](auto op) {
          Value out = define(op.getResult(), alloc(op.getType()));
          launch("scale_up", {buffers_[op.getInput()]}, {out});
          return success();
        })
        .Case<rns::AutomorphismOp>([&](auto op) {
          Value out = define(op.getResult(), alloc(op.getType()));
          // Buffers do not carry the domain: the kernel's name says it.
          auto kernel = launch(op.getType().getEvaluation()
                                   ? "automorphism_evaluation"
                                   : "automorphism",
                               {buffers_[op.getInput()]}, {out});
          kernel.setGaloisElement(op.getGaloisElement());
          return success();
        })
        .Case<rns::KeySwitchInnerProductOp>([&](auto op) {
          if (transformsItsDigits(op))
            return lowerKeySwitchOfTransforms(op);
          SmallVector<Value> digits;
          for (Value digit : op.getDigits())
            digits.push_back(buffers_[digit]);
          Value k0 = define(op.getK0(), alloc(op.getK0().getType()));
          Value k1 = define(op.getK1(), alloc(op.getK1().getType()));
          const bool added = appendAddend(op, digits);
          auto kernel = launch("key_switch_inner_product", digits, {k0, k1});
          kernel.setKey(op.getKey());
          kernel.setAddend(added);
          return success();
        })
        .Case<rns::ConstantOp>([&](auto op) {
          define(op.getResult(),
                 kernel::ConstantOp::create(builder_, loc(), bufferTypeOf(op.getType()),
                                            op.getResidues()));
          return success();
        })
        .Case<func::ReturnOp>([&](auto op) { return lowerReturn(op); })
        .Default([&](Operation *op) {
          return op->emitOpError() << "has no lowering to kernels";
        });
  }

  /// Transforms run in place when nothing reads their input afterwards;
  /// otherwise on a copy: ntt_forward / ntt_inverse, or dgt_forward /
  /// dgt_inverse where rns-choose-transform chose the DGT. A forward NTT of
  /// a conversion transformOfConversion finds reads the conversion's input
  /// into a buffer of its own.
  template <typename TransformOp> LogicalResult lowerTransform(TransformOp op) {
    rns::TransformAttr transform = op.getTransformAttr();
    constexpr bool forward = std::is_same_v<TransformOp, rns::NttOp>;
    const bool dgt =
        transform && transform.getKind() == rns::TransformKind::dgt;
    StringRef kernel = dgt ? (forward ? "dgt_forward" : "dgt_inverse")
                           : (forward ? "ntt_forward" : "ntt_inverse");
    Value input = op.getInput();
    if constexpr (std::is_same_v<TransformOp, rns::NttOp>) {
      if (rns::ConvertOp convert = conversionOfTransform(op)) {
        Value out = define(op.getResult(), alloc(op.getType()));
        auto launched = launch("ntt_forward_from",
                               {buffers_[convert.getInput()]}, {out});
        if (transform)
          launched.setTransformAttr(transform);
        return success();
      }
    }
    Value buffer = buffers_[input];
    // In place, also on a view: canOverwrite sees the other limbs' values.
    if (canOverwrite(input, position_[op])) {
      buffers_[op.getResult()] = buffer;
      origin_[op.getResult()] = origin_.lookup(input); // a copy: [] may rehash
      limbs_[op.getResult()] = limbsOf(input);
    } else {
      Value fresh = define(op.getResult(), alloc(op.getType()));
      copy(buffer, fresh);
      buffer = fresh;
    }
    auto launched = launch(kernel, {}, {buffer});
    if (transform)
      launched.setTransformAttr(transform);
    return success();
  }

  /// The sources of a fused forward NTT launched at `at`: each transform's
  /// coefficients (a fused conversion's one prime, or its input), and then
  /// (in `outs`) a buffer each transform may overwrite (that input itself,
  /// when nothing reads it afterwards).
  SmallVector<Value> fusedSources(ArrayRef<rns::NttOp> transforms,
                                  Operation *at, SmallVectorImpl<Value> &outs) {
    SmallVector<Value> sources, inputs;
    for (rns::NttOp transform : transforms) {
      Value input = transform.getInput();
      if (rns::ConvertOp convert = conversionOfTransform(transform))
        input = convert.getInput();
      inputs.push_back(input);
      sources.push_back(buffers_[input]);
    }
    for (auto [constTransform, input, source] :
         llvm::zip(transforms, inputs, sources)) {
      rns::NttOp transform = constTransform;
      bool inPlace = input == transform.getInput() &&
                     canOverwrite(input, position_[at]) &&
                     !isa_and_nonnull<kernel::ViewOp>(source.getDefiningOp()) &&
                     llvm::count(sources, source) == 1;
      outs.push_back(inPlace ? source : alloc(transform.getType()));
    }
    numFused_ += sources.size();
    return sources;
  }

  /// Key switching's addend as three more ins (both addends, then a
  /// constant buffer of their scales); whether it has one.
  bool appendAddend(rns::KeySwitchInnerProductOp op,
                    SmallVectorImpl<Value> &ins) {
    if (!op.getAddend0())
      return false;
    ArrayRef<int64_t> scales = *op.getAddendScales();
    auto type = cast<rns::PolyType>(op.getAddend0().getType());
    auto residues = DenseIntElementsAttr::get(
        RankedTensorType::get({int64_t(scales.size())}, builder_.getI64Type()),
        scales);
    Value table = kernel::ConstantOp::create(
        builder_, loc(),
        kernel::BufferType::get(builder_.getContext(), 1, type.getBasis()),
        residues);
    ins.append({buffers_[op.getAddend0()], buffers_[op.getAddend1()], table});
    return true;
  }

  /// ntt_key_switch: the digits' NTTs (fusedSources) and the inner product.
  LogicalResult lowerKeySwitchOfTransforms(rns::KeySwitchInnerProductOp op) {
    SmallVector<rns::NttOp> transforms;
    for (Value digit : op.getDigits())
      transforms.push_back(digit.getDefiningOp<rns::NttOp>());
    SmallVector<Value> outs;
    SmallVector<Value> sources = fusedSources(transforms, op, outs);
    outs.push_back(define(op.getK0(), alloc(op.getK0().getType())));
    outs.push_back(define(op.getK1(), alloc(op.getK1().getType())));
    const bool added = appendAddend(op, sources);
    auto kernel = launch("ntt_key_switch", sources, outs);
    kernel.setKey(op.getKey());
    kernel.setAddend(added);
    if (rns::TransformAttr shape = transforms.front().getTransformAttr())
      kernel.setTransformAttr(
          fusedTransform(shape, transforms.front().getType()));
    return success();
  }

  /// ntt_products: the factors' NTTs (fusedSources) and the sums of their
  /// products, one output per sum.
  LogicalResult lowerProducts(const ProductSet &set) {
    SmallVector<Value> outs;
    SmallVector<Value> sources = fusedSources(set.factors, set.runsAt, outs);
    for (Operation *root : set.roots)
      outs.push_back(
          define(root->getResult(0), alloc(root->getResult(0).getType())));
    auto kernel = launch("ntt_products", sources, outs);
    kernel.setProductsAttr(builder_.getDenseI32ArrayAttr(set.products));
    rns::NttOp first = set.factors.front();
    if (rns::TransformAttr shape = first.getTransformAttr())
      kernel.setTransformAttr(fusedTransform(shape, first.getType()));
    return success();
  }

  /// sum_of_products launches for a sum of many products: chunks within the
  /// kernel's bounds, each after the first accumulating into the sum; then
  /// a generated kernel adds the values the sum adds as they are.
  void lowerSumOfProducts(Operation *root, const SumOfProducts &sum) {
    Type type = root->getResult(0).getType();
    Value products = alloc(type);
    for (size_t begin = 0; begin < sum.products.size();) {
      llvm::SetVector<Value> factors;
      SmallVector<int32_t> triples;
      size_t end = begin;
      for (; end < sum.products.size() &&
             end - begin < size_t(runtime::kMaxSumProducts);
           ++end) {
        auto [a, b] = sum.products[end];
        size_t added = !factors.contains(a) + (a != b && !factors.contains(b));
        if (factors.size() + added > size_t(runtime::kMaxSumFactors))
          break;
        factors.insert(a);
        factors.insert(b);
        triples.append({0, int32_t(llvm::find(factors, a) - factors.begin()),
                        int32_t(llvm::find(factors, b) - factors.begin())});
      }
      SmallVector<Value> ins;
      for (Value factor : factors)
        ins.push_back(buffers_[factor]);
      auto kernel = launch("sum_of_products", ins, {products});
      kernel.setProductsAttr(builder_.getDenseI32ArrayAttr(triples));
      kernel.setAccumulate(begin > 0);
      begin = end;
    }
    numFused_ += 2 * sum.products.size() + sum.addends.size() - 1;
    if (sum.addends.empty()) {
      define(root->getResult(0), products);
      return;
    }
    SmallVector<Value> ins = {products};
    for (Value addend : sum.addends)
      ins.push_back(buffers_[addend]);
    Value out = define(root->getResult(0), alloc(type));
    emitElementwise(ins, out, [&](ArrayRef<Value> args) {
      Value total = args[0];
      for (Value arg : args.drop_front())
        total = kernel::AddModOp::create(builder_, loc(), builder_.getI64Type(),
                                         total, arg);
      return total;
    });
  }

  /// One generated kernel for the whole group rooted at `root`, or for a
  /// sum of many products, sum_of_products launches.
  LogicalResult lowerGroup(Operation *root) {
    if (std::optional<SumOfProducts> sum = sumOfProducts(root, rootOf_))
      if (sum->products.size() >= kMinSumOfProducts) {
        lowerSumOfProducts(root, *sum);
        return success();
      }
    SmallVector<Operation *> members;
    for (Operation &op : *root->getBlock()) {
      if (rootOf_.lookup(&op) == root)
        members.push_back(&op);
      if (&op == root)
        break;
    }
    SmallVector<Value> ins;
    llvm::DenseSet<Operation *> memberSet(members.begin(), members.end());
    for (Operation *member : members)
      for (Value operand : member->getOperands())
        if (!memberSet.contains(operand.getDefiningOp()) &&
            !llvm::is_contained(ins, operand))
          ins.push_back(operand);
    SmallVector<Value> inBuffers;
    for (Value in : ins)
      inBuffers.push_back(buffers_[in]);
    numFused_ += members.size();
    Value out = define(root->getResult(0), alloc(root->getResult(0).getType()));
    auto basis = cast<rns::PolyType>(root->getResult(0).getType()).getBasis();
    emitElementwise(inBuffers, out, [&](ArrayRef<Value> args) {
      llvm::DenseMap<Value, Value> residue;
      for (auto [in, arg] : llvm::zip(ins, args))
        residue[in] = arg;
      for (Operation *member : members)
        residue[member->getResult(0)] = buildResidueOp(member, residue, basis);
      return residue[root->getResult(0)];
    });
    return success();
  }

  Value buildResidueOp(Operation *op, llvm::DenseMap<Value, Value> &residue,
                       rns::BasisAttr basis) {
    auto operand = [&](unsigned i) { return residue[op->getOperand(i)]; };
    Type i64 = builder_.getI64Type();
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case<rns::AddOp>([&](auto) {
          return kernel::AddModOp::create(builder_, loc(), i64, operand(0), operand(1));
        })
        .Case<rns::SubOp>([&](auto) {
          return kernel::SubModOp::create(builder_, loc(), i64, operand(0), operand(1));
        })
        .Case<rns::MulOp>([&](auto) {
          return kernel::MulModOp::create(builder_, loc(), i64, operand(0), operand(1));
        })
        .Case<rns::NegOp>([&](auto) {
          return kernel::NegModOp::create(builder_, loc(), i64, operand(0));
        })
        .Case<rns::MulScalarOp>([&](auto scalarOp) {
          SmallVector<int64_t> residues;
          for (uint64_t m : basis.getModuli())
            residues.push_back(int64_t(
                scalarOp.getScalar().urem(APInt(scalarOp.getScalar().getBitWidth(), m))
                    .getZExtValue()));
          return kernel::MulConstOp::create(builder_, loc(), i64, operand(0), residues);
        });
  }

  /// Outputs get buffers of their own: never an input's, a constant's, a
  /// view or one returned twice.
  LogicalResult lowerReturn(func::ReturnOp op) {
    SmallVector<Value> results;
    for (Value operand : op.getOperands()) {
      Value buffer = buffers_[operand];
      Operation *def = buffer.getDefiningOp();
      bool owned = def && isa<kernel::AllocOp>(def) && !llvm::is_contained(results, buffer);
      if (!owned) {
        Value fresh = alloc(operand.getType());
        copy(buffer, fresh);
        buffer = fresh;
      }
      results.push_back(buffer);
    }
    func::ReturnOp::create(builder_, loc(), results);
    return success();
  }

  /// Greedy slot assignment: an allocation takes a free slot of its size whose
  /// last occupant is dead, or a new one. Views keep their source alive.
  func::FuncOp old_;
  OpBuilder builder_;
  unsigned productsFromLogN_;
  Pass::Statistic &numKernels_, &numFused_;
  llvm::DenseMap<Operation *, unsigned> position_;
  llvm::DenseMap<Value, unsigned> lastUse_;
  // Where a view's limbs lie in its origin's buffer (absent: all of it).
  llvm::DenseMap<Value, LimbRange> limbs_;
  llvm::DenseMap<Operation *, Operation *> rootOf_;
  std::vector<ProductSet> productSets_;
  llvm::DenseMap<Operation *, unsigned> productSetOf_; // root or factor -> set
  llvm::DenseMap<Value, Value> buffers_; // rns value -> its buffer
  llvm::DenseMap<Value, Value> origin_;  // rns value -> the value owning its buffer
};

struct RNSToKernel : public impl::RNSToKernelBase<RNSToKernel> {
  using impl::RNSToKernelBase<RNSToKernel>::RNSToKernelBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      auto isPoly = [](Type type) { return isa<rns::PolyType>(type); };
      if (!llvm::all_of(function.getFunctionType().getInputs(), isPoly) ||
          !llvm::all_of(function.getFunctionType().getResults(), isPoly)) {
        function.emitError() << "rns-to-kernel expects a function of rns "
                                "polynomials (run poly-to-rns first)";
        return signalPassFailure();
      }
      if (failed(
              KernelLowering(function, productsFromLogN, numKernels, numFused)
                  .run()))
        return signalPassFailure();
    }
  }
};
} // namespace
} // namespace ringfuse
