//===- Pipeline.h - ringfuse's pass pipeline --------------------*- C++ -*-===//
#ifndef RINGFUSE_PASSES_PIPELINE_H
#define RINGFUSE_PASSES_PIPELINE_H

#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringRef.h"

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
                     "chps (compact HPS), behz or auto (bfv-choose-variant "
                     "picks by the cost model)"),
      llvm::cl::init("hps")};
  Option<unsigned> reserveDepth{
      *this, "reserve-depth",
      llvm::cl::desc("Further products by fresh ciphertexts (each "
                     "relinearized) the outputs must allow: parameter "
                     "selection leaves room for them, and leveled HPS does "
                     "not spend it"),
      llvm::cl::init(0)};
};

/// bfv-choose-levels, its outputs allowing `reserveDepth` further products.
void addLevelChoice(mlir::OpPassManager &pm, unsigned reserveDepth);

/// From the bfv level (chosen parameters) to the rns level with `variant`
/// (auto: the module's ringfuse.variant): bfv-choose-levels for lhps,
/// bfv-to-poly, canonicalize, poly-to-rns, canonicalize, cse,
/// rns-assign-domains, canonicalize, cse, rns-fuse. bfv-choose-variant prices
/// what it produces: the rns-level program the kernels are chosen for.
void addVariantLowering(mlir::OpPassManager &pm, llvm::StringRef variant,
                        unsigned reserveDepth = 0);

/// bfv-select-parameters, bfv-expand-slot-sums, (bfv-choose-variant for
/// auto,) the variant's lowering, rns-choose-transform, rns-to-kernel.
void buildRingfusePipeline(mlir::OpPassManager &pm,
                           const RingfusePipelineOptions &options);
/// `ringfuse-opt --ringfuse-pipeline` (`='variant=lhps reserve-depth=2'`).
void registerRingfusePipeline();

} // namespace ringfuse

#endif // RINGFUSE_PASSES_PIPELINE_H
