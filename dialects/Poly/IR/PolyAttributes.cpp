//===- PolyAttributes.cpp - poly attributes -------------------------------===//
#include "dialects/Poly/IR/PolyAttributes.h"

#include "dialects/Common/IntegerListSyntax.h"
#include "dialects/Common/NumberTheory.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace ringfuse::poly;

#define GET_ATTRDEF_CLASSES
#include "dialects/Poly/IR/PolyAttributes.cpp.inc"

void PolyDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Poly/IR/PolyAttributes.cpp.inc"
      >();
}

Attribute RingAttr::parse(AsmParser &parser, Type) {
  SMLoc start = parser.getCurrentLocation();
  unsigned degree;
  SmallVector<uint64_t> moduli;
  if (parser.parseLess() || parser.parseKeyword("N") || parser.parseEqual() ||
      parser.parseInteger(degree) || parser.parseComma() ||
      parser.parseKeyword("moduli") || parser.parseEqual() ||
      ringfuse::parseIntegerList(parser, moduli) || parser.parseGreater())
    return {};
  return parser.getChecked<RingAttr>(start, parser.getContext(), degree,
                                     moduli);
}

void RingAttr::print(AsmPrinter &printer) const {
  printer << "<N = " << getDegree() << ", moduli = ";
  ringfuse::printIntegerList(printer, getModuli());
  printer << ">";
}

LogicalResult RingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned degree, ArrayRef<uint64_t> moduli) {
  if (!ringfuse::isValidRingDegree(degree))
    return emitError() << "ring degree N must be a power of two in [2, "
                       << ringfuse::kMaxRingDegree << "], got " << degree;
  if (moduli.empty())
    return emitError() << "a ring needs at least one modulus";
  for (size_t i = 0; i < moduli.size(); ++i) {
    if (moduli[i] < 2)
      return emitError() << "modulus " << moduli[i] << " is below 2";
    for (size_t j = 0; j < i; ++j)
      if (std::gcd(moduli[i], moduli[j]) != 1)
        return emitError() << "moduli " << moduli[j] << " and " << moduli[i]
                           << " are not coprime, so they do not form an RNS "
                              "basis";
  }
  return success();
}

APInt RingAttr::getModulusProduct() const {
  ArrayRef<uint64_t> moduli = getModuli();
  unsigned width = 64 * moduli.size();
  APInt product(width, 1);
  for (uint64_t modulus : moduli)
    product *= APInt(width, modulus);
  return product;
}
