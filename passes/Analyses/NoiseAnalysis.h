//===- NoiseAnalysis.h - noise growth of a bfv circuit ----------*- C++ -*-===//
//
// An estimate, in bits, of the noise each value of a traced circuit carries,
// as a function of the ring degree: the analysis parameter selection queries.
// Noises add as magnitudes: log2(2^a + 2^b) for a sum, so k terms cost
// log2(k) bits, not k.
// The constants were calibrated on the runtime (HPS multiplication with
// hybrid relinearization): a fresh encryption leaves about log2 t + 8 bits of
// Q used, each ciphertext product adds log2 t + 12..16 bits at N = 2^13..2^15.
//
// Run backwards from the outputs, the same rules give each value's
// allowance: the most noise it may carry for every output to stay within a
// limit. Leveled HPS spends the difference (bfv-choose-levels).
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_ANALYSES_NOISEANALYSIS_H
#define RINGFUSE_PASSES_ANALYSES_NOISEANALYSIS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace ringfuse {
namespace bfv {
class MulOp;
} // namespace bfv

class CircuitNoiseAnalysis {
public:
  explicit CircuitNoiseAnalysis(mlir::ModuleOp module);

  /// Given a ciphertext product and its noisier operand's noise, that noise
  /// once the product has rounded its operands (leveled HPS).
  using RoundedOperands = llvm::function_ref<double(bfv::MulOp, double)>;

  /// Bits of Q the noisiest output needs at ring degree n (before margin),
  /// counting `reserveDepth` further products (see afterReservedProducts).
  unsigned requiredBits(unsigned n, uint64_t plaintextModulus,
                        unsigned reserveDepth = 0) const;
  /// Bits of Q each ciphertext value's noise occupies at ring degree n
  /// (log2 of t times its invariant noise; plaintexts carry none). With
  /// `rounded`, each product's operand noise is what it returns, in program
  /// order (the caller may decide each product's level there).
  llvm::DenseMap<mlir::Value, double>
  noiseBits(unsigned n, uint64_t plaintextModulus,
            RoundedOperands rounded = nullptr) const;
  /// The most noise, in the same bits, each value may carry so that every
  /// output stays within `outputLimit` bits after `reserveDepth` further
  /// products. `noise` (noiseBits) splits a sum's allowance between its
  /// terms in proportion to their estimates. Values no output depends on
  /// are absent.
  llvm::DenseMap<mlir::Value, double>
  allowanceBits(unsigned n, uint64_t plaintextModulus, double outputLimit,
                unsigned reserveDepth,
                const llvm::DenseMap<mlir::Value, double> &noise) const;

  /// log2(2^a + 2^b): the noise of a sum, without forming 2^a (Q may have
  /// thousands of bits).
  static double sumOfMagnitudes(double a, double b);
  /// The noise, in the same bits, of rounding a ciphertext to a smaller
  /// modulus (leveled multiplication's scale-down): round(c0) + round(c1) s.
  static double roundingNoiseBits(unsigned n, uint64_t plaintextModulus);
  /// The bits a ciphertext product adds to its noisier operand's noise.
  static double productNoiseBits(unsigned n, uint64_t plaintextModulus);
  /// A value's noise after `depth` more products by fresh ciphertexts, each
  /// relinearized: what an output must leave room for when the caller will
  /// multiply it further.
  static double afterReservedProducts(double noise, unsigned depth, unsigned n,
                                      uint64_t plaintextModulus);

  /// The longest chain of ciphertext multiplications.
  unsigned multiplicativeDepth() const { return depth_; }
  /// Whether the circuit uses slots (rotations, vector constants).
  bool usesSlots() const { return usesSlots_; }
  /// The largest |steps| of a rotation: N/2 must exceed it.
  uint64_t largestRotation() const { return largestRotation_; }
  /// The longest constant slot vector: N must hold it.
  uint64_t longestConstant() const { return longestConstant_; }

private:
  mlir::ModuleOp module_;
  unsigned depth_ = 0;
  bool usesSlots_ = false;
  uint64_t largestRotation_ = 0, longestConstant_ = 0;
};

} // namespace ringfuse

#endif // RINGFUSE_PASSES_ANALYSES_NOISEANALYSIS_H
