//===- KernelFuseElementwise.cpp - independent generated kernels as one ---===//
//
// rns-to-kernel gives each tree of elementwise ops its own generated kernel.
// Trees that share no value, such as the three products of a ciphertext
// tensor (x0 y0, x0 y1 + x1 y0, x1 y1), still launch one after another, each
// a kernel that fills a fraction of the GPU at small N and reads its inputs
// again. This pass merges each group of independent `kernel.elementwise` ops
// over one degree and basis (gathered as KernelGroups.h says) into one op
// whose body computes every member's outputs from the union of their inputs:
// one launch, and each shared input read once. Independent sum_of_products
// launches over one buffer type join the same way, as one launch within the
// kernel's bounds: the two components of a matrix-vector product's giant
// step read each plaintext diagonal once.
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/Analyses/KernelGroups.h"
#include "passes/Passes.h"
#include "ringfuse/runtime/sum_of_products.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace ringfuse {
#define GEN_PASS_DEF_KERNELFUSEELEMENTWISE
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// A generated kernel's parameters grow with its buffers; past this many
/// members the saved launches no longer matter.
constexpr size_t kMaxMembers = 8, kLookAhead = 64;

bool sameIterationSpace(kernel::ElementwiseOp a, kernel::ElementwiseOp b) {
  auto typeA = cast<kernel::BufferType>(a.getOuts()[0].getType());
  auto typeB = cast<kernel::BufferType>(b.getOuts()[0].getType());
  return typeA.getDegree() == typeB.getDegree() &&
         typeA.getBasis().getModuli() == typeB.getBasis().getModuli();
}

/// One elementwise op, before `anchor`, doing what the members did: inputs
/// are their inputs without repeats, outputs theirs in order.
kernel::ElementwiseOp merge(ArrayRef<Operation *> members, Operation *anchor) {
  SmallVector<Value> ins, outs;
  for (Operation *member : members) {
    auto op = cast<kernel::ElementwiseOp>(member);
    for (Value in : op.getIns())
      if (!llvm::is_contained(ins, in))
        ins.push_back(in);
    llvm::append_range(outs, op.getOuts());
  }
  OpBuilder builder(anchor);
  auto merged = kernel::ElementwiseOp::create(builder, anchor->getLoc(), ins, outs);
  Block *body = builder.createBlock(&merged.getBody());
  for (Value in : ins)
    body->addArgument(builder.getI64Type(), in.getLoc());
  SmallVector<Value> yielded;
  for (Operation *member : members) {
    auto op = cast<kernel::ElementwiseOp>(member);
    Block &old = op.getBody().front();
    IRMapping residues;
    for (auto [in, arg] : llvm::zip(op.getIns(), old.getArguments()))
      residues.map(arg, body->getArgument(llvm::find(ins, in) - ins.begin()));
    for (Operation &inner : old.without_terminator())
      builder.clone(inner, residues);
    for (Value value : cast<kernel::YieldOp>(old.getTerminator()).getValues())
      yielded.push_back(residues.lookup(value));
  }
  kernel::YieldOp::create(builder, anchor->getLoc(), yielded);
  return merged;
}

/// A sum_of_products launch (accumulating or not, as `accumulate` says).
kernel::LaunchOp sumOfProducts(Operation *op) {
  auto launch = dyn_cast<kernel::LaunchOp>(op);
  return launch && launch.getKernel() == "sum_of_products" ? launch
                                                           : kernel::LaunchOp();
}

/// Whether two sum_of_products launches may be one: both accumulate or
/// neither does, and their sums are of one type.
bool sameSums(kernel::LaunchOp a, kernel::LaunchOp b) {
  return a && b && a.getAccumulate() == b.getAccumulate() &&
         a.getOuts()[0].getType() == b.getOuts()[0].getType();
}

/// The members' sums as one launch before `anchor`, as many members from the
/// first as fit the kernel's bounds (at least two), or null; the merged
/// members are erased.
Operation *mergeSums(ArrayRef<Operation *> members, Operation *anchor) {
  llvm::SetVector<Value> factors;
  SmallVector<Value> outs;
  SmallVector<int32_t> triples;
  size_t merged = 0;
  for (Operation *member : members) {
    kernel::LaunchOp op = sumOfProducts(member);
    llvm::SetVector<Value> joined = factors;
    joined.insert(op.getIns().begin(), op.getIns().end());
    ArrayRef<int32_t> products = *op.getProducts();
    if (joined.size() > size_t(runtime::kMaxSumFactors) ||
        triples.size() + products.size() >
            3 * size_t(runtime::kMaxSumProducts) ||
        outs.size() + op.getOuts().size() > size_t(runtime::kMaxSumOutputs))
      break;
    for (size_t t = 0; t < products.size(); t += 3)
      triples.append({int32_t(outs.size()) + products[t],
                      int32_t(llvm::find(joined, op.getIns()[products[t + 1]]) -
                              joined.begin()),
                      int32_t(llvm::find(joined, op.getIns()[products[t + 2]]) -
                              joined.begin())});
    factors = std::move(joined);
    llvm::append_range(outs, op.getOuts());
    ++merged;
  }
  if (merged < 2)
    return nullptr;
  kernel::LaunchOp first = sumOfProducts(members[0]);
  OpBuilder builder(anchor);
  auto launch = kernel::LaunchOp::create(
      builder, first.getLoc(), first.getKernelAttr(), factors.getArrayRef(),
      outs, rns::ConversionMethodAttr(), UnitAttr(), IntegerAttr(),
      rns::BasisAttr(), rns::BasisAttr(), IntegerAttr(), IntegerAttr(),
      rns::TransformAttr(), builder.getDenseI32ArrayAttr(triples), UnitAttr(),
      first.getAccumulateAttr());
  for (Operation *member : members.take_front(merged))
    member->erase();
  return launch;
}

struct KernelFuseElementwise
    : public impl::KernelFuseElementwiseBase<KernelFuseElementwise> {
  using Base::Base;

  void runOnOperation() override {
    auto sameShape = [](Operation *first, Operation *op) {
      auto a = dyn_cast<kernel::ElementwiseOp>(first);
      auto b = dyn_cast<kernel::ElementwiseOp>(op);
      return a && b && sameIterationSpace(a, b);
    };
    rewriteGroups(
        getOperation(),
        [](Operation *first, Operation *op) {
          return sameSums(sumOfProducts(first), sumOfProducts(op));
        },
        runtime::kMaxSumOutputs, kLookAhead,
        [&](const KernelGroup &group, Operation *anchor) {
          Operation *merged = mergeSums(group.members, anchor);
          if (merged)
            ++numMerged;
          return merged ? merged : group.members.front();
        });
    rewriteGroups(getOperation(), sameShape, kMaxMembers, kLookAhead,
                  [&](const KernelGroup &group, Operation *anchor) -> Operation * {
                    kernel::ElementwiseOp merged = merge(group.members, anchor);
                    for (Operation *member : group.members)
                      member->erase();
                    ++numMerged;
                    numFused += group.members.size();
                    return merged;
                  });
  }
};
} // namespace
} // namespace ringfuse
