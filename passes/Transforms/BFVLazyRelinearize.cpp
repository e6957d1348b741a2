//===- BFVLazyRelinearize.cpp - one relinearization per sum of products
//----===//
//
// The tracer relinearizes every product at once. A relinearization is a key
// switch, and key switching is linear: relin(a) + relin(b) decrypts as
// relin(a + b), which switches keys once. So a product may stay 3-component
// through additions, negations and plaintext operations, and be relinearized
// where a 2-component value is needed: before a rotation, a row swap, a
// further product and an output.
//
// A relinearization is deferred only when that saves one: its product's
// single-use chain of such operations reaches an addition or subtraction
// whose other operand is a deferred product's chain too. Elsewhere deferring
// would only move the key switch later and make the plaintext operations in
// between work on three components. Which chains meet depends on which are
// deferred, so the candidates are narrowed to a fixed point (dropping one can
// only leave others without a partner, never give one a partner).
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace ringfuse {
#define GEN_PASS_DEF_BFVLAZYRELINEARIZE
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// Ops that take a 3-component ciphertext as well as a 2-component one.
bool acceptsThreeComponents(Operation *op) {
  return isa<bfv::AddOp, bfv::SubOp, bfv::NegateOp, bfv::MulPlainOp,
             bfv::AddPlainOp, bfv::SubPlainOp>(op);
}

/// The one user of `value` through which a 3-component value may flow on,
/// or null.
Operation *onlyThreeComponentUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  Operation *user = *value.user_begin();
  return acceptsThreeComponents(user) ? user : nullptr;
}

bool isSum(Operation *op) { return isa<bfv::AddOp, bfv::SubOp>(op); }

class LazyRelinearization {
public:
  explicit LazyRelinearization(func::FuncOp function) : function_(function) {}

  /// Returns how many relinearizations were removed (deferred ones merged).
  unsigned run() {
    llvm::SetVector<bfv::RelinearizeOp> deferred;
    function_.walk([&](bfv::RelinearizeOp op) {
      if (onlyThreeComponentUser(op.getResult()))
        deferred.insert(op);
    });
    // Narrow to the relinearizations whose chains meet another's.
    for (bool changed = true; changed;) {
      changed = false;
      llvm::DenseMap<Operation *, unsigned> arrivals = chainArrivals(deferred);
      for (bfv::RelinearizeOp op : deferred.takeVector()) {
        if (meetsAnother(op, arrivals))
          deferred.insert(op);
        else
          changed = true;
      }
    }
    unsigned before = count();
    for (bfv::RelinearizeOp op : deferred) {
      op.getResult().replaceAllUsesWith(op.getInput());
      op.erase();
    }
    retypeAndRelinearize();
    return before - count();
  }

private:
  unsigned count() {
    unsigned n = 0;
    function_.walk([&](bfv::RelinearizeOp) { ++n; });
    return n;
  }

  /// For every sum, how many deferred chains reach it (through either
  /// operand, following single-use chains).
  llvm::DenseMap<Operation *, unsigned>
  chainArrivals(const llvm::SetVector<bfv::RelinearizeOp> &deferred) {
    llvm::DenseMap<Operation *, unsigned> arrivals;
    llvm::DenseSet<Operation *> visited;
    for (bfv::RelinearizeOp op : deferred)
      for (Operation *user = onlyThreeComponentUser(op.getResult()); user;
           user = onlyThreeComponentUser(user->getResult(0))) {
        if (isSum(user))
          ++arrivals[user];
        // A chain that joined another goes on as that one: count it once.
        if (!visited.insert(user).second)
          break;
      }
    return arrivals;
  }

  /// Whether op's chain reaches a sum that another deferred chain reaches.
  bool meetsAnother(bfv::RelinearizeOp op,
                    const llvm::DenseMap<Operation *, unsigned> &arrivals) {
    for (Operation *user = onlyThreeComponentUser(op.getResult()); user;
         user = onlyThreeComponentUser(user->getResult(0)))
      if (isSum(user) && arrivals.lookup(user) >= 2)
        return true;
    return false;
  }

  /// With relinearizations removed, the ops after them compute on three
  /// components: give each its result type in program order, and
  /// relinearize a result made 3-component here where its chain ends (a
  /// user that needs two components, several users, or an output). Results
  /// that had three components already are the input's business.
  void retypeAndRelinearize() {
    OpBuilder builder(function_.getContext());
    function_.walk([&](Operation *op) {
      if (!acceptsThreeComponents(op))
        return;
      Value result = op->getResult(0);
      auto before = cast<bfv::CiphertextType>(result.getType());
      auto type = cast<bfv::CiphertextType>(
          isSum(op) ? bfv::sumType(op->getOperand(0).getType(),
                                   op->getOperand(1).getType())
                    : op->getOperand(0).getType());
      result.setType(type);
      if (before.getSize() == type.getSize() || onlyThreeComponentUser(result))
        return;
      builder.setInsertionPointAfter(op);
      auto relinearized = bfv::RelinearizeOp::create(
          builder, op->getLoc(),
          bfv::CiphertextType::get(op->getContext(), type.getParams(), 2),
          result);
      result.replaceAllUsesExcept(relinearized.getResult(), relinearized);
    });
  }

  func::FuncOp function_;
};

struct BFVLazyRelinearize
    : public impl::BFVLazyRelinearizeBase<BFVLazyRelinearize> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp function) {
      numRelinearizationsSaved += LazyRelinearization(function).run();
    });
  }
};
} // namespace
} // namespace ringfuse
