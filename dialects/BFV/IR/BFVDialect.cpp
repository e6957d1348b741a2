//===- BFVDialect.cpp - the bfv dialect -----------------------------------===//
#include "dialects/BFV/IR/BFVDialect.h"

#include "dialects/BFV/IR/BFVOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace ringfuse::bfv;

#include "dialects/BFV/IR/BFVDialect.cpp.inc"

namespace {
/// Prints the parameter set once at the top of a module as `#params = ...`
/// rather than inside every type that carries it.
struct BFVOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (!isa<ParamsAttr>(attr))
      return AliasResult::NoAlias;
    os << "params";
    return AliasResult::FinalAlias;
  }
};
} // namespace

void BFVDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/BFV/IR/BFVOps.cpp.inc"
      >();
  addInterfaces<BFVOpAsmInterface>();
}

LogicalResult BFVDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == kVariantAttrName) {
    if (!isa<ModuleOp>(op) || !isa<VariantAttr>(attribute.getValue()))
      return op->emitOpError() << "'" << name
                               << "' is a #bfv.variant on a module";
    return success();
  }
  if (name == kVariantCostsAttrName) {
    auto costs = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!isa<ModuleOp>(op) || !costs ||
        llvm::any_of(costs, [](NamedAttribute cost) {
          return !symbolizeVariant(cost.getName().getValue()) ||
                 !isa<FloatAttr>(cost.getValue());
        }))
      return op->emitOpError()
             << "'" << name
             << "' is a dictionary of variants' costs (floats) on a module";
    return success();
  }
  return op->emitOpError() << "has the unknown bfv attribute '" << name << "'";
}
