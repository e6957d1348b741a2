//===- RNSDialect.cpp - the rns dialect -----------------------------------===//
#include "dialects/RNS/IR/RNSDialect.h"

#include "dialects/RNS/IR/RNSOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace ringfuse::rns;

#include "dialects/RNS/IR/RNSDialect.cpp.inc"

namespace {
/// Names each basis once, by its own name: `#QB = #rns.basis<QB: [...]>`.
struct RNSOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    auto basis = dyn_cast<BasisAttr>(attr);
    if (!basis)
      return AliasResult::NoAlias;
    os << basis.getName();
    return AliasResult::FinalAlias;
  }
};
} // namespace

void RNSDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/RNS/IR/RNSOps.cpp.inc"
      >();
  addInterfaces<RNSOpAsmInterface>();
}
