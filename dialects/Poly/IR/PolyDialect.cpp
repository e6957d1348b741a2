//===- PolyDialect.cpp - the poly dialect ---------------------------------===//
#include "dialects/Poly/IR/PolyDialect.h"

#include "dialects/Poly/IR/PolyOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace ringfuse::poly;

#include "dialects/Poly/IR/PolyDialect.cpp.inc"

namespace {
/// Names each ring once at the top of a module (`#ring = #poly.ring<...>`).
struct PolyOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (!isa<RingAttr>(attr))
      return AliasResult::NoAlias;
    os << "ring";
    return AliasResult::FinalAlias;
  }
};
} // namespace

void PolyDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "dialects/Poly/IR/PolyOps.cpp.inc"
      >();
  addInterfaces<PolyOpAsmInterface>();
}
