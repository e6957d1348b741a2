//===- biguint.h - unsigned integers of any size (host only) ------*- C++ -*-===//
//
// For what happens once per parameter set or in tests: products of RNS bases,
// CRT composition, the constants of scale-and-round, noise measurement. Simple
// and exact rather than fast.
//
//===----------------------------------------------------------------------===//
#ifndef RINGFUSE_RUNTIME_BIGUINT_H
#define RINGFUSE_RUNTIME_BIGUINT_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ringfuse::runtime {

class BigUInt {
public:
  BigUInt() = default;
  BigUInt(uint64_t value); // NOLINT: integers convert implicitly
  static BigUInt fromWords(std::vector<uint64_t> words);
  static BigUInt powerOfTwo(unsigned exponent);
  static BigUInt product(const std::vector<uint64_t> &factors);

  bool isZero() const { return words_.empty(); }
  unsigned bitLength() const;
  const std::vector<uint64_t> &words() const { return words_; }
  /// The value as uint64_t; the caller knows it fits.
  uint64_t toUint64() const;
  std::string toString() const;

  BigUInt &operator+=(const BigUInt &other);
  BigUInt &operator-=(const BigUInt &other); // requires *this >= other
  BigUInt operator+(const BigUInt &other) const;
  BigUInt operator-(const BigUInt &other) const;
  BigUInt operator*(const BigUInt &other) const;
  BigUInt operator<<(unsigned bits) const;
  BigUInt operator>>(unsigned bits) const;

  /// (quotient, remainder) of division by a word.
  std::pair<BigUInt, uint64_t> divModWord(uint64_t divisor) const;
  uint64_t modWord(uint64_t divisor) const;
  /// (quotient, remainder) of division by any nonzero BigUInt.
  std::pair<BigUInt, BigUInt> divMod(const BigUInt &divisor) const;

  int compare(const BigUInt &other) const;
  bool operator==(const BigUInt &o) const { return compare(o) == 0; }
  bool operator!=(const BigUInt &o) const { return compare(o) != 0; }
  bool operator<(const BigUInt &o) const { return compare(o) < 0; }
  bool operator<=(const BigUInt &o) const { return compare(o) <= 0; }
  bool operator>(const BigUInt &o) const { return compare(o) > 0; }
  bool operator>=(const BigUInt &o) const { return compare(o) >= 0; }

private:
  void trim();
  std::vector<uint64_t> words_; // little-endian, no leading zero words
};

} // namespace ringfuse::runtime

#endif // RINGFUSE_RUNTIME_BIGUINT_H
