//===- opt_fuzzer.cpp - libFuzzer target: ringfuse-opt and ringfuse-translate
//-===//
//
// The compiler reads any IR a user hands it. Each input is MLIR text, parsed
// with every ringfuse dialect loaded; a module that verifies is printed as a
// program for both targets where it is kernel IR (ringfuse-translate
// --emit-cpp / --emit-cuda) and goes through the whole pipeline
// (ringfuse-opt --ringfuse-pipeline), whose result, if any, is emitted too.
// Every step must end in a result or a diagnostic, never a crash, a hang, a
// failed libstdc++ assertion or a sanitizer report. Built by a configuration of the
// compiler of its own (clang, RINGFUSE_FUZZ=ON: every ringfuse library
// instrumented; MLIR and LLVM are Debian's, uninstrumented); scripts/fuzz.sh
// seeds it with the lit tests' IR.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVDialect.h"
#include "dialects/Kernel/Emit/EmitCpp.h"
#include "dialects/Kernel/IR/KernelDialect.h"
#include "dialects/Poly/IR/PolyDialect.h"
#include "dialects/RNS/IR/RNSDialect.h"
#include "passes/Pipelines/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

// This target's code is instrumented and Debian's MLIR and LLVM are not, and
// both carry copies of LLVM's inline allocators (BumpPtrAllocator), which
// poison their slabs for ASan only where instrumented: one copy poisons, the
// other hands the memory out without unpoisoning it. So ASan ignores
// user poisoning here; it still checks every access to the heap and stack.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

namespace {

/// Both targets' source of a module, into nowhere (what matters is that
/// emitting ends).
void emitBoth(mlir::ModuleOp module) {
  llvm::raw_null_ostream nowhere;
  (void)ringfuse::emitProgram(module, nowhere, ringfuse::EmitTarget::Cpu);
  (void)ringfuse::emitProgram(module, nowhere, ringfuse::EmitTarget::Cuda);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Lit tests are a few KiB; larger inputs only slow the search down.
  if (size > (64u << 10))
    return -1;
  // A context per input: attributes and types uniqued by one input must not
  // make the next one behave differently (or grow memory for the whole run).
  mlir::DialectRegistry registry;
  registry.insert<ringfuse::bfv::BFVDialect, ringfuse::poly::PolyDialect,
                  ringfuse::rns::RNSDialect, ringfuse::kernel::KernelDialect,
                  mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Diagnostics are the expected end of most inputs: swallowed.
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });

  // NUL-terminated, as the tools' file buffers are: MLIR's lexer reads up
  // to that NUL (libFuzzer's own buffer ends at the input's last byte).
  const std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;
  emitBoth(*module);

  mlir::PassManager pm(&context);
  ringfuse::buildRingfusePipeline(pm, ringfuse::RingfusePipelineOptions());
  if (mlir::succeeded(pm.run(*module)))
    emitBoth(*module);
  return 0;
}
