//===- ElementwiseGroups.cpp - rns-to-kernel's elementwise trees ----------===//
#include "passes/Conversions/ElementwiseGroups.h"

#include "dialects/RNS/IR/RNSOps.h"

#include "llvm/ADT/SmallPtrSet.h"

namespace ringfuse {
using namespace mlir;

namespace {
/// Whether op may be part of a tree that only adds products.
bool addsOrMultiplies(Operation *op) { return isa<rns::AddOp, rns::MulOp>(op); }
} // namespace

llvm::DenseMap<Operation *, Operation *> groupElementwise(Block &body) {
  llvm::DenseMap<Operation *, Operation *> rootOf;
  llvm::DenseMap<Operation *, SmallVector<Operation *>> members;
  // Per root: whether its tree only adds, and multiplies values from outside
  // it, and its products: such a tree with kMinSumOfProducts products or
  // more is not cut at kMaxOpsPerKernel.
  llvm::DenseMap<Operation *, bool> onlySums;
  llvm::DenseMap<Operation *, unsigned> products;
  for (Operation &op : body) {
    if (!rns::isElementwise(&op))
      continue;
    rootOf[&op] = &op;
    members[&op].push_back(&op);
    onlySums[&op] = addsOrMultiplies(&op);
    products[&op] = isa<rns::MulOp>(op);
    for (Value operand : op.getOperands()) {
      Operation *producer = operand.getDefiningOp();
      // Read by this op alone (possibly twice, as a square's x1 x0 + x1 x0).
      bool readHereOnly = llvm::all_of(
          operand.getUsers(), [&](Operation *user) { return user == &op; });
      if (!producer || !rns::isElementwise(producer) || !readHereOnly ||
          operand.getType() != op.getResult(0).getType())
        continue;
      // The producer is its tree's root (its one use is this op): its tree
      // joins this op's, whose root this op becomes. Every such operand's
      // tree joins, so a sum of products is one kernel.
      Operation *oldRoot = rootOf[producer];
      const bool sums =
          onlySums[&op] && onlySums[oldRoot] && !isa<rns::MulOp>(op);
      const unsigned joinedProducts = products[&op] + products[oldRoot];
      if (oldRoot == &op ||
          (!(sums && joinedProducts >= kMinSumOfProducts) &&
           members[oldRoot].size() + members[&op].size() > kMaxOpsPerKernel))
        continue;
      for (Operation *member : members[oldRoot])
        rootOf[member] = &op;
      members[&op].append(members[oldRoot]);
      members.erase(oldRoot);
      onlySums[&op] = sums;
      products[&op] = joinedProducts;
    }
  }
  return rootOf;
}

std::optional<SumOfProducts>
sumOfProducts(Operation *root,
              const llvm::DenseMap<Operation *, Operation *> &rootOf) {
  SumOfProducts sum;
  auto isMember = [&](Value value) {
    Operation *op = value.getDefiningOp();
    return op && rootOf.lookup(op) == root;
  };
  // A member read twice by one op (a square's x1 x0 + x1 x0) is a term twice
  // over; a chain of them (x + x, doubled k times) would expand to 2^k terms.
  // Past twice the members reached, the group is no sum of products: it runs
  // as a generated kernel, which computes each member once.
  llvm::SmallPtrSet<Operation *, 16> reached;
  size_t visits = 0;
  SmallVector<Operation *> pending = {root};
  while (!pending.empty()) {
    Operation *op = pending.pop_back_val();
    reached.insert(op);
    if (++visits > 2 * reached.size() + 2)
      return std::nullopt;
    if (isa<rns::AddOp>(op)) {
      // Operands pushed last to first, so that products come in program
      // order.
      for (Value operand : llvm::reverse(op->getOperands())) {
        if (isMember(operand))
          pending.push_back(operand.getDefiningOp());
        else
          sum.addends.push_back(operand);
      }
    } else if (isa<rns::MulOp>(op) && !isMember(op->getOperand(0)) &&
               !isMember(op->getOperand(1))) {
      sum.products.push_back({op->getOperand(0), op->getOperand(1)});
    } else {
      return std::nullopt;
    }
  }
  return sum;
}

} // namespace ringfuse
