//===- ringfuse-opt.cpp - runs ringfuse pass pipelines on .mlir files -----===//
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/Poly/IR/PolyDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"
#include "passes/Passes.h"
#include "passes/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
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
