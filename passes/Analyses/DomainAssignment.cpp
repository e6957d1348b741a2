//===- DomainAssignment.cpp - coefficient or evaluation form per value ----===//
#include "passes/Analyses/DomainAssignment.h"

#include "llvm/ADT/TypeSwitch.h"

#include <deque>
#include <limits>
#include <vector>

namespace ringfuse {
using namespace mlir;

namespace {

/// A minimum s-t cut by Dinic's max-flow. The graphs are small (three nodes
/// per polynomial of one function), so the plain algorithm is plenty.
class MinCut {
public:
  static constexpr int64_t kInfinite = std::numeric_limits<int64_t>::max() / 4;
  static constexpr int kSource = 0, kSink = 1;

  int addNode() {
    adjacency_.emplace_back();
    return int(adjacency_.size()) - 1;
  }

  void addEdge(int from, int to, int64_t capacity) {
    adjacency_[from].push_back(int(edges_.size()));
    edges_.push_back({to, capacity});
    adjacency_[to].push_back(int(edges_.size()));
    edges_.push_back({from, 0});
  }

  /// The cut's capacity; afterwards onSourceSide() tells the two sides apart.
  int64_t solve() {
    int64_t flow = 0;
    while (buildLevels()) {
      next_.assign(adjacency_.size(), 0);
      while (int64_t pushed = augment(kSource, kInfinite))
        flow += pushed;
    }
    return flow;
  }

  /// Reachable from the source in the residual graph (the smallest source
  /// side of a minimum cut): valid after solve().
  bool onSourceSide(int node) const { return level_[node] >= 0; }

private:
  struct Edge {
    int to;
    int64_t capacity; // residual; edge i ^ 1 is its reverse
  };

  /// Breadth-first levels from the source; whether the sink is reachable.
  bool buildLevels() {
    level_.assign(adjacency_.size(), -1);
    std::deque<int> queue{kSource};
    level_[kSource] = 0;
    while (!queue.empty()) {
      int node = queue.front();
      queue.pop_front();
      for (int e : adjacency_[node])
        if (edges_[e].capacity > 0 && level_[edges_[e].to] < 0) {
          level_[edges_[e].to] = level_[node] + 1;
          queue.push_back(edges_[e].to);
        }
    }
    return level_[kSink] >= 0;
  }

  int64_t augment(int node, int64_t limit) {
    if (node == kSink)
      return limit;
    for (size_t &i = next_[node]; i < adjacency_[node].size(); ++i) {
      Edge &edge = edges_[adjacency_[node][i]];
      if (edge.capacity <= 0 || level_[edge.to] != level_[node] + 1)
        continue;
      if (int64_t pushed = augment(edge.to, std::min(limit, edge.capacity))) {
        edge.capacity -= pushed;
        edges_[adjacency_[node][i] ^ 1].capacity += pushed;
        return pushed;
      }
    }
    return 0;
  }

