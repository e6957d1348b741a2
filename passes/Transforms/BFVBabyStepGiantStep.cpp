//===- BFVBabyStepGiantStep.cpp - plaintext-times-rotation sums in ~2 sqrt(n)
//=//
//
// A diagonal matrix-vector product, a polynomial's linear part over slots,
// any linear map of one encrypted vector traces to sum_k p_k rot_k(x): n
// rotations, n key switches. With k = g + b, rot_k(x) p_k = rot_g(rot_b(x)
// rot_-g(p_k)), so grouping the terms by g gives
//
//   sum_g rot_g( sum_b rot_b(x) rot_-g(p_{g+b}) ):
//
// the distinct nonzero b and g are the key switches left, about 2 sqrt(n),
// and rotating a plaintext needs no key (at compile time for a constant).
// The baby steps rot_b(x) all rotate x, which rns-hoist-rotations then
// decomposes once. See the pass's description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "dialects/BFV/IR/BFVOps.h"
#include "passes/Passes.h"
#include "passes/Transforms/SumTrees.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace ringfuse {
#define GEN_PASS_DEF_BFVBABYSTEPGIANTSTEP
#include "passes/Passes.h.inc"

namespace {
using namespace mlir;

/// One term p * rot_step(x) of a sum, step taken mod the row length, and
/// whether its rotation outlives the rewrite (it has users besides this
/// sum's products, so it keeps its key switch).
struct Term {
  Value plaintext;
  int64_t step;
  bool rotationStays = false;
};

/// How the steps of one ciphertext's terms split: k = offset + giant + baby
/// with giant a multiple of babySteps and baby in [0, babySteps).
struct Split {
  int64_t babySteps = 1, offset = 0;
  size_t keySwitches = 0, giantSteps = 0;

  /// Fewer key switches first; then fewer giant steps, since the baby steps
  /// share one decomposition and the giant steps do not.
  bool operator<(const Split &other) const {
    return std::tie(keySwitches, giantSteps) <
           std::tie(other.keySwitches, other.giantSteps);
  }
};

class SumRewriter {
public:
  SumRewriter(bfv::ParamsAttr params, unsigned minimumTerms)
      : row_(params.getRingDegree() / 2), minimumTerms_(minimumTerms) {}

  /// Rewrites the sum rooted at `root` where that saves rotations; returns
  /// the rotations saved.
  size_t rewrite(bfv::AddOp root) {
    SmallVector<Value> leaves;
    collectSummands<bfv::AddOp>(root.getResult(), leaves);
    llvm::MapVector<Value, SmallVector<Term>> byCiphertext;
    SmallVector<Value> others;
    // The products the rewrite replaces: leaves of one use (the tree's).
    llvm::DenseSet<Operation *> replaced;
    for (Value leaf : leaves)
      if (leaf.getDefiningOp<bfv::MulPlainOp>() && leaf.hasOneUse())
        replaced.insert(leaf.getDefiningOp());
    for (Value leaf : leaves) {
      auto product = leaf.getDefiningOp<bfv::MulPlainOp>();
      if (!product) {
        others.push_back(leaf);
        continue;
      }
      Value x = product.getCiphertext();
      Term term{product.getPlaintext(), 0};
      if (auto rotate = x.getDefiningOp<bfv::RotateOp>()) {
        x = rotate.getInput();
        term.step = normalized(rotate.getSteps());
        term.rotationStays =
            llvm::any_of(rotate->getUsers(), [&](Operation *user) {
              return !replaced.contains(user);
            });
      }
      byCiphertext[x].push_back(term);
    }

    // Decide first, so that a sum left alone is not rebuilt.
    SmallVector<std::optional<Split>> splits;
    size_t saved = 0;
    for (auto &[x, terms] : byCiphertext) {
      // Rotations now, and after: the split's, plus those that stay anyway.
      std::set<int64_t> steps, staying;
      for (const Term &term : terms)
        if (term.step != 0) {
          steps.insert(term.step);
          if (term.rotationStays)
            staying.insert(term.step);
        }
      Split split = bestSplit(terms);
      size_t after = split.keySwitches + staying.size();
      if (steps.size() < minimumTerms_ || after >= steps.size()) {
        splits.push_back(std::nullopt);
        continue;
      }
      saved += steps.size() - after;
      splits.push_back(split);
    }
    if (saved == 0)
      return 0;

    OpBuilder builder(root);
    Location loc = root.getLoc();
    SmallVector<Value> parts(others);
    for (auto [group, split] : llvm::zip(byCiphertext, splits)) {
      auto &[x, terms] = group;
      if (split) {
        parts.push_back(babyStepGiantStep(builder, loc, x, terms, *split));
        continue;
      }
      for (const Term &term : terms)
        parts.push_back(product(
            builder, loc, rotate(builder, loc, x, term.step), term.plaintext));
    }
    root.getResult().replaceAllUsesWith(
        balancedSum<bfv::AddOp>(builder, loc, parts));
    return saved;
  }

private:
  int64_t normalized(int64_t step) const {
    return ((step % row_) + row_) % row_;
  }

  /// The rotation by `step` (mod the row) as a signed step of least size.
  int64_t signedStep(int64_t step) const {
    step = normalized(step);
    return step <= row_ / 2 ? step : step - row_;
  }

