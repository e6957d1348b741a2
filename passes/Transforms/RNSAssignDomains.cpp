//===- RNSAssignDomains.cpp - the fewest transforms between domains -------===//
//
// DomainAssignment decides where each polynomial is computed; this pass then
// rewrites the function to match: free ops take their chosen domain, every
// operand is fed the polynomial in the domain its user needs (a transform
// made once per polynomial and direction, just before its first user, and
// shared by the later ones), constants are transformed at compile time, and
// the old transforms, now unused, are erased.
//
//===----------------------------------------------------------------------===//
#include "passes/Analyses/DomainAssignment.h"
#include "passes/Passes.h"

#include "ringfuse/runtime/ntt.h"

#include "mlir/IR/Builders.h"

#include <map>

namespace ringfuse {
#define GEN_PASS_DEF_RNSASSIGNDOMAINS
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

unsigned countTransforms(func::FuncOp func) {
  unsigned count = 0;
  func.walk([&](Operation *op) { count += isa<rns::NttOp, rns::InttOp>(op); });
  return count;
}

class DomainRewriter {
public:
  DomainRewriter(func::FuncOp func, const DomainAssignment &domains)
      : func_(func), domains_(domains), builder_(func.getContext()) {}

  /// Returns the number of constants transformed at compile time.
  unsigned run() {
    Block &body = func_.getBody().front();
    SmallVector<Operation *> ops = llvm::map_to_vector(
        body.getOperations(), [](Operation &op) { return &op; });
    for (Operation *op : ops) {
      if (isa<rns::NttOp, rns::InttOp, rns::ConstantOp>(op))
        continue;
      if (DomainAssignment::isDomainFree(op))
        retype(op);
      for (OpOperand &use : op->getOpOperands())
        use.set(valueIn(DomainAssignment::polynomialOf(use.get()),
                        domains_.needsEvaluation(use), op));
    }
    // The input's transforms and the constants replaced by their transforms
    // are dead now; users come after producers, so erase backwards.
    for (Operation *op : llvm::reverse(ops))
      if (isa<rns::NttOp, rns::InttOp, rns::ConstantOp>(op) && op->use_empty())
        op->erase();
    return transformedConstants_;
  }

private:
  /// A free op computes in its polynomial's assigned domain.
  void retype(Operation *op) {
    Value result = op->getResult(0);
    auto type = cast<rns::PolyType>(result.getType());
    result.setType(type.withDomain(domains_.isEvaluation(result)));
  }

  /// Polynomial `p` in the requested domain, for `user`.
  Value valueIn(Value p, bool evaluation, Operation *user) {
    if (cast<rns::PolyType>(p.getType()).getEvaluation() == evaluation)
      return p;
    Value &cached = transformed_[evaluation][p];
    if (cached)
      return cached;
    if (auto constant = p.getDefiningOp<rns::ConstantOp>())
      return cached = transformConstant(constant, evaluation);
    builder_.setInsertionPoint(user);
    if (evaluation)
      return cached = rns::NttOp::create(builder_, p.getLoc(), p);
    return cached = rns::InttOp::create(builder_, p.getLoc(), p);
  }

  /// The constant's residues in the other domain, by the runtime's own NTT
  /// (exact, and the transform the program would have run).
  Value transformConstant(rns::ConstantOp constant, bool evaluation) {
    auto type = cast<rns::PolyType>(constant.getType());
    const size_t n = type.getDegree();
    std::vector<uint64_t> words;
    for (const APInt &residue : constant.getResidues())
      words.push_back(residue.getZExtValue());
    ArrayRef<uint64_t> moduli = type.getBasis().getModuli();
    for (size_t limb = 0; limb < moduli.size(); ++limb) {
      const runtime::NttTables &tables = tablesFor(moduli[limb], n);
      if (evaluation)
        tables.forward(words.data() + limb * n);
      else
        tables.inverse(words.data() + limb * n);
    }
    SmallVector<int64_t> residues(words.begin(), words.end());
    auto attr = DenseIntElementsAttr::get(constant.getResidues().getType(),
                                          ArrayRef<int64_t>(residues));
    builder_.setInsertionPointAfter(constant);
    ++transformedConstants_;
    return rns::ConstantOp::create(builder_, constant.getLoc(),
                                   type.withDomain(evaluation), attr);
  }

  const runtime::NttTables &tablesFor(uint64_t q, size_t n) {
    auto found = tables_.find({q, n});
    if (found == tables_.end())
      found = tables_.emplace(std::pair(q, n), runtime::NttTables(q, n)).first;
    return found->second;
  }

  func::FuncOp func_;
  const DomainAssignment &domains_;
  OpBuilder builder_;
  llvm::DenseMap<Value, Value> transformed_[2]; // [to evaluation form][p]
  std::map<std::pair<uint64_t, size_t>, runtime::NttTables> tables_;
  unsigned transformedConstants_ = 0;
};

/// The arguments `ringfuse.inputs` marks prepared (1: a plaintext the
/// runtime lifts and transforms) come in evaluation form.
void retypePreparedArguments(func::FuncOp function) {
  SmallVector<bool> prepared = DomainAssignment::preparedArguments(function);
  if (!llvm::is_contained(prepared, true))
    return;
  SmallVector<Type> inputs(function.getFunctionType().getInputs());
  for (auto [index, isPrepared] : llvm::enumerate(prepared))
    if (isPrepared) {
      if (auto type = dyn_cast<rns::PolyType>(inputs[index])) {
        inputs[index] = type.withDomain(true);
        function.getArgument(index).setType(inputs[index]);
      }
    }
  function.setFunctionType(FunctionType::get(
      function.getContext(), inputs, function.getFunctionType().getResults()));
}

struct RNSAssignDomains
    : public impl::RNSAssignDomainsBase<RNSAssignDomains> {
  void runOnOperation() override {
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal())
        continue;
      retypePreparedArguments(function);
      std::optional<DomainAssignment> domains =
          DomainAssignment::solve(function);
      if (!domains)
        return signalPassFailure();
      numTransformsBefore += countTransforms(function);
      numConstantsTransformed += DomainRewriter(function, *domains).run();
      numTransformsAfter += countTransforms(function);
      numTransformLimbsAfter += domains->transformLimbs();
    }
  }
};
} // namespace
} // namespace ringfuse
