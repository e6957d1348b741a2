"""rf.Params, key sets, encoding, encryption and files, as a user calls them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from runtime_support import SEED, toy_params

SECURE_SETS = {
    4096: ([35, 35], [36]),
    8192: ([50, 50, 50], [50]),
    16384: ([60] * 5, [60]),
    32768: ([60] * 10, [60]),
}


def secure_params(n: int, t: int) -> rf.Params:
    q_bits, p_bits = SECURE_SETS[n]
    return rf.Params(
        poly_modulus_degree=n, plaintext_modulus=t, coeff_modulus_bits=q_bits,
        special_modulus_bits=p_bits,
    )


@pytest.mark.parametrize("n", sorted(SECURE_SETS))
@pytest.mark.parametrize("t", [65537, 256])
def test_encryption_round_trips_for_batching_and_coefficient_plaintexts(n: int, t: int) -> None:
    params = secure_params(n, t)
    keys = params.keygen(seed=SEED)
    values = np.random.default_rng(n + t).integers(0, t, n)
    assert params.batching == (t == 65537)
    for symmetric in (False, True):
        ct = keys.encrypt(values, symmetric=symmetric)
        np.testing.assert_array_equal(keys.decrypt(ct), values)
        assert keys.noise_budget(ct) > 0


def test_params_report_what_was_chosen() -> None:
    params = secure_params(16384, 65537)
    assert params.poly_modulus_degree == 16384
    assert params.slot_count == 16384
    assert len(params.coeff_modulus) == 5 and len(params.special_modulus) == 1
    assert all(q % (2 * 16384) == 1 for q in params.coeff_modulus + params.special_modulus)
    assert params.log_q == 300 and params.dnum == 5 and not params.insecure
    assert params == secure_params(16384, 65537)  # deterministic primes
    assert "N=16384" in repr(params)
    assert secure_params(4096, 256).slot_count == 0


def test_insecure_parameters_are_refused_with_the_bound_named() -> None:
    with pytest.raises(ValueError, match=r"not 128-bit secure.*at most 214 bits"):
        rf.Params(poly_modulus_degree=8192, plaintext_modulus=65537, coeff_modulus_bits=[60] * 4)
    assert rf.Params(
        poly_modulus_degree=8192, plaintext_modulus=65537, coeff_modulus_bits=[60] * 4,
        allow_insecure=True,
    ).insecure


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(poly_modulus_degree=1000), ValueError),
        (dict(poly_modulus_degree=True), TypeError),
        (dict(plaintext_modulus=1), ValueError),
        (dict(plaintext_modulus=2.5), TypeError),
        (dict(coeff_modulus_bits="60"), TypeError),
        (dict(coeff_modulus_bits=[]), ValueError),
        (dict(coeff_modulus_bits=[62]), ValueError),
        (dict(dnum=0), ValueError),
        (dict(dnum=3), ValueError),
        (dict(allow_insecure="yes"), TypeError),
    ],
)
def test_bad_parameters_are_clear_errors(kwargs: dict[str, object], error: type) -> None:
    arguments: dict[str, object] = dict(
        poly_modulus_degree=4096, plaintext_modulus=65537, coeff_modulus_bits=[35, 35],
        special_modulus_bits=[36],
    )
    arguments.update(kwargs)
    with pytest.raises(error):
        rf.Params(**arguments)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(plaintext_modulus=2**64), r"plaintext_modulus must be in \[2, 4611686018427387903\]"),
        (dict(poly_modulus_degree=2**70), r"poly_modulus_degree must be in \[2, 131072\]"),
        (dict(coeff_modulus_bits=[2**70]), r"coeff_modulus_bits entry must be in \[1, 61\]"),
        (dict(special_modulus_bits=[-1]), r"special_modulus_bits entry must be in \[1, 61\]"),
        (dict(dnum=2**64), r"dnum must be in \[1, 4294967296\]"),
    ],
)
def test_ints_beyond_a_machine_word_are_ringfuse_errors(kwargs: dict[str, object], message: str) -> None:
    # Before, pybind11 answered "incompatible function arguments" (a TypeError).
    arguments: dict[str, object] = dict(
        poly_modulus_degree=4096, plaintext_modulus=65537, coeff_modulus_bits=[35, 35],
        special_modulus_bits=[36],
    )
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        rf.Params(**arguments)  # type: ignore[arg-type]


def test_numpy_integers_count_as_ints() -> None:
    params = rf.Params(
        poly_modulus_degree=np.int64(4096), plaintext_modulus=np.uint32(65537),
        coeff_modulus_bits=np.array([35, 35]), special_modulus_bits=[np.int8(36)], dnum=np.int64(2),
    )
    assert params == secure_params(4096, 65537)
    assert type(params.poly_modulus_degree) is int
    keys = params.keygen(rotations=[np.int32(1)], galois_elements=[np.uint64(4095)], seed=SEED)
    assert keys.galois_keys is not None and keys.galois_keys.elements == (3, 4095)

    def identity(x: rf.Encrypted) -> rf.Encrypted:
        return x

    circuit = rf.circuit(plaintext_modulus=np.int64(65537), poly_modulus_degree=np.int64(8192))(
        identity
    )
    assert (circuit.plaintext_modulus, circuit.poly_modulus_degree) == (65537, 8192)
    with pytest.raises(TypeError, match="dnum must be an int, got bool"):
        rf.Params(poly_modulus_degree=4096, plaintext_modulus=65537, coeff_modulus_bits=[35, 35],
                  dnum=np.bool_(True))


def test_the_identity_has_no_galois_key() -> None:
    with pytest.raises(ValueError, match=r"Galois elements must be odd ints in \(1, 2N\) = \(1, 128\), got 1"):
        toy_params().keygen(galois_elements=[1])


def fnv1a64(data: bytes) -> int:
    """Format version 1's payload checksum (serialize.h)."""
    value = 1469598103934665603
    for byte in data:
        value = ((value ^ byte) * 1099511628211) % 2**64
    return value


