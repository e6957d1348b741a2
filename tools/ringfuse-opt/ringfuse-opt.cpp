//===- ringfuse-opt.cpp - runs ringfuse pass pipelines on .mlir files -----===//
#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/Poly/IR/PolyDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"
#include "passes/Passes.h"
#include "passes/Pipelines/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  // The names of #bfv.variant, one a line: the one list the Python package
  // validates rf.compile's `variant` against.
  if (llvm::is_contained(llvm::ArrayRef(argv, argc), llvm::StringRef("--list-variants"))) {
    for (uint32_t value = 0; value <= ringfuse::bfv::getMaxEnumValForVariant();
         ++value)
      llvm::outs() << ringfuse::bfv::stringifyVariant(
                          *ringfuse::bfv::symbolizeVariant(value))
                   << "\n";
    return 0;
  }
  mlir::DialectRegistry registry;
  registry.insert<ringfuse::bfv::BFVDialect, ringfuse::poly::PolyDialect,
                  ringfuse::rns::RNSDialect, ringfuse::kernel::KernelDialect,
                  mlir::func::FuncDialect>();
  ringfuse::registerRingfusePasses();
  ringfuse::registerRingfusePipeline();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "ringfuse: BFV circuits to fused kernels\n", registry));
}
