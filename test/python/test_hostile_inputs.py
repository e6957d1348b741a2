"""The Python API under hypothesis-generated hostile input.

Every loader given any bytes, and `encode` / `keys.encrypt` given arrays of
any dtype, shape and value, must return an object or raise ValueError or
TypeError that says why: no other exception, no crash, no silent wrong value
(a value that loads must be a valid object: it saves to the same bytes).
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ringfuse as rf
from runtime_support import SEED, toy_params

PARAMS = toy_params(64)
KEYS = PARAMS.keygen(rotations=[1], seed=SEED)
SAVED = {
    rf.Ciphertext: KEYS.encrypt(np.arange(64))._native.serialize(),
    rf.Plaintext: KEYS.encode(np.arange(64))._native.serialize(),
    rf.PublicKey: KEYS.public_key._native.serialize(),
    rf.RelinKey: KEYS.relin_key._native.serialize(),
    rf.GaloisKeys: KEYS.galois_keys._native.serialize(),
}
REFUSALS = (ValueError, TypeError)
SETTINGS = settings(max_examples=150, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def mutated(data: bytes, draw: st.DrawFn) -> bytes:
    """A saved object with a few bytes changed, cut short or extended."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(out) - 1))
        out[at] = draw(st.integers(0, 255))
    cut = draw(st.sampled_from([len(out), len(out) - 1, 48, 47, 0, len(out) + 8]))
    return bytes(out[:cut]) + (b"\0" * 8 if cut > len(out) else b"")


@st.composite
def hostile_files(draw: st.DrawFn) -> tuple[type, bytes]:
    kind = draw(st.sampled_from(sorted(SAVED, key=lambda k: k.__name__)))
    if draw(st.booleans()):
        return kind, draw(st.binary(max_size=256))
    return kind, mutated(SAVED[kind], draw)


@SETTINGS
@given(hostile_files())
def test_a_loader_returns_a_valid_object_or_refuses(tmp_path: Path, case: tuple[type, bytes]) -> None:
    kind, data = case
    path = tmp_path / "object.rf"
    path.write_bytes(data)
    try:
        loaded = kind.load(path, PARAMS)
    except REFUSALS:
        return
    # Loaded: a valid object of the set, which saves and pickles as it loaded.
    assert loaded.params == PARAMS
    resaved = loaded._native.serialize()
    assert kind.load(path, PARAMS)._native.serialize() == resaved
    assert pickle.loads(pickle.dumps(loaded))._native.serialize() == resaved


@SETTINGS
@given(st.binary(max_size=200))
def test_parameters_and_batches_from_any_bytes_load_or_refuse(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "object.rf"
    path.write_bytes(data)
    with pytest.raises(REFUSALS):
        rf.Params.load(path)
    with pytest.raises(REFUSALS):
        rf.CiphertextBatch.load(path, PARAMS)


arrays = hnp.arrays(
    dtype=st.sampled_from([np.int8, np.int64, np.uint64, np.float64, np.bool_, np.complex64]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=70),
)
odd_values = st.one_of(
    arrays,
    st.integers(min_value=-(2**70), max_value=2**70),
    st.lists(st.integers(min_value=-(2**70), max_value=2**70), max_size=70),
    st.text(max_size=5),
    st.none(),
)


@SETTINGS
@given(odd_values)
def test_encode_and_encrypt_take_values_in_range_and_refuse_the_rest(values: object) -> None:
    try:
        plaintext = KEYS.encode(values)
    except REFUSALS:
        plaintext = None
    if plaintext is not None:
        # Accepted: integers in [0, t), at most N of them (or one for all).
        array = np.asarray(values)
        assert np.issubdtype(array.dtype, np.integer) and array.ndim <= 1
        decoded = KEYS.decode(plaintext)
        np.testing.assert_array_equal(
            decoded[: array.size] if array.ndim else decoded,
            array.astype(np.int64) if array.ndim else np.full(64, int(array)),
        )
    try:
        KEYS.encrypt(values)
    except REFUSALS:
        pass
