//===- WordSizeCostModel.h - 32-bit or 64-bit words, from measurements -*- C++
//-*-===//
//
// What bfv-select-parameters' `word-bits=auto` decides by: HMult's measured
// device time with 64-bit words (60-bit primes) and with 32-bit words (30-bit
// primes) at parameter sets (bench/word_sizes.py, kept in
// passes/CostModels/data/word_size-costs.json and compiled in).
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_COSTMODELS_WORDSIZECOSTMODEL_H
#define RINGFUSE_PASSES_COSTMODELS_WORDSIZECOSTMODEL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace ringfuse {

class WordSizeCostTable {
public:
  struct Entry {
    unsigned logN = 0, logQ = 0, logP = 0;
    double microseconds64 = 0, microseconds32 = 0;
  };

  /// Parses {"source": ..., "date": "YYYY-MM-DD", "entries": [{"log_n",
  /// "log_q", "log_p", "us_64", "us_32"}, ...]}: every field required, the
  /// times positive. `source` names the table in error messages.
  static llvm::Expected<WordSizeCostTable> parse(llvm::StringRef json,
                                                 llvm::StringRef source);
  /// The table at `path`, or the built-in one when `path` is empty.
  static llvm::Expected<WordSizeCostTable> load(llvm::StringRef path);

  /// The word size whose programs were measured faster at the entry of ring
  /// degree 2^logN nearest in log Q to `logQ`: 32 or 64; 64 where no entry
  /// has that degree (32-bit words were not measured to win there).
  unsigned fasterWordBits(unsigned logN, unsigned logQ) const;

  const std::vector<Entry> &entries() const { return entries_; }

private:
  std::vector<Entry> entries_;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_COSTMODELS_WORDSIZECOSTMODEL_H
