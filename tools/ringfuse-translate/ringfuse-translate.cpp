//===- ringfuse-translate.cpp - prints kernel programs as source ----------===//
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/Emit/EmitCpp.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

int main(int argc, char **argv) {
  mlir::TranslateFromMLIRRegistration emitCpp(
      "emit-cpp", "the kernel program as C++ against the runtime's program ABI",
      [](mlir::Operation *op, llvm::raw_ostream &os) {
        return ringfuse::emitCpp(llvm::cast<mlir::ModuleOp>(op), os);
      },
      [](mlir::DialectRegistry &registry) {
        registry.insert<ringfuse::bfv::BFVDialect, ringfuse::rns::RNSDialect,
                        ringfuse::kernel::KernelDialect, mlir::func::FuncDialect>();
      });
  return mlir::failed(mlir::mlirTranslateMain(argc, argv, "ringfuse-translate"));
}
