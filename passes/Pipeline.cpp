//===- Pipeline.cpp - ringfuse's pass pipeline, assembled in one place ----===//
#include "passes/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace ringfuse {

void addLevelChoice(mlir::OpPassManager &pm, unsigned reserveDepth) {
  BFVChooseLevelsOptions options;
  options.reserveDepth = reserveDepth;
  pm.addPass(createBFVChooseLevels(options));
}

void addVariantLowering(mlir::OpPassManager &pm, llvm::StringRef variant,
                        unsigned reserveDepth) {
  if (variant == "lhps")
    addLevelChoice(pm, reserveDepth);
  pm.addPass(createBFVToPoly(BFVToPolyOptions{variant.str()}));
  // Leveled HPS: a product's scale-up and the next product's rounding merge.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(createPolyToRNS(PolyToRNSOptions{variant.str()}));
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createRNSAssignDomains());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createRNSFuse());
}

void buildRingfusePipeline(mlir::OpPassManager &pm,
                           const RingfusePipelineOptions &options) {
  BFVSelectParametersOptions parameters;
  parameters.reserveDepth = options.reserveDepth;
  pm.addPass(createBFVSelectParameters(parameters));
  pm.addPass(createBFVExpandSlotSums());
  if (options.variant == "auto") {
    BFVChooseVariantOptions variants;
    variants.reserveDepth = options.reserveDepth;
    pm.addPass(createBFVChooseVariant(variants));
  }
  addVariantLowering(pm, options.variant, options.reserveDepth);
  // Last before the kernels: canonicalization may rebuild transforms (and
  // would drop their chosen shapes).
  pm.addPass(createRNSChooseTransform());
  pm.addPass(createRNSToKernel());
  pm.addPass(createKernelFuseElementwise());
  pm.addPass(createKernelConcurrent());
  pm.addPass(createKernelPlanSlots());
}

void registerRingfusePipeline() {
  mlir::PassPipelineRegistration<RingfusePipelineOptions>(
      "ringfuse-pipeline",
      "Traced bfv IR to the kernel program: parameters, (levels,) "
      "bfv-to-poly, poly-to-rns (HPS or BEHZ), rns-assign-domains, rns-fuse, "
      "rns-choose-transform, rns-to-kernel, kernel-fuse-elementwise, kernel-concurrent, "
      "kernel-plan-slots",
      buildRingfusePipeline);
}

} // namespace ringfuse
