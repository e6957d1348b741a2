//===- BFVDialect.cpp - the bfv dialect -----------------------------------===//
#include "dialects/BFV/IR/BFVDialect.h"

#include "dialects/BFV/IR/BFVOps.h"
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