  Split splitWith(ArrayRef<Term> terms, int64_t babySteps,
                  int64_t offset) const {
    std::set<int64_t> babies, giants;
    for (const Term &term : terms) {
      int64_t shifted = normalized(term.step - offset);
      int64_t baby = normalized(offset + shifted % babySteps);
      int64_t giant = shifted - shifted % babySteps;
      if (baby != 0)
        babies.insert(baby);
      if (giant != 0)
        giants.insert(giant);
    }
    return {babySteps, offset, babies.size() + giants.size(), giants.size()};
  }

  /// The baby-step count (and offset: the smallest signed step, or 0) with
  /// the fewest distinct rotations (Split's order); the search stops well
  /// past sqrt of the steps' span, where the giant steps alone are already
  /// few.
  Split bestSplit(ArrayRef<Term> terms) const {
    int64_t lowest = 0, highest = 0;
    for (const Term &term : terms) {
      lowest = std::min(lowest, signedStep(term.step));
      highest = std::max(highest, signedStep(term.step));
    }
    int64_t span = highest - lowest + 1;
    int64_t limit =
        std::min<int64_t>(row_, 4 * int64_t(std::sqrt(double(span))) + 8);
    Split best;
    best.keySwitches = SIZE_MAX;
    for (int64_t offset : {int64_t(0), lowest})
      for (int64_t babySteps = 1; babySteps <= limit; ++babySteps) {
        Split split = splitWith(terms, babySteps, offset);
        if (split < best)
          best = split;
      }
    return best;
  }

  Value babyStepGiantStep(OpBuilder &builder, Location loc, Value x,
                          ArrayRef<Term> terms, const Split &split) {
    std::map<int64_t, SmallVector<Value>> giants;
    DenseMap<int64_t, Value> babies;
    for (const Term &term : terms) {
      int64_t shifted = normalized(term.step - split.offset);
      int64_t baby = normalized(split.offset + shifted % split.babySteps);
      int64_t giant = shifted - shifted % split.babySteps;
      Value &rotated = babies[baby];
      if (!rotated)
        rotated = rotate(builder, loc, x, baby);
      giants[giant].push_back(
          product(builder, loc, rotated,
                  rotatePlain(builder, loc, term.plaintext, -giant)));
    }
    SmallVector<Value> parts;
    for (auto &[giant, products] : giants)
      parts.push_back(rotate(builder, loc,
                             balancedSum<bfv::AddOp>(builder, loc, products),
                             giant));
    return balancedSum<bfv::AddOp>(builder, loc, parts);
  }

  Value rotate(OpBuilder &builder, Location loc, Value x, int64_t step) {
    if (normalized(step) == 0)
      return x;
    return bfv::RotateOp::create(builder, loc, x.getType(), x,
                                 signedStep(step));
  }

  static Value product(OpBuilder &builder, Location loc, Value x, Value p) {
    return bfv::MulPlainOp::create(builder, loc, x.getType(), x, p);
  }

  /// p rotated by `step`: a constant's slots rotated here, a scalar as it
  /// is, anything else by bfv.rotate_plain at run time (once per step).
  Value rotatePlain(OpBuilder &builder, Location loc, Value p, int64_t step) {
    if (normalized(step) == 0)
      return p;
    Value &rotated = rotatedPlaintexts_[{p, normalized(step)}];
    if (rotated)
      return rotated;
    if (auto encode = p.getDefiningOp<bfv::EncodeOp>()) {
      auto values = dyn_cast<DenseIntElementsAttr>(encode.getValue());
      if (!values)
        return rotated = p; // a scalar fills every slot alike
      SmallVector<int64_t> slots(2 * row_, 0), out(2 * row_, 0);
      for (auto [i, value] : llvm::enumerate(values.getValues<int64_t>()))
        slots[i] = value;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t i = 0; i < row_; ++i)
          out[r * row_ + i] = slots[r * row_ + normalized(i + step)];
      auto attr = DenseIntElementsAttr::get(
          RankedTensorType::get({2 * row_}, builder.getI64Type()),
          ArrayRef<int64_t>(out));
      return rotated = bfv::EncodeOp::create(builder, loc, p.getType(), attr);
    }
    return rotated =
               bfv::RotatePlainOp::create(builder, loc, p, signedStep(step));
  }

  int64_t row_;
  unsigned minimumTerms_;
  DenseMap<std::pair<Value, int64_t>, Value> rotatedPlaintexts_;
};

struct BFVBabyStepGiantStep
    : public impl::BFVBabyStepGiantStepBase<BFVBabyStepGiantStep> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](func::FuncOp function) {
      for (bfv::AddOp root : sumRoots<bfv::AddOp>(function)) {
        bfv::ParamsAttr params = root.getType().getParams();
        if (!params.hasRingDegree()) {
          root.emitOpError() << "bfv-baby-step-giant-step needs the ring "
                                "degree N (run bfv-select-parameters first)";
          return WalkResult::interrupt();
        }
        if (!params.batchingObstacle().empty())
          continue;
        size_t saved = SumRewriter(params, minimumTerms).rewrite(root);
        if (saved) {
          ++numSumsRewritten;
          numRotationsSaved += saved;
        }
      }
      eraseUnusedPureOps(function);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
} // namespace ringfuse
