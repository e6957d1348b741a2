//===- Pipeline.h - ringfuse's pass pipeline --------------------*- C++ -*-===//
#ifndef RINGFUSE_PASSES_PIPELINE_H
#define RINGFUSE_PASSES_PIPELINE_H

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace ringfuse {

/// bfv-select-parameters, bfv-expand-slot-sums, bfv-to-poly, poly-to-rns,
/// canonicalize, cse, rns-to-kernel.
void buildRingfusePipeline(mlir::OpPassManager &pm);
/// `ringfuse-opt --ringfuse-pipeline`.
void registerRingfusePipeline();

} // namespace ringfuse

#endif // RINGFUSE_PASSES_PIPELINE_H