def with_payload_field(data: bytes, offset: int, value: int) -> bytes:
    """`data` with the u64 at payload offset `offset` replaced, checksum fixed: as
    format version 1 (FNV-1a over the bytes), which the runtime still reads."""
    header, payload = bytearray(data[:48]), bytearray(data[48:])
    payload[offset : offset + 8] = value.to_bytes(8, "little")
    header[8:12] = (1).to_bytes(4, "little")
    header[32:40] = fnv1a64(bytes(payload)).to_bytes(8, "little")
    return bytes(header + payload)


def test_a_parameter_file_with_dnum_zero_is_refused(tmp_path: Path) -> None:
    # dnum = 0 means "the default" to rf.Params, never in a file: it loaded as
    # the default set before.
    path = tmp_path / "params.rfp"
    secure_params(16384, 65537).save(path)
    path.write_bytes(with_payload_field(path.read_bytes(), 16, 0))
    with pytest.raises(ValueError, match="dnum is 0"):
        rf.Params.load(path)


def test_loading_reads_no_further_than_the_header_allows(tmp_path: Path) -> None:
    params = toy_params()
    for device in ("/dev/zero", "/dev/urandom"):
        with pytest.raises(ValueError, match=f"{device}: not a ringfuse file"):
            rf.Ciphertext.load(device, params)
        with pytest.raises(ValueError, match=f"{device}: not a ringfuse file"):
            rf.load_evaluation_keys(device, params)
        with pytest.raises(ValueError, match=f"{device}: not a ringfuse file"):
            rf.Params.load(device)
    path = tmp_path / "x.rfct"
    params.keygen(seed=SEED).encrypt([1]).save(path)
    data = path.read_bytes()
    path.write_bytes(data[:24] + (2**40).to_bytes(8, "little") + data[32:])
    with pytest.raises(ValueError, match="announces a 1099511627776-byte payload, more than a ciphertext can hold"):
        rf.Ciphertext.load(path, params)
    path.write_bytes(data + bytes(1 << 20))
    with pytest.raises(ValueError, match="trailing data"):
        rf.Ciphertext.load(path, params)


def test_same_seed_gives_identical_keys_and_ciphertexts(tmp_path: Path) -> None:
    params = toy_params()
    first, second = params.keygen(seed=SEED), params.keygen(seed=SEED)
    np.testing.assert_array_equal(first.encrypt([1, 2]).residues(), second.encrypt([1, 2]).residues())
    other = params.keygen(seed=bytes(32))
    assert not np.array_equal(first.encrypt([1, 2]).residues(), other.encrypt([1, 2]).residues())
    assert first.secret_key.coefficients() == second.secret_key.coefficients()
    with pytest.raises(ValueError, match="32 bytes"):
        params.keygen(seed=b"short")


def test_keys_from_the_os_differ() -> None:
    params = toy_params()
    assert params.keygen().secret_key.coefficients() != params.keygen().secret_key.coefficients()


def test_an_int_encodes_into_every_slot_and_short_arrays_pad_with_zeros() -> None:
    keys = toy_params().keygen(seed=SEED)
    np.testing.assert_array_equal(keys.decrypt(keys.encrypt(7)), np.full(64, 7))
    np.testing.assert_array_equal(keys.decrypt(keys.encrypt([5, 6]))[:4], [5, 6, 0, 0])
    assert keys.decode(keys.encode(3)).dtype == np.int64


@pytest.mark.parametrize(
    "values, error, message",
    [
        ([65537], ValueError, r"\[0, 65537\).*found 65537"),
        ([-1], ValueError, r"found -1.*np.mod"),
        (np.zeros(65, dtype=np.int64), ValueError, "65 slot values do not fit: there are 64"),
        (np.array([1.0]), TypeError, "integers"),
        (np.array([True]), TypeError, "integers"),
        (True, TypeError, "bool"),
        (np.zeros((2, 2, 2), dtype=np.int64), ValueError, "1-D"),
        ([], ValueError, "no slot values"),
        ([2**70], ValueError, "64 bits"),
    ],
)
def test_bad_values_are_errors_not_truncations(values: object, error: type, message: str) -> None:
    keys = toy_params().keygen(seed=SEED)
    with pytest.raises(error, match=message):
        keys.encrypt(values)


