//===- kernel_checks.h - what every library kernel checks first -*- C++ -*-===//
//
// One check per entry of kernel_catalog.def, declared from it: the same
// rules for every driver, so a program refused on the GPU is refused on the
// CPU too. Each takes the entry's own arguments, throws an Error that says
// what was wrong, and returns the Call its driver method receives: the plans
// the indices name and what the check learned (sizes, overlaps, the NTT
// shape).
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_DRIVER_KERNEL_CHECKS_H
#define RINGFUSE_RUNTIME_DRIVER_KERNEL_CHECKS_H

#include "program_state.h"

#include "ringfuse/runtime/ntt_shape.h"
#include "ringfuse/runtime/sum_of_products.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ringfuse::runtime::detail {

/// An NTT over every limb of a basis with NTT tables, in the decomposition
/// the program asked for (log_n1, radix, ot_stages; 0, 0, 0: the driver's
/// default), which the GPU NTT supports for 64-bit words and the
/// program's N: a program that runs on the CPU must run on the GPU.
struct NttCall {
  const BasisPlan *basis;
  NttShape shape;
};

/// A DGT over every limb of a basis the manifest marks `dgt`.
struct DgtCall {
  const BasisPlan *basis;
};

struct ConvertCall {
  const ConverterPlan *plan;
  size_t inWords, outWords;
  bool overlapping; // in and out share words: stage the output
};

struct ScaleRoundCall {
  const ScaleRoundEntry *entry;
  size_t inWords, outWords;
  bool overlapping;
};

struct ScaleUpCall {
  const ScaleUpPlan *plan;
  size_t limbs;
  bool overlapping;
};

/// X -> X^g from a buffer of the basis to another that does not overlap it.
struct AutomorphismCall {
  const BasisPlan *basis;
};

/// A key-switching inner product over Q_l P (Q's first l primes, then P):
/// limb i of the basis is the key's limb keyLimb(i).
struct KeySwitchCall {
  const KeySwitchKey *key;
  size_t limbs, qLimbs, skippedLimbs, digits;
  RfKeySwitchAddend addend; // limbs 0: none
  size_t keyLimb(size_t i) const { return i < qLimbs ? i : i + skippedLimbs; }
};

/// ntt_key_switch: a shape the fused NTT takes; the inner product's call
/// with the scratch buffers as its digits; which digits are one prime's limb.
struct NttKeySwitchCall {
  KeySwitchCall keySwitch;
  NttShape shape;
  std::vector<bool> oneLimb;
};

/// ntt_products: a shape the fused NTT takes; which factors are one prime's
/// limb; the words of a polynomial over the basis.
struct NttProductsCall {
  NttShape shape;
  std::vector<bool> oneLimb;
  size_t words;
};

/// sum_of_products: the basis and the words of a polynomial over it, and
/// the triples as both drivers take them: output k sums the products t in
/// [firstProduct[k], firstProduct[k + 1]) of factors first[t] and
/// second[t], from 0 or (accumulate) its own words. Compact, so that the
/// GPU kernel takes them by value (a captured graph keeps its parameters,
/// not the schedule's arrays).
struct SumOfProductsCall {
  const BasisPlan *basis;
  size_t words;
  int outputCount;
  bool accumulate;
  std::array<int, kMaxSumOutputs + 1> firstProduct;
  std::array<uint8_t, kMaxSumProducts> first, second;
};
static_assert(kMaxSumFactors <= 256, "factor indices are kept as uint8_t");

namespace checks {
#define RF_KERNEL(name, Call, parameters, ...) Call name parameters;
#include "ringfuse/runtime/kernel_catalog.def"
} // namespace checks

} // namespace ringfuse::runtime::detail

#endif // RINGFUSE_RUNTIME_DRIVER_KERNEL_CHECKS_H