  std::vector<Edge> edges_;
  std::vector<std::vector<int>> adjacency_{2}; // the source and the sink
  std::vector<int> level_;
  std::vector<size_t> next_;
};

/// How an op constrains domains.
enum class Rule {
  Transform,   // ntt / intt: a domain edge, not a computation
  Constant,    // available in both domains at no cost
  Evaluation,  // operands and results in evaluation form
  Coefficient, // operands and results in coefficient form
  Free,        // either domain; operands in the result's
  Unknown,
};

Rule ruleOf(Operation *op) {
  if (isa<rns::NttOp, rns::InttOp>(op))
    return Rule::Transform;
  if (isa<rns::ConstantOp>(op))
    return Rule::Constant;
  if (isa<rns::MulOp, rns::KeySwitchInnerProductOp>(op))
    return Rule::Evaluation;
  // A function's results are coefficient form: the program ABI.
  if (isa<rns::ConvertOp, rns::ScaleRoundOp, rns::ScaleUpOp, func::ReturnOp>(op))
    return Rule::Coefficient;
  if (DomainAssignment::isDomainFree(op))
    return Rule::Free;
  return Rule::Unknown;
}

bool isEvaluationType(Value value) {
  return cast<rns::PolyType>(value.getType()).getEvaluation();
}

/// A free op whose values lack an evaluation domain (a plaintext over t, say)
/// can only run on coefficients.
bool mustStayCoefficient(Operation *op) {
  auto lacksEvaluation = [](Value value) {
    return !cast<rns::PolyType>(value.getType()).supportsEvaluation();
  };
  return llvm::any_of(op->getOperands(), lacksEvaluation) ||
         llvm::any_of(op->getResults(), lacksEvaluation);
}

/// Diagnoses what the domain rules do not cover.
LogicalResult checkFunction(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitError()
           << "rns-assign-domains expects a single-block function";
  FunctionType type = func.getFunctionType();
  SmallVector<bool> prepared = DomainAssignment::preparedArguments(func);
  for (auto [kind, types] : {std::pair(StringRef("argument"), type.getInputs()),
                             std::pair(StringRef("result"), type.getResults())})
    for (auto [index, t] : llvm::enumerate(types)) {
      auto poly = dyn_cast<rns::PolyType>(t);
      if (!poly)
        return func.emitError() << "rns-assign-domains expects a function of "
                                   "rns polynomials (run poly-to-rns first); "
                                << kind << " #" << index << " is " << t;
      // Arguments come in the form of their type: a prepared plaintext in
      // evaluation form, the rest in coefficient form, as results leave.
      if (poly.getEvaluation() && (kind == "result" || !prepared[index]))
        return func.emitError()
               << kind << " #" << index << " is in evaluation form, but the "
               << "program ABI passes polynomials in coefficient form (a "
                  "prepared plaintext input excepted)";
    }
  for (Operation &op : func.getBody().front())
    if (ruleOf(&op) == Rule::Unknown)
      return op.emitOpError() << "has no domain rule in rns-assign-domains";
  return success();
}

} // namespace

SmallVector<bool> DomainAssignment::preparedArguments(func::FuncOp func) {
  SmallVector<bool> prepared(func.getNumArguments(), false);
  auto parts = func->getAttrOfType<DenseI64ArrayAttr>("ringfuse.inputs");
  if (!parts)
    return prepared;
  size_t next = 0;
  for (int64_t part : parts.asArrayRef()) {
    if (part == 1 && next < prepared.size())
      prepared[next] = true;
    next += part <= 1 ? 1 : size_t(part);
  }
  return prepared;
}

bool DomainAssignment::isDomainFree(Operation *op) {
  return isa<rns::AddOp, rns::SubOp, rns::NegOp, rns::MulScalarOp,
             rns::ExtractOp, rns::AutomorphismOp>(op);
}

Value DomainAssignment::polynomialOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<rns::NttOp, rns::InttOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

bool DomainAssignment::isEvaluation(Value polynomial) const {
  auto found = evaluation_.find(polynomial);
  return found != evaluation_.end() ? found->second
                                    : isEvaluationType(polynomial);
}

bool DomainAssignment::needsEvaluation(OpOperand &use) const {
  Operation *user = use.getOwner();
  switch (ruleOf(user)) {
  case Rule::Evaluation:
    return true;
  case Rule::Free:
    return isEvaluation(user->getResult(0));
  default:
    return false;
  }
}

std::optional<DomainAssignment> DomainAssignment::solve(func::FuncOp func) {
  if (failed(checkFunction(func)))
    return std::nullopt;
  Block &body = func.getBody().front();

  // The polynomials that may need transforms: arguments and the results of
  // computations (not constants, not transforms).
  SmallVector<Value> polynomials(body.getArguments().begin(),
                                 body.getArguments().end());
  for (Operation &op : body) {
    Rule rule = ruleOf(&op);
    if (rule != Rule::Transform && rule != Rule::Constant)
      polynomials.append(op.result_begin(), op.result_end());
  }
  // A limb of transform outweighs any number of launches: minimise limbs
  // first, then the number of transforms (at most two per polynomial).
  const int64_t perLimb = 2 * int64_t(polynomials.size()) + 1;
  auto weightOf = [&](Value p) {
    return int64_t(cast<rns::PolyType>(p.getType()).getBasis().size()) *
               perLimb + 1;
  };

  MinCut graph;
  llvm::DenseMap<Value, int> node, forwardNode, inverseNode;
  for (Value p : polynomials)
    node[p] = graph.addNode();
  // f_p (p goes to evaluation form) and b_p (p goes back to coefficients),
  // each made once, with p's transform cost on its edge to x_p.
  auto forward = [&](Value p) {
    auto [it, inserted] = forwardNode.try_emplace(p, 0);
    if (inserted) {
      it->second = graph.addNode();
      graph.addEdge(node[p], it->second, weightOf(p));
    }
    return it->second;
  };
  auto inverse = [&](Value p) {
    auto [it, inserted] = inverseNode.try_emplace(p, 0);
    if (inserted) {
      it->second = graph.addNode();
      graph.addEdge(it->second, node[p], weightOf(p));
    }
    return it->second;
  };
  // `operand` must be in the domain of `side`: a terminal, or the node of a
  // free op's result.
  auto require = [&](Value operand, int side) {
    Value p = polynomialOf(operand);
    if (isa_and_nonnull<rns::ConstantOp>(p.getDefiningOp()))
      return;
    if (side != MinCut::kSource)
      graph.addEdge(forward(p), side, MinCut::kInfinite);
    if (side != MinCut::kSink)
      graph.addEdge(side, inverse(p), MinCut::kInfinite);
  };

  for (BlockArgument argument : body.getArguments()) {
    if (cast<rns::PolyType>(argument.getType()).getEvaluation())
      graph.addEdge(node[argument], MinCut::kSink, MinCut::kInfinite);
    else
      graph.addEdge(MinCut::kSource, node[argument], MinCut::kInfinite);
  }
  for (Operation &op : body) {
    switch (ruleOf(&op)) {
    case Rule::Evaluation:
      for (Value result : op.getResults())
        graph.addEdge(node[result], MinCut::kSink, MinCut::kInfinite);
      for (Value operand : op.getOperands())
        require(operand, MinCut::kSink);
      break;
    case Rule::Coefficient:
      for (Value result : op.getResults())
        graph.addEdge(MinCut::kSource, node[result], MinCut::kInfinite);
      for (Value operand : op.getOperands())
        require(operand, MinCut::kSource);
      break;
    case Rule::Free: {
      int result = node[op.getResult(0)];
      if (mustStayCoefficient(&op))
        graph.addEdge(MinCut::kSource, result, MinCut::kInfinite);
      for (Value operand : op.getOperands())
        require(operand, result);
      break;
    }
    default:
      break;
    }
  }

  DomainAssignment assignment;
  assignment.limbsAfter_ = graph.solve() / perLimb;
  for (Value p : polynomials)
    assignment.evaluation_[p] = !graph.onSourceSide(node[p]);
  return assignment;
}

} // namespace ringfuse
