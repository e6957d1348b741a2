//===- RNSTypes.cpp - rns types -------------------------------------------===//
#include "dialects/RNS/IR/RNSTypes.h"

#include "dialects/Common/NumberTheory.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ringfuse::rns;

/// `coeff` or `eval`.
static ParseResult parseDomain(AsmParser &parser, bool &evaluation) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (keyword != "coeff" && keyword != "eval")
    return parser.emitError(loc, "expected the domain, coeff or eval");
  evaluation = keyword == "eval";
  return success();
}

static void printDomain(AsmPrinter &printer, bool evaluation) {
  printer << (evaluation ? "eval" : "coeff");
}

#define GET_TYPEDEF_CLASSES
#include "dialects/RNS/IR/RNSTypes.cpp.inc"

void RNSDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "dialects/RNS/IR/RNSTypes.cpp.inc"
      >();
}

/// A prime the NTT of degree N works with: 1 mod 2N, below 2^62.
static bool isNttFriendly(uint64_t m, unsigned degree) {
  return ringfuse::isPrime(m) && m % (2 * uint64_t(degree)) == 1 &&
         m < (uint64_t(1) << 62);
}

bool PolyType::hasEvaluationDomain(unsigned degree, BasisAttr basis) {
  return llvm::all_of(basis.getModuli(),
                      [&](uint64_t m) { return isNttFriendly(m, degree); });
}

LogicalResult PolyType::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned degree, BasisAttr basis,
                               bool evaluation) {
  if (!ringfuse::isValidRingDegree(degree))
    return emitError() << "ring degree N must be a power of two in [2, "
                       << ringfuse::kMaxRingDegree << "], got " << degree;
  if (!evaluation)
    return success();
  for (uint64_t m : basis.getModuli())
    if (!isNttFriendly(m, degree))
      return emitError() << "the evaluation domain needs NTT-friendly "
                            "primes (1 mod 2N = "
                         << 2 * uint64_t(degree) << ", below 2^62); " << m
                         << " in basis " << basis.getName() << " is not one";
  return success();
}
