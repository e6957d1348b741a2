//===- Pipeline.cpp - ringfuse's pass pipeline, assembled in one place ----===//
#include "passes/Pipelines/Pipeline.h"

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

void addLowering(mlir::OpPassManager &pm, bool optimize) {
  BFVToPolyOptions rings;
  rings.sumBeforeRounding = optimize;
  pm.addPass(createBFVToPoly(rings));
  // Leveled HPS: a product's scale-up and the next product's rounding merge.
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(createPolyToRNS());
  // Before cse, which then shares the hoisted decompositions.
  if (optimize)
    pm.addPass(createRNSHoistRotations());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // Before the domains are chosen, so that the sums stay in evaluation form.
  if (optimize)
    pm.addPass(createRNSSumBeforeDivision());
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
  // The whole-circuit rewrites at the scheme level, where sums, products
  // and rotations are still visible as such (N is known from here on).
  if (options.optimize) {
    pm.addPass(createBFVBabyStepGiantStep());
    pm.addPass(createBFVPreparePlaintextInputs());
  }
  BFVLimitGaloisKeysOptions galoisKeys;
  galoisKeys.maxKeys = options.maxGaloisKeys;
  galoisKeys.maxBytes = options.maxGaloisKeyBytes;
  pm.addPass(createBFVLimitGaloisKeys(galoisKeys));
  if (options.optimize)
    pm.addPass(createBFVLazyRelinearize());
  // The one place the variant is resolved: bfv-choose-variant records it
  // (and lhps's levels), refusing a name that is no #bfv.variant.
  BFVChooseVariantOptions variants;
  variants.reserveDepth = options.reserveDepth;
  variants.optimize = options.optimize;
  if (options.variant != "auto")
    variants.candidates = {options.variant};
  pm.addPass(createBFVChooseVariant(variants));
  addLowering(pm, options.optimize);
  // Last before the kernels: canonicalization may rebuild transforms (and
  // would drop their chosen shapes).
  RNSChooseTransformOptions transforms;
  transforms.kinds.assign(options.transforms.begin(), options.transforms.end());
  pm.addPass(createRNSChooseTransform(transforms));
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
