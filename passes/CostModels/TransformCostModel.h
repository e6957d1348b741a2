//===- TransformCostModel.h - what an NTT or DGT costs on the GPU -*- C++ -*-===//
//
// The costs rns-choose-transform compares: measured medians from the
// autotuner's table (bench/tune_transforms.py, passes/CostModels/data/transform-costs.json)
// where the table has the ring degree and direction, an analytic roofline
// estimate elsewhere.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_COSTMODELS_TRANSFORMCOSTMODEL_H
#define RINGFUSE_PASSES_COSTMODELS_TRANSFORMCOSTMODEL_H

#include "dialects/RNS/IR/RNSAttributes.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ringfuse {

/// One transform configuration: kind and split, as the attribute.
struct TransformShape {
  rns::TransformKind kind = rns::TransformKind::ntt;
  unsigned logN1 = 0;
  unsigned radix = 4;
  unsigned ot = 0;

  bool operator==(const TransformShape &other) const {
    return kind == other.kind && logN1 == other.logN1 && radix == other.radix &&
           ot == other.ot;
  }
  rns::TransformAttr toAttr(mlir::MLIRContext *context) const {
    return rns::TransformAttr::get(context, kind, logN1, radix, ot);
  }
};

/// The autotuner's measurements: one median per configuration, degree,
/// limb count and direction.
class TransformCostTable {
public:
  struct Entry {
    TransformShape shape;
    unsigned logN = 0;
    unsigned limbs = 0;
    bool forward = true;
    double medianMicroseconds = 0;
  };

  /// Parses the JSON the autotuner writes:
  ///   {"device": ..., "date": "YYYY-MM-DD", "method": ...,
  ///    "entries": [{"transform": "ntt"|"dgt", "logN", "limbs",
  ///                 "direction": "forward"|"inverse", "logN1", "radix",
  ///                 "ot", "median_us"}, ...]}
  /// Every field is required; every entry's shape must be one the GPU runs.
  /// An entry may name its word size as older tables did ("word": 64); any
  /// other is refused.
  /// `source` names the table in error messages.
  static llvm::Expected<TransformCostTable> parse(llvm::StringRef json,
                                                  llvm::StringRef source);
  /// The file at `path`, or the table compiled into the binary (from
  /// passes/CostModels/data/transform-costs.json at build time) when `path` is empty.
  static llvm::Expected<TransformCostTable> load(llvm::StringRef path);

  llvm::ArrayRef<Entry> entries() const { return entries_; }
  const std::string &device() const { return device_; }

private:
  std::string device_, date_, method_;
  std::vector<Entry> entries_;
};

/// The cheapest allowed configuration for one rns.ntt / rns.intt.
class TransformCostModel {
public:
  struct Choice {
    TransformShape shape;
    double microseconds = 0;
    bool fromTable = false;
  };

  /// `kinds`: what the target can run (the pass option).
  TransformCostModel(TransformCostTable table,
                     llvm::ArrayRef<rns::TransformKind> kinds);

  /// For limbs of `degree` words over `moduli`. Where the table has entries
  /// for this degree and direction (of allowed kinds that fit the moduli),
  /// the cheapest of them, each scaled linearly to the op's limb
  /// count: median_us * limbs / entry limbs (a launch transforms all limbs
  /// at once, and at the tuned sizes the GPU is full, so time grows with
  /// the data). Otherwise the shape the analytic model likes best among
  /// the supported ones. Nothing when no allowed kind can run it.
  std::optional<Choice> choose(unsigned degree, llvm::ArrayRef<uint64_t> moduli,
                               bool forward) const;

  /// The roofline estimate, in microseconds, of one transform of `limbs`
  /// limbs of N = 2^logN words (see the definition for the formula).
  static double modelMicroseconds(const TransformShape &shape, unsigned logN,
                                  unsigned limbs);
  /// The part of a transform's time that is kernel launches (one per pass
  /// over the data), which transforms running side by side overlap.
  static double launchMicroseconds(const TransformShape &shape);

private:
  bool allowed(const TransformShape &shape, unsigned degree,
               llvm::ArrayRef<uint64_t> moduli) const;

  TransformCostTable table_;
  llvm::SmallVector<rns::TransformKind> kinds_;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_COSTMODELS_TRANSFORMCOSTMODEL_H
