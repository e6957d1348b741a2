//===- BFVPreparePlaintextInputs.cpp - plaintext inputs ready to multiply
//--===//
//
// A plaintext input that is only multiplied into ciphertexts costs the
// program, on every run, its lift to Q and its forward transform (and, after
// baby-step giant-step, its rotation): three launches for each diagonal of a
// matrix, most of a matrix-vector product's launches. The runtime can do that
// work where it binds the input, on the host, once per input: the program
// then reads the input already rotated, lifted and in evaluation form.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ringfuse {
#define GEN_PASS_DEF_BFVPREPAREPLAINTEXTINPUTS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// Whether every use of `value` is as the plaintext of a bfv.mul_plain.
bool onlyMultiplied(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    auto product = dyn_cast<bfv::MulPlainOp>(use.getOwner());
    return product && use.get() == product.getPlaintext() &&
           product.getCiphertext() != use.get();
  });
}

struct BFVPreparePlaintextInputs
    : public impl::BFVPreparePlaintextInputsBase<BFVPreparePlaintextInputs> {
  void runOnOperation() override {
    getOperation()->walk([&](func::FuncOp function) {
      if (function.isExternal())
        return;
      for (BlockArgument arg : function.getArguments()) {
        if (!isa<bfv::PlaintextType>(arg.getType()) || arg.use_empty())
          continue;
        int64_t steps = 0;
        if (arg.hasOneUse())
          if (auto rotation = dyn_cast<bfv::RotatePlainOp>(*arg.user_begin());
              rotation && onlyMultiplied(rotation.getResult())) {
            steps = rotation.getSteps();
            rotation.getResult().replaceAllUsesWith(arg);
            rotation.erase();
          }
        if (!onlyMultiplied(arg))
          continue;
        function.setArgAttr(
            arg.getArgNumber(), bfv::BFVDialect::kPreparedAttrName,
            IntegerAttr::get(IntegerType::get(&getContext(), 64), steps));
        ++numInputsPrepared;
      }
    });
  }
};
} // namespace
} // namespace ringfuse
