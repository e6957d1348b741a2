//===- Pipeline.h - ringfuse's pass pipeline --------------------*- C++ -*-===//
#ifndef RINGFUSE_PASSES_PIPELINES_PIPELINE_H
#define RINGFUSE_PASSES_PIPELINES_PIPELINE_H

#include "dialects/BFV/IR/BFVAttributes.h"
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
      llvm::cl::desc("The BFV multiplication variant (#bfv.variant: hps, "
                     "lhps, chps, behz), or auto: bfv-choose-variant picks by "
                     "the cost model. Resolved once, into the module's "
                     "bfv.variant, which the passes read"),
      llvm::cl::init("hps")};
  ListOption<std::string> transforms{
      *this, "transforms",
      llvm::cl::desc("Transform kinds the programs may run (#rns.transform "
                     "kinds: ntt, dgt); rns-choose-transform picks among "
                     "them by measured cost (default: ntt)")};
  Option<unsigned> reserveDepth{
      *this, "reserve-depth",
      llvm::cl::desc("Further products by fresh ciphertexts (each "
                     "relinearized) the outputs must allow: parameter "
                     "selection leaves room for them, and leveled HPS does "
                     "not spend it"),
      llvm::cl::init(0)};
  Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Whole-circuit optimizations: baby-step giant-step, "
                     "lazy relinearization, rotations sharing one "
                     "decomposition, one division by P per sum (default on)"),
      llvm::cl::init(true)};
  Option<unsigned> maxGaloisKeys{
      *this, "max-galois-keys",
      llvm::cl::desc("Most Galois keys the program may need; rotations "
                     "beyond come from power-of-two keys (0: no limit)"),
      llvm::cl::init(0)};
  Option<uint64_t> maxGaloisKeyBytes{
      *this, "max-galois-key-bytes",
      llvm::cl::desc("Most bytes the Galois keys may take (0: no limit)"),
      llvm::cl::init(0)};
};

/// bfv-choose-levels, its outputs allowing `reserveDepth` further products.
void addLevelChoice(mlir::OpPassManager &pm, unsigned reserveDepth);

/// From the bfv level (chosen parameters, the module's bfv.variant and, for
/// lhps, the products' levels) to the rns level: bfv-to-poly, canonicalize,
/// poly-to-rns, (optimized: rns-hoist-rotations,) canonicalize, cse,
/// (optimized: rns-sum-before-division,) rns-assign-domains, canonicalize,
/// cse, rns-fuse. bfv-choose-variant prices what it produces: the rns-level
/// program the kernels are chosen for.
void addLowering(mlir::OpPassManager &pm, bool optimize);

/// bfv-select-parameters, bfv-expand-slot-sums, (optimized:
/// bfv-baby-step-giant-step,) bfv-limit-galois-keys, (optimized:
/// bfv-lazy-relinearize,) bfv-choose-variant (the
/// option's variant, or every one for auto: the choice is made here, once),
/// the lowering, rns-choose-transform, rns-to-kernel and the kernel passes.
void buildRingfusePipeline(mlir::OpPassManager &pm,
                           const RingfusePipelineOptions &options);
/// `ringfuse-opt --ringfuse-pipeline` (`='variant=lhps reserve-depth=2'`).
void registerRingfusePipeline();

} // namespace ringfuse

#endif // RINGFUSE_PASSES_PIPELINES_PIPELINE_H
