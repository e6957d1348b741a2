//===- KernelOps.cpp - kernel operations and their verifiers --------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/sum_of_products.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace ringfuse::kernel;
namespace rns = ringfuse::rns;

#define GET_OP_CLASSES
#include "dialects/Kernel/IR/KernelOps.cpp.inc"

static BufferType bufferType(Value value) {
  return cast<BufferType>(value.getType());
}

namespace ringfuse::kernel {

/// The buffer a value is (a view's source, followed to the end).
static Value rootOf(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewOp>())
    buffer = view.getSource();
  return buffer;
}

bool mayAlias(Value a, Value b) {
  a = rootOf(a);
  b = rootOf(b);
  if (a == b)
    return true;
  auto allocA = a.getDefiningOp<AllocOp>(), allocB = b.getDefiningOp<AllocOp>();
  return allocA && allocB && allocA.getSlot() && allocA.getSlot() == allocB.getSlot();
}

namespace {
struct Footprint {
  SmallVector<Value> reads, writes;
};

Footprint footprintOf(Operation *op) {
  Footprint footprint;
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    footprint.reads = launch.readBuffers();
    llvm::append_range(footprint.writes, launch.writtenBuffers());
  } else if (auto elementwise = dyn_cast<ElementwiseOp>(op)) {
    llvm::append_range(footprint.reads, elementwise.getIns());
    llvm::append_range(footprint.writes, elementwise.getOuts());
  } else if (auto concurrent = dyn_cast<ConcurrentOp>(op)) {
    for (Operation &inner : concurrent.getBody().front()) {
      Footprint member = footprintOf(&inner);
      llvm::append_range(footprint.reads, member.reads);
      llvm::append_range(footprint.writes, member.writes);
    }
  }
  return footprint;
}

bool anyAlias(ArrayRef<Value> some, ArrayRef<Value> others) {
  return llvm::any_of(some, [&](Value a) {
    return llvm::any_of(others, [&](Value b) { return mayAlias(a, b); });
  });
}
} // namespace

bool dependsOnBuffers(Operation *first, Operation *second) {
  Footprint a = footprintOf(first), b = footprintOf(second);
  return anyAlias(a.writes, b.reads) || anyAlias(a.writes, b.writes) ||
         anyAlias(b.writes, a.reads);
}

} // namespace ringfuse::kernel

SmallVector<Value> LaunchOp::readBuffers() {
  SmallVector<Value> reads(getIns().begin(), getIns().end());
  // The transforms work in place (ntt_forward_from reads its one-limb
  // input).
  if (llvm::is_contained(
          {"ntt_forward", "ntt_inverse", "dgt_forward", "dgt_inverse"},
          getKernel()))
    llvm::append_range(reads, getOuts());
  // An accumulating sum adds to its outputs' words.
  if (getAccumulate())
    llvm::append_range(reads, getOuts());
  return reads;
}

LogicalResult ConcurrentOp::verify() {
  Block &body = getBody().front();
  SmallVector<Operation *> members;
  for (Operation &op : body) {
    if (!isa<LaunchOp>(op))
      return emitOpError() << "holds library launches only, got '"
                           << op.getName() << "'";
    members.push_back(&op);
  }
  if (members.size() < 2)
    return emitOpError() << "needs at least two launches, got " << members.size();
  for (size_t i = 0; i < members.size(); ++i)
    for (size_t j = i + 1; j < members.size(); ++j)
      if (dependsOnBuffers(members[i], members[j]))
        return emitOpError() << "launches " << i << " and " << j
                             << " share a buffer that one of them writes";
  return success();
}

LogicalResult AllocOp::verify() {
  std::optional<int64_t> slot = getSlot();
  if (!slot)
    return success();
  if (*slot < 0)
    return emitOpError() << "slot " << *slot << " is negative";
  // The bound is the function's: kernel.slots, checked against the number
  // of allocations once for the whole program (KernelDialect.cpp).
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  auto slots =
      function
          ? function->getAttrOfType<IntegerAttr>(KernelDialect::kSlotsAttrName)
          : nullptr;
  if (!slots)
    return emitOpError() << "has a slot, but its function has no '"
                         << KernelDialect::kSlotsAttrName
                         << "' (kernel-plan-slots sets both)";
  if (*slot >= slots.getInt())
    return emitOpError() << "slot " << *slot << " is not below the function's "
                         << KernelDialect::kSlotsAttrName << " = "
                         << slots.getInt();
  return success();
}

