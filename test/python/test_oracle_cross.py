"""The runtime against the independent textbook oracle (big integers, no RNS)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import bfv_oracle as oracle
import ringfuse as rf
from ringfuse import _runtime
from runtime_support import SEED, toy_params


def oracle_params(params: rf.Params) -> oracle.Params:
    q = 1
    for prime in params.coeff_modulus:
        q *= prime
    return oracle.Params(params.poly_modulus_degree, q, params.plaintext_modulus)


def to_oracle(ct: rf.Ciphertext) -> list[list[int]]:
    primes = list(ct.params.coeff_modulus)
    return [oracle.from_rns([list(map(int, limb)) for limb in component], primes) for component in ct.residues()]


def from_oracle(params: rf.Params, ct: list[list[int]]) -> rf.Ciphertext:
    primes = list(params.coeff_modulus)
    return rf.Ciphertext.from_residues(params, np.array([oracle.to_rns(c, primes) for c in ct], dtype=np.uint64))


@pytest.mark.parametrize("n, t", [(64, 65537), (4096, 65537), (1024, 256)])
def test_the_oracle_decrypts_what_the_runtime_encrypts(n: int, t: int) -> None:
    params = toy_params(n=n, t=t)
    keys = params.keygen(seed=SEED)
    values = np.random.default_rng(n).integers(0, t, n)
    plaintext = keys.encode(values)
    if params.batching and n <= 64:
        # The slot layout, computed independently by evaluating at zeta^(3^i).
        assert list(plaintext.coefficients) == oracle.encode_slots(list(map(int, values)), n, t)
    for symmetric in (False, True):
        ct = keys.encrypt(plaintext, symmetric=symmetric)
        decrypted = oracle.decrypt(oracle_params(params), keys.secret_key.coefficients(), to_oracle(ct))
        assert decrypted == list(plaintext.coefficients)


@pytest.mark.parametrize("n, t", [(64, 65537), (2048, 65537), (1024, 256)])
def test_the_runtime_decrypts_what_the_oracle_encrypts(n: int, t: int) -> None:
    params = toy_params(n=n, t=t)
    keys = params.keygen(seed=SEED)
    rng = random.Random(n)
    message = [rng.randrange(t) for _ in range(n)]
    ct = oracle.encrypt_symmetric(oracle_params(params), keys.secret_key.coefficients(), message, rng)
    decrypted = keys.decrypt_plaintext(from_oracle(params, ct))
    assert list(decrypted.coefficients) == message


def test_runtime_noise_budget_matches_the_oracle() -> None:
    params = toy_params(n=1024, bits=(40, 40, 40))
    keys = params.keygen(seed=SEED)
    ct = keys.encrypt([1, 2, 3])
    expected = oracle.noise_budget(oracle_params(params), keys.secret_key.coefficients(), to_oracle(ct))
    assert keys.noise_budget(ct) == expected


def test_hps_multiplication_is_bit_identical_to_textbook_rounding() -> None:
    # HPS's exact lift, tensor and 128-bit fixed-point rounding must give
    # exactly round(t/Q * c_i d_j) mod Q, as the big-integer oracle computes.
    params = toy_params(n=256, bits=(40, 40, 40))
    keys = params.keygen(seed=SEED)
    x, y = keys.encrypt(list(range(256))), keys.encrypt([7] * 256)
    product = rf.Ciphertext(params, _runtime.multiply_hps(x._native, y._native))
    expected = oracle.multiply(oracle_params(params), to_oracle(x), to_oracle(y))
    assert to_oracle(product) == expected
    np.testing.assert_array_equal(keys.decrypt(product), np.arange(256) * 7 % 65537)
