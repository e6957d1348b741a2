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
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_PASSES_NOISEANALYSIS_H
#define RINGFUSE_PASSES_NOISEANALYSIS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/DenseMap.h"

namespace ringfuse {

class CircuitNoiseAnalysis {
public:
  explicit CircuitNoiseAnalysis(mlir::ModuleOp module);

  /// Bits of Q the noisiest output needs at ring degree n (before margin).
  unsigned requiredBits(unsigned n, uint64_t plaintextModulus) const;
  /// Bits of Q each ciphertext value's noise occupies at ring degree n
  /// (log2 of t times its invariant noise; plaintexts carry none).
  llvm::DenseMap<mlir::Value, double> noiseBits(unsigned n,
                                                uint64_t plaintextModulus) const;
  /// The noise, in the same bits, of rounding a ciphertext to a smaller
  /// modulus (leveled multiplication's scale-down): round(c0) + round(c1) s.
  static double roundingNoiseBits(unsigned n, uint64_t plaintextModulus);
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

#endif // RINGFUSE_PASSES_NOISEANALYSIS_H