LogicalResult ConstantOp::verify() {
  BufferType type = bufferType(getBuffer());
  auto shape = getResidues().getType().getShape();
  if (shape.size() != 1 || size_t(shape[0]) != type.words())
    return emitOpError() << "needs " << type.words() << " residues, got shape "
                         << getResidues().getType();
  ArrayRef<uint64_t> moduli = type.getBasis().getModuli();
  size_t index = 0;
  for (const APInt &residue : getResidues()) {
    uint64_t q = moduli[index / type.getDegree()];
    if (residue.isNegative() || residue.getZExtValue() >= q)
      return emitOpError() << "residue " << index << " ("
                           << residue.getSExtValue() << ") is not in [0, " << q
                           << ")";
    ++index;
  }
  return success();
}

LogicalResult MulConstOp::verify() {
  auto kernel = (*this)->getParentOfType<ElementwiseOp>();
  if (kernel.getOuts().empty())
    return success(); // the kernel's own verifier says what is wrong
  ArrayRef<uint64_t> moduli =
      bufferType(kernel.getOuts().front()).getBasis().getModuli();
  ArrayRef<int64_t> residues = getResidues();
  if (residues.size() != moduli.size())
    return emitOpError() << "needs one residue per limb of the kernel's basis ("
                         << moduli.size() << "), got " << residues.size();
  for (auto [limb, residue] : llvm::enumerate(residues))
    if (residue < 0 || uint64_t(residue) >= moduli[limb])
      return emitOpError() << "residue " << residue << " of limb " << limb
                           << " is not in [0, " << moduli[limb] << ")";
  return success();
}

LogicalResult ViewOp::verify() {
  BufferType source = bufferType(getSource()), view = bufferType(getView());
  ArrayRef<uint64_t> moduli = source.getBasis().getModuli();
  int64_t first = getFirst(), last = getLast();
  if (first < 0 || first >= last || last > int64_t(moduli.size()))
    return emitOpError() << "limbs [" << first << ", " << last
                         << ") are not a nonempty range of " << moduli.size();
  if (view.getDegree() != source.getDegree() ||
      view.getBasis().getModuli() != moduli.slice(first, last - first))
    return emitOpError() << "the view must hold limbs [" << first << ", "
                         << last << ") of " << source;
  return success();
}

