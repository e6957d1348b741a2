//===- KernelDialect.cpp - the kernel dialect -----------------------------===//
#include "dialects/Kernel/IR/KernelDialect.h"

#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/Common/NumberTheory.h"
#include "dialects/Kernel/IR/KernelOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace ringfuse::kernel;

#include "dialects/Kernel/IR/KernelDialect.cpp.inc"

void KernelDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Kernel/IR/KernelOps.cpp.inc"
      >();
}

namespace {
/// Whether the runtime can use `modulus` in a program of ring degree `n` and
/// plaintext modulus `t`: t itself (a plaintext's one limb), or a prime
/// = 1 mod 2n below 2^61 (what it reduces by, converts between and, but for
/// t, transforms).
bool isProgramModulus(uint64_t modulus, uint64_t n, uint64_t t) {
  return modulus == t ||
         (modulus < (uint64_t(1) << ringfuse::kMaxRnsPrimeBits) &&
          modulus % (2 * n) == 1 && ringfuse::isPrime(modulus));
}

/// Every buffer of a planned program holds limbs of its circuit's ring, over
/// moduli the runtime can use; each basis is checked once.
LogicalResult verifyProgramBuffers(FunctionOpInterface function,
                                   ringfuse::bfv::ParamsAttr params) {
  const uint64_t n = params.getRingDegree(), t = params.getPlaintextModulus();
  llvm::DenseSet<Attribute> checkedBases;
  auto check = [&](Value value, Operation *at) -> LogicalResult {
    auto type = dyn_cast<BufferType>(value.getType());
    if (!type)
      return success();
    // Key switching's scales are one word per limb: a constant of degree 1.
    const bool scales = type.getDegree() == 1 &&
                        isa_and_nonnull<ConstantOp>(value.getDefiningOp());
    if (type.getDegree() != n && !scales)
      return at->emitOpError()
             << "holds a buffer of degree " << type.getDegree() << " (" << type
             << "), but its program's ring has N = " << n;
    if (!checkedBases.insert(type.getBasis()).second)
      return success();
    for (uint64_t modulus : type.getBasis().getModuli())
      if (!isProgramModulus(modulus, n, t))
        return at->emitOpError()
               << "holds a buffer over " << type.getBasis()
               << ", whose modulus " << modulus << " is neither t = " << t
               << " nor a prime = 1 mod 2N = " << 2 * n << " below 2^"
               << ringfuse::kMaxRnsPrimeBits;
    return success();
  };
  for (BlockArgument argument : function.getArguments())
    if (failed(check(argument, function)))
      return failure();
  WalkResult walk = function->walk([&](Operation *op) {
    for (Value value : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (failed(check(value, op)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
} // namespace

LogicalResult
KernelDialect::verifyOperationAttribute(Operation *op,
                                        NamedAttribute attribute) {
  if (attribute.getName() != kSlotsAttrName)
    return op->emitOpError() << "has the unknown kernel attribute '"
                             << attribute.getName().getValue() << "'";
  auto function = dyn_cast<FunctionOpInterface>(op);
  auto slots = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!function || !slots)
    return op->emitOpError()
           << "'" << kSlotsAttrName << "' is an integer on a function";
  // Slots index the manifest's buffer table, so they are bounded by the
  // allocations that use them (AllocOp::verify bounds each by this count).
  int64_t allocations = 0;
  function->walk([&](AllocOp) { ++allocations; });
  if (slots.getInt() < 0 || slots.getInt() > allocations)
    return op->emitOpError()
           << "'" << kSlotsAttrName << "' is " << slots.getInt()
           << ", not in [0, " << allocations << "] (its allocations)";
  auto params = op->getAttrOfType<ringfuse::bfv::ParamsAttr>("ringfuse.params");
  if (params && params.hasRingDegree())
    return verifyProgramBuffers(function, params);
  return success();
}
