"""Running out of GPU memory: a clear error, and nothing lost.

The GPU is filled with ciphertexts until an allocation fails. That failure, and
every run or load tried while the GPU is full, is rf.OutOfDeviceMemory (a
MemoryError saying how much was needed and how much the GPU had) or a correct
result, never a crash, a hang or a wrong answer. Once the ciphertexts are
dropped, the programs loaded before and a program loaded after run correctly,
single and batched: the runtime gives the memory it pooled back to the device
when an allocation needs it.
"""

from __future__ import annotations

import gc
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import _runtime

SEED = bytes(range(32))
T = 65537

if not _runtime.cuda_available():
    pytest.fail("test/gpu needs a CUDA device; run it on the GPU machine (test/gpu/run.sh)",
                pytrace=False)

# Ciphertexts of 2 x 16 limbs x 2^15 words (8 MiB each) fill the GPU quickly.
HOG_PARAMS = rf.Params(poly_modulus_degree=1 << 15, plaintext_modulus=T,
                       coeff_modulus_bits=[60] * 16, special_modulus_bits=[60],
                       allow_insecure=True)
# More than any GPU lent here holds (141 GiB / 8 MiB is about 18,000).
HOG_LIMIT = 60_000


@rf.circuit(plaintext_modulus=T)
def product(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + w * x


@rf.circuit(plaintext_modulus=T)
def rotated_sum(x: rf.Encrypted, y: rf.Encrypted):
    return (x + y).rotate(1) - y


def test_running_out_of_gpu_memory_is_an_error_and_nothing_is_lost(tmp_path: Path) -> None:
    n = 4096
    params = rf.Params(poly_modulus_degree=n, plaintext_modulus=T, coeff_modulus_bits=[30, 36])
    first = rf.compile(product, "cuda", params=params, cache_dir=tmp_path)
    keys = params.keygen(rotations=[1], seed=SEED)
    first.set_evaluation_keys(keys.relin_key)
    rng = np.random.default_rng(7)
    a, b, w = (rng.integers(0, T, n) for _ in range(3))
    x, y = keys.encrypt(a), keys.encrypt(b)
    want = (a * b + w * a) % T
    want_rotated = np.roll((a + b).reshape(2, -1), -1, axis=1).ravel() - b
    np.testing.assert_array_equal(keys.decrypt(first(x, y, w=w)), want)

    zeros = np.zeros((2, len(HOG_PARAMS.coeff_modulus), HOG_PARAMS.poly_modulus_degree), np.uint64)
    big = rf.Ciphertext.from_residues(HOG_PARAMS, zeros)
    hog: list[rf.GpuCiphertext] = []
    with pytest.raises(rf.OutOfDeviceMemory,
                       match=r"not enough GPU memory: a ciphertext needs 8 MiB \(the GPU has \d+ MiB free of \d+ MiB\)"):
        for _ in range(HOG_LIMIT):
            hog.append(big.to_gpu())
    assert isinstance(rf.OutOfDeviceMemory("x"), MemoryError)
    assert _runtime.cuda_memory()[0] < 256 << 20  # full, to the pool's grain

    # With the GPU full, each of these gives its result or OutOfDeviceMemory.
    attempts = {
        "a loaded program": lambda: np.testing.assert_array_equal(
            keys.decrypt(first(x, y, w=w)), want),
        "a batch": lambda: np.testing.assert_array_equal(
            keys.decrypt(first(keys.encrypt(np.stack([a, b])), keys.encrypt(np.stack([b, a])),
                               w=w)),
            np.stack([want, (b * a + w * b) % T])),
        "a new program": lambda: run_rotated_sum(tmp_path, params, keys, x, y, want_rotated),
    }
    refused = []
    for name, attempt in attempts.items():
        try:
            attempt()
        except rf.OutOfDeviceMemory as error:
            assert "not enough GPU memory" in str(error) and "MiB" in str(error), str(error)
            refused.append(name)
    assert refused, "nothing was refused with the GPU full"

    del hog
    gc.collect()
    for attempt in attempts.values():
        attempt()
    assert _runtime.cuda_memory()[0] > 1 << 30


def run_rotated_sum(tmp_path: Path, params: rf.Params, keys: rf.KeySet, x: rf.Ciphertext,
                    y: rf.Ciphertext, want: np.ndarray) -> None:
    program = rf.compile(rotated_sum, "cuda", params=params, cache_dir=tmp_path)
    program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    np.testing.assert_array_equal(keys.decrypt(program(x, y)), want % T)
