//===- Pipeline.h - ringfuse's pass pipeline --------------------*- C++ -*-===//
#ifndef RINGFUSE_PASSES_PIPELINE_H
#define RINGFUSE_PASSES_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace ringfuse {

struct RingfusePipelineOptions
    : public mlir::PassPipelineOptions<RingfusePipelineOptions> {
  Option<std::string> variant{
      *this, "variant",
      llvm::cl::desc("The BFV multiplication variant: hps, lhps (leveled "
                     "HPS: bfv-choose-levels sets each product's level), "
                     "chps (compact HPS) or auto (bfv-choose-variant picks "
                     "by the cost model)"),
      llvm::cl::init("hps")};
};

/// bfv-select-parameters, bfv-expand-slot-sums, (bfv-choose-levels for
/// lhps,) bfv-to-poly, poly-to-rns, canonicalize, cse, rns-assign-domains,
/// rns-choose-transform, rns-to-kernel.
void buildRingfusePipeline(mlir::OpPassManager &pm,
                           const RingfusePipelineOptions &options);
/// `ringfuse-opt --ringfuse-pipeline` (`='variant=lhps'`).
void registerRingfusePipeline();

} // namespace ringfuse

#endif // RINGFUSE_PASSES_PIPELINE_H
