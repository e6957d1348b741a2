//===- EmitCpp.cpp - the kernel program as C++ ----------------------------===//
//
// The output has three parts: the generated kernels' bodies (one function per
// kernel.elementwise, computing one residue; for CUDA also its __global__
// wrapper), the manifest (static arrays of bases, plans, buffers, values,
// constants and keys; program_abi.h), and `ringfuse_run`, the host schedule:
// library kernels through the RfKernels table, and per generated kernel a
// loop over limbs and coefficients (CPU) or a launch on the driver's stream
// (CUDA).
//
//===----------------------------------------------------------------------===//
#include "dialects/Kernel/Emit/EmitCpp.h"

#include "dialects/BFV/IR/BFVAttributes.h"
#include "dialects/Kernel/IR/KernelOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/program_abi.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

using namespace mlir;

namespace ringfuse {
namespace {

/// The parameters of a catalog entry's RfKernels call (RfRuntime * included):
/// one more than the commas of its parenthesized list.
unsigned catalogArity(StringRef kernel) {
  static const llvm::StringMap<unsigned> arity = [] {
    llvm::StringMap<unsigned> counts;
#define RF_KERNEL(name, Call, parameters, ...)                                 \
  counts[#name] = unsigned(StringRef(#parameters).count(',')) + 1;
#include "ringfuse/runtime/kernel_catalog.def"
    return counts;
  }();
  return arity.lookup(kernel);
}

/// The index in `b` of a buffer the emitter names "b[index]".
std::string bufferIndex(StringRef name) {
  return name.drop_front(2).drop_back().str();
}

std::string join(ArrayRef<uint64_t> values) {
  return llvm::join(llvm::map_range(values, [](uint64_t v) { return std::to_string(v); }),
                    ", ");
}

/// Everything the manifest lists, indexed in order of first use.
class ManifestBuilder {
public:
  int basis(rns::BasisAttr basis) {
    return bases_.insert({basis, int(bases_.size())}).first->second;
  }
  /// `method` is an rns::ConversionMethod, whose values are the ABI's
  /// RF_CONVERT_* (program_abi.h).
  int converter(int from, int to, rns::ConversionMethod method) {
    return indexOf(converters_,
                   llvm::formatv("{{{0}, {1}, {2}}", from, to, int(method)).str());
  }
  /// The numerator as little-endian 64-bit words in its own array.
  /// `converter`: the exact conversion fused after the rounding, or -1.
  int scaleRound(int input, int divisor, int kept, const APInt &numerator, bool floor,
                 int converter) {
    SmallVector<std::string> words;
    for (unsigned w = 0, e = std::max(1u, (numerator.getActiveBits() + 63) / 64); w < e; ++w)
      words.push_back(std::to_string(numerator.extractBitsAsZExtValue(
                          std::min(64u, numerator.getBitWidth() - 64 * w), 64 * w)) +
                      "ull");
    int array = indexOf(numerators_, llvm::join(words, ", "));
    // Then RF_SCALE_ROUND (0) or RF_SCALE_FAST_FLOOR (1), then_convert and
    // the converter.
    return indexOf(scaleRounds_,
                   llvm::formatv("{{{0}, {1}, {2}, numerator{3}, {4}, {5}, {6}, {7}}", input,
                                 divisor, kept, array, words.size(), floor ? 1 : 0,
                                 converter >= 0 ? 1 : 0, std::max(converter, 0))
                       .str());
  }
  int scaleUp(int from, int to) {
    return indexOf(scaleUps_, llvm::formatv("{{{0}, {1}}", from, to).str());
  }
  int key(int64_t galoisElement) {
    return indexOf(keys_, std::to_string(galoisElement) + "ull");
  }

  /// A basis the schedule DGT-transforms: the runtime builds its DGT
  /// tables at load (RfBasis::dgt).
  void markDgt(int basis) { dgtBases_.insert(basis); }
  bool isDgt(int basis) const { return dgtBases_.contains(basis); }

  const llvm::MapVector<rns::BasisAttr, int> &bases() const { return bases_; }
  std::vector<std::string> converters_, scaleRounds_, numerators_, scaleUps_, keys_;

private:
  static int indexOf(std::vector<std::string> &list, const std::string &entry) {
    auto found = llvm::find(list, entry);
    if (found != list.end())
      return int(found - list.begin());
    list.push_back(entry);
    return int(list.size() - 1);
  }
  llvm::MapVector<rns::BasisAttr, int> bases_;
  llvm::DenseSet<int> dgtBases_;
};

class CppEmitter {
public:
  CppEmitter(func::FuncOp func, raw_ostream &os, EmitTarget target)
      : func_(func), os_(os), cuda_(target == EmitTarget::Cuda) {}

  LogicalResult emit() {
    params_ = func_->getAttrOfType<bfv::ParamsAttr>("ringfuse.params");
    auto inputs = func_->getAttrOfType<DenseI64ArrayAttr>("ringfuse.inputs");
    auto outputs = func_->getAttrOfType<DenseI64ArrayAttr>("ringfuse.outputs");
    if (!params_ || !inputs || !outputs)
      return func_.emitError() << "emit-cpp needs the kernel program of a traced "
                                  "circuit (ringfuse.params, ringfuse.inputs and "
                                  "ringfuse.outputs attributes)";
    if (failed(checkValues(inputs.asArrayRef(), func_.getNumArguments(), "inputs")))
      return failure();
    size_t returned = 0;
    func_.walk([&](func::ReturnOp ret) { returned = ret.getNumOperands(); });
    if (failed(checkValues(outputs.asArrayRef(), returned, "outputs")))
      return failure();
    n_ = params_.getRingDegree();
    // A planned program: its slots, buffers and moduli are the kernel
    // dialect's to verify (KernelDialect::verifyOperationAttribute).
    if (!func_->hasAttr(kernel::KernelDialect::kSlotsAttrName))
      return func_.emitError() << "is not a planned kernel program (no '"
                               << kernel::KernelDialect::kSlotsAttrName
                               << "'): run kernel-plan-slots before emitting";
    WalkResult unplaced = func_.walk([&](kernel::AllocOp alloc) {
      if (alloc.getSlot())
        return WalkResult::advance();
      alloc.emitError() << "has no slot: run kernel-plan-slots before emitting";
      return WalkResult::interrupt();
    });
    if (unplaced.wasInterrupted())
      return failure();
    assignBuffers();
    std::vector<std::string> steps;
    if (failed(emitSchedule(steps)))
      return failure();

    os_ << "// Generated by ringfuse-translate --emit-"
        << (cuda_ ? "cuda" : "cpp") << " from circuit '" << func_.getName()
        << "'. Do not edit.\n"
        << (cuda_ ? "#include <cuda_runtime.h>\n" : "")
        << "#include \"ringfuse/runtime/modarith.h\"\n"
        << "#include \"ringfuse/runtime/program_abi.h\"\n\n"
        << "namespace {\n"
        << "using ringfuse::runtime::Modulus;\n"
        << "constexpr size_t N = " << n_ << ";\n\n"
        << "// Buffer `buffer` of b from limb `limb` on.\n"
        << "struct BufferPlace {\n  unsigned buffer, limb;\n};\n"
        << "template <typename T, size_t n>\n"
        << "inline void place(T *(&pointers)[n], uint64_t *const *b,\n"
        << "                  const BufferPlace (&places)[n]) {\n"
        << "  for (size_t i = 0; i < n; ++i)\n"
        << "    pointers[i] = b[places[i].buffer] + places[i].limb * N;\n"
        << "}\n\n"
        << kernels_ << "\n";
    emitManifest(inputs.asArrayRef(), outputs.asArrayRef());
    os_ << "} // namespace\n\n"
        << "extern \"C\" const RfManifest *ringfuse_manifest(void) { return "
           "&manifest; }\n\n";
    emitRun(steps);
    return success();
  }

private:
  /// `ringfuse.inputs` / `outputs` must describe the buffers there are:
  /// components 0 (a plaintext: one buffer), 1 (an input plaintext the
  /// runtime prepares: one buffer over Q) or 2 to 3, summing to `buffers`.
  LogicalResult checkValues(ArrayRef<int64_t> parts, size_t buffers,
                            StringRef what) {
    size_t total = 0;
    for (int64_t part : parts) {
      if (part < 0 || part > 3 || (part == 1 && what != "inputs"))
        return func_.emitError()
               << "ringfuse." << what << " lists a value of " << part
               << " components (0, 2 or 3 expected"
               << (what == "inputs" ? "; 1 for a prepared plaintext)" : ")");
      total += part <= 1 ? 1 : size_t(part);
    }
    if (total != buffers)
      return func_.emitError() << "ringfuse." << what << " describes " << total
                               << " buffers, but the function has " << buffers;
    return success();
  }

  /// Arguments, then one buffer per planned slot, then constants; a view
  /// is its source's buffer.
  void assignBuffers() {
    for (BlockArgument arg : func_.getArguments()) {
      places_[arg] = {bufferWords_.size(), 0};
      names_[arg] = "b[" + std::to_string(bufferWords_.size()) + "]";
      bufferWords_.push_back(cast<kernel::BufferType>(arg.getType()).words());
    }
    const size_t firstSlot = bufferWords_.size();
    func_.walk([&](kernel::AllocOp alloc) {
      size_t id = firstSlot + size_t(*alloc.getSlot());
      if (bufferWords_.size() <= id)
        bufferWords_.resize(id + 1, 0);
      bufferWords_[id] = std::max(bufferWords_[id], alloc.getBuffer().getType().words());
      places_[alloc.getBuffer()] = {id, 0};
      names_[alloc.getBuffer()] = "b[" + std::to_string(id) + "]";
    });
    func_.walk([&](kernel::ConstantOp constant) {
      places_[constant.getBuffer()] = {bufferWords_.size(), 0};
      names_[constant.getBuffer()] =
          "b[" + std::to_string(bufferWords_.size()) + "]";
      constants_.push_back(constant);
      bufferWords_.push_back(constant.getBuffer().getType().words());
    });
    func_.walk([&](kernel::ViewOp view) {
      BufferPlace source = places_.lookup(view.getSource());
      places_[view.getView()] = {source.buffer,
                                 source.limb + int64_t(view.getFirst())};
      names_[view.getView()] = llvm::formatv("({0} + {1} * N)", names_[view.getSource()],
                                             view.getFirst()).str();
    });
  }

  int basisOf(Value buffer) {
    return manifest_.basis(cast<kernel::BufferType>(buffer.getType()).getBasis());
  }

  /// Top-level schedule steps a function of the schedule holds at most. A
  /// compiler's optimizer takes time superlinear in a function's size: a
  /// 4096 x 4096 matrix-vector product's 13,000 launches in one function took
  /// g++ -O2 nearly a minute, in functions of this many a few seconds.
  static constexpr size_t kStepsPerPart = 64;

  /// `ringfuse_run`: the buffers' addresses into one array `b` (read from
  /// memory where a step names one: a local per buffer kept thousands of
  /// pointers live across the calls, and register allocation of them took
  /// g++ most of its time), then the steps in order, in one function when
  /// they fit one part, else in part functions it calls.
  void emitRun(ArrayRef<std::string> steps) {
    const size_t parts = (steps.size() + kStepsPerPart - 1) / kStepsPerPart;
    const char *stream = cuda_ ? "  cudaStream_t stream = "
                                 "static_cast<cudaStream_t>(k->stream(rt));\n"
                                 "  const RfInstances instances = "
                                 "k->instances(rt);\n"
                               : "";
    auto text = [&](ArrayRef<std::string> part) {
      return stream + llvm::join(part, "");
    };
    if (parts > 1)
      for (size_t i = 0; i < parts; ++i)
        os_ << "static void ringfuse_run_part_" << i
            << "(RfRuntime *rt, const RfKernels *k, uint64_t *const *b) {\n"
            << text(ArrayRef(steps).slice(
                   i * kStepsPerPart,
                   std::min(kStepsPerPart, steps.size() - i * kStepsPerPart)))
            << "}\n\n";
    const size_t buffers = std::max<size_t>(bufferWords_.size(), 1);
    os_ << "extern \"C\" void ringfuse_run(RfRuntime *rt, const RfKernels *k) "
           "{\n"
        << "  uint64_t *b[" << buffers << "];\n"
        << "  for (size_t i = 0; i < " << bufferWords_.size() << "; ++i)\n"
        << "    b[i] = k->buffer(rt, i);\n";
    if (parts > 1)
      for (size_t i = 0; i < parts; ++i)
        os_ << "  ringfuse_run_part_" << i << "(rt, k, b);\n";
    else
      os_ << text(steps);
    os_ << "}\n";
  }

  /// Each top-level op of the schedule as one step of C++ statements.
  LogicalResult emitSchedule(std::vector<std::string> &steps) {
    for (Operation &op : func_.getBody().front()) {
      std::string step;
      llvm::raw_string_ostream os(step);
      if (auto launch = dyn_cast<kernel::LaunchOp>(op)) {
        if (failed(emitLaunch(launch, os)))
          return failure();
      } else if (auto elementwise = dyn_cast<kernel::ElementwiseOp>(op)) {
        emitElementwise(elementwise, os);
      } else if (auto concurrent = dyn_cast<kernel::ConcurrentOp>(op)) {
        os << "  k->concurrent_begin(rt);\n";
        for (Operation &member : concurrent.getBody().front())
          if (failed(emitLaunch(cast<kernel::LaunchOp>(member), os)))
            return failure();
        os << "  k->concurrent_end(rt);\n";
      }
      if (!step.empty())
        steps.push_back(std::move(step));
    }
    return success();
  }

  /// Where buffers lie, as a BufferPlace table's entries.
  std::string places(ValueRange buffers) {
    return llvm::join(
        llvm::map_range(
            buffers,
            [&](Value buffer) {
              BufferPlace at = places_.lookup(buffer);
              return llvm::formatv("{{{0}, {1}}", at.buffer, at.limb).str();
            }),
        ", ");
  }

  /// Declares key switching's addend (its last three ins) in the launch's
  /// block and returns the argument that names it, or nullptr without one.
  std::string emitKeySwitchAddend(kernel::LaunchOp launch, raw_ostream &os) {
    if (!launch.getAddend())
      return "nullptr";
    auto ins = launch.getIns();
    const size_t at = ins.size() - 3;
    os << llvm::formatv(
        "    const RfKeySwitchAddend addend = {{{0}, {1}, {2}, {3}};\n",
        names_[ins[at]], names_[ins[at + 1]], names_[ins[at + 2]],
        cast<kernel::BufferType>(ins[at].getType()).getBasis().size());
    return "&addend";
  }

  /// A library kernel's call: the catalog's entry `kernel` (the launch's
  /// name is the RfKernels entry's) with `args` after the runtime, in a
  /// block of its own after `declarations` (arrays it passes). The count is
  /// checked against the entry, so the emitter cannot drift from the ABI.
  LogicalResult printCall(kernel::LaunchOp launch, ArrayRef<std::string> args,
                          StringRef declarations, raw_ostream &os) {
    StringRef kernel = launch.getKernel();
    const unsigned expected = catalogArity(kernel);
    if (expected != args.size() + 1)
      return launch.emitOpError()
             << "internal: the emitter passes " << args.size() + 1
             << " arguments to '" << kernel << "', kernel_catalog.def takes "
             << expected;
    std::string call = llvm::formatv("k->{0}(rt, {1});\n", kernel,
                                     llvm::join(args, ", "));
    if (declarations.empty())
      os << "  " << call;
    else
      os << "  {\n" << declarations << "    " << call << "  }\n";
    return success();
  }

  LogicalResult emitLaunch(kernel::LaunchOp launch, raw_ostream &os) {
    StringRef kernel = launch.getKernel();
    auto in = [&](unsigned i) { return names_[launch.getIns()[i]]; };
    auto out = [&](unsigned i) { return names_[launch.getOuts()[i]]; };
    auto basis = [&](Value buffer) { return std::to_string(basisOf(buffer)); };
    // The chosen decomposition, or 0, 0, 0: the driver's default.
    SmallVector<std::string, 3> shape = {"0", "0", "0"};
    if (rns::TransformAttr transform = launch.getTransformAttr())
      shape = {std::to_string(transform.getLogN1()),
               std::to_string(transform.getRadix()),
               std::to_string(transform.getOt())};
    std::string declarations;
    llvm::raw_string_ostream declare(declarations);
    SmallVector<std::string> args;
    if (kernel == "ntt_forward" || kernel == "ntt_inverse") {
      args = {basis(launch.getOuts()[0]), out(0)};
      args.append(shape.begin(), shape.end());
    } else if (kernel == "dgt_forward" || kernel == "dgt_inverse") {
      manifest_.markDgt(basisOf(launch.getOuts()[0]));
      args = {basis(launch.getOuts()[0]), out(0)};
    } else if (kernel == "ntt_forward_from") {
      args = {basis(launch.getOuts()[0]), basis(launch.getIns()[0]), in(0),
              out(0)};
      args.append(shape.begin(), shape.end());
    } else if (kernel == "convert") {
      int plan = manifest_.converter(basisOf(launch.getIns()[0]),
                                     basisOf(launch.getOuts()[0]),
                                     launch.getMethod().value_or(rns::ConversionMethod::fast));
      args = {std::to_string(plan), in(0), out(0)};
    } else if (kernel == "scale_round" || kernel == "scale_round_add") {
      // Fused with an exact conversion: rounded over `via`, converted to out.
      int kept = basisOf(launch.getOuts()[0]), converter = -1;
      if (std::optional<rns::BasisAttr> via = launch.getVia()) {
        converter = manifest_.converter(manifest_.basis(*via), kept,
                                        rns::ConversionMethod::exact);
        kept = manifest_.basis(*via);
      }
      int plan = manifest_.scaleRound(basisOf(launch.getIns()[0]),
                                      manifest_.basis(*launch.getDivisor()), kept,
                                      *launch.getNumerator(), launch.getFloor(), converter);
      args = {std::to_string(plan), in(0)};
      if (kernel == "scale_round_add")
        args.push_back(in(1));
      args.push_back(out(0));
    } else if (kernel == "scale_up") {
      int plan = manifest_.scaleUp(basisOf(launch.getIns()[0]), basisOf(launch.getOuts()[0]));
      args = {std::to_string(plan), in(0), out(0)};
    } else if (kernel == "automorphism" ||
               kernel == "automorphism_evaluation") {
      args = {basis(launch.getIns()[0]),
              std::to_string(*launch.getGaloisElement()) + "ull", in(0), out(0)};
    } else if (kernel == "key_switch_inner_product") {
      SmallVector<std::string> digits;
      for (Value digit : launch.mainIns())
        digits.push_back(names_[digit]);
      declare << llvm::formatv("    const uint64_t *digits[] = {{{0}};\n",
                               llvm::join(digits, ", "));
      std::string addend = emitKeySwitchAddend(launch, declare);
      args = {std::to_string(manifest_.key(*launch.getKey())),
              basis(launch.getOuts()[0]), "digits", std::to_string(digits.size()),
              out(0), out(1), addend};
    } else if (kernel == "ntt_key_switch" || kernel == "ntt_products") {
      // The sources, their bases and their scratch buffers as arrays.
      SmallVector<std::string> bases, sources, scratch;
      for (auto [source, buffer] :
           llvm::zip(launch.mainIns(), launch.getOuts())) {
        bases.push_back(basis(source));
        sources.push_back(names_[source]);
        scratch.push_back(names_[buffer]);
      }
      const size_t count = sources.size();
      declare << llvm::formatv("    const int source_bases[] = {{{0}};\n"
                               "    const uint64_t *sources[] = {{{1}};\n"
                               "    uint64_t *scratch[] = {{{2}};\n",
                               llvm::join(bases, ", "),
                               llvm::join(sources, ", "),
                               llvm::join(scratch, ", "));
      std::string sumBasis = basis(launch.getOuts()[count]);
      if (kernel == "ntt_key_switch") {
        std::string addend = emitKeySwitchAddend(launch, declare);
        args = {std::to_string(manifest_.key(*launch.getKey())), sumBasis,
                "source_bases", "sources", "scratch", std::to_string(count),
                out(count), out(count + 1), addend};
      } else {
        SmallVector<std::string> sums, products;
        for (size_t k = count; k < launch.getOuts().size(); ++k)
          sums.push_back(out(k));
        ArrayRef<int32_t> triples = *launch.getProducts();
        for (int32_t index : triples)
          products.push_back(std::to_string(index));
        declare << llvm::formatv("    const int products[] = {{{0}};\n"
                                 "    uint64_t *sums[] = {{{1}};\n",
                                 llvm::join(products, ", "),
                                 llvm::join(sums, ", "));
        args = {sumBasis, "source_bases", "sources", "scratch",
                std::to_string(count), "products",
                std::to_string(products.size() / 3), "sums",
                std::to_string(sums.size())};
      }
      args.append(shape.begin(), shape.end());
    } else if (kernel == "sum_of_products") {
      // Its arrays as static tables and a loop: a few hundred pointers
      // spelt out per launch took g++ seconds per program to vectorize.
      SmallVector<std::string> products;
      ArrayRef<int32_t> triples = *launch.getProducts();
      for (int32_t index : triples)
        products.push_back(std::to_string(index));
      declare << "    static const BufferPlace factor_places[] = {"
              << places(launch.getIns()) << "};\n"
              << "    static const BufferPlace sum_places[] = {"
              << places(launch.getOuts()) << "};\n"
              << "    static const int products[] = {"
              << llvm::join(products, ", ") << "};\n"
              << "    const uint64_t *factors[" << launch.getIns().size()
              << "];\n"
              << "    uint64_t *sums[" << launch.getOuts().size() << "];\n"
              << "    place(factors, b, factor_places);\n"
              << "    place(sums, b, sum_places);\n";
      args = {basis(launch.getOuts()[0]),
              "factors",
              std::to_string(launch.getIns().size()),
              "products",
              std::to_string(products.size() / 3),
              "sums",
              std::to_string(launch.getOuts().size()),
              launch.getAccumulate() ? "1" : "0"};
    } else {
      return launch.emitOpError() << "has no C++ emission";
    }
    return printCall(launch, args, declarations, os);
  }

  /// The body as a function of one residue, and the schedule step that runs
  /// it: a loop on the CPU, a kernel of one thread per residue on the GPU.
  /// Per-limb constants are parameters, so both call the same body.
  void emitElementwise(kernel::ElementwiseOp op, raw_ostream &os) {
    const int id = kernelCount_++;
    const std::string name = "elementwise_" + std::to_string(id);
    Block &body = op.getBody().front();
    SmallVector<std::string> tables;
    for (Operation &inner : body.without_terminator())
      if (auto mulConst = dyn_cast<kernel::MulConstOp>(inner)) {
        std::string table = name + "_constant" + std::to_string(tables.size());
        SmallVector<uint64_t> residues(mulConst.getResidues().begin(),
                                       mulConst.getResidues().end());
        kernels_ += (cuda_ ? "__constant__ uint64_t " : "const uint64_t ") + table +
                    "[] = {" + join(residues) + "};\n";
        tables.push_back(table);
      }

    SmallVector<std::string> parameters = {"const Modulus &q", "size_t limb", "size_t i"};
    SmallVector<std::string> bufferParameters, bufferArguments;
    for (size_t a = 0; a < op.getIns().size(); ++a) {
      bufferParameters.push_back("const uint64_t *in" + std::to_string(a));
      bufferArguments.push_back("in" + std::to_string(a));
    }
    for (size_t r = 0; r < op.getOuts().size(); ++r) {
      bufferParameters.push_back("uint64_t *out" + std::to_string(r));
      bufferArguments.push_back("out" + std::to_string(r));
    }
    parameters.append(bufferParameters);
    for (size_t c = 0; c < tables.size(); ++c)
      parameters.push_back("const uint64_t *constant" + std::to_string(c));

    std::string text;
    llvm::raw_string_ostream k(text);
    k << "RF_HOST_DEVICE inline void " << name << "(" << llvm::join(parameters, ", ")
      << ") {\n  (void)limb;\n";
    llvm::DenseMap<Value, std::string> residue;
    for (auto [a, arg] : llvm::enumerate(body.getArguments())) {
      residue[arg] = "v" + std::to_string(residue.size());
      k << "  const uint64_t " << residue[arg] << " = in" << a << "[i];\n";
    }
    int constantCount = 0;
    for (Operation &inner : body.without_terminator()) {
      auto operand = [&](unsigned i) { return residue[inner.getOperand(i)]; };
      std::string expression;
      if (isa<kernel::AddModOp>(inner))
        expression = "ringfuse::runtime::addMod(" + operand(0) + ", " + operand(1) + ", q.value)";
      else if (isa<kernel::SubModOp>(inner))
        expression = "ringfuse::runtime::subMod(" + operand(0) + ", " + operand(1) + ", q.value)";
      else if (isa<kernel::MulModOp>(inner))
        expression = "ringfuse::runtime::mulMod(" + operand(0) + ", " + operand(1) + ", q)";
      else if (isa<kernel::NegModOp>(inner))
        expression = "ringfuse::runtime::negateMod(" + operand(0) + ", q.value)";
      else if (isa<kernel::MulConstOp>(inner))
        expression = "ringfuse::runtime::mulMod(" + operand(0) + ", constant" +
                     std::to_string(constantCount++) + "[limb], q)";
      std::string v = "v" + std::to_string(residue.size());
      residue[inner.getResult(0)] = v;
      k << "  const uint64_t " << v << " = " << expression << ";\n";
    }
    auto yield = cast<kernel::YieldOp>(body.getTerminator());
    for (auto [r, value] : llvm::enumerate(yield.getValues()))
      k << "  out" << r << "[i] = " << residue[value] << ";\n";
    k << "}\n";

    auto type = cast<kernel::BufferType>(op.getOuts()[0].getType());
    SmallVector<std::string> buffers;
    for (Value value : llvm::concat<Value>(op.getIns(), op.getOuts()))
      buffers.push_back(names_[value]);
    const int basis = basisOf(op.getOuts()[0]);
    const size_t words = type.getBasis().size() * size_t(n_);
    if (cuda_) {
      // Grid z is the instance: its buffers are `stride` words after the
      // previous instance's (RfInstances); the constants are shared.
      SmallVector<std::string> call = {"q", "limb", "i"};
      for (const std::string &argument : bufferArguments)
        call.push_back(argument + " + at");
      call.append(tables);
      k << "__global__ void " << name << "_kernel(const RfModulus *moduli, size_t stride, "
        << llvm::join(bufferParameters, ", ") << ") {\n"
        << "  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;\n"
        << "  if (i >= " << words << ") return;\n"
        << "  const size_t limb = i / N;\n"
        << "  const size_t at = size_t(blockIdx.z) * stride;\n"
        << "  const Modulus q(moduli[limb]);\n"
        << "  " << name << "(" << llvm::join(call, ", ") << ");\n}\n";
      os << llvm::formatv("  {0}_kernel<<<dim3({1}, 1, instances.count), 256, 0, stream>>>("
                          "k->moduli(rt, {2}), instances.stride, {3});\n"
                          "  k->check_launch(rt, \"{0}\", static_cast<int>(cudaGetLastError()));\n",
                          name, (words + 255) / 256, basis, llvm::join(buffers, ", "));
    } else {
      SmallVector<std::string> call = {"q", "limb", "limb * N + j"};
      call.append(buffers);
      call.append(tables);
      os << llvm::formatv("  {{\n    const RfModulus *moduli = k->moduli(rt, {0});\n"
                          "    for (size_t limb = 0; limb < {1}; ++limb) {{\n"
                          "      const Modulus q(moduli[limb]);\n"
                          "      for (size_t j = 0; j < N; ++j)\n"
                          "        {2}({3});\n    }\n  }\n",
                          basis, type.getBasis().size(), name, llvm::join(call, ", "));
    }
    kernels_ += text;
  }

  /// Inputs and outputs: ciphertexts of k components, plaintexts (0) or
  /// prepared plaintexts (1) with their Galois elements (`galois`: one per
  /// value, or none).
  std::string values(ArrayRef<int64_t> parts, ArrayRef<std::string> buffers,
                     ArrayRef<int64_t> galois = {}) {
    SmallVector<std::string> entries;
    size_t next = 0;
    for (auto [index, part] : llvm::enumerate(parts)) {
      SmallVector<std::string> ids;
      int64_t count = part <= 1 ? 1 : part;
      for (int64_t c = 0; c < count; ++c)
        ids.push_back(bufferIndex(buffers[next++]));
      while (ids.size() < 3)
        ids.push_back("0");
      int kind = part == 0   ? RF_VALUE_PLAINTEXT
                 : part == 1 ? RF_VALUE_PREPARED_PLAINTEXT
                             : RF_VALUE_CIPHERTEXT;
      entries.push_back(llvm::formatv("{{{0}, {1}, {{{2}}, {3}}", kind, count,
                                      llvm::join(ids, ", "),
                                      index < galois.size() ? galois[index] : 0)
                            .str());
    }
    return llvm::join(entries, ", ");
  }

  void emitManifest(ArrayRef<int64_t> inputs, ArrayRef<int64_t> outputs) {
    for (auto [basis, id] : manifest_.bases())
      os_ << "const uint64_t basis" << id << "[] = {" << join(basis.getModuli())
          << "}; // " << basis.getName() << "\n";
    os_ << "const uint64_t q[] = {" << join(params_.getCiphertextModulus()) << "};\n"
        << "const uint64_t p[] = {" << join(params_.getSpecialModulus()) << "};\n";
    SmallVector<std::string> bases;
    for (auto [basis, id] : manifest_.bases())
      bases.push_back(llvm::formatv("{{basis{0}, {1}, {2}}", id, basis.size(),
                                    manifest_.isDgt(id) ? 1 : 0)
                          .str());
    SmallVector<std::string> constants;
    for (auto [i, constant] : llvm::enumerate(constants_)) {
      SmallVector<uint64_t> words;
      for (const APInt &value : constant.getResidues())
        words.push_back(value.getZExtValue());
      os_ << "const uint64_t constant" << i << "[] = {" << join(words) << "};\n";
      constants.push_back(
          llvm::formatv("{{{0}, constant{1}, {2}}",
                        bufferIndex(names_[constant.getBuffer()]), i,
                        words.size())
              .str());
    }
    SmallVector<std::string> inputBuffers, outputBuffers;
    for (BlockArgument arg : func_.getArguments())
      inputBuffers.push_back(names_[arg]);
    func_.walk([&](func::ReturnOp ret) {
      for (Value value : ret.getOperands())
        outputBuffers.push_back(names_[value]);
    });
    auto array = [&](StringRef type, StringRef name, ArrayRef<std::string> entries) {
      // A zero-length array is not C++; keep one unused entry instead.
      os_ << "const " << type << " " << name << "[] = {"
          << (entries.empty() ? "{}" : llvm::join(entries, ", ")) << "};\n";
    };
    array("RfBasis", "bases", bases);
    array("RfConverter", "converters", manifest_.converters_);
    for (auto [i, words] : llvm::enumerate(manifest_.numerators_))
      os_ << "const uint64_t numerator" << i << "[] = {" << words << "};\n";
    array("RfScaleRound", "scale_rounds", manifest_.scaleRounds_);
    array("RfScaleUp", "scale_ups", manifest_.scaleUps_);
    SmallVector<std::string> words;
    for (size_t w : bufferWords_)
      words.push_back(std::to_string(w));
    os_ << "const size_t buffer_words[] = {" << llvm::join(words, ", ") << "};\n";
    auto galois =
        func_->getAttrOfType<DenseI64ArrayAttr>("ringfuse.input_galois");
    os_ << "const RfValue inputs[] = {"
        << values(inputs, inputBuffers,
                  galois ? galois.asArrayRef() : ArrayRef<int64_t>())
        << "};\n";
    os_ << "const RfValue outputs[] = {" << values(outputs, outputBuffers) << "};\n";
    array("RfConstant", "constants", constants);
    array("uint64_t", "keys", manifest_.keys_);
    os_ << llvm::formatv(
        "const RfManifest manifest = {{\n"
        "    RINGFUSE_PROGRAM_ABI_VERSION, \"{0}\", {1}, {2}ull,\n"
        "    q, {3}, p, {4}, {5},\n"
        "    bases, {6}, converters, {7}, scale_rounds, {8}, scale_ups, {9},\n"
        "    buffer_words, {10}, inputs, {11}, outputs, {12},\n"
        "    constants, {13}, keys, {14}, {15}};\n",
        func_.getName(), n_, params_.getPlaintextModulus(),
        params_.getCiphertextModulus().size(),
        params_.getSpecialModulus().size(), params_.getDigitCount(),
        manifest_.bases().size(), manifest_.converters_.size(),
        manifest_.scaleRounds_.size(), manifest_.scaleUps_.size(),
        bufferWords_.size(), inputs.size(), outputs.size(), constants_.size(),
        manifest_.keys_.size(), variantLiteral());
  }

  /// The variant the module was lowered with (bfv::variantOf: its
  /// `bfv.variant`, else HPS) as a C string literal.
  std::string variantLiteral() {
    auto module = func_->getParentOfType<ModuleOp>();
    bfv::Variant variant = module ? bfv::variantOf(module) : bfv::Variant::hps;
    return "\"" + bfv::stringifyVariant(variant).str() + "\"";
  }

  func::FuncOp func_;
  raw_ostream &os_;
  bfv::ParamsAttr params_;
  unsigned n_ = 0;
  ManifestBuilder manifest_;
  llvm::DenseMap<Value, std::string> names_;
  /// Where each buffer value lies: an index of `b` and a first limb.
  struct BufferPlace {
    size_t buffer = 0;
    int64_t limb = 0;
  };
  llvm::DenseMap<Value, BufferPlace> places_;
  std::vector<size_t> bufferWords_;
  SmallVector<kernel::ConstantOp> constants_;
  std::string kernels_;
  int kernelCount_ = 0;
  bool cuda_;
};

} // namespace

LogicalResult emitProgram(ModuleOp module, raw_ostream &os, EmitTarget target) {
  SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
  if (functions.size() != 1)
    return module.emitError() << "expects one circuit function, found "
                              << functions.size();
  return CppEmitter(functions.front(), os, target).emit();
}

} // namespace ringfuse
