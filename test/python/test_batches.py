"""Batches: K instances of a circuit per call (rf.CiphertextBatch).

A batch's outputs are, word for word, the outputs of K single calls, for
every variant; plaintext inputs are shared or one row per instance; batches
save and load; mismatched batches are refused with errors that say why.
RINGFUSE_TEST_TARGET=cuda runs the same tests on the CUDA driver.
"""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from runtime_support import SEED, rotate_rows, toy_params

pytestmark = pytest.mark.needs_compiler

T = 65537
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
VARIANTS = ("hps", "lhps", "chps", "behz")
INSTANCES = 5


@rf.circuit(plaintext_modulus=T)
def server(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    """A product, a rotation and a plaintext input, two outputs."""
    product = x * y
    return product + (x * w).rotate(3), product * x


def expected(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    xs, ys, ws = (value.astype(object) for value in (x, y, w))
    product = xs * ys
    return [(product + rotate_rows(xs * ws, 3)) % T, (product * xs) % T]


def program_and_keys(cache_dir: Path, variant: str = "hps") -> tuple[rf.Program, rf.KeySet]:
    program = rf.compile(server, target=TARGET, variant=variant, cache_dir=cache_dir)
    return program, program.keygen(seed=SEED)


def random_rows(program: rf.Program, rows: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, T, (rows, program.params.poly_modulus_degree))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_batch_gives_the_single_runs_words(variant: str, cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir, variant)
    bx = keys.encrypt(random_rows(program, INSTANCES, 1))
    by = keys.encrypt(random_rows(program, INSTANCES, 2))
    w = random_rows(program, 1, 3)[0]
    first, second = program(bx, by, w=w)
    assert isinstance(first, rf.CiphertextBatch) and len(first) == INSTANCES
    for k in range(INSTANCES):
        single = program(bx[k], by[k], w=w)
        np.testing.assert_array_equal(first[k].residues(), single[0].residues())
        np.testing.assert_array_equal(second[k].residues(), single[1].residues())


def test_a_batch_decrypts_to_numpy_with_shared_and_per_instance_plaintexts(cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    x, y = random_rows(program, INSTANCES, 4), random_rows(program, INSTANCES, 5)
    bx, by = keys.encrypt(x), keys.encrypt(y)
    shared = random_rows(program, 1, 6)[0]
    rows = random_rows(program, INSTANCES, 7)
    for w in (shared, rows):
        outputs = program(bx, by, w=w)
        for k in range(INSTANCES):
            want = expected(x[k], y[k], rows[k] if w is rows else shared)
            for output, value in zip(outputs, want, strict=True):
                np.testing.assert_array_equal(keys.decrypt(output)[k], value)


def test_a_single_ciphertext_beside_batches_serves_every_instance(cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    bx = keys.encrypt(random_rows(program, 3, 8))
    one = keys.encrypt(random_rows(program, 1, 9)[0])
    outputs = program(bx, one, w=1)
    for k in range(3):
        single = program(bx[k], one, w=1)
        np.testing.assert_array_equal(outputs[0][k].residues(), single[0].residues())


def test_a_progress_bar_on_request_gives_the_same_words(cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    bx = keys.encrypt(random_rows(program, INSTANCES, 10))
    by = keys.encrypt(random_rows(program, INSTANCES, 11))
    quiet = program(bx, by, w=2)
    shown = io.StringIO()
    with redirect_stderr(shown):
        loud = program(bx, by, w=2, progress=True)
    assert f"{INSTANCES}/{INSTANCES}" in shown.getvalue()
    for a, b in zip(quiet, loud, strict=True):
        for k in range(INSTANCES):
            np.testing.assert_array_equal(a[k].residues(), b[k].residues())


def test_a_batch_larger_than_a_chunk_gives_the_single_runs_words(cache_dir: Path) -> None:
    """300 instances: on the CUDA driver, chunks of 256 and 44 instances a launch
    on two regions in turn, a graph for each size; threads on the CPU."""
    program, keys = program_and_keys(cache_dir)
    instances = 300
    bx = keys.encrypt(random_rows(program, instances, 12))
    by = keys.encrypt(random_rows(program, instances, 13))
    w = random_rows(program, instances, 14)
    shown = io.StringIO()
    with redirect_stderr(shown):
        first, second = program(bx, by, w=w, progress=True)
    assert f"{instances}/{instances}" in shown.getvalue()
    for k in range(0, instances, 7):
        single = program(bx[k], by[k], w=w[k])
        np.testing.assert_array_equal(first[k].residues(), single[0].residues())
        np.testing.assert_array_equal(second[k].residues(), single[1].residues())


def test_encrypt_rows_and_decrypt_a_batch(cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    values = np.arange(12).reshape(3, 4)
    batch = keys.encrypt(values)
    assert isinstance(batch, rf.CiphertextBatch) and len(batch) == 3
    assert [c.size for c in batch] == [2, 2, 2]
    decrypted = keys.decrypt(batch)
    n = program.params.poly_modulus_degree
    assert decrypted.shape == (3, n)
    np.testing.assert_array_equal(decrypted[:, :4], values)
    assert not decrypted[:, 4:].any()
    symmetric = keys.encrypt([[5, 6], [7, 8]], symmetric=True)
    np.testing.assert_array_equal(keys.decrypt(symmetric)[:, :2], [[5, 6], [7, 8]])
    with pytest.raises(ValueError, match="at least one instance"):
        keys.encrypt(np.zeros((0, 4), dtype=np.int64))


def test_a_batch_is_a_sequence_that_saves_and_loads(cache_dir: Path, tmp_path: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    items = [keys.encrypt([k]) for k in range(4)]
    batch = rf.CiphertextBatch.from_ciphertexts(items)
    def same(a: rf.Ciphertext, b: rf.Ciphertext) -> bool:
        return bool(np.array_equal(a.residues(), b.residues()))

    assert same(batch[2], items[2]) and same(batch[-1], items[3])
    assert all(same(a, b) for a, b in zip(batch, items, strict=True))
    assert len(batch[1:3]) == 2 and same(batch[1:3][0], items[1])
    assert same(batch[::2][1], items[2]) and batch.size == 2 and not batch.on_gpu
    with pytest.raises(IndexError, match="instance 4 of a batch of 4"):
        batch[4]
    with pytest.raises(ValueError, match="picks none"):
        batch[3:1]
    path = tmp_path / "queries.rfbatch"
    batch.save(path)
    loaded = rf.CiphertextBatch.load(path, program.params)
    assert len(loaded) == 4
    for a, b in zip(loaded, batch, strict=True):
        np.testing.assert_array_equal(a.residues(), b.residues())
    assert keys.decrypt(loaded)[:, 0].tolist() == [0, 1, 2, 3]
    path.write_bytes(path.read_bytes()[:-9])
    with pytest.raises(ValueError):
        rf.CiphertextBatch.load(path, program.params)


def test_batches_that_do_not_fit_are_refused(cache_dir: Path) -> None:
    program, keys = program_and_keys(cache_dir)
    with pytest.raises(ValueError, match="at least one ciphertext"):
        rf.CiphertextBatch.from_ciphertexts([])
    with pytest.raises(TypeError, match="item 1 is a int"):
        rf.CiphertextBatch.from_ciphertexts([keys.encrypt(1), 2])  # type: ignore[list-item]
    three = keys.encrypt(np.ones((3, 2), dtype=np.int64))
    four = keys.encrypt(np.ones((4, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="'x' has 3, 'y' has 4"):
        program(three, four, w=1)
    with pytest.raises(ValueError, match="one row per instance \\(3 rows\\), got 2 rows"):
        program(three, three, w=np.ones((2, 4), dtype=np.int64))
    foreign = toy_params(t=T).keygen(seed=SEED).encrypt(np.ones((3, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="argument 'y'.*belongs to"):
        program(three, foreign, w=1)
    with pytest.raises(ValueError, match="item 1 belongs to"):
        rf.CiphertextBatch.from_ciphertexts([three[0], foreign[0]])
    with pytest.raises(ValueError, match="belongs to"):
        keys.decrypt(foreign)


def test_a_batch_encrypts_as_its_rows_one_after_another(cache_dir: Path) -> None:
    """On all cores, and still the ciphertexts of encrypting the rows in turn
    with the key set's randomness (same seed, same words)."""
    program, _ = program_and_keys(cache_dir)
    rows = random_rows(program, 6, 12)
    for symmetric in (False, True):
        batch_keys = rf.KeySet.generate(program.params, seed=SEED)
        single_keys = rf.KeySet.generate(program.params, seed=SEED)
        batch = batch_keys.encrypt(rows, symmetric=symmetric)
        for k, row in enumerate(rows):
            single = single_keys.encrypt(row, symmetric=symmetric)
            np.testing.assert_array_equal(batch[k].residues(), single.residues())
        # Both key sets' randomness is left in one place.
        np.testing.assert_array_equal(batch_keys.encrypt(rows[0]).residues(),
                                      single_keys.encrypt(rows[0]).residues())
        np.testing.assert_array_equal(batch_keys.decrypt(batch), rows)