def test_objects_of_other_parameters_are_refused() -> None:
    keys = toy_params().keygen(seed=SEED)
    other = toy_params(t=257).keygen(seed=SEED)
    with pytest.raises(ValueError, match="belongs to"):
        keys.decrypt(other.encrypt([1]))
    with pytest.raises(TypeError, match="rf.Ciphertext"):
        keys.decrypt("not a ciphertext")  # type: ignore[arg-type]


def test_rotation_keys_need_batching_and_nonzero_steps() -> None:
    with pytest.raises(ValueError, match="no batching"):
        toy_params(t=256).keygen(rotations=[1])
    with pytest.raises(ValueError, match="nonzero"):
        toy_params().keygen(rotations=[0])
    with pytest.raises(ValueError, match="out of range"):
        toy_params().keygen(rotations=[32])
    with pytest.raises(ValueError, match="rotation by 1180591620717411303424 steps is out of range"):
        toy_params().keygen(rotations=[2**70])
    keys = toy_params().keygen(rotations=[1, -1], swap_rows=True, seed=SEED)
    assert keys.galois_keys is not None and len(keys.galois_keys.elements) == 3


def test_every_object_saves_and_loads(tmp_path: Path) -> None:
    params = toy_params()
    keys = params.keygen(rotations=[1], seed=SEED)
    ct = keys.encrypt([4, 5, 6])
    params.save(tmp_path / "params.rfp")
    loaded_params = rf.Params.load(tmp_path / "params.rfp")
    assert loaded_params == params
    for name, obj in [
        ("ct", ct), ("pt", keys.encode([1])), ("sk", keys.secret_key), ("pk", keys.public_key),
        ("rk", keys.relin_key), ("gk", keys.galois_keys),
    ]:
        assert obj is not None
        obj.save(tmp_path / name)
        loaded = type(obj).load(tmp_path / name, loaded_params)
        assert type(loaded) is type(obj)
    restored = rf.KeySet(
        loaded_params,
        rf.SecretKey.load(tmp_path / "sk", loaded_params),
        rf.PublicKey.load(tmp_path / "pk", loaded_params),
    )
    np.testing.assert_array_equal(restored.decrypt(rf.Ciphertext.load(tmp_path / "ct", loaded_params))[:3], [4, 5, 6])
    np.testing.assert_array_equal(restored.decrypt(restored.encrypt([9]))[:1], [9])


def test_loading_a_wrong_corrupt_or_truncated_file_fails(tmp_path: Path) -> None:
    params = toy_params()
    keys = params.keygen(seed=SEED)
    path = tmp_path / "x.rfct"
    keys.encrypt([1]).save(path)
    data = path.read_bytes()

    with pytest.raises(ValueError, match="other parameters"):
        rf.Ciphertext.load(path, toy_params(t=257))
    with pytest.raises(ValueError, match="holds a ciphertext, not a public key"):
        rf.PublicKey.load(path, params)
    corrupted = bytearray(data)
    corrupted[-5] ^= 0x10
    (tmp_path / "corrupt").write_bytes(bytes(corrupted))
    with pytest.raises(ValueError, match="checksum"):
        rf.Ciphertext.load(tmp_path / "corrupt", params)
    (tmp_path / "short").write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="truncated"):
        rf.Ciphertext.load(tmp_path / "short", params)
    (tmp_path / "junk").write_bytes(b"hello world" * 10)
    with pytest.raises(ValueError):
        rf.Ciphertext.load(tmp_path / "junk", params)


def test_ciphertext_residues_round_trip_and_are_checked() -> None:
    params = toy_params()
    keys = params.keygen(seed=SEED)
    ct = keys.encrypt([3])
    residues = ct.residues()
    assert residues.shape == (2, 2, 64)
    np.testing.assert_array_equal(keys.decrypt(rf.Ciphertext.from_residues(params, residues))[:1], [3])
    residues[0, 0, 0] = params.coeff_modulus[0]
    with pytest.raises(ValueError, match="below its prime"):
        rf.Ciphertext.from_residues(params, residues)
    with pytest.raises(ValueError, match="shape"):
        rf.Ciphertext.from_residues(params, residues[:, :1])
    # The format stores 2 to 16 components: 17 could never be saved.
    sixteen = rf.Ciphertext.from_residues(params, np.zeros((16, 2, 64), dtype=np.uint64))
    assert sixteen.size == 16
    with pytest.raises(ValueError, match="a ciphertext has 2 to 16 components, got 17"):
        rf.Ciphertext.from_residues(params, np.zeros((17, 2, 64), dtype=np.uint64))
