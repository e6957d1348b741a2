"""Pickling: every user object travels to other processes and machines
through ringfuse's versioned, checked format, and a secret key only when asked.

Each object unpickles to an equal one (the same saved bytes, the same
parameters); a program unpickles as its compiled artifact, built or found in
the cache, and computes what the original computes; a key set or a secret key
refuses to be pickled unless the secret key is exposed on purpose, and the
evaluation keys' pickle holds nothing of it.
"""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from runtime_support import SEED, toy_params

T = 65537


@rf.circuit(plaintext_modulus=T)
def product_and_rotation(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + (x * w).rotate(1)


@pytest.fixture(scope="module")
def keys() -> rf.KeySet:
    return toy_params(64).keygen(rotations=[1], seed=SEED)


def round_trip(value: object) -> object:
    return pickle.loads(pickle.dumps(value))


def test_parameters_pickle_to_an_equal_parameter_set(keys: rf.KeySet) -> None:
    params = round_trip(keys.params)
    assert isinstance(params, rf.Params) and params == keys.params
    assert params.coeff_modulus == keys.params.coeff_modulus


def test_ciphertexts_plaintexts_and_public_keys_pickle_word_for_word(keys: rf.KeySet) -> None:
    values = np.arange(64) % T
    objects = [keys.encrypt(values), keys.encode(values), keys.public_key, keys.relin_key,
               keys.galois_keys]
    for value in objects:
        copy = round_trip(value)
        assert type(copy) is type(value)
        assert copy.params == value.params
        assert copy._native.serialize() == value._native.serialize()
    np.testing.assert_array_equal(keys.decrypt(round_trip(objects[0])), values)


def test_a_batch_pickles_as_one_checked_file(keys: rf.KeySet) -> None:
    rows = np.arange(3 * 64).reshape(3, 64) % T
    batch = keys.encrypt(rows)
    copy = round_trip(batch)
    assert isinstance(copy, rf.CiphertextBatch) and len(copy) == 3
    for a, b in zip(batch, copy, strict=True):
        np.testing.assert_array_equal(a.residues(), b.residues())
    np.testing.assert_array_equal(keys.decrypt(copy), rows)


def test_a_corrupted_pickle_is_refused_by_the_format_checks(keys: rf.KeySet) -> None:
    ciphertext = keys.encrypt(5)
    saved = ciphertext._native.serialize()
    data = pickle.dumps(ciphertext)
    assert saved in data
    # The saved bytes' header (magic and version) broken: the format refuses them.
    broken = data.replace(saved, bytes([saved[0] ^ 0xFF]) + saved[1:])
    with pytest.raises(ValueError):
        pickle.loads(broken)
    # Truncated words (what unpickling hands the format): refused too.
    unpickle, (kind, params, _) = ciphertext.__reduce__()
    with pytest.raises(ValueError):
        unpickle(kind, params, saved[:-8])


def test_the_secret_key_is_pickled_only_when_exposed(keys: rf.KeySet) -> None:
    with pytest.raises(TypeError, match="not pickled by accident"):
        pickle.dumps(keys.secret_key)
    with pytest.raises(TypeError, match="holds the secret key"):
        pickle.dumps(keys)
    exposed = round_trip(keys.secret_key.exposed())
    assert isinstance(exposed, rf.SecretKey)
    assert exposed._native.serialize() == keys.secret_key._native.serialize()


def test_evaluation_keys_pickle_without_the_secret_key(keys: rf.KeySet) -> None:
    evaluation = keys.evaluation_keys()
    data = pickle.dumps(evaluation)
    secret = keys.secret_key._native.serialize()
    assert secret not in data and b"SecretKey" not in data
    copy = pickle.loads(data)
    assert isinstance(copy, rf.EvaluationKeys) and copy.params == keys.params
    assert copy.relin_key._native.serialize() == keys.relin_key._native.serialize()
    assert copy.galois_keys.elements == keys.galois_keys.elements
    assert not hasattr(copy, "secret_key")


@pytest.mark.needs_compiler
def test_a_program_pickles_as_its_artifact_and_computes_the_same(
    keys: rf.KeySet, cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    program = rf.compile(product_and_rotation, "cpu", params=keys.params, cache_dir=cache_dir)
    # The receiver's cache: empty, so it builds the program from the pickle.
    monkeypatch.setenv("RINGFUSE_CACHE_DIR", str(tmp_path / "receiver"))
    copy = round_trip(program)
    assert str(tmp_path / "receiver") in str(copy.library_path)
    assert isinstance(copy, rf.Program) and copy.name == program.name
    assert copy.params == program.params and copy.galois_elements == program.galois_elements
    # Keys do not travel with it: the evaluation keys bind on the other side.
    copy.set_evaluation_keys(round_trip(keys.evaluation_keys()))
    program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    x, y, w = (keys.encrypt(np.arange(64) % 7), keys.encrypt(np.arange(64) % 5), np.arange(64) % 3)
    np.testing.assert_array_equal(copy(x, y, w=w).residues(), program(x, y, w=w).residues())
    with pytest.raises(TypeError, match="pass it alone"):
        copy.set_evaluation_keys(keys.evaluation_keys(), keys.galois_keys)