namespace {
/// What each library kernel takes: operand counts and parameters.
/// How a kernel's outs grow with its ins (kernel_catalog.def's `outputs`).
enum class Outputs { fixed, per_input, per_input_and_sum, per_sum };

/// What kernel.launch takes of a library kernel: operand counts and
/// parameters, kernel_catalog.def's IR columns.
struct KernelSignature {
  StringRef name;
  int ins;    // the fewest inputs
  int maxIns; // -1: no most
  int outs;   // besides those `outputs` adds
  Outputs outputs;
  StringRef required, optional; // parameter names, space-separated
};

const KernelSignature kernelSignatures[] = {
#define RF_KERNEL(name, Call, parameters, arguments, ins, maxIns, outs,        \
                  outputs, required, optional)                                 \
  {#name, ins, maxIns, outs, Outputs::outputs, required, optional},
#include "ringfuse/runtime/kernel_catalog.def"
};

/// X -> X^g is an automorphism of Z[X]/(X^N + 1) for odd g, and the
/// runtime's tables cover g below 2N (N: the degree of the launch's last
/// output). A key names one (its rotation's key) or, where
/// `zeroIsRelinearization`, 0 for the relinearization key.
LogicalResult verifyGaloisElement(LaunchOp op, int64_t element,
                                  StringRef parameter,
                                  bool zeroIsRelinearization) {
  if (zeroIsRelinearization && element == 0)
    return success();
  const int64_t twoN = 2 * int64_t(bufferType(op.getOuts().back()).getDegree());
  if (element < 1 || element % 2 == 0 || element >= twoN)
    return op.emitOpError()
           << "'" << parameter << "' is " << element << ", not "
           << (zeroIsRelinearization ? "0 (relinearization) or " : "")
           << "a Galois element: an odd number below 2N = " << twoN;
  return success();
}

/// Every limb of `out` transformed from the one limb `in` of the same
/// degree, its prime within the GPU NTT's lazy input bound.
LogicalResult verifyOneLimbInput(LaunchOp op, BufferType in, BufferType out) {
  ArrayRef<uint64_t> from = in.getBasis().getModuli();
  if (from.size() != 1 || in.getDegree() != out.getDegree())
    return op.emitOpError() << "transforms every limb from one limb of the "
                               "same degree, got "
                            << in << " for " << out;
  for (uint64_t q : out.getBasis().getModuli())
    if (!ringfuse::runtime::isLazyNttInput(from[0], q))
      return op.emitOpError() << "needs the input's prime below 8 times each "
                                 "of the output's, got "
                              << from[0] << " for " << q;
  return success();
}

/// A fused forward NTT (ntt_key_switch, ntt_products): every output (the
/// sources' scratch buffers, then what the kernel sums) of one type; source
/// j (ins[j]) of that type or one limb (verifyOneLimbInput), and no output
/// but its scratch buffer (outs[j]); the sums distinct; a shape the fused
/// kernel runs. Returns the outputs' type.
FailureOr<BufferType> verifyFusedNtt(LaunchOp op, StringRef source) {
  size_t sources = op.mainIns().size();
  BufferType type = bufferType(op.getOuts()[sources]);
  for (Value out : op.getOuts())
    if (bufferType(out) != type)
      return op.emitOpError() << "scratch buffers and sums must all be " << type
                              << ", got " << bufferType(out);
  auto outs = op.getOuts();
  for (size_t k = sources; k < outs.size(); ++k)
    for (size_t i = sources; i < k; ++i)
      if (outs[k] == outs[i])
        return op.emitOpError() << "needs distinct sums";
  for (size_t j = 0; j < sources; ++j) {
    Value in = op.mainIns()[j];
    if (bufferType(in) != type &&
        failed(verifyOneLimbInput(op, bufferType(in), type)))
      return failure();
    for (size_t k = 0; k < outs.size(); ++k)
      if (outs[k] == in && k != j)
        return op.emitOpError()
               << source << " " << j << " is also output " << k;
  }
  if (rns::TransformAttr shape = op.getTransformAttr()) {
    std::string why;
    if (!ringfuse::runtime::isSupportedFusedNttShape(
            llvm::Log2_64(type.getDegree()), shape.nttShape(), &why))
      return op.emitOpError() << "cannot run " << shape << ": " << why;
  }
  return type;
}

/// Key switching's addend: two buffers over the first moduli of the sums'
/// basis (not all of them) and a buffer of degree 1 over the same moduli,
/// none of them a sum.
LogicalResult verifyKeySwitchAddend(LaunchOp op) {
  if (!op.getAddend())
    return success();
  auto ins = op.getIns();
  auto outs = op.getOuts();
  Value e0 = ins[ins.size() - 3], e1 = ins[ins.size() - 2],
        scales = ins.back();
  BufferType sums = bufferType(outs.back()), added = bufferType(e0);
  ArrayRef<uint64_t> moduli = sums.getBasis().getModuli(),
                     addedModuli = added.getBasis().getModuli();
  if (bufferType(e1) != added || added.getDegree() != sums.getDegree() ||
      addedModuli.size() >= moduli.size() ||
      addedModuli != moduli.take_front(addedModuli.size()))
    return op.emitOpError() << "the addends must be buffers over the first "
                               "moduli of the sums' basis "
                            << sums.getBasis() << ", got " << added << " and "
                            << bufferType(e1);
  BufferType scaleType = bufferType(scales);
  if (scaleType.getDegree() != 1 || scaleType.getBasis() != added.getBasis())
    return op.emitOpError() << "the addends' scales must be a buffer of "
                               "degree 1 over "
                            << added.getBasis() << ", got " << scaleType;
  for (Value in : {e0, e1, scales})
    if (llvm::is_contained(outs, in))
      return op.emitOpError() << "an addend or its scales is also an output";
  return success();
}

/// ntt_key_switch: the digits, their scratch buffers and both sums over the
/// key's basis (verifyFusedNtt), and the addend if any.
LogicalResult verifyNttKeySwitch(LaunchOp op) {
  if (!op.getKey())
    return op.emitOpError() << "'ntt_key_switch' needs the parameter 'key'";
  if (failed(verifyGaloisElement(op, *op.getKey(), "key",
                                 /*zeroIsRelinearization=*/true)))
    return failure();
  if (failed(verifyFusedNtt(op, "digit")))
    return failure();
  return verifyKeySwitchAddend(op);
}

/// The sums ntt_products' `products` names: one more than the largest
/// output index, or 0 without the attribute.
size_t productSums(LaunchOp op) {
  size_t sums = 0;
  if (std::optional<ArrayRef<int32_t>> products = op.getProducts())
    for (size_t i = 0; i + 2 < products->size(); i += 3)
      sums = std::max(sums, size_t(std::max((*products)[i], 0)) + 1);
  return sums;
}

/// `products` as (output, factor, factor) triples grouped by output from 0
/// with none skipped: at most `maxPairs` triples and `maxSums` sums, naming
/// the launch's ins as factors.
LogicalResult verifyProductTriples(LaunchOp op, int maxPairs, int maxSums) {
  std::optional<ArrayRef<int32_t>> products = op.getProducts();
  size_t pairs = products->size() / 3;
  if (products->size() % 3 != 0 || pairs == 0 || pairs > size_t(maxPairs))
    return op.emitOpError()
           << "'products' holds (output, factor, factor) triples, 1 to "
           << maxPairs << " of them, got " << products->size() << " integers";
  int factors = op.getIns().size(), output = 0;
  for (size_t p = 0; p < pairs; ++p) {
    int k = (*products)[3 * p], a = (*products)[3 * p + 1],
        b = (*products)[3 * p + 2];
    if (k != output && !(p > 0 && k == output + 1))
      return op.emitOpError()
             << "product " << p << " is for sum " << k << ", not " << output
             << " or the next (sums "
                "come in order, from 0, none skipped)";
    if (a < 0 || a >= factors || b < 0 || b >= factors)
      return op.emitOpError() << "product " << p << " names factors " << a
                              << " and " << b << " of " << factors;
    output = k;
  }
  if (productSums(op) > size_t(maxSums))
    return op.emitOpError()
           << "takes at most " << maxSums << " sums, got " << productSums(op);
  return success();
}

/// ntt_products: its triples within ntt_shape.h's bounds; the factors,
/// their scratch buffers and the sums as verifyFusedNtt says.
LogicalResult verifyNttProducts(LaunchOp op) {
  if (failed(verifyProductTriples(op, ringfuse::runtime::kMaxProducts,
                                  ringfuse::runtime::kMaxProductOutputs)))
    return failure();
  return verifyFusedNtt(op, "factor");
}

/// sum_of_products: its triples within sum_of_products.h's bounds; factors
/// and sums all of one type (the runtime sums word by word over one basis),
/// the sums distinct and none of them a factor (each output word is written
/// while the factors' words are read).
LogicalResult verifySumOfProducts(LaunchOp op) {
  if (failed(verifyProductTriples(op, ringfuse::runtime::kMaxSumProducts,
                                  ringfuse::runtime::kMaxSumOutputs)))
    return failure();
  BufferType type = bufferType(op.getOuts()[0]);
  for (Value operand : op->getOperands())
    if (bufferType(operand) != type)
      return op.emitOpError() << "factors and sums must all be " << type
                              << ", got " << bufferType(operand);
  auto outs = op.getOuts();
  for (size_t k = 0; k < outs.size(); ++k) {
    for (size_t i = 0; i < k; ++i)
      if (outs[k] == outs[i])
        return op.emitOpError() << "needs distinct sums";
    if (llvm::is_contained(op.getIns(), outs[k]))
      return op.emitOpError() << "sum " << k << " is also a factor";
  }
  return success();
}

/// The parameters a launch carries, by their names in the catalog.
SmallVector<StringRef> presentParameters(LaunchOp op) {
  SmallVector<StringRef> present;
  auto note = [&](bool has, StringRef name) {
    if (has)
      present.push_back(name);
  };
  note(bool(op.getMethodAttr()), "method");
  note(op.getFloor(), "floor");
  note(op.getNumerator().has_value(), "numerator");
  note(op.getDivisor().has_value(), "divisor");
  note(op.getVia().has_value(), "via");
  note(op.getGaloisElement().has_value(), "galois_element");
  note(op.getKey().has_value(), "key");
  note(bool(op.getTransformAttr()), "transform");
  note(op.getProducts().has_value(), "products");
  note(op.getAddend(), "addend");
  note(op.getAccumulate(), "accumulate");
  return present;
}

/// Counts and parameters as the catalog gives them, and no attribute the
/// op does not define (a misspelt parameter would be dropped silently).
LogicalResult verifySignature(LaunchOp op, const KernelSignature &signature) {
  StringRef kernel = op.getKernel();
  for (NamedAttribute attribute : op->getDiscardableAttrs())
    return op.emitOpError() << "has the unknown attribute '"
                            << attribute.getName().getValue() << "'";
  SmallVector<StringRef> required, optional;
  signature.required.split(required, ' ', -1, /*KeepEmpty=*/false);
  signature.optional.split(optional, ' ', -1, /*KeepEmpty=*/false);
  SmallVector<StringRef> present = presentParameters(op);
  for (StringRef name : present)
    if (!llvm::is_contained(required, name) &&
        !llvm::is_contained(optional, name))
      return op.emitOpError() << "'" << kernel << "' takes no '" << name
                              << "'";
  for (StringRef name : required)
    if (!llvm::is_contained(present, name))
      return op.emitOpError() << "'" << kernel << "' needs the parameter '"
                              << name << "'";
  if (op.getAddend() && op.getIns().size() < 4)
    return op.emitOpError() << "'" << kernel << "' with 'addend' takes at "
                               "least one digit, then both addends and their "
                               "scales";
  const bool perInput = signature.outputs == Outputs::per_input ||
                        signature.outputs == Outputs::per_input_and_sum;
  const bool perSum = signature.outputs == Outputs::per_input_and_sum ||
                      signature.outputs == Outputs::per_sum;
  int ins = op.mainIns().size(), outs = op.getOuts().size();
  int sums = perSum ? int(productSums(op)) : 0;
  if (ins < signature.ins ||
      (signature.maxIns >= 0 && ins > signature.maxIns) ||
      outs != signature.outs + (perInput ? ins : 0) + sums) {
    std::string inputs =
        signature.maxIns < 0 ? "at least " + std::to_string(signature.ins)
        : signature.maxIns == signature.ins ? std::to_string(signature.ins)
        : signature.maxIns == signature.ins + 1
            ? std::to_string(signature.ins) + " or " +
                  std::to_string(signature.maxIns)
            : std::to_string(signature.ins) + " to " +
                  std::to_string(signature.maxIns);
    InFlightDiagnostic error = op.emitOpError()
                               << "'" << kernel << "' takes " << inputs
                               << " inputs and ";
    if (perInput)
      error << "one output per input and ";
    if (perSum)
      error << (perInput ? "one" : "one output") << " per sum (" << sums << ")";
    else
      error << signature.outs << " outputs";
    return error << ", got " << ins << " and " << outs;
  }
  return success();
}

/// A transform's shape: one programs run, of the launch's kind (the dgt
/// kernels run the DGT, every other the NTT), on its first output.
LogicalResult verifyTransform(LaunchOp op) {
  rns::TransformAttr shape = op.getTransformAttr();
  if (!shape)
    return success();
  const rns::TransformKind kind = op.getKernel().starts_with("dgt_")
                                      ? rns::TransformKind::dgt
                                      : rns::TransformKind::ntt;
  if (shape.getKind() != kind)
    return op.emitOpError()
           << "'" << op.getKernel() << "' runs the "
           << rns::stringifyTransformKind(kind) << ", got " << shape;
  BufferType buffer = bufferType(op.getOuts()[0]);
  std::string problem =
      shape.problemFor(buffer.getDegree(), buffer.getBasis().getModuli());
  if (!problem.empty())
    return op.emitOpError() << "cannot run " << shape << " on " << buffer
                            << ": " << problem;
  return success();
}

/// scale_round and scale_round_add beyond their parameters.
LogicalResult verifyScaleRound(LaunchOp op) {
  rns::BasisAttr outBasis = bufferType(op.getOuts()[0]).getBasis();
  if (op.getKernel() == "scale_round_add" &&
      bufferType(op.getIns()[1]).getBasis() != outBasis)
    return op.emitOpError() << "the addend's basis "
                            << bufferType(op.getIns()[1]).getBasis()
                            << " must be the output's, " << outBasis;
  if (std::optional<rns::BasisAttr> via = op.getVia()) {
    if (op.getFloor())
      return op.emitOpError() << "a fast floor fuses no conversion (via "
                              << *via << ")";
    if (via->contains(outBasis))
      return op.emitOpError() << "the output's basis " << outBasis
                              << " converts nothing: each of its moduli is in "
                                 "via "
                              << *via;
  }
  return success();
}

/// Both automorphisms beyond their parameters.
LogicalResult verifyAutomorphism(LaunchOp op) {
  if (op.getIns()[0] == op.getOuts()[0])
    return op.emitOpError() << "automorphism needs distinct input and output";
  if (bufferType(op.getIns()[0]) != bufferType(op.getOuts()[0]))
    return op.emitOpError()
           << "automorphism maps a buffer to one of its type, got "
           << bufferType(op.getIns()[0]) << " to "
           << bufferType(op.getOuts()[0]);
  return verifyGaloisElement(op, *op.getGaloisElement(), "galois_element",
                             /*zeroIsRelinearization=*/false);
}

} // namespace

