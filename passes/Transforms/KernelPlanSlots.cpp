//===- KernelPlanSlots.cpp - buffers placed by liveness -------------------===//
//
// Each kernel.alloc gets a slot; allocations of one size whose lifetimes do
// not overlap share one. A buffer lives from its allocation to its last use
// (through views); the launches of a kernel.concurrent may run at the same
// time, so every buffer one of them touches lives until the group's end.
// The function records how many slots there are (`kernel.slots`).
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/IR/KernelOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ringfuse {
#define GEN_PASS_DEF_KERNELPLANSLOTS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

void planSlots(func::FuncOp func) {
  // Positions of the top-level ops; a nested op counts as its group.
  llvm::DenseMap<Operation *, unsigned> index;
  unsigned position = 0;
  for (Operation &op : func.getBody().front()) {
    op.walk([&](Operation *inner) { index[inner] = position; });
    ++position;
  }
  llvm::DenseMap<Value, unsigned> end;
  func.walk([&](Operation *op) {
    for (Value operand : op->getOperands()) {
      Value source = operand;
      while (auto view = source.getDefiningOp<kernel::ViewOp>())
        source = view.getSource();
      end[source] = std::max(end[source], index[op]);
    }
  });
  struct Slot {
    size_t words;
    unsigned busyUntil;
  };
  std::vector<Slot> slots;
  func.walk([&](kernel::AllocOp alloc) {
    size_t words = alloc.getBuffer().getType().words();
    unsigned start = index[alloc], finish = end.lookup(alloc.getBuffer());
    size_t chosen = slots.size();
    for (size_t s = 0; s < slots.size(); ++s)
      if (slots[s].words == words && slots[s].busyUntil < start) {
        chosen = s;
        break;
      }
    if (chosen == slots.size())
      slots.push_back({words, 0});
    slots[chosen].busyUntil = std::max(start, finish);
    alloc.setSlot(int64_t(chosen));
  });
  // Marks the function a planned program, which the dialect verifies whole.
  func->setAttr(kernel::KernelDialect::kSlotsAttrName,
                IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                 int64_t(slots.size())));
}

struct KernelPlanSlots : public impl::KernelPlanSlotsBase<KernelPlanSlots> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp function) {
      if (!function.isExternal())
        planSlots(function);
    });
  }
};
} // namespace
} // namespace ringfuse
