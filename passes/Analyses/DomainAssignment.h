//===- DomainAssignment.h - coefficient or evaluation form per value -*- C++ -*-===//
//
// The analysis rns-assign-domains queries: for every polynomial of a
// straight-line rns function, the domain in which it is computed, chosen so
// that the ntt/intt the function then needs cost the least.
//
// A "polynomial" is a value that is not the result of an ntt/intt: those
// transforms are only domain edges, so ntt(x) and x stand for one polynomial.
// Some producers fix its domain (rns.mul and the key-switch inner product
// compute in evaluation form; conversions, scale-and-round and function
// arguments are coefficient form, but for prepared plaintexts, which come in
// evaluation form); the domain-free ops (add, sub, neg,
// mul_scalar, extract, automorphism) may run in either, with their operands
// in the domain of their result. A polynomial computed in one domain and used
// in the other pays one transform, once, however many users want it there:
// the cost of a transform is its limb count (work is proportional to it),
// plus a tie-breaker that prefers fewer launches.
//
// Minimising that total is a minimum s-t cut (source = coefficient, sink =
// evaluation): node x_p per polynomial p, and two auxiliary nodes that make a
// transform paid once per direction, not once per use:
//   x_p --w_p--> f_p --inf--> x_u   for each user u wanting p in u's domain,
//   x_u --inf--> b_p --w_p--> x_p
// (x_p coefficient and some x_u evaluation cuts x_p -> f_p: one forward
// transform; the mirror cuts b_p -> x_p: one inverse.) Fixed requirements are
// edges to the terminals. The input's own choice of domains is one feasible
// cut, so the result never costs more than the input did.
//
// Constants are free in both domains: the pass transforms their residues at
// compile time (exact, with the runtime's NTT), so they are not nodes.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_ANALYSES_DOMAINASSIGNMENT_H
#define RINGFUSE_PASSES_ANALYSES_DOMAINASSIGNMENT_H

#include "dialects/RNS/IR/RNSOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace ringfuse {

class DomainAssignment {
public:
  /// Solves the domains of `func`, a single-block function of rns
  /// polynomials. Emits an error and returns nullopt on what the rules do not
  /// cover: other ops, arguments or results not in coefficient form (the
  /// program ABI), more than one block.
  static std::optional<DomainAssignment> solve(mlir::func::FuncOp func);

  /// The polynomial `value` denotes: `value` itself, or for the result of an
  /// ntt/intt (a chain of them) the value they transform.
  static mlir::Value polynomialOf(mlir::Value value);

  /// The domain an operand must be in for its user: fixed by the user, or
  /// (domain-free users) that of the user's result.
  bool needsEvaluation(mlir::OpOperand &use) const;

  /// Where polynomial `p` is computed (constants: where they are defined).
  bool isEvaluation(mlir::Value polynomial) const;

  /// The total transform cost of the solution, in limbs.
  int64_t transformLimbs() const { return limbsAfter_; }

  /// Whether `op` may run in either domain (its operands in its result's).
  static bool isDomainFree(mlir::Operation *op);

  /// Per argument of `func`, whether `ringfuse.inputs` marks it a prepared
  /// plaintext (1): the one kind of argument that comes in evaluation form.
  static llvm::SmallVector<bool> preparedArguments(mlir::func::FuncOp func);

private:
  DomainAssignment() = default;

  llvm::DenseMap<mlir::Value, bool> evaluation_;
  int64_t limbsAfter_ = 0;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_ANALYSES_DOMAINASSIGNMENT_H
