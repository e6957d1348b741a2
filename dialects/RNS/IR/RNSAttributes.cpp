//===- RNSAttributes.cpp - rns attributes ---------------------------------===//
#include "dialects/RNS/IR/RNSAttributes.h"

#include "dialects/Common/IntegerListSyntax.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace ringfuse::rns;

#define GET_ATTRDEF_CLASSES
#include "dialects/RNS/IR/RNSAttributes.cpp.inc"

void RNSDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/RNS/IR/RNSAttributes.cpp.inc"
      >();
}

Attribute BasisAttr::parse(AsmParser &parser, Type) {
  SMLoc start = parser.getCurrentLocation();
  StringRef name;
  SmallVector<uint64_t> moduli;
  if (parser.parseLess() || parser.parseKeyword(&name) || parser.parseColon() ||
      ringfuse::parseIntegerList(parser, moduli) || parser.parseGreater())
    return {};
  return parser.getChecked<BasisAttr>(start, parser.getContext(), name, moduli);
}

void BasisAttr::print(AsmPrinter &printer) const {
  printer << "<" << getName() << ": ";
  ringfuse::printIntegerList(printer, getModuli());
  printer << ">";
}

LogicalResult BasisAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, ArrayRef<uint64_t> moduli) {
  if (name.empty())
    return emitError() << "a basis needs a name";
  if (moduli.empty())
    return emitError() << "basis " << name << " has no moduli";
  for (size_t i = 0; i < moduli.size(); ++i) {
    if (moduli[i] < 2 || moduli[i] >= (uint64_t(1) << 63))
      return emitError() << "basis " << name << ": modulus " << moduli[i]
                         << " is outside [2, 2^63)";
    for (size_t j = 0; j < i; ++j)
      if (std::gcd(moduli[i], moduli[j]) != 1)
        return emitError() << "basis " << name << ": moduli " << moduli[j]
                           << " and " << moduli[i] << " are not coprime";
  }
  return success();
}

bool BasisAttr::contains(BasisAttr other) const {
  return llvm::all_of(other.getModuli(), [&](uint64_t m) {
    return llvm::is_contained(getModuli(), m);
  });
}