LogicalResult LaunchOp::verify() {
  const KernelSignature *signature = nullptr;
  for (const KernelSignature &candidate : kernelSignatures)
    if (candidate.name == getKernel())
      signature = &candidate;
  if (!signature)
    return emitOpError() << "unknown library kernel '" << getKernel()
                         << "' (kernel_catalog.def lists them)";
  if (failed(verifySignature(*this, *signature)) ||
      failed(verifyTransform(*this)))
    return failure();
  StringRef kernel = getKernel();
  if (kernel == "ntt_forward_from")
    return verifyOneLimbInput(*this, bufferType(getIns()[0]),
                              bufferType(getOuts()[0]));
  if (kernel == "ntt_key_switch")
    return verifyNttKeySwitch(*this);
  if (kernel == "ntt_products")
    return verifyNttProducts(*this);
  if (kernel == "sum_of_products")
    return verifySumOfProducts(*this);
  if (kernel == "scale_round" || kernel == "scale_round_add")
    return verifyScaleRound(*this);
  if (kernel == "automorphism" || kernel == "automorphism_evaluation")
    return verifyAutomorphism(*this);
  if (kernel == "key_switch_inner_product") {
    if (failed(verifyGaloisElement(*this, *getKey(), "key",
                                   /*zeroIsRelinearization=*/true)))
      return failure();
    return verifyKeySwitchAddend(*this);
  }
  return success();
}

LogicalResult ElementwiseOp::verify() {
  if (getOuts().empty())
    return emitOpError() << "needs at least one output";
  BufferType type = bufferType(getOuts()[0]);
  for (Value operand : getOperands()) {
    BufferType other = bufferType(operand);
    if (other.getDegree() != type.getDegree() ||
        other.getBasis().getModuli() != type.getBasis().getModuli())
      return emitOpError() << "operands must share one degree and basis; got "
                           << type << " and " << other;
  }
  Block &body = getBody().front();
  if (body.getNumArguments() != getIns().size())
    return emitOpError() << "the body takes one residue per input ("
                         << getIns().size() << "), got "
                         << body.getNumArguments();
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().size() != getOuts().size())
    return emitOpError() << "the body yields one residue per output ("
                         << getOuts().size() << "), got "
                         << yield.getValues().size();
  return success();
}
