"""A short soak: many runs of a program with fresh inputs, memory flat.

`make test` runs 400 calls (single and batched) of a small program and
samples the process's resident memory throughout: after the first calls have
made what a program keeps (buffers, replicas, caches), it must not grow by
more than a fixed bound. RINGFUSE_SOAK_RUNS=N runs longer;
RINGFUSE_TEST_TARGET=cuda soaks the GPU driver, and samples the GPU memory
that allocations may still get as well.
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


def device_bytes_used() -> int:
    """GPU memory no allocation may get (0 on the CPU target)."""
    if TARGET != "cuda":
        return 0
    from ringfuse._native import runtime

    available, total = runtime().cuda_memory()
    return int(total - available)


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
    start = resident_bytes(), device_bytes_used()
    samples = []
    for k in range(warmup, RUNS):
        call(k)
        if k % 20 == 0:
            gc.collect()
            samples.append((resident_bytes() - start[0], device_bytes_used() - start[1]))
    host, device = (max(sample[i] for sample in samples) for i in range(2))
    mib = [(round(h / 2**20, 2), round(d / 2**20, 2)) for h, d in samples]
    print(f"soak of {RUNS} runs on {TARGET}: host grew by up to {host / 2**20:.2f} MiB, "
          f"device by up to {device / 2**20:.2f} MiB")
    assert host < GROWTH_BOUND_BYTES and device < GROWTH_BOUND_BYTES, (
        f"memory grew by up to {host / 2**20:.1f} MiB (host) and {device / 2**20:.1f} MiB "
        f"(device) over {RUNS} runs (samples in MiB, host and device: {mib})"
    )
