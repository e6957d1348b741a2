//===- ntt.cpp - the negacyclic number-theoretic transform ----------------===//
#include "ringfuse/runtime/ntt.h"

#include "ringfuse/runtime/error.h"

namespace ringfuse::runtime {

uint64_t minimalPrimitiveRoot(uint64_t q, size_t twoN) {
  if (!isPrime(q) || (q - 1) % twoN != 0)
    throw Error(std::to_string(q) + " is not a prime = 1 mod " +
                std::to_string(twoN) + ", so it has no NTT of that size");
  // g^((q-1)/2N) for a non-residue-free generator scan: any x whose
  // (q-1)/2N-th power has order exactly 2N (i.e. its N-th power is -1).
  Modulus m(q);
  uint64_t smallest = 0;
  uint64_t root = 0;
  for (uint64_t x = 2; root == 0; ++x) {
    uint64_t candidate = powMod(x, (q - 1) / twoN, m);
    if (powMod(candidate, twoN / 2, m) == q - 1)
      root = candidate;
  }
  // Every primitive 2N-th root is root^k for odd k; take the smallest, so the
  // tables do not depend on the scan order above.
  uint64_t square = mulMod(root, root, m), power = root;
  smallest = root;
  for (size_t k = 1; k < twoN; k += 2) {
    if (power < smallest)
      smallest = power;
    power = mulMod(power, square, m);
  }
  return smallest;
}

namespace {

void checkDegree(size_t n) {
  if (!isValidRingDegree(n))
    throw Error("NTT size " + std::to_string(n) +
                " is not a power of two in [2, 2^17]");
}

/// psi^bitrev(k) and psi^-bitrev(k) at k, with Shoup companions.
void buildRootPowers(uint64_t q, size_t n, uint64_t root,
                     std::vector<ShoupConstant> &powers,
                     std::vector<ShoupConstant> &inversePowers) {
  const unsigned logN = __builtin_ctzll(n);
  const Modulus m(q);
  const uint64_t inverseRoot = invertModSlow(root, q);
  powers.resize(n);
  inversePowers.resize(n);
  uint64_t power = 1, inversePower = 1;
  for (size_t k = 0; k < n; ++k) {
    const unsigned index = reverseBits(k, logN);
    powers[index] = ShoupConstant(power, q);
    inversePowers[index] = ShoupConstant(inversePower, q);
    power = mulMod(power, root, m);
    inversePower = mulMod(inversePower, inverseRoot, m);
  }
}

/// Cooley-Tukey over one limb; inputs below 4q (x is brought below 2q, so
/// x + y < 4q and x - y + 2q < 4q), outputs canonical.
void forwardLazy(uint64_t *a, size_t n, const ShoupConstant *powers,
                 uint64_t q) {
  const uint64_t twoQ = 2 * q;
  size_t gap = n;
  for (size_t groups = 1; groups < n; groups <<= 1) {
    gap >>= 1;
    for (size_t g = 0; g < groups; ++g) {
      const ShoupConstant w = powers[groups + g];
      uint64_t *x = a + 2 * g * gap, *y = x + gap;
      for (size_t j = 0; j < gap; ++j) {
        uint64_t u = x[j] >= twoQ ? x[j] - twoQ : x[j];
        uint64_t v = mulShoupLazy(y[j], w, q);
        x[j] = u + v;
        y[j] = u - v + twoQ;
      }
    }
  }
  for (size_t j = 0; j < n; ++j) {
    uint64_t v = a[j] >= twoQ ? a[j] - twoQ : a[j];
    a[j] = v >= q ? v - q : v;
  }
}

/// Gentleman-Sande over one limb; values stay below 2q, then N^{-1}.
void inverseLazy(uint64_t *a, size_t n, const ShoupConstant *inversePowers,
                 ShoupConstant inverseDegree, uint64_t q) {
  const uint64_t twoQ = 2 * q;
  size_t gap = 1;
  for (size_t groups = n >> 1; groups >= 1; groups >>= 1) {
    for (size_t g = 0; g < groups; ++g) {
      const ShoupConstant w = inversePowers[groups + g];
      uint64_t *x = a + 2 * g * gap, *y = x + gap;
      for (size_t j = 0; j < gap; ++j) {
        uint64_t u = x[j], v = y[j];
        uint64_t sum = u + v;
        x[j] = sum >= twoQ ? sum - twoQ : sum;
        y[j] = mulShoupLazy(u - v + twoQ, w, q);
      }
    }
    gap <<= 1;
  }
  for (size_t j = 0; j < n; ++j)
    a[j] = mulShoup(a[j], inverseDegree, q);
}

} // namespace

NttTables::NttTables(uint64_t q, size_t n)
    : n_(n), logN_(__builtin_ctzll(n)), modulus_(q) {
  checkDegree(n);
  if (q >= (uint64_t(1) << 62))
    throw Error("NTT modulus " + std::to_string(q) +
                " is not below 2^62 (lazy butterflies need two spare bits)");
  root_ = minimalPrimitiveRoot(q, 2 * n);
  buildRootPowers(q, n, root_, rootPowers_, inverseRootPowers_);
  inverseDegree_ = ShoupConstant(invertModSlow(n % q, q), q);
}

void NttTables::forward(uint64_t *a) const {
  forwardLazy(a, n_, rootPowers_.data(), modulus_.value);
}

void NttTables::inverse(uint64_t *a) const {
  inverseLazy(a, n_, inverseRootPowers_.data(), inverseDegree_, modulus_.value);
}

std::vector<size_t> batchingSlotPositions(size_t n) {
  const unsigned logN = __builtin_ctzll(n);
  const uint64_t twoN = 2 * n;
  std::vector<size_t> positions(n);
  uint64_t power = 1; // 3^i mod 2N
  for (size_t i = 0; i < n / 2; ++i) {
    positions[i] = reverseBits((power - 1) / 2, logN);
    positions[n / 2 + i] = reverseBits((twoN - power - 1) / 2, logN);
    power = power * 3 % twoN;
  }
  return positions;
}

void applyAutomorphism(const uint64_t *in, size_t n, uint64_t galoisElement,
                       uint64_t q, uint64_t *out) {
  const uint64_t twoN = 2 * n;
  uint64_t position = 0;
  for (size_t i = 0; i < n; ++i, position = (position + galoisElement) % twoN) {
    if (position < n)
      out[position] = in[i];
    else
      out[position - n] = negateMod(in[i], q);
  }
}

void applyEvaluationAutomorphism(const uint64_t *in, size_t n,
                                 uint64_t galoisElement, uint64_t *out) {
  const unsigned logN = __builtin_ctzll(n);
  for (size_t j = 0; j < n; ++j)
    out[j] = in[evaluationAutomorphismSource(j, logN, galoisElement)];
}

} // namespace ringfuse::runtime
