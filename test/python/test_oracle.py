"""Self-tests of `bfv_oracle`, the textbook BFV the runtime is checked against.

The oracle is only useful if it is right on its own, so these tests check it
against hand-computed examples and against the algebra BFV rests on (decryption
inverts encryption, homomorphisms commute with the plaintext operations, the
slot layout turns automorphisms into rotations), never against the runtime.
"""

from __future__ import annotations

import doctest
import functools
import math
import random

import pytest

import bfv_oracle as bfv

BATCHING_T = 65537  # prime, = 1 mod 2^17: slots for every N <= 2^15
POWER_OF_TWO_T = 256  # no slots


# --------------------------------------------------------------------------
# Parameters for the tests
# --------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def ntt_primes(bits: int, count: int) -> tuple[int, ...]:
    """The `count` largest primes below 2^bits that are 1 mod 2^13, as the
    runtime's NTT-friendly primes are for N <= 2^12."""
    step = 2**13
    primes: list[int] = []
    candidate = (2**bits - 1) // step * step + 1
    while len(primes) < count:
        if bfv.is_prime(candidate):
            primes.append(candidate)
        candidate -= step
    return tuple(primes)


# Q of 120, 165 and 200 bits, from 2, 3 and 4 primes.
MODULUS_PRIMES = {16: ntt_primes(60, 2), 256: ntt_primes(55, 3), 1024: ntt_primes(50, 4)}


def params_for(n: int, t: int) -> bfv.Params:
    return bfv.Params(n=n, q=math.prod(MODULUS_PRIMES.get(n, ntt_primes(55, 3))), t=t)


def random_message(n: int, t: int, rng: random.Random) -> list[int]:
    """Uniform mod t, with the extremes 0 and t - 1 always present."""
    m = [rng.randrange(t) for _ in range(n)]
    m[0], m[1] = 0, t - 1
    return m


def rotate_rows_left(values: list[int], step: int) -> list[int]:
    """The expected slot vector after rotating each of the two rows left by `step`."""
    half = len(values) // 2
    rows = [values[:half], values[half:]]
    return [row[(i + step) % half] for row in rows for i in range(half)]


# --------------------------------------------------------------------------
# Integers
# --------------------------------------------------------------------------


