"""A textbook BFV in plain Python big integers: the test oracle for ringfuse.

This is the *definition* the runtime is checked against, so it is written to be
obviously correct rather than fast, and it shares no code with the runtime:
no RNS arithmetic inside the scheme (Q is one Python int), no NTT (products are
schoolbook negacyclic convolutions, O(N^2)), no fixed-point tricks (every
rounding is an exact rational rounding). It is fine up to N = 2^12.

Conventions (ringfuse's, which the runtime follows; Fan–Vercauteren,
"Somewhat Practical Fully Homomorphic Encryption", eprint 2012/144, with
SEAL's choices where FV leaves one open):

- Ring R = Z[X]/(X^N + 1), N a power of two; ciphertext modulus Q (any int),
  plaintext modulus t >= 2. A polynomial is a list of N ints, coefficient j
  of X^j first. A ciphertext is a list of k >= 1 polynomials (c0, c1, ...)
  with coefficients in [0, Q); it decrypts through c0 + c1*s + c2*s^2 + ...
- Plaintexts are scaled by round(Q*m/t) (round half up), not by
  Delta = floor(Q/t), as SEAL does (`scale_plaintext`).
- Secret key s: ternary coefficients in {-1, 0, 1}, returned signed.
  Errors: centered binomial with eta = 21 (variance 10.5, close to the usual
  sigma = 3.2 discrete Gaussian; bounded by 21). The oracle is not the secure
  implementation: the errors only have to be small and reproducible.
- Noise budget: SEAL's invariant noise budget (`noise_budget`).
- Slots, for prime t = 1 mod 2N: two rows of N/2; slot (row 0, column i) is
  m(zeta^(3^i)), slot (row 1, column i) is m(zeta^(-3^i)), exponents mod 2N
  (`slot_exponents`). X -> X^(3^k) rotates both rows left by k and
  X -> X^(2N-1) swaps the rows.

All randomness comes from a caller's `random.Random(seed)`, so a test is
reproducible from its seed.

>>> params = Params(n=16, q=(1 << 100) + 277, t=65537)
>>> rng = random.Random(1)
>>> s, pk = keygen(params, rng)
>>> m = encode_slots(list(range(16)), params.n, params.t)
>>> ct = encrypt_public(params, pk, m, rng)
>>> decode_slots(decrypt(params, s, multiply(params, ct, ct)), params.n, params.t)[:5]
[0, 1, 4, 9, 16]
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "Ciphertext",
    "OracleError",
    "Params",
    "Poly",
    "PublicKey",
    "add",
    "add_plain",
    "automorphism",
    "automorphism_ciphertext",
    "centered",
    "centered_poly",
    "decode_slots",
    "decrypt",
    "encode_slots",
    "encrypt_public",
    "encrypt_symmetric",
    "from_rns",
    "is_prime",
    "keygen",
    "mul_plain",
    "multiply",
    "negacyclic_multiply",
    "negate",
    "noise_budget",
    "phase",
    "primitive_root_of_unity",
    "round_half_up",
    "row_swap_galois_element",
    "rotation_galois_element",
    "sample_error",
    "sample_ternary",
    "sample_uniform",
    "scale_plaintext",
    "slot_exponents",
    "sub",
    "to_rns",
]

Poly: TypeAlias = list[int]
Ciphertext: TypeAlias = list[Poly]
PublicKey: TypeAlias = tuple[Poly, Poly]

# Centered binomial parameter: e = popcount(eta random bits) - popcount(eta random bits).
ERROR_ETA = 21


class OracleError(ValueError):
    """Inputs the oracle cannot give a meaning to; the message says what was
    expected and what was found."""


@dataclass(frozen=True)
class Params:
    """BFV parameters: ring degree n (a power of two >= 2), ciphertext modulus q
    (any int > t; a product of primes in practice, but the oracle never splits
    it) and plaintext modulus t >= 2.

    >>> Params(n=8, q=2**60, t=256).n
    8
    """

    n: int
    q: int
    t: int

    def __post_init__(self) -> None:
        if self.n < 2 or self.n & (self.n - 1):
            raise OracleError(f"expected n to be a power of two >= 2, found {self.n}")
        if self.t < 2:
            raise OracleError(f"expected a plaintext modulus t >= 2, found {self.t}")
        if self.q <= self.t:
            raise OracleError(f"expected q > t = {self.t}, found q = {self.q}")


# --------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------


def centered(x: int, modulus: int) -> int:
    """The representative of x mod `modulus` in (-modulus/2, modulus/2].

    >>> [centered(x, 4) for x in range(4)], [centered(x, 5) for x in range(5)]
    ([0, 1, 2, -1], [0, 1, 2, -2, -1])
    """
    r = x % modulus
    return r - modulus if r > modulus // 2 else r


def centered_poly(poly: Sequence[int], modulus: int) -> Poly:
    """`centered` applied to every coefficient."""
    return [centered(c, modulus) for c in poly]


def round_half_up(numerator: int, denominator: int) -> int:
    """floor(numerator/denominator + 1/2), exactly, for any sign of numerator.

    Python's `//` floors towards minus infinity, which is what makes this one
    formula right for negative numerators too.

    >>> [round_half_up(x, 2) for x in (-3, -1, 1, 3)]
    [-1, 0, 1, 2]
    """
    if denominator <= 0:
        raise OracleError(f"expected a positive denominator, found {denominator}")
    return (2 * numerator + denominator) // (2 * denominator)


# Deterministic Miller-Rabin bases: correct for every n < 3.3 * 10^24.
_MILLER_RABIN_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)


def is_prime(n: int) -> bool:
    """Whether n is prime (deterministic Miller-Rabin, exact for n < 3.3e24).

    >>> [p for p in range(20) if is_prime(p)]
    [2, 3, 5, 7, 11, 13, 17, 19]
    """
    if n < 2:
        return False
    for p in _MILLER_RABIN_BASES:
        if n % p == 0:
            return n == p
    if n >= 3_317_044_064_679_887_385_961_981:
        raise OracleError(f"expected n < 3.3e24 for deterministic Miller-Rabin, found {n}")
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in _MILLER_RABIN_BASES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _distinct_prime_factors(n: int) -> list[int]:
    """Trial division; the oracle only factors t - 1 for plaintext moduli t."""
    factors = []
    p = 2
    while p * p <= n:
        if n % p == 0:
            factors.append(p)
            while n % p == 0:
                n //= p
        p += 1 if p == 2 else 2
    if n > 1:
        factors.append(n)
    return factors


# --------------------------------------------------------------------------
# The ring Z[X]/(X^N + 1)
# --------------------------------------------------------------------------


def _check_degree(poly: Sequence[int], n: int, what: str) -> None:
    if len(poly) != n:
        raise OracleError(f"expected {what} with {n} coefficients, found {len(poly)}")


def negacyclic_multiply(a: Sequence[int], b: Sequence[int], modulus: int | None = None) -> Poly:
    """a*b in Z[X]/(X^N + 1): coefficient k is the sum of a_i*b_j over i+j = k
    minus the sum over i+j = k+N (X^N = -1). Exact over Z when `modulus` is
    None, else reduced into [0, modulus).

    >>> negacyclic_multiply([0, 0, 0, 1], [0, 1, 0, 0])  # X^3 * X = X^4 = -1
    [-1, 0, 0, 0]
    """
    n = len(a)
    _check_degree(b, n, "a second factor")
    # The full product of degree < 2N first, then the fold: the two steps are
    # the definition, and each is obviously right on its own.
    linear = [0] * (2 * n)
    for i, ai in enumerate(a):
        if ai:
            linear[i : i + n] = [acc + ai * bj for acc, bj in zip(linear[i : i + n], b)]
    folded = [linear[k] - linear[k + n] for k in range(n)]
    return folded if modulus is None else [c % modulus for c in folded]


def _poly_add(a: Sequence[int], b: Sequence[int], modulus: int) -> Poly:
    return [(x + y) % modulus for x, y in zip(a, b, strict=True)]


def _poly_sub(a: Sequence[int], b: Sequence[int], modulus: int) -> Poly:
    return [(x - y) % modulus for x, y in zip(a, b, strict=True)]


def automorphism(poly: Sequence[int], g: int, modulus: int | None = None) -> Poly:
    """poly(X^g) in Z[X]/(X^N + 1), N = len(poly), for odd g (taken mod 2N).

    Coefficient i moves to (i*g) mod 2N, negated if that is >= N (then to
    that minus N), because X^N = -1. Signed when `modulus` is None, else in
    [0, modulus). Decrypting an automorphed ciphertext takes the automorphed
    secret: `decrypt(params, automorphism(s, g), automorphism_ciphertext(...))`.

    >>> automorphism([10, 11, 12, 13], 3)  # X -> X^3, X^2 -> -X^2, X^3 -> X
    [10, 13, -12, 11]
    """
    n = len(poly)
    if n < 1 or n & (n - 1):
        raise OracleError(f"expected a power-of-two number of coefficients, found {n}")
    g %= 2 * n
    if g % 2 == 0:
        raise OracleError(f"expected an odd Galois element, found {g} (mod {2 * n})")
    out = [0] * n
    for i, c in enumerate(poly):
        position = i * g % (2 * n)
        if position >= n:
            out[position - n] = -c
        else:
            out[position] = c
    return out if modulus is None else [c % modulus for c in out]


# --------------------------------------------------------------------------
# Sampling
# --------------------------------------------------------------------------


def sample_ternary(n: int, rng: random.Random) -> Poly:
    """n coefficients uniform in {-1, 0, 1}."""
    return [rng.randrange(3) - 1 for _ in range(n)]


def sample_error(n: int, rng: random.Random) -> Poly:
    """n centered-binomial coefficients in [-ERROR_ETA, ERROR_ETA]."""
    return [
        rng.getrandbits(ERROR_ETA).bit_count() - rng.getrandbits(ERROR_ETA).bit_count()
        for _ in range(n)
    ]


def sample_uniform(n: int, q: int, rng: random.Random) -> Poly:
    """n coefficients uniform in [0, q)."""
    return [rng.randrange(q) for _ in range(n)]


# --------------------------------------------------------------------------
# Encryption and decryption (FV section 4)
# --------------------------------------------------------------------------


def scale_plaintext(params: Params, m: Sequence[int]) -> Poly:
    """round(Q*m_j/t), half up, for m reduced into [0, t): the message's
    position in the top bits of a ciphertext.

    >>> scale_plaintext(Params(n=2, q=10, t=4), [1, 3])  # 2.5 -> 3, 7.5 -> 8
    [3, 8]
    """
    _check_degree(m, params.n, "a plaintext")
    return [round_half_up(params.q * (mj % params.t), params.t) for mj in m]


def keygen(params: Params, rng: random.Random) -> tuple[Poly, PublicKey]:
    """A secret key s (ternary, signed) and public key (pk0, pk1) =
    ([-(a*s + e)]_Q, a) with a uniform mod Q."""
    s = sample_ternary(params.n, rng)
    a = sample_uniform(params.n, params.q, rng)
    e = sample_error(params.n, rng)
    a_s = negacyclic_multiply(a, s)
    pk0 = [-(x + y) % params.q for x, y in zip(a_s, e)]
    return s, (pk0, a)


def encrypt_public(
    params: Params, pk: PublicKey, m: Sequence[int], rng: random.Random
) -> Ciphertext:
    """(c0, c1) = ([pk0*u + e1 + round(Q*m/t)]_Q, [pk1*u + e2]_Q), u ternary.

    `m` has N coefficients, taken mod t.
    """
    pk0, pk1 = pk
    _check_degree(pk0, params.n, "pk0")
    _check_degree(pk1, params.n, "pk1")
    scaled = scale_plaintext(params, m)
    u = sample_ternary(params.n, rng)
    e1 = sample_error(params.n, rng)
    e2 = sample_error(params.n, rng)
    c0 = [
        (x + y + z) % params.q for x, y, z in zip(negacyclic_multiply(pk0, u), e1, scaled)
    ]
    c1 = [(x + y) % params.q for x, y in zip(negacyclic_multiply(pk1, u), e2)]
    return [c0, c1]


def encrypt_symmetric(
    params: Params, s: Sequence[int], m: Sequence[int], rng: random.Random
) -> Ciphertext:
    """(c0, c1) = ([-(a*s) + e + round(Q*m/t)]_Q, a), a uniform mod Q.

    `m` has N coefficients, taken mod t.
    """
    _check_degree(s, params.n, "a secret key")
    scaled = scale_plaintext(params, m)
    a = sample_uniform(params.n, params.q, rng)
    e = sample_error(params.n, rng)
    c0 = [(-x + y + z) % params.q for x, y, z in zip(negacyclic_multiply(a, s), e, scaled)]
    return [c0, a]


def _check_ciphertext(params: Params, ct: Sequence[Sequence[int]]) -> None:
    if len(ct) < 1:
        raise OracleError("expected a ciphertext with at least one component, found none")
    for index, component in enumerate(ct):
        _check_degree(component, params.n, f"ciphertext component {index}")


def phase(params: Params, s: Sequence[int], ct: Sequence[Sequence[int]]) -> Poly:
    """[c0 + c1*s + c2*s^2 + ...]_Q in [0, Q), by Horner's rule in s.

    `s` may be signed or already reduced mod Q: only its class mod Q matters.
    """
    _check_ciphertext(params, ct)
    _check_degree(s, params.n, "a secret key")
    acc = [c % params.q for c in ct[-1]]
    for component in reversed(ct[:-1]):
        acc = _poly_add(negacyclic_multiply(acc, s, params.q), component, params.q)
    return acc


def decrypt(params: Params, s: Sequence[int], ct: Sequence[Sequence[int]]) -> Poly:
    """m_j = round(t*x_j/Q) mod t (half up), x = `phase` in [0, Q); any number
    of components.

    >>> decrypt(Params(n=4, q=8, t=4), [0] * 4, [[1, 3, 7, 2]])  # x/2: .5 -> 1, 1.5 -> 2
    [1, 2, 0, 1]
    """
    return [round_half_up(params.t * x, params.q) % params.t for x in phase(params, s, ct)]


def noise_budget(params: Params, s: Sequence[int], ct: Sequence[Sequence[int]]) -> int:
    """SEAL's invariant noise budget in bits:
    max(0, bitlen(Q) - bitlen(max_j |v_j|) - 1), v = [t*phase]_Q centered.

    t*phase cancels the message (t*round(Q*m/t) = Q*m + small) and leaves
    t times the noise; decryption is correct while |v| < Q/2, so the budget is
    how many more bits the noise may grow.
    """
    v = [centered(params.t * x, params.q) for x in phase(params, s, ct)]
    largest = max(abs(x) for x in v)
    return max(0, params.q.bit_length() - largest.bit_length() - 1)


# --------------------------------------------------------------------------
# Homomorphic operations
# --------------------------------------------------------------------------


def add(params: Params, c: Ciphertext, d: Ciphertext) -> Ciphertext:
    """Componentwise sum mod Q; the shorter ciphertext is padded with zero
    components (decryption is linear in the components, so this is exact)."""
    return _componentwise(params, c, d, _poly_add)


def sub(params: Params, c: Ciphertext, d: Ciphertext) -> Ciphertext:
    """Componentwise difference mod Q, padded like `add`."""
    return _componentwise(params, c, d, _poly_sub)


def _componentwise(
    params: Params,
    c: Ciphertext,
    d: Ciphertext,
    op: Callable[[Sequence[int], Sequence[int], int], Poly],
) -> Ciphertext:
    _check_ciphertext(params, c)
    _check_ciphertext(params, d)
    zero = [0] * params.n
    size = max(len(c), len(d))
    pad_c = list(c) + [zero] * (size - len(c))
    pad_d = list(d) + [zero] * (size - len(d))
    return [op(x, y, params.q) for x, y in zip(pad_c, pad_d)]


def negate(params: Params, c: Ciphertext) -> Ciphertext:
    """Every component negated mod Q."""
    _check_ciphertext(params, c)
    return [[-x % params.q for x in component] for component in c]


def add_plain(params: Params, c: Ciphertext, m: Sequence[int]) -> Ciphertext:
    """c0 + round(Q*m/t); the other components unchanged."""
    _check_ciphertext(params, c)
    return [_poly_add(c[0], scale_plaintext(params, m), params.q)] + [list(x) for x in c[1:]]


def mul_plain(params: Params, c: Ciphertext, m: Sequence[int]) -> Ciphertext:
    """Every component times m lifted to centered representatives of Z_t in
    (-t/2, t/2], mod Q. The centered lift keeps the noise growth to
    N * t/2 * noise instead of N * t * noise."""
    _check_ciphertext(params, c)
    _check_degree(m, params.n, "a plaintext")
    lifted = centered_poly(m, params.t)
    return [negacyclic_multiply(component, lifted, params.q) for component in c]


def multiply(params: Params, c: Ciphertext, d: Ciphertext) -> Ciphertext:
    """The textbook BFV product (FV section 4, "Mul"), without relinearization.

    Lift every component to (-Q/2, Q/2], form the tensor product over Z,
    e_k = sum over i+j = k of c_i*d_j (exact negacyclic products), then
    e_k <- round(t*e_k/Q) mod Q, half up. Two 2-component inputs give 3
    components (c0*d0, c0*d1 + c1*d0, c1*d1) that decrypt, under s, to the
    negacyclic product of the plaintexts mod t; in general a k- and an
    l-component input give k+l-1.
    """
    _check_ciphertext(params, c)
    _check_ciphertext(params, d)
    lift_c = [centered_poly(x, params.q) for x in c]
    lift_d = [centered_poly(x, params.q) for x in d]
    tensor = [[0] * params.n for _ in range(len(c) + len(d) - 1)]
    for i, ci in enumerate(lift_c):
        for j, dj in enumerate(lift_d):
            product = negacyclic_multiply(ci, dj)
            tensor[i + j] = [x + y for x, y in zip(tensor[i + j], product)]
    return [
        [round_half_up(params.t * x, params.q) % params.q for x in component]
        for component in tensor
    ]


def automorphism_ciphertext(params: Params, c: Ciphertext, g: int) -> Ciphertext:
    """`automorphism` by X -> X^g on every component, mod Q. The result
    decrypts under automorphism(s, g) to automorphism(m, g) mod t (no key
    switching: the oracle decrypts under the automorphed secret instead)."""
    _check_ciphertext(params, c)
    return [automorphism(component, g, params.q) for component in c]


# --------------------------------------------------------------------------
# Slots (batching), for prime t = 1 mod 2N
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def primitive_root_of_unity(order: int, t: int) -> int:
    """The smallest primitive `order`-th root of unity mod prime t: ringfuse's
    (and SEAL's) deterministic choice of the batching root.

    >>> primitive_root_of_unity(4, 13)  # 5 and 8 have order 4; 5 is smaller
    5
    """
    if not is_prime(t):
        raise OracleError(f"expected a prime plaintext modulus for slots, found t = {t}")
    if (t - 1) % order:
        raise OracleError(
            f"expected t = 1 mod {order} for slots, found t = {t} = {t % order} mod {order}"
        )
    factors = _distinct_prime_factors(t - 1)
    generator = next(
        g for g in range(2, t) if all(pow(g, (t - 1) // p, t) != 1 for p in factors)
    )
    # The primitive roots of this order are root^k for k coprime to the order.
    root = pow(generator, (t - 1) // order, t)
    return min(pow(root, k, t) for k in range(1, order) if math.gcd(k, order) == 1)


def slot_exponents(n: int) -> list[int]:
    """The exponent e of zeta at which each slot evaluates, in slot order:
    row 0 is 3^i mod 2N, row 1 is 2N - (3^i mod 2N), for i < N/2.

    >>> slot_exponents(8)  # 2N = 16: 3^i = 1, 3, 9, 11
    [1, 3, 9, 11, 15, 13, 7, 5]
    """
    row0 = [pow(3, i, 2 * n) for i in range(n // 2)]
    return row0 + [2 * n - e for e in row0]


def rotation_galois_element(step: int, n: int) -> int:
    """3^step mod 2N, with step taken mod N/2 (the order of 3 mod 2N, N >= 4):
    X -> X^that rotates both slot rows left by `step` (right when negative).

    >>> rotation_galois_element(1, 8), rotation_galois_element(-1, 8)
    (3, 11)
    """
    return pow(3, step % (n // 2), 2 * n)


def row_swap_galois_element(n: int) -> int:
    """2N - 1: X -> X^(2N-1) maps exponent e to -e, swapping the slot rows."""
    return 2 * n - 1


def _slot_zeta(n: int, t: int, zeta: int | None) -> int:
    if zeta is None:
        return primitive_root_of_unity(2 * n, t)
    if pow(zeta, n, t) != t - 1:
        raise OracleError(f"expected a primitive {2 * n}-th root of unity mod {t}, found {zeta}")
    return zeta


def decode_slots(poly: Sequence[int], n: int, t: int, zeta: int | None = None) -> list[int]:
    """The slot values of a plaintext: poly evaluated at zeta^e mod t for each
    e of `slot_exponents`. `zeta` overrides the default root
    (`primitive_root_of_unity(2N, t)`).

    >>> decode_slots([5, 0, 0, 0], 4, 17)  # a constant is that constant in every slot
    [5, 5, 5, 5]
    """
    _check_degree(poly, n, "a plaintext")
    zeta = _slot_zeta(n, t, zeta)
    powers = [pow(zeta, k, t) for k in range(2 * n)]
    return [
        sum(c * powers[e * j % (2 * n)] for j, c in enumerate(poly)) % t
        for e in slot_exponents(n)
    ]


def encode_slots(values: Sequence[int], n: int, t: int, zeta: int | None = None) -> Poly:
    """The unique plaintext of degree < N (coefficients in [0, t)) whose slots
    hold `values` (N of them, taken mod t): the inverse of `decode_slots`,
    m_j = N^-1 * sum over slots of V_e * zeta^(-e*j) mod t. It is the inverse
    because the exponents are all N odd residues mod 2N, and the sum over odd
    e of zeta^(e*d) is N for d = 0 and 0 for 0 < |d| < N.

    >>> encode_slots([5, 5, 5, 5], 4, 17)
    [5, 0, 0, 0]
    """
    _check_degree(values, n, "slot values")
    zeta = _slot_zeta(n, t, zeta)
    powers = [pow(zeta, k, t) for k in range(2 * n)]
    n_inverse = pow(n, -1, t)
    exponents = slot_exponents(n)
    return [
        n_inverse * sum(v * powers[-e * j % (2 * n)] for e, v in zip(exponents, values)) % t
        for j in range(n)
    ]


# --------------------------------------------------------------------------
# RNS helpers (for exchanging polynomials with the runtime only)
# --------------------------------------------------------------------------


def _check_coprime(primes: Sequence[int]) -> None:
    if not primes:
        raise OracleError("expected at least one RNS modulus, found none")
    for i, p in enumerate(primes):
        if p < 2:
            raise OracleError(f"expected RNS moduli >= 2, found {p}")
        for r in primes[i + 1 :]:
            if math.gcd(p, r) != 1:
                raise OracleError(f"expected pairwise coprime RNS moduli, found {p} and {r}")


def to_rns(poly: Sequence[int], primes: Sequence[int]) -> list[list[int]]:
    """Limb-major residues: limbs[i][j] = poly[j] mod primes[i].

    >>> to_rns([10, -1], [3, 7])
    [[1, 2], [3, 6]]
    """
    _check_coprime(primes)
    return [[c % p for c in poly] for p in primes]


def from_rns(limbs: Sequence[Sequence[int]], primes: Sequence[int]) -> Poly:
    """The CRT composition of limb-major residues into [0, Q), Q = prod(primes):
    x = sum_i [r_i * (Q/p_i)^-1]_{p_i} * (Q/p_i) mod Q.

    >>> from_rns([[1, 2], [3, 6]], [3, 7])
    [10, 20]
    """
    _check_coprime(primes)
    if len(limbs) != len(primes):
        raise OracleError(f"expected {len(primes)} limbs (one per modulus), found {len(limbs)}")
    n = len(limbs[0])
    for index, limb in enumerate(limbs):
        _check_degree(limb, n, f"limb {index}")
    q = math.prod(primes)
    out = [0] * n
    for limb, p in zip(limbs, primes):
        q_over_p = q // p
        inverse = pow(q_over_p, -1, p)
        out = [(acc + (r * inverse % p) * q_over_p) for acc, r in zip(out, limb)]
    return [x % q for x in out]
