//===- cuda_tables.cu - a program's tables in its device allocation -------===//
//
// Every table a CUDA program's kernels read, laid out once per program in
// the tables region of its one allocation: the moduli of each basis (what
// RfKernels::moduli hands out), NTT twiddles per prime, DGT tables per
// basis the schedule DGT-transforms, the conversion,
// scale-and-round and scale-up plans (their weights as the kernels read
// them: rows per output, tensor-core fragments where those pay) and the
// constants' words.
//
//===----------------------------------------------------------------------===//
#include "cuda_driver.h"

#include <algorithm>
#include <cstring>

namespace ringfuse::runtime::detail {
namespace {

std::vector<int> asInts(const std::vector<size_t> &values) {
  return std::vector<int>(values.begin(), values.end());
}

} // namespace

template <typename T> const T *TableImage::put(const T *data, size_t count) {
  const size_t at = alignUp(bytes_.size());
  bytes_.resize(at + count * sizeof(T));
  if (count)
    std::memcpy(bytes_.data() + at, data, count * sizeof(T));
  return reinterpret_cast<const T *>(base_ + at);
}

size_t TableImage::size() const { return alignUp(bytes_.size()); }

/// Each basis's NTT plan (limbCount 0 where it has no NTT), from the
/// tables of each prime (NttTables or NttTables32) of the program's words.
template <typename Tables>
auto placeNttPlans(const RfRuntime &s, const Tables &tables,
                   TableImage &image) {
  using Word = decltype(tables.begin()->second->root());
  using Shoup = cuda::Shoup<Word>;
  std::map<uint64_t, std::pair<const Shoup *, const Shoup *>> placed;
  for (const auto &[q, t] : tables)
    placed[q] = {image.put(t->rootPowers()), image.put(t->inverseRootPowers())};
  std::vector<cuda::BasicNttPlan<Word>> plans;
  for (const BasisPlan &plan : s.bases) {
    cuda::BasicNttPlan<Word> ntt{nullptr, 0};
    if (plan.nttProblem.empty()) {
      std::vector<cuda::BasicNttLimb<Word>> limbs;
      for (uint64_t q : plan.moduli)
        limbs.push_back(cuda::makeNttLimb<Word>(
            static_cast<Word>(q), placed.at(q).first, placed.at(q).second,
            tables.at(q)->inverseDegree()));
      ntt = {image.put(limbs), static_cast<int>(limbs.size())};
    }
    plans.push_back(ntt);
  }
  return plans;
}

/// The DGT plan of a basis's limbs' tables (of either word size).
template <typename Word>
cuda::DgtPlan<Word>
placeDgtPlan(const std::vector<const DgtTables<Word> *> &limbs,
             TableImage &image) {
  std::vector<unsigned char> bytes;
  cuda::DgtPlan<Word> plan =
      cuda::layOutDgtTables(limbs, image.nextAddress(), bytes);
  image.put(bytes);
  return plan;
}

DevicePlans placeTables(const RfRuntime &s, const HostTables &tables,
                        TableImage &image) {
  DevicePlans d;
  const Context &c = *s.context;
  // The transforms' tables, of the program's word size.
  if (s.wordBits == 32)
    d.ntt32 = placeNttPlans(s, tables.ntt32, image);
  else
    d.ntt = placeNttPlans(s, tables.ntt, image);
  for (const BasisPlan &plan : s.bases) {
    d.moduli.push_back(image.put(moduliRecords(plan.moduli)));
    // The same table, read as Modulus (modarith.h asserts the layout).
    d.basisModuli.push_back(reinterpret_cast<const Modulus *>(d.moduli.back()));
    cuda::DgtPlan<uint64_t> dgt{};
    cuda::DgtPlan<uint32_t> dgt32{};
    if (!plan.dgt.empty() && s.wordBits == 32) {
      std::vector<const DgtTables<uint32_t> *> limbs;
      for (uint64_t q : plan.moduli)
        limbs.push_back(tables.dgt32.at(q).get());
      dgt32 = placeDgtPlan(limbs, image);
    } else if (!plan.dgt.empty()) {
      dgt = placeDgtPlan(plan.dgt, image);
    }
    d.dgt.push_back(dgt);
    d.dgt32.push_back(dgt32);
  }
  d.spareModuli = image.put(spareModuli(s));

  // Every word a conversion or scale-and-round reads is below one of these.
  uint64_t wordBound = 0;
  for (const BasisPlan &plan : s.bases)
    wordBound = std::max(wordBound, cuda::largestModulus(plan.moduli));

  // A weight matrix for the tensor cores where they pay, else null.
  auto putMmaWeights = [&](const std::vector<uint64_t> &byInput, int inputs,
                           int outputs, int perSum) -> const uint32_t * {
    if (!cuda::mmaPays(inputs, outputs, perSum, s.wordBits))
      return nullptr;
    return image.put(cuda::mmaWeightFragments(byInput, inputs, outputs,
                                              s.wordBits == 32 ? 4 : 8));
  };
  for (const ConverterPlan &plan : s.converters) {
    cuda::ConvertPlan view{};
    view.method = plan.method;
    view.missingLimbs = image.put(asInts(plan.missingLimbs));
    auto putTargets = [&](const RnsBasis &to) {
      std::vector<Modulus> targets;
      for (size_t j = 0; j < to.size(); ++j)
        targets.push_back(to.modulus(j));
      view.missingSize = static_cast<int>(to.size());
      view.missingModuli = image.put(targets);
    };
    if (plan.missing) {
      const BaseConverter &bc = *plan.missing;
      std::vector<ShoupConstant> inverses;
      for (size_t i = 0; i < bc.from().size(); ++i)
        inverses.push_back(bc.from().puncturedInverse(i));
      putTargets(bc.to());
      view.fromSize = static_cast<int>(bc.from().size());
      view.fromModuli = image.put(bc.from().values());
      view.puncturedInverse = image.put(inverses);
      view.inverseOfFrom = image.put(bc.inverseOfFrom());
      view.puncturedModTo = image.put(cuda::weightRows(
          bc.puncturedModTo(), view.fromSize, view.missingSize));
      view.productModTo = image.put(bc.productModTo());
      view.productsPerSum =
          cuda::productsPerSum(cuda::largestModulus(bc.from().values()),
                               cuda::largestModulus(bc.to().values()));
      view.mmaWeights = putMmaWeights(bc.puncturedModTo(), view.fromSize,
                                      view.missingSize, view.productsPerSum);
    } else if (plan.corrected) {
      const RedundantConverter &rc = *plan.corrected;
      putTargets(rc.to());
      view.fromSize = static_cast<int>(rc.from().size());
      view.fromModuli = image.put(rc.from().values());
      view.puncturedInverse = image.put(rc.scale());
      view.puncturedModTo = image.put(
          cuda::weightRows(rc.weights(), view.fromSize, view.missingSize));
      view.productModTo = image.put(rc.product());
      view.redundant = rc.redundant();
      view.redundantFactor = rc.factor();
      view.redundantWeights =
          image.put(cuda::weightRows(rc.redundantWeights(), view.fromSize, 1));
      view.productsPerSum =
          cuda::productsPerSum(cuda::largestModulus(rc.from().values()),
                               std::max(cuda::largestModulus(rc.to().values()),
                                        rc.redundant().value));
      view.mmaWeights = putMmaWeights(rc.weights(), view.fromSize,
                                      view.missingSize, view.productsPerSum);
      view.readsRedundant = rc.readsRedundant() ? 1 : 0;
    } else {
      view.fromSize = static_cast<int>(s.bases[plan.from].moduli.size());
    }
    // The kernels copy each input limb they stage (the converter's, then a
    // redundant one) to the output limb that is its prime, if any.
    std::vector<int> copyTo(view.fromSize + view.readsRedundant, -1);
    for (size_t j = 0; j < plan.copyFrom.size(); ++j)
      if (plan.copyFrom[j] >= 0)
        copyTo.at(plan.copyFrom[j]) = static_cast<int>(j);
    view.copyTo = image.put(copyTo);
    d.converters.push_back(view);
  }

  for (const ScaleRoundEntry &entry : s.scaleRounds) {
    cuda::ScaleRoundPlanView view{};
    view.divisorLimbs = image.put(asInts(entry.divisorLimbs));
    view.keptLimbs = image.put(asInts(entry.keptLimbs));
    if (entry.floor) {
      const FastFloorPlan &plan = *entry.floor;
      std::vector<Modulus> outputs;
      for (size_t k = 0; k < plan.kept().size(); ++k)
        outputs.push_back(plan.kept().modulus(k));
      view.divisorSize = static_cast<int>(plan.divisor().size());
      view.outputSize = static_cast<int>(outputs.size());
      view.hasLambda = 1;
      view.omega = image.put(
          cuda::weightRows(plan.weights(), view.divisorSize, view.outputSize));
      view.lambda = image.put(plan.lambda());
      view.outputs = image.put(outputs);
      view.productsPerSum =
          cuda::productsPerSum(wordBound, cuda::largestModulus(outputs));
      view.mmaOmega = putMmaWeights(plan.weights(), view.divisorSize,
                                    view.outputSize, view.productsPerSum);
      view.divisorScale = image.put(plan.scale());
      view.divisorModuli = image.put(plan.divisor().values());
    } else {
      const ScaleRoundPlan &plan = *entry.plan;
      view.divisorSize = static_cast<int>(plan.divisorSize());
      view.outputSize = static_cast<int>(plan.outputLimbs());
      // A switch's input has no kept limbs: their term is left out.
      view.hasLambda = plan.lambda().empty() || entry.keptLimbs.empty() ? 0 : 1;
      view.theta = image.put(plan.theta());
      view.omega = image.put(
          cuda::weightRows(plan.omega(), view.divisorSize, view.outputSize));
      view.lambda = image.put(plan.lambda());
      view.outputs = image.put(plan.outputModuli());
      view.productsPerSum = cuda::productsPerSum(
          wordBound, cuda::largestModulus(plan.outputModuli()),
          cuda::roundedSumBound(plan.divisorSize(), wordBound));
      view.mmaOmega = putMmaWeights(plan.omega(), view.divisorSize,
                                    view.outputSize, view.productsPerSum);
    }
    d.scaleRounds.push_back(view);
  }

  for (const ScaleUpPlan &plan : s.scaleUps) {
    cuda::ScaleUpPlanView view{};
    view.limbs = static_cast<int>(plan.outputModuli.size());
    view.t = c.plaintextModulus();
    view.qModT = c.qModT();
    view.deltaModOutput = image.put(plan.deltaModOutput);
    view.outputs = image.put(plan.outputModuli);
    d.scaleUps.push_back(view);
  }

  std::vector<Modulus> qp;
  for (size_t i = 0; i < c.qp().size(); ++i)
    qp.push_back(c.qp().modulus(i));
  d.qpModuli = image.put(qp);

  for (const ConstantData &constant : s.constants)
    d.constantWords.push_back(image.put(constant.words));
  return d;
}

} // namespace ringfuse::runtime::detail
