//===- WordSizeCostModel.cpp - 32-bit or 64-bit words, from measurements --===//
#include "passes/CostModels/WordSizeCostModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdlib>
#include <optional>

namespace ringfuse {
namespace {

// `const char kBuiltinWordSizeCosts[]`, so that the static compiler binaries
// need no file at run time.
#include "passes/CostModels/WordSizeCosts.inc"

llvm::Error tableError(llvm::StringRef source, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "word-size table " + source + ": " + message);
}

} // namespace

llvm::Expected<WordSizeCostTable>
WordSizeCostTable::parse(llvm::StringRef json, llvm::StringRef source) {
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return tableError(source,
                      "malformed JSON: " + llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root)
    return tableError(source, "the top level must be an object");
  for (llvm::StringRef key : {"source", "date"})
    if (!root->getString(key))
      return tableError(source, "missing string field '" + key + "'");
  const llvm::json::Array *entries = root->getArray("entries");
  if (!entries)
    return tableError(source, "missing array field 'entries'");
  WordSizeCostTable table;
  for (size_t i = 0; i < entries->size(); ++i) {
    const llvm::json::Object *object = (*entries)[i].getAsObject();
    std::string where = llvm::formatv("entry {0}", i).str();
    if (!object)
      return tableError(source, where + " is not an object");
    Entry entry;
    for (auto [key, field] :
         {std::pair(llvm::StringRef("log_n"), &entry.logN),
          std::pair(llvm::StringRef("log_q"), &entry.logQ),
          std::pair(llvm::StringRef("log_p"), &entry.logP)}) {
      std::optional<int64_t> value = object->getInteger(key);
      if (!value || *value < 1 || *value > 4096)
        return tableError(source,
                          where + ": missing or invalid integer '" + key + "'");
      *field = unsigned(*value);
    }
    if (entry.logN > 17)
      return tableError(source, where + ": 'log_n' must be in [1, 17]");
    for (auto [key, field] :
         {std::pair(llvm::StringRef("us_64"), &entry.microseconds64),
          std::pair(llvm::StringRef("us_32"), &entry.microseconds32)}) {
      std::optional<double> value = object->getNumber(key);
      if (!value || !(*value > 0) || !std::isfinite(*value))
        return tableError(source,
                          where + ": '" + key + "' must be a positive number");
      *field = *value;
    }
    table.entries_.push_back(entry);
  }
  return table;
}

llvm::Expected<WordSizeCostTable>
WordSizeCostTable::load(llvm::StringRef path) {
  if (path.empty())
    return parse(kBuiltinWordSizeCosts, "(built in)");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return tableError(path, "cannot read it: " + file.getError().message());
  return parse((*file)->getBuffer(), path);
}

unsigned WordSizeCostTable::fasterWordBits(unsigned logN, unsigned logQ) const {
  const Entry *nearest = nullptr;
  for (const Entry &entry : entries_)
    if (entry.logN == logN &&
        (!nearest || std::abs(int(entry.logQ) - int(logQ)) <
                         std::abs(int(nearest->logQ) - int(logQ))))
      nearest = &entry;
  return nearest && nearest->microseconds32 < nearest->microseconds64 ? 32 : 64;
}

} // namespace ringfuse
