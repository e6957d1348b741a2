//===- BFVAttributes.cpp - bfv attributes ---------------------------------===//
#include "dialects/BFV/IR/BFVAttributes.h"

#include "dialects/Common/IntegerListSyntax.h"
#include "dialects/Common/NumberTheory.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ringfuse::bfv;

#include "dialects/BFV/IR/BFVEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/BFV/IR/BFVAttributes.cpp.inc"

void BFVDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/BFV/IR/BFVAttributes.cpp.inc"
      >();
}

Attribute ParamsAttr::parse(AsmParser &parser, Type) {
  uint64_t t = 0;
  unsigned n = 0, dnum = 0;
  SmallVector<uint64_t> q, p;
  llvm::StringSet<> seen;
  auto parseEntry = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc) << "'" << key << "' appears twice";
    if (key == "t")
      return parser.parseInteger(t);
    if (key == "N")
      return parser.parseInteger(n);
    if (key == "Q")
      return ringfuse::parseIntegerList(parser, q);
    if (key == "P")
      return ringfuse::parseIntegerList(parser, p);
    if (key == "dnum")
      return parser.parseInteger(dnum);
    return parser.emitError(loc)
           << "unknown parameter '" << key << "' (expected t, N, Q, P or dnum)";
  };
  SMLoc start = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseCommaSeparatedList(parseEntry) ||
      parser.parseGreater())
    return {};
  if (!seen.contains("t")) {
    parser.emitError(start) << "#bfv.params needs the plaintext modulus 't'";
    return {};
  }
  return parser.getChecked<ParamsAttr>(start, parser.getContext(), t, n, q, p,
                                       dnum);
}

void ParamsAttr::print(AsmPrinter &printer) const {
  printer << "<t = " << getPlaintextModulus();
  if (hasRingDegree())
    printer << ", N = " << getRingDegree();
  auto printList = [&](StringRef name, ArrayRef<uint64_t> primes) {
    if (primes.empty())
      return;
    printer << ", " << name << " = ";
    ringfuse::printIntegerList(printer, primes);
  };
  printList("Q", getCiphertextModulus());
  printList("P", getSpecialModulus());
  if (getDnum())
    printer << ", dnum = " << getDnum();
  printer << ">";
}

LogicalResult ParamsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 uint64_t t, unsigned n, ArrayRef<uint64_t> q,
                                 ArrayRef<uint64_t> p, unsigned dnum) {
  if (t < 2)
    return emitError() << "plaintext modulus t must be at least 2, got " << t;
  if (t >= (uint64_t(1) << 63))
    return emitError() << "plaintext modulus t must be below 2^63, got " << t;
  if (n != 0 && !ringfuse::isValidRingDegree(n))
    return emitError() << "ring degree N must be a power of two in [2, "
                       << ringfuse::kMaxRingDegree << "], got " << n;
  if (!q.empty() && n == 0)
    return emitError() << "ciphertext modulus Q needs the ring degree N "
                          "(its primes must be 1 mod 2N)";
  if (!p.empty() && q.empty())
    return emitError() << "special modulus P needs a ciphertext modulus Q";
  if (dnum != 0 && (p.empty() || dnum > q.size()))
    return emitError() << "dnum = " << dnum
                       << " needs P and at most |Q| = " << q.size()
                       << " digits";

  llvm::SmallDenseSet<uint64_t> seen;
  auto verifyPrimes = [&](ArrayRef<uint64_t> primes,
                          StringRef basis) -> LogicalResult {
    for (uint64_t prime : primes) {
      if (!ringfuse::isPrime(prime))
        return emitError() << basis << " entry " << prime << " is not a prime";
      if (prime >= (uint64_t(1) << ringfuse::kMaxRnsPrimeBits))
        return emitError() << basis << " prime " << prime
                           << " does not fit in " << ringfuse::kMaxRnsPrimeBits
                           << " bits";
      if (prime % (2 * uint64_t(n)) != 1)
        return emitError() << basis << " prime " << prime
                           << " is not 1 mod 2N = " << 2 * uint64_t(n)
                           << ", so it has no negacyclic NTT";
      if (t % prime == 0)
        return emitError() << basis << " prime " << prime
                           << " divides the plaintext modulus t = " << t;
      if (!seen.insert(prime).second)
        return emitError() << "prime " << prime
                           << " appears more than once in Q and P";
    }
    return success();
  };
  return failure(failed(verifyPrimes(q, "Q")) || failed(verifyPrimes(p, "P")));
}

bool ParamsAttr::supportsBatching() const {
  return hasRingDegree() &&
         ringfuse::supportsBatching(getPlaintextModulus(), getRingDegree());
}

unsigned ParamsAttr::getDigitCount() const {
  if (getDnum())
    return getDnum();
  size_t q = getCiphertextModulus().size(), p = getSpecialModulus().size();
  return p ? (q + p - 1) / p : 0;
}

std::string ParamsAttr::batchingObstacle() const {
  if (!hasRingDegree() || supportsBatching())
    return "";
  uint64_t t = getPlaintextModulus();
  if (!ringfuse::isPrime(t))
    return "t = " + std::to_string(t) + " is not a prime";
  return "t = " + std::to_string(t) + " is not 1 mod 2N = " +
         std::to_string(2 * uint64_t(getRingDegree()));
}

namespace ringfuse::bfv {

Variant variantOf(ModuleOp module) {
  auto attr = module->getAttrOfType<VariantAttr>(BFVDialect::kVariantAttrName);
  return attr ? attr.getValue() : Variant::hps;
}

void setVariant(ModuleOp module, Variant variant) {
  module->setAttr(BFVDialect::kVariantAttrName,
                  VariantAttr::get(module.getContext(), variant));
}

std::string variantNames() {
  std::string names;
  const uint32_t last = getMaxEnumValForVariant();
  for (uint32_t value = 0; value <= last; ++value) {
    if (value > 0)
      names += value == last ? " or " : ", ";
    names += stringifyVariant(*symbolizeVariant(value)).str();
  }
  return names;
}

} // namespace ringfuse::bfv
