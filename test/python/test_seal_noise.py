"""A fresh ciphertext's noise budget next to SEAL's, at (N = 2^14, log Q = 300, t = 65537).

SEAL (PyPI's seal-python) is installed by scripts/setup.sh; this test skips
only when that package could not be installed.
"""

from __future__ import annotations

import numpy as np
import pytest

import ringfuse as rf

seal = pytest.importorskip("seal")


def seal_fresh_budget() -> int:
    parms = seal.EncryptionParameters(seal.scheme_type.bfv)
    parms.set_poly_modulus_degree(16384)
    # Five 60-bit primes of data (log Q = 300) and SEAL's special prime last.
    parms.set_coeff_modulus(seal.CoeffModulus.Create(16384, [60] * 6))
    parms.set_plain_modulus(65537)
    context = seal.SEALContext(parms)
    keygen = seal.KeyGenerator(context)
    encryptor = seal.Encryptor(context, keygen.create_public_key())
    decryptor = seal.Decryptor(context, keygen.secret_key())
    values = np.random.default_rng(1).integers(0, 32768, 16384).astype(np.int64)
    plaintext = seal.BatchEncoder(context).encode(values)
    return min(decryptor.invariant_noise_budget(encryptor.encrypt(plaintext)) for _ in range(3))


def test_fresh_noise_budget_is_within_5_bits_of_seal() -> None:
    params = rf.Params(
        poly_modulus_degree=16384, plaintext_modulus=65537, coeff_modulus_bits=[60] * 5,
        special_modulus_bits=[60],
    )
    keys = params.keygen()
    values = np.random.default_rng(2).integers(0, 65537, 16384)
    ours = min(keys.noise_budget(keys.encrypt(values)) for _ in range(3))
    theirs = seal_fresh_budget()
    print(f"fresh noise budget: ringfuse {ours} bits, SEAL {theirs} bits")
    assert abs(ours - theirs) <= 5
