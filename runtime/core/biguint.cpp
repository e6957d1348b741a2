//===- biguint.cpp - unsigned integers of any size ------------------------===//
#include "ringfuse/runtime/biguint.h"

#include "ringfuse/runtime/error.h"
#include "ringfuse/runtime/number_theory.h"

#include <algorithm>

namespace ringfuse::runtime {

BigUInt::BigUInt(uint64_t value) {
  if (value)
    words_.push_back(value);
}

BigUInt BigUInt::fromWords(std::vector<uint64_t> words) {
  BigUInt result;
  result.words_ = std::move(words);
  result.trim();
  return result;
}

BigUInt BigUInt::powerOfTwo(unsigned exponent) { return BigUInt(1) << exponent; }

BigUInt BigUInt::product(const std::vector<uint64_t> &factors) {
  BigUInt result(1);
  for (uint64_t factor : factors)
    result = result * BigUInt(factor);
  return result;
}

void BigUInt::trim() {
  while (!words_.empty() && words_.back() == 0)
    words_.pop_back();
}

unsigned BigUInt::bitLength() const {
  if (words_.empty())
    return 0;
  return 64 * (words_.size() - 1) + (64 - __builtin_clzll(words_.back()));
}

uint64_t BigUInt::toUint64() const {
  if (words_.size() > 1)
    throw Error("internal: integer of " + std::to_string(bitLength()) +
                " bits does not fit 64 bits");
  return words_.empty() ? 0 : words_[0];
}

std::string BigUInt::toString() const {
  if (isZero())
    return "0";
  constexpr uint64_t chunk = 10000000000000000000ull; // 10^19
  std::vector<uint64_t> pieces;
  BigUInt rest = *this;
  while (!rest.isZero()) {
    auto [quotient, remainder] = rest.divModWord(chunk);
    pieces.push_back(remainder);
    rest = std::move(quotient);
  }
  std::string text = std::to_string(pieces.back());
  for (auto it = pieces.rbegin() + 1; it != pieces.rend(); ++it) {
    std::string digits = std::to_string(*it);
    text += std::string(19 - digits.size(), '0') + digits;
  }
  return text;
}

BigUInt &BigUInt::operator+=(const BigUInt &other) {
  words_.resize(std::max(words_.size(), other.words_.size()) + 1, 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < words_.size(); ++i) {
    uint128_t sum = static_cast<uint128_t>(words_[i]) + carry +
                    (i < other.words_.size() ? other.words_[i] : 0);
    words_[i] = static_cast<uint64_t>(sum);
    carry = static_cast<uint64_t>(sum >> 64);
  }
  trim();
  return *this;
}

BigUInt &BigUInt::operator-=(const BigUInt &other) {
  if (*this < other)
    throw Error("internal: BigUInt subtraction would be negative");
  uint64_t borrow = 0;
  for (size_t i = 0; i < words_.size(); ++i) {
    uint64_t subtrahend = i < other.words_.size() ? other.words_[i] : 0;
    uint64_t before = words_[i];
    words_[i] = before - subtrahend - borrow;
    borrow = (before < subtrahend) || (before - subtrahend < borrow);
  }
  trim();
  return *this;
}

BigUInt BigUInt::operator+(const BigUInt &other) const {
  BigUInt result = *this;
  return result += other;
}

BigUInt BigUInt::operator-(const BigUInt &other) const {
  BigUInt result = *this;
  return result -= other;
}

BigUInt BigUInt::operator*(const BigUInt &other) const {
  if (isZero() || other.isZero())
    return BigUInt();
  std::vector<uint64_t> result(words_.size() + other.words_.size(), 0);
  for (size_t i = 0; i < words_.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < other.words_.size(); ++j) {
      uint128_t cell = static_cast<uint128_t>(words_[i]) * other.words_[j] +
                       result[i + j] + carry;
      result[i + j] = static_cast<uint64_t>(cell);
      carry = static_cast<uint64_t>(cell >> 64);
    }
    result[i + other.words_.size()] = carry;
  }
  return fromWords(std::move(result));
}

BigUInt BigUInt::operator<<(unsigned bits) const {
  if (isZero())
    return BigUInt();
  unsigned wordShift = bits / 64, bitShift = bits % 64;
  std::vector<uint64_t> result(words_.size() + wordShift + 1, 0);
  for (size_t i = 0; i < words_.size(); ++i) {
    result[i + wordShift] |= words_[i] << bitShift;
    if (bitShift)
      result[i + wordShift + 1] |= words_[i] >> (64 - bitShift);
  }
  return fromWords(std::move(result));
}

BigUInt BigUInt::operator>>(unsigned bits) const {
  unsigned wordShift = bits / 64, bitShift = bits % 64;
  if (wordShift >= words_.size())
    return BigUInt();
  std::vector<uint64_t> result(words_.size() - wordShift, 0);
  for (size_t i = 0; i < result.size(); ++i) {
    result[i] = words_[i + wordShift] >> bitShift;
    if (bitShift && i + wordShift + 1 < words_.size())
      result[i] |= words_[i + wordShift + 1] << (64 - bitShift);
  }
  return fromWords(std::move(result));
}

std::pair<BigUInt, uint64_t> BigUInt::divModWord(uint64_t divisor) const {
  if (divisor == 0)
    throw Error("internal: division by zero");
  std::vector<uint64_t> quotient(words_.size(), 0);
  uint128_t remainder = 0;
  for (size_t i = words_.size(); i-- > 0;) {
    uint128_t current = (remainder << 64) | words_[i];
    quotient[i] = static_cast<uint64_t>(current / divisor);
    remainder = current % divisor;
  }
  return {fromWords(std::move(quotient)), static_cast<uint64_t>(remainder)};
}

uint64_t BigUInt::modWord(uint64_t divisor) const {
  return divModWord(divisor).second;
}

std::pair<BigUInt, BigUInt> BigUInt::divMod(const BigUInt &divisor) const {
  if (divisor.isZero())
    throw Error("internal: division by zero");
  if (*this < divisor)
    return {BigUInt(), *this};
  if (divisor.words_.size() == 1) {
    auto [quotient, remainder] = divModWord(divisor.words_[0]);
    return {quotient, BigUInt(remainder)};
  }
  // Binary long division: one shift and compare per quotient bit.
  unsigned shift = bitLength() - divisor.bitLength();
  BigUInt remainder = *this;
  std::vector<uint64_t> quotient(shift / 64 + 1, 0);
  for (unsigned bit = shift + 1; bit-- > 0;) {
    BigUInt shifted = divisor << bit;
    if (remainder >= shifted) {
      remainder -= shifted;
      quotient[bit / 64] |= uint64_t(1) << (bit % 64);
    }
  }
  return {fromWords(std::move(quotient)), remainder};
}

int BigUInt::compare(const BigUInt &other) const {
  if (words_.size() != other.words_.size())
    return words_.size() < other.words_.size() ? -1 : 1;
  for (size_t i = words_.size(); i-- > 0;)
    if (words_[i] != other.words_[i])
      return words_[i] < other.words_[i] ? -1 : 1;
  return 0;
}

} // namespace ringfuse::runtime
