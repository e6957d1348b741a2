"""rf.dask.ProgramPool on a local Dask cluster of 2 CPU worker processes.

The pool's results are the program's own, in input order; a worker killed
mid-map is replaced and every input still yields exactly one result; an input
that fails for its own reason yields an ItemError in its place while the
others go on; a pool on an existing cluster leaves it running.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse.dask import ItemError, ProgramPool
from runtime_support import SEED, toy_params

pytestmark = pytest.mark.needs_compiler

T = 65537


@rf.circuit(plaintext_modulus=T)
def product_plus(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + x * w


@pytest.fixture(scope="module")
def compiled(cache_dir: Path) -> Iterator[tuple[rf.Program, rf.KeySet]]:
    # The workers find the program in this cache: they inherit the variable.
    saved = os.environ.get("RINGFUSE_CACHE_DIR")
    os.environ["RINGFUSE_CACHE_DIR"] = str(cache_dir)
    program = rf.compile(product_plus, "cpu", params=toy_params(1024), cache_dir=cache_dir)
    yield program, program.keygen(seed=SEED)
    if saved is None:
        os.environ.pop("RINGFUSE_CACHE_DIR", None)
    else:
        os.environ["RINGFUSE_CACHE_DIR"] = saved


@pytest.fixture(scope="module")
def pool(compiled: tuple[rf.Program, rf.KeySet]) -> Iterator[ProgramPool]:
    program, keys = compiled
    with ProgramPool(program, keys.evaluation_keys(), workers=2) as started:
        yield started


def queries(keys: rf.KeySet, count: int) -> list[tuple[rf.Ciphertext, rf.Ciphertext]]:
    rng = np.random.default_rng(count)
    n = keys.params.poly_modulus_degree
    return [(keys.encrypt(rng.integers(0, T, n)), keys.encrypt(rng.integers(0, T, n)))
            for _ in range(count)]


def test_the_pool_gives_the_programs_results_in_input_order(
    compiled: tuple[rf.Program, rf.KeySet], pool: ProgramPool
) -> None:
    program, keys = compiled
    w = np.arange(keys.params.poly_modulus_degree) % 11
    inputs = queries(keys, 12)
    # Positional tuples, keyword dicts, a bounded number in flight.
    positional = list(pool.map([(x, y, w) for x, y in inputs], in_flight=3))
    keyword = list(pool.map([{"x": x, "y": y, "w": w} for x, y in inputs]))
    assert len(positional) == len(keyword) == len(inputs)
    for (x, y), a, b in zip(inputs, positional, keyword, strict=True):
        want = program(x, y, w=w).residues()
        np.testing.assert_array_equal(a.residues(), want)
        np.testing.assert_array_equal(b.residues(), want)


def test_a_failing_input_yields_an_error_in_its_place_and_the_rest_go_on(
    compiled: tuple[rf.Program, rf.KeySet], pool: ProgramPool
) -> None:
    program, keys = compiled
    inputs: list[object] = [(x, y, 3) for x, y in queries(keys, 4)]
    stranger = toy_params(2048).keygen(seed=SEED).encrypt(1)
    inputs[2] = (stranger, stranger, 3)  # another parameter set
    results = list(pool.map(inputs))
    assert isinstance(results[2], ItemError) and results[2].index == 2
    assert "belongs to" in str(results[2])
    for k in (0, 1, 3):
        x, y, w = inputs[k]  # type: ignore[misc]
        np.testing.assert_array_equal(results[k].residues(), program(x, y, w=w).residues())


def test_a_worker_killed_mid_map_is_replaced_and_every_input_yields_once(
    compiled: tuple[rf.Program, rf.KeySet], pool: ProgramPool
) -> None:
    program, keys = compiled
    inputs = queries(keys, 40)
    before = pool.client.run(os.getpid)
    results = []
    for result in pool.map([(x, y, 5) for x, y in inputs], in_flight=len(inputs)):
        if len(results) == 0:
            # All 40 are on the cluster: kill a worker that holds some of them.
            os.kill(next(iter(before.values())), signal.SIGKILL)
        results.append(result)
    assert len(results) == len(inputs)
    for (x, y), result in zip(inputs, results, strict=True):
        assert not isinstance(result, ItemError), result
        np.testing.assert_array_equal(result.residues(), program(x, y, w=5).residues())
    assert replaced(pool, set(before.values()))  # the nanny started a new one
    # The new worker holds the program too.
    again = list(pool.map([(x, y, 5) for x, y in inputs[:6]]))
    for (x, y), result in zip(inputs[:6], again, strict=True):
        np.testing.assert_array_equal(result.residues(), program(x, y, w=5).residues())


def replaced(pool: ProgramPool, pids: set[int], seconds: float = 60) -> bool:
    """Whether, within `seconds`, the pool's two workers are up and one of
    them is not among `pids` (the scheduler notices a death a moment later)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            now = set(pool.client.run(os.getpid).values())
        except Exception:  # noqa: BLE001 - a worker going away mid-call
            now = pids
        if len(now) == 2 and now != pids:
            return True
        time.sleep(0.2)
    return False


def test_a_pool_on_an_existing_cluster_leaves_it_running(
    compiled: tuple[rf.Program, rf.KeySet], pool: ProgramPool
) -> None:
    program, keys = compiled
    address = pool.client.scheduler.address
    inputs = queries(keys, 3)
    with ProgramPool(program, keys.evaluation_keys(), address=address) as second:
        results = list(second.map([(x, y, 2) for x, y in inputs]))
    for (x, y), result in zip(inputs, results, strict=True):
        np.testing.assert_array_equal(result.residues(), program(x, y, w=2).residues())
    assert pool.workers >= 1  # the first pool's cluster still runs
    assert len(list(pool.map([(x, y, 2) for x, y in inputs]))) == 3


def test_bad_pool_arguments_are_refused(compiled: tuple[rf.Program, rf.KeySet]) -> None:
    program, keys = compiled
    with pytest.raises(ValueError, match="positive"):
        ProgramPool(program, keys.evaluation_keys(), workers=0)
    with pytest.raises(ValueError, match="at most one"):
        ProgramPool(program, keys.evaluation_keys(), workers=2, address="tcp://127.0.0.1:1")
    with pytest.raises(TypeError, match="EvaluationKeys"):
        ProgramPool(program, keys.relin_key)  # type: ignore[arg-type]
    other = toy_params(2048).keygen(seed=SEED)
    with pytest.raises(ValueError, match="other parameters"):
        ProgramPool(program, other.evaluation_keys())
