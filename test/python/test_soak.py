"""A short soak: many runs of a program with fresh inputs, memory flat.

`make test` runs 400 calls (single and batched) of a small program and
samples the process's resident memory throughout: after the first calls have
made what a program keeps (buffers, replicas, caches), it must not grow by
more than a fixed bound. RINGFUSE_SOAK_RUNS=N runs longer;
RINGFUSE_TEST_TARGET=cuda soaks the GPU driver.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from runtime_support import SEED, toy_params

pytestmark = pytest.mark.needs_compiler

T = 65537
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
RUNS = int(os.environ.get("RINGFUSE_SOAK_RUNS", "400"))
# Growth allowed after the warm-up: far below what a leak of one ciphertext
# a call (16 KiB at N = 1024) would add over the runs.
GROWTH_BOUND_BYTES = 4 << 20


@rf.circuit(plaintext_modulus=T)
def soaked(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + (x * w).rotate(1)


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_runs_with_fresh_inputs_keep_memory_flat(cache_dir: Path) -> None:
    params = toy_params(1024)
    program = rf.compile(soaked, TARGET, params=params, cache_dir=cache_dir)
    keys = params.keygen(rotations=[1], seed=SEED)
    program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    rng = np.random.default_rng(400)

    def call(k: int) -> None:
        x, y, w = (rng.integers(0, T, 1024) for _ in range(3))
        if k % 10 == 9:  # a batch now and then
            out = program(keys.encrypt(np.stack([x, y])), keys.encrypt(np.stack([y, x])), w=w)
            want = (x * y + np.roll((x * w).reshape(2, -1), -1, axis=1).ravel()) % T
            np.testing.assert_array_equal(keys.decrypt(out)[0], want)
        else:
            program(keys.encrypt(x), keys.encrypt(y), w=w)

    warmup = max(RUNS // 10, 20)
    for k in range(warmup):
        call(k)
    gc.collect()
    start = resident_bytes()
    samples = []
    for k in range(warmup, RUNS):
        call(k)
        if k % 20 == 0:
            gc.collect()
            samples.append(resident_bytes() - start)
    assert max(samples) < GROWTH_BOUND_BYTES, (
        f"resident memory grew by up to {max(samples) / 2**20:.1f} MiB over {RUNS} runs "
        f"(samples in MiB: {[round(s / 2**20, 2) for s in samples]})"
    )
