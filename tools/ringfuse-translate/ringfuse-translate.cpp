//===- ringfuse-translate.cpp - prints kernel programs as source ----------===//
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/Emit/EmitCpp.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

static void registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<ringfuse::bfv::BFVDialect, ringfuse::rns::RNSDialect,
                  ringfuse::kernel::KernelDialect, mlir::func::FuncDialect>();
}

int main(int argc, char **argv) {
  mlir::TranslateFromMLIRRegistration emitCpp(
      "emit-cpp", "the kernel program as C++ for the CPU driver",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return ringfuse::emitProgram(llvm::cast<mlir::ModuleOp>(op), os,
                                     ringfuse::EmitTarget::Cpu);
      },
      registerDialects);
  mlir::TranslateFromMLIRRegistration emitCuda(
      "emit-cuda", "the kernel program as CUDA for the CUDA driver",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return ringfuse::emitProgram(llvm::cast<mlir::ModuleOp>(op), os,
                                     ringfuse::EmitTarget::Cuda);
      },
      registerDialects);
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "ringfuse-translate"));
}
