//===- ParameterRewriting.cpp - swap a module's BFV parameters ------------===//
#include "passes/Transforms/ParameterRewriting.h"

#include "dialects/BFV/IR/BFVTypes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;

namespace ringfuse {

void replaceParameters(ModuleOp module, bfv::ParamsAttr params) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](bfv::ParamsAttr) { return params; });
  replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

bfv::ParamsAttr findParameters(ModuleOp module) {
  bfv::ParamsAttr found;
  bool conflict = false;
  module.walk([&](Operation *op) {
    auto visit = [&](Type type) {
      bfv::ParamsAttr params;
      if (auto ct = dyn_cast<bfv::CiphertextType>(type))
        params = ct.getParams();
      else if (auto pt = dyn_cast<bfv::PlaintextType>(type))
        params = pt.getParams();
      if (params && found && params != found)
        conflict = true;
      if (params)
        found = params;
    };
    for (Type type : op->getResultTypes())
      visit(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          visit(arg.getType());
  });
  if (conflict) {
    module.emitError() << "the circuit mixes parameter sets";
    return {};
  }
  if (!found)
    module.emitError() << "the module has no bfv values";
  return found;
}

} // namespace ringfuse
