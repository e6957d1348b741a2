//===- VariantCostModel.h - what a lowered circuit costs on the GPU -*- C++ -*-===//
//
// The estimate variant=auto compares: a circuit lowered to the rns dialect
// (after rns-assign-domains and rns-fuse), priced op by op. Transforms come
// from the TransformCostModel (the autotuner's table); base conversions and
// scale-and-round from a fit to their measured times
// (data/kernel-costs.json, compiled in); elementwise ops and the
// key-switching inner product from the bytes they move. Independent library
// kernels overlap their launches, as kernel-concurrent runs them.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_COSTMODELS_VARIANTCOSTMODEL_H
#define RINGFUSE_PASSES_COSTMODELS_VARIANTCOSTMODEL_H

#include "passes/CostModels/TransformCostModel.h"

#include "mlir/IR/BuiltinOps.h"

namespace ringfuse {

/// One kernel's time, split into its launch latency (which kernels running
/// side by side overlap) and its work (which they share the GPU for).
struct KernelCost {
  double launch = 0, work = 0;
};

/// A launch's fitted time: fixed + MACs / rate + bytes / rate.
struct LaunchCost {
  double fixedMicroseconds = 0, macsPerMicrosecond = 1, bytesPerMicrosecond = 1;

  /// Its cost for `macs` and `bytes`, times `ratio` (a kernel priced by its
  /// measured ratio to this one).
  KernelCost of(double macs, double bytes, double ratio = 1) const;
};

/// data/kernel-costs.json: the fits of the library kernels other than the
/// transforms, and the ratios of BEHZ's kernels to them.
struct KernelCostTable {
  LaunchCost fastConversion, exactConversion, scaleRound, elementwise;
  double fastFloorRatio = 1, correctedConversionRatio = 1;

  /// Every fit and ratio of a table in that format, or why not.
  static llvm::Expected<KernelCostTable> parse(llvm::StringRef json);
  /// The table compiled in.
  static const KernelCostTable &builtin();
};

class CircuitCostModel {
public:
  explicit CircuitCostModel(
      const TransformCostModel &transforms,
      const KernelCostTable &kernels = KernelCostTable::builtin())
      : transforms_(transforms), kernels_(kernels) {}

  /// Microseconds for one run of every function of `module` (rns dialect),
  /// with independent library kernels overlapping as kernel-concurrent
  /// runs them.
  double microseconds(mlir::ModuleOp module) const;
  /// Microseconds for one op alone; 0 for views and constants.
  double microseconds(mlir::Operation *op) const;

private:
  KernelCost cost(mlir::Operation *op) const;

  const TransformCostModel &transforms_;
  const KernelCostTable &kernels_;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_COSTMODELS_VARIANTCOSTMODEL_H
