//===- Pipeline.cpp - ringfuse's pass pipeline, assembled in one place ----===//
#include "passes/Pipeline.h"

#include "passes/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace ringfuse {

void buildRingfusePipeline(mlir::OpPassManager &pm) {
  pm.addPass(createBFVSelectParameters());
  pm.addPass(createBFVExpandSlotSums());
  pm.addPass(createBFVToPoly());
  pm.addPass(createPolyToRNS());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createRNSAssignDomains());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  // Last before the kernels: canonicalization may rebuild transforms (and
  // would drop their chosen shapes).
  pm.addPass(createRNSChooseTransform());
  pm.addPass(createRNSToKernel());
}

void registerRingfusePipeline() {
  mlir::PassPipelineRegistration<>(
      "ringfuse-pipeline",
      "Traced bfv IR to the kernel program: parameters, bfv-to-poly, "
      "poly-to-rns (HPS), rns-assign-domains, rns-choose-transform, "
      "rns-to-kernel",
      buildRingfusePipeline);
}

} // namespace ringfuse