def test_docstring_examples_hold() -> None:
    result = doctest.testmod(bfv, verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_centered_lift_is_in_half_open_interval_around_zero() -> None:
    assert [bfv.centered(x, 4) for x in range(-4, 8)] == [0, 1, 2, -1] * 3
    assert [bfv.centered(x, 5) for x in range(5)] == [0, 1, 2, -2, -1]
    q = 2**127 - 1
    assert bfv.centered(q // 2, q) == q // 2
    assert bfv.centered(q // 2 + 1, q) == -(q // 2)


def test_round_half_up_rounds_halves_towards_plus_infinity_for_both_signs() -> None:
    # x/4 for x = -6..6: -1.5 -> -1, -0.75 -> -1, -0.5 -> 0, 0.5 -> 1, 1.5 -> 2
    assert [bfv.round_half_up(x, 4) for x in range(-6, 7)] == [
        -1, -1, -1, -1, 0, 0, 0, 0, 1, 1, 1, 1, 2,
    ]  # fmt: skip
    assert bfv.round_half_up(10**40 + 1, 2 * 10**40) == 1


def test_is_prime_agrees_with_trial_division_and_rejects_strong_pseudoprimes() -> None:
    def by_trial_division(n: int) -> bool:
        return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))

    assert [bfv.is_prime(n) for n in range(3000)] == [by_trial_division(n) for n in range(3000)]
    assert bfv.is_prime(65537) and bfv.is_prime(2**61 - 1) and bfv.is_prime(786433)
    # 561 is a Carmichael number; 3215031751 fools bases 2, 3, 5 and 7.
    assert not bfv.is_prime(561) and not bfv.is_prime(3215031751)
    assert not bfv.is_prime((2**61 - 1) * (2**13 - 1))
    with pytest.raises(bfv.OracleError, match="3.3e24"):
        bfv.is_prime(2**89 - 1)


def test_params_reject_non_power_of_two_degree_and_small_q() -> None:
    with pytest.raises(bfv.OracleError, match="power of two"):
        bfv.Params(n=12, q=2**60, t=17)
    with pytest.raises(bfv.OracleError, match="q > t"):
        bfv.Params(n=16, q=17, t=17)


# --------------------------------------------------------------------------
# Ring arithmetic
# --------------------------------------------------------------------------


def test_negacyclic_multiply_matches_hand_computed_product_for_n4() -> None:
    # (1 + 2X + 3X^2 + 4X^3)(5 + 6X + 7X^2 + 8X^3) over Z is
    # 5 + 16X + 34X^2 + 60X^3 + 61X^4 + 52X^5 + 32X^6; with X^4 = -1 the
    # X^4, X^5, X^6 terms fold back negated onto 1, X, X^2.
    a, b = [1, 2, 3, 4], [5, 6, 7, 8]
    assert bfv.negacyclic_multiply(a, b) == [5 - 61, 16 - 52, 34 - 32, 60]
    assert bfv.negacyclic_multiply(a, b, 17) == [12, 15, 2, 9]
    assert bfv.negacyclic_multiply([0, 0, 0, 1], [0, 1, 0, 0]) == [-1, 0, 0, 0]


def test_negacyclic_multiply_matches_double_sum_definition() -> None:
    rng = random.Random(4)
    n = 8
    a = [rng.randrange(-50, 50) for _ in range(n)]
    b = [rng.randrange(-50, 50) for _ in range(n)]
    naive = [0] * n
    for i in range(n):
        for j in range(n):
            sign = -1 if i + j >= n else 1
            naive[(i + j) % n] += sign * a[i] * b[j]
    assert bfv.negacyclic_multiply(a, b) == naive
    assert bfv.negacyclic_multiply(b, a, 97) == [c % 97 for c in naive]


def test_automorphism_by_3_matches_hand_computed_substitution_for_n4() -> None:
    # X -> X^3, X^2 -> X^6 = -X^2, X^3 -> X^9 = X.
    assert bfv.automorphism([10, 11, 12, 13], 3) == [10, 13, -12, 11]
    assert bfv.automorphism([10, 11, 12, 13], 3, 100) == [10, 13, 88, 11]
    assert bfv.automorphism([10, 11, 12, 13], 1) == [10, 11, 12, 13]
    with pytest.raises(bfv.OracleError, match="odd"):
        bfv.automorphism([1, 2, 3, 4], 2)


def test_automorphism_is_a_ring_homomorphism_and_composes() -> None:
    rng = random.Random(5)
    n, q = 16, 2**40 + 15
    a = bfv.sample_uniform(n, q, rng)
    b = bfv.sample_uniform(n, q, rng)
    for g in range(1, 2 * n, 2):
        assert bfv.automorphism(bfv.negacyclic_multiply(a, b, q), g, q) == bfv.negacyclic_multiply(
            bfv.automorphism(a, g, q), bfv.automorphism(b, g, q), q
        )
        assert bfv.automorphism(bfv.automorphism(a, g, q), 5, q) == bfv.automorphism(a, 5 * g, q)


# --------------------------------------------------------------------------
# Encryption and decryption
# --------------------------------------------------------------------------


def test_scale_plaintext_rounds_q_m_over_t_half_up() -> None:
    params = bfv.Params(n=4, q=10, t=4)
    # 10*m/4 = 0, 2.5, 5, 7.5
    assert bfv.scale_plaintext(params, [0, 1, 2, 3]) == [0, 3, 5, 8]


def test_decrypt_rounds_t_x_over_q_half_up_and_reduces_mod_t() -> None:
    params = bfv.Params(n=4, q=8, t=4)
    # A 1-component ciphertext decrypts without the key: 4x/8 = 0.5, 1.5, 3.5, 1.
    assert bfv.decrypt(params, [0] * 4, [[1, 3, 7, 2]]) == [1, 2, 0, 1]


@pytest.mark.parametrize("t", [BATCHING_T, POWER_OF_TWO_T])
@pytest.mark.parametrize("n", [16, 256, 1024])
def test_public_key_encryption_round_trips(n: int, t: int) -> None:
    rng = random.Random(n * t)
    params = params_for(n, t)
    s, pk = bfv.keygen(params, rng)
    assert set(s) <= {-1, 0, 1}
    m = random_message(n, t, rng)
    ct = bfv.encrypt_public(params, pk, m, rng)
    assert len(ct) == 2 and all(0 <= c < params.q for component in ct for c in component)
    assert bfv.decrypt(params, s, ct) == m


@pytest.mark.parametrize("t", [BATCHING_T, POWER_OF_TWO_T])
@pytest.mark.parametrize("n", [16, 256, 1024])
def test_symmetric_encryption_round_trips(n: int, t: int) -> None:
    rng = random.Random(n * t + 1)
    params = params_for(n, t)
    s = bfv.sample_ternary(n, rng)
    m = random_message(n, t, rng)
    assert bfv.decrypt(params, s, bfv.encrypt_symmetric(params, s, m, rng)) == m


def test_public_key_is_an_rlwe_sample_of_the_secret_key() -> None:
    # pk0 + pk1*s = -e: small, which is what public-key encryption relies on.
    rng = random.Random(6)
    params = params_for(256, BATCHING_T)
    s, (pk0, pk1) = bfv.keygen(params, rng)
    minus_e = bfv.centered_poly(bfv.phase(params, s, [pk0, pk1]), params.q)
    assert 0 < max(abs(x) for x in minus_e) <= bfv.ERROR_ETA


def test_decrypt_accepts_secret_key_reduced_mod_q() -> None:
    rng = random.Random(7)
    params = params_for(16, BATCHING_T)
    s, pk = bfv.keygen(params, rng)
    m = random_message(16, BATCHING_T, rng)
    ct = bfv.encrypt_public(params, pk, m, rng)
    assert bfv.decrypt(params, [x % params.q for x in s], ct) == m


def test_plaintext_coefficients_are_taken_mod_t() -> None:
    rng = random.Random(8)
    params = params_for(16, POWER_OF_TWO_T)
    s = bfv.sample_ternary(16, rng)
    m = [rng.randrange(-1000, 1000) for _ in range(16)]
    ct = bfv.encrypt_symmetric(params, s, m, rng)
    assert bfv.decrypt(params, s, ct) == [x % POWER_OF_TWO_T for x in m]


def test_encrypt_rejects_plaintext_of_wrong_degree() -> None:
    params = params_for(16, BATCHING_T)
    with pytest.raises(bfv.OracleError, match="expected a plaintext with 16 coefficients, found 8"):
        bfv.encrypt_symmetric(params, [0] * 16, [0] * 8, random.Random(0))


# --------------------------------------------------------------------------
# Noise budget
# --------------------------------------------------------------------------


def test_noise_budget_matches_hand_computed_value() -> None:
    params = bfv.Params(n=2, q=1000, t=10)
    # v = [10x]_1000 centered = [30, 10]; bitlen(1000) - bitlen(30) - 1 = 10 - 5 - 1.
    assert bfv.noise_budget(params, [0, 0], [[3, 101]]) == 4


def test_noise_budget_of_fresh_ciphertext_is_positive_and_drops_after_multiply() -> None:
    rng = random.Random(9)
    params = params_for(256, BATCHING_T)
    s, pk = bfv.keygen(params, rng)
    c = bfv.encrypt_public(params, pk, random_message(256, BATCHING_T, rng), rng)
    d = bfv.encrypt_public(params, pk, random_message(256, BATCHING_T, rng), rng)
    fresh = bfv.noise_budget(params, s, c)
    # Fresh noise is about N * ERROR_ETA, times t: well below 40 bits.
    assert fresh > params.q.bit_length() - 40
    product = bfv.multiply(params, c, d)
    after = bfv.noise_budget(params, s, product)
    # A product multiplies the noise by about t * N: at least log2(t) bits.
    assert 0 < after <= fresh - BATCHING_T.bit_length() + 1


def test_noise_budget_of_random_ciphertext_is_zero() -> None:
    rng = random.Random(10)
    params = params_for(16, BATCHING_T)
    s = bfv.sample_ternary(16, rng)
    garbage = [bfv.sample_uniform(16, params.q, rng) for _ in range(2)]
    assert bfv.noise_budget(params, s, garbage) == 0


# --------------------------------------------------------------------------
# Homomorphic operations
# --------------------------------------------------------------------------


Keyed = tuple[bfv.Params, bfv.Poly, bfv.PublicKey, random.Random]


@pytest.fixture(params=[BATCHING_T, POWER_OF_TWO_T], ids=["t65537", "t256"])
def keyed(request: pytest.FixtureRequest) -> Keyed:
    """Params at N = 256, a key pair and a seeded generator, for each t."""
    t = request.param
    rng = random.Random(t)
    params = params_for(256, t)
    s, pk = bfv.keygen(params, rng)
    return params, s, pk, rng


def test_add_sub_negate_decrypt_to_sum_difference_and_negation(keyed: Keyed) -> None:
    params, s, pk, rng = keyed
    n, t = params.n, params.t
    a, b = random_message(n, t, rng), random_message(n, t, rng)
    ca, cb = bfv.encrypt_public(params, pk, a, rng), bfv.encrypt_public(params, pk, b, rng)
    assert bfv.decrypt(params, s, bfv.add(params, ca, cb)) == [(x + y) % t for x, y in zip(a, b)]
    assert bfv.decrypt(params, s, bfv.sub(params, ca, cb)) == [(x - y) % t for x, y in zip(a, b)]
    assert bfv.decrypt(params, s, bfv.negate(params, ca)) == [-x % t for x in a]


def test_add_plain_and_mul_plain_decrypt_to_plaintext_sum_and_product(keyed: Keyed) -> None:
    params, s, pk, rng = keyed
    n, t = params.n, params.t
    a, p = random_message(n, t, rng), random_message(n, t, rng)
    ca = bfv.encrypt_public(params, pk, a, rng)
    plain_sum = [(x + y) % t for x, y in zip(a, p)]
    assert bfv.decrypt(params, s, bfv.add_plain(params, ca, p)) == plain_sum
    assert bfv.decrypt(params, s, bfv.mul_plain(params, ca, p)) == bfv.negacyclic_multiply(a, p, t)


def test_multiply_gives_three_components_that_decrypt_to_product_mod_t(keyed: Keyed) -> None:
    params, s, pk, rng = keyed
    n, t = params.n, params.t
    a, b = random_message(n, t, rng), random_message(n, t, rng)
    product = bfv.multiply(
        params, bfv.encrypt_public(params, pk, a, rng), bfv.encrypt_symmetric(params, s, b, rng)
    )
    assert len(product) == 3
    assert bfv.decrypt(params, s, product) == bfv.negacyclic_multiply(a, b, t)


def test_multiply_lifts_to_centered_representatives_before_rounding() -> None:
    # One-component ciphertexts decrypt without a key, so the scale-and-round
    # can be checked by hand: 74 lifts to -26, 26 * -26 = -676, and
    # round(4 * -676 / 100) = round(-27.04) = -27 = 73 mod 100. (Lifting 74 as
    # itself would give round(76.96) = 77: same message, other noise.)
    params = bfv.Params(n=2, q=100, t=4)
    assert bfv.multiply(params, [[26, 0]], [[74, 0]]) == [[73, 0]]
    assert bfv.multiply(params, [[74, 0]], [[26, 0]]) == [[73, 0]]
    assert bfv.multiply(params, [[74, 0]], [[74, 0]]) == [[27, 0]]  # round(27.04)


def test_mul_plain_by_t_minus_1_is_negation() -> None:
    # t - 1 lifts to -1 in (-t/2, t/2], so the product is exactly the negation.
    rng = random.Random(15)
    params = params_for(16, BATCHING_T)
    s, pk = bfv.keygen(params, rng)
    ct = bfv.encrypt_public(params, pk, random_message(16, BATCHING_T, rng), rng)
    minus_one = [BATCHING_T - 1] + [0] * 15
    assert bfv.mul_plain(params, ct, minus_one) == bfv.negate(params, ct)


def test_multiply_of_three_and_two_components_gives_four_that_decrypt_to_triple_product() -> None:
    rng = random.Random(11)
    params = params_for(64, BATCHING_T)
    s, pk = bfv.keygen(params, rng)
    a, b, c = (random_message(64, BATCHING_T, rng) for _ in range(3))
    ca, cb, cc = (bfv.encrypt_public(params, pk, m, rng) for m in (a, b, c))
    product = bfv.multiply(params, bfv.multiply(params, ca, cb), cc)
    assert len(product) == 4
    expected = bfv.negacyclic_multiply(bfv.negacyclic_multiply(a, b, BATCHING_T), c, BATCHING_T)
    assert bfv.decrypt(params, s, product) == expected
    # Adding a 2-component ciphertext to a 4-component one pads it with zeros.
    total = bfv.add(params, product, ca)
    assert bfv.decrypt(params, s, total) == [(x + y) % BATCHING_T for x, y in zip(expected, a)]


def test_automorphism_of_ciphertext_decrypts_under_automorphed_secret() -> None:
    rng = random.Random(12)
    params = params_for(64, POWER_OF_TWO_T)
    s, pk = bfv.keygen(params, rng)
    m = random_message(64, POWER_OF_TWO_T, rng)
    ct = bfv.encrypt_public(params, pk, m, rng)
    for g in (3, 5, 127, 2 * 64 - 1):
        rotated = bfv.automorphism_ciphertext(params, ct, g)
        expected = bfv.automorphism(m, g, POWER_OF_TWO_T)
        assert bfv.decrypt(params, bfv.automorphism(s, g), rotated) == expected


# --------------------------------------------------------------------------
# Slots
# --------------------------------------------------------------------------


def test_default_root_is_primitive_2n_th_root_from_smallest_generator() -> None:
    # 3 is the smallest generator of Z_65537^*; 2 is not (2^16 = -1, so its order is 32).
    zeta = bfv.primitive_root_of_unity(32, BATCHING_T)
    assert zeta == min(
        z for z in range(2, BATCHING_T) if pow(z, 16, BATCHING_T) == BATCHING_T - 1
    )
    assert pow(zeta, 16, BATCHING_T) == BATCHING_T - 1
    # 786433 = 3 * 2^18 + 1 has smallest generator 10.
    assert bfv.primitive_root_of_unity(64, 786433) == min(
        z for z in range(2, 786433) if pow(z, 32, 786433) == 786432
    )


def test_slots_need_prime_t_congruent_to_one_mod_2n() -> None:
    with pytest.raises(bfv.OracleError, match="prime"):
        bfv.encode_slots([0] * 16, 16, POWER_OF_TWO_T)
    with pytest.raises(bfv.OracleError, match="1 mod 32"):
        bfv.encode_slots([0] * 16, 16, 17)


@pytest.mark.parametrize("n", [16, 64])
def test_slot_layout_evaluates_x_at_zeta_to_powers_of_3_then_their_negatives(n: int) -> None:
    zeta = bfv.primitive_root_of_unity(2 * n, BATCHING_T)
    x = [0, 1] + [0] * (n - 2)
    slots = bfv.decode_slots(x, n, BATCHING_T)
    half = n // 2
    assert slots[:3] == [zeta, pow(zeta, 3, BATCHING_T), pow(zeta, 9, BATCHING_T)]
    assert slots[half] == pow(zeta, 2 * n - 1, BATCHING_T)  # zeta^-1
    assert slots[half + 1] == pow(zeta, 2 * n - 3, BATCHING_T)
    assert sorted(bfv.slot_exponents(n)) == list(range(1, 2 * n, 2))


@pytest.mark.parametrize("n", [16, 64])
def test_encode_and_decode_are_inverse(n: int) -> None:
    rng = random.Random(n)
    values = random_message(n, BATCHING_T, rng)
    assert bfv.decode_slots(bfv.encode_slots(values, n, BATCHING_T), n, BATCHING_T) == values
    poly = random_message(n, BATCHING_T, rng)
    assert bfv.encode_slots(bfv.decode_slots(poly, n, BATCHING_T), n, BATCHING_T) == poly
    # Any other primitive 2N-th root gives another (permuted) layout, still invertible.
    other = pow(bfv.primitive_root_of_unity(2 * n, BATCHING_T), 3, BATCHING_T)
    encoded = bfv.encode_slots(values, n, BATCHING_T, zeta=other)
    assert bfv.decode_slots(encoded, n, BATCHING_T, zeta=other) == values


@pytest.mark.parametrize("n", [16, 64])
@pytest.mark.parametrize("step", [1, 2, 5, -1, -3])
def test_automorphism_by_power_of_3_rotates_both_rows_left(n: int, step: int) -> None:
    values = random_message(n, BATCHING_T, random.Random(n + step))
    g = bfv.rotation_galois_element(step, n)
    rotated = bfv.automorphism(bfv.encode_slots(values, n, BATCHING_T), g, BATCHING_T)
    assert bfv.decode_slots(rotated, n, BATCHING_T) == rotate_rows_left(values, step)


@pytest.mark.parametrize("n", [16, 64])
def test_automorphism_by_2n_minus_1_swaps_rows(n: int) -> None:
    values = random_message(n, BATCHING_T, random.Random(n))
    g = bfv.row_swap_galois_element(n)
    swapped = bfv.automorphism(bfv.encode_slots(values, n, BATCHING_T), g, BATCHING_T)
    assert bfv.decode_slots(swapped, n, BATCHING_T) == values[n // 2 :] + values[: n // 2]


@pytest.mark.parametrize("n", [16, 64])
def test_negacyclic_product_of_encodings_is_slotwise_product(n: int) -> None:
    rng = random.Random(n)
    a, b = random_message(n, BATCHING_T, rng), random_message(n, BATCHING_T, rng)
    product = bfv.negacyclic_multiply(
        bfv.encode_slots(a, n, BATCHING_T), bfv.encode_slots(b, n, BATCHING_T), BATCHING_T
    )
    assert bfv.decode_slots(product, n, BATCHING_T) == [x * y % BATCHING_T for x, y in zip(a, b)]


def test_encrypted_slots_multiply_slotwise_and_rotate_under_automorphed_secret() -> None:
    rng = random.Random(13)
    n = 64
    params = params_for(n, BATCHING_T)
    s, pk = bfv.keygen(params, rng)
    a, b = random_message(n, BATCHING_T, rng), random_message(n, BATCHING_T, rng)
    ca = bfv.encrypt_public(params, pk, bfv.encode_slots(a, n, BATCHING_T), rng)
    cb = bfv.encrypt_public(params, pk, bfv.encode_slots(b, n, BATCHING_T), rng)
    product = bfv.multiply(params, ca, cb)
    g = bfv.rotation_galois_element(3, n)
    rotated = bfv.automorphism_ciphertext(params, product, g)
    slots = bfv.decode_slots(bfv.decrypt(params, bfv.automorphism(s, g), rotated), n, BATCHING_T)
    assert slots == rotate_rows_left([x * y % BATCHING_T for x, y in zip(a, b)], 3)


# --------------------------------------------------------------------------
# RNS helpers
# --------------------------------------------------------------------------


def test_rns_round_trip_is_limb_major_and_lands_in_zero_to_q() -> None:
    rng = random.Random(14)
    primes = list(MODULUS_PRIMES[256])
    q = math.prod(primes)
    poly = [rng.randrange(q) for _ in range(32)] + [-1, q, 0, q - 1]
    limbs = bfv.to_rns(poly, primes)
    assert len(limbs) == len(primes) and all(len(limb) == len(poly) for limb in limbs)
    assert limbs[1][5] == poly[5] % primes[1]
    assert bfv.from_rns(limbs, primes) == [x % q for x in poly]


def test_from_rns_rejects_moduli_that_are_not_coprime() -> None:
    with pytest.raises(bfv.OracleError, match="coprime"):
        bfv.from_rns([[1], [1]], [6, 9])
