//===- KernelFuseElementwise.cpp - independent generated kernels as one ---===//
//
// rns-to-kernel gives each tree of elementwise ops its own generated kernel.
// Trees that share no value, such as the three products of a ciphertext
// tensor (x0 y0, x0 y1 + x1 y0, x1 y1), still launch one after another, each
// a kernel that fills a fraction of the GPU at small N and reads its inputs
// again. This pass merges each group of independent `kernel.elementwise` ops
// over one degree and basis (gathered as KernelGroups.h says) into one op
// whose body computes every member's outputs from the union of their inputs:
// one launch, and each shared input read once.
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/Analyses/KernelGroups.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"

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

struct KernelFuseElementwise
    : public impl::KernelFuseElementwiseBase<KernelFuseElementwise> {
  using Base::Base;

  void runOnOperation() override {
    auto sameShape = [](Operation *first, Operation *op) {
      auto a = dyn_cast<kernel::ElementwiseOp>(first);
      auto b = dyn_cast<kernel::ElementwiseOp>(op);
      return a && b && sameIterationSpace(a, b);
    };
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
