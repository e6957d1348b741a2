"""Programs called from several Python threads at once.

A loaded program runs one call at a time (its buffers are shared: a lock in
the runtime serializes the calls of one program) while different programs run
side by side; the runtime releases the GIL while it runs. Every call's result
must be what the same call gives alone, whatever the interleaving.
RINGFUSE_TEST_TARGET=cuda runs the same on the GPU.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from runtime_support import SEED, toy_params

pytestmark = pytest.mark.needs_compiler

T = 65537
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")


@rf.circuit(plaintext_modulus=T)
def product(x: rf.Encrypted, y: rf.Encrypted):
    return x * y


@rf.circuit(plaintext_modulus=T)
def rotated_sum(x: rf.Encrypted, w: rf.Plain):
    return (x * w).rotate(1) + x


def test_two_programs_called_from_eight_threads_give_their_single_results(
    cache_dir: Path,
) -> None:
    params = toy_params(1024)
    first = rf.compile(product, TARGET, params=params, cache_dir=cache_dir)
    second = rf.compile(rotated_sum, TARGET, params=params, cache_dir=cache_dir)
    keys = params.keygen(rotations=[1], seed=SEED)
    for program in (first, second):
        program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    rng = np.random.default_rng(8)
    calls = []
    for k in range(32):
        x = keys.encrypt(rng.integers(0, T, 1024))
        if k % 2:
            y = keys.encrypt(rng.integers(0, T, 1024))
            calls.append((first, (x, y), {}))
        else:
            calls.append((second, (x,), {"w": rng.integers(0, T, 1024)}))
    alone = [program(*args, **kwargs).residues() for program, args, kwargs in calls]
    with ThreadPoolExecutor(max_workers=8) as threads:
        together = list(threads.map(lambda call: call[0](*call[1], **call[2]).residues(), calls))
    for k, (want, got) in enumerate(zip(alone, together, strict=True)):
        np.testing.assert_array_equal(got, want, err_msg=f"call {k}")
