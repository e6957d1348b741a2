//===- RNSAttributes.cpp - rns attributes ---------------------------------===//
#include "dialects/RNS/IR/RNSAttributes.h"

#include "dialects/Common/IntegerListSyntax.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "llvm/ADT/TypeSwitch.h"

#include <numeric>

using namespace mlir;
using namespace ringfuse::rns;

#include "dialects/RNS/IR/RNSEnums.cpp.inc"

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

bool BasisAttr::sharesModulusWith(BasisAttr other) const {
  return llvm::any_of(other.getModuli(), [&](uint64_t m) {
    return llvm::is_contained(getModuli(), m);
  });
}

std::string TransformAttr::transformProblem(TransformKind kind, unsigned logN1,
                                            unsigned radix, unsigned ot,
                                            unsigned degree,
                                            ArrayRef<uint64_t> moduli) {
  // Lazy butterflies keep values below 4q, which must fit the 64-bit word.
  for (uint64_t q : moduli)
    if (q >= uint64_t(1) << 62)
      return "modulus " + std::to_string(q) +
             " does not fit 64-bit words (needs q < 2^62)";
  unsigned logN = 0;
  while (degree && (1u << logN) < degree)
    ++logN;
  if (kind == TransformKind::dgt) {
    // dgt.h fixes the four-step matrix; nothing is left to tune.
    if (radix != 0 || ot != 0)
      return "the DGT has a fixed split: radix and ot must be 0";
    if (degree == 0)
      return logN1 <= 8 ? "" : "the DGT's log2 rows is at most 8";
    if (logN < 2 || logN > 17)
      return "the DGT needs N in [2^2, 2^17], got " + std::to_string(degree);
    if (logN1 != (logN - 1) / 2)
      return "the DGT of N = " + std::to_string(degree) + " has 2^" +
             std::to_string((logN - 1) / 2) + " rows, so logN1 must be " +
             std::to_string((logN - 1) / 2);
    return "";
  }
  const runtime::NttShape shape{logN1, radix, ot};
  const char *problem = degree ? runtime::nttShapeProblem(logN, shape)
                               : runtime::nttShapeProblem(shape);
  if (!problem)
    return "";
  return std::string("unsupported NTT shape: ") + problem;
}

LogicalResult
TransformAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      TransformKind kind, unsigned logN1, unsigned radix,
                      unsigned ot) {
  std::string problem =
      transformProblem(kind, logN1, radix, ot, /*degree=*/0, {});
  if (!problem.empty())
    return emitError() << problem;
  return success();
}
