//===- VariantCostModel.h - what a lowered circuit costs on the GPU -*- C++ -*-===//
//
// The estimate variant=auto compares: a circuit lowered to the rns dialect
// (after rns-assign-domains and rns-fuse), priced op by op. Transforms come
// from the TransformCostModel (the autotuner's table); base conversions and
// scale-and-round from a fit to their measured times; elementwise ops and the
// key-switching inner product from the bytes they move. Independent library
// kernels overlap their launches, as kernel-concurrent runs them.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_VARIANTCOSTMODEL_H
#define RINGFUSE_PASSES_VARIANTCOSTMODEL_H

#include "passes/TransformCostModel.h"

#include "mlir/IR/BuiltinOps.h"

namespace ringfuse {

/// One kernel's time, split into its launch latency (which kernels running
/// side by side overlap) and its work (which they share the GPU for).
struct KernelCost {
  double launch = 0, work = 0;
};

class CircuitCostModel {
public:
  explicit CircuitCostModel(const TransformCostModel &transforms)
      : transforms_(transforms) {}

  /// Microseconds for one run of every function of `module` (rns dialect),
  /// with independent library kernels overlapping as kernel-concurrent
  /// runs them.
  double microseconds(mlir::ModuleOp module) const;
  /// Microseconds for one op alone; 0 for views and constants.
  double microseconds(mlir::Operation *op) const;

private:
  KernelCost cost(mlir::Operation *op) const;

  const TransformCostModel &transforms_;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_VARIANTCOSTMODEL_H
