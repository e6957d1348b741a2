//===- ringfuse-opt.cpp - runs ringfuse pass pipelines on .mlir files -----===//
#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/Poly/IR/PolyDialect.h"
#include "dialects/RNS/IR/RNSAttributes.h"
#include "dialects/RNS/IR/RNSDialect.h"
#include "passes/Passes.h"
#include "passes/Pipelines/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

/// Every name of an ODS enum, one a line.
template <typename Enum>
void printNames(uint32_t maxValue, std::optional<Enum> (*symbolize)(uint32_t),
                llvm::StringRef (*stringify)(Enum)) {
  for (uint32_t value = 0; value <= maxValue; ++value)
    llvm::outs() << stringify(*symbolize(value)) << "\n";
}

int main(int argc, char **argv) {
  // The names of #bfv.variant and of the #rns.transform kinds: the one lists
  // the Python package validates rf.compile's `variant` and `transforms`
  // against.
  auto asked = [&](llvm::StringRef flag) {
    return llvm::is_contained(llvm::ArrayRef(argv, argc), flag);
  };
  if (asked("--list-variants")) {
    printNames(ringfuse::bfv::getMaxEnumValForVariant(),
               ringfuse::bfv::symbolizeVariant,
               ringfuse::bfv::stringifyVariant);
    return 0;
  }
  if (asked("--list-transforms")) {
    printNames(ringfuse::rns::getMaxEnumValForTransformKind(),
               ringfuse::rns::symbolizeTransformKind,
               ringfuse::rns::stringifyTransformKind);
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
