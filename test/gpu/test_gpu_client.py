"""The GPU client operations against the CPU reference, word for word.

Runs only on a machine with a CUDA device (test/gpu/run.sh). With one 32-byte
seed, keys made with device="cuda" must be the CPU's keys byte for byte (their
serialized files), slot encoding and decoding the same, fresh encryptions
(public and symmetric) the same residues, and either side must decrypt the
other's ciphertexts. A compiled CUDA program given GPU-made keys must compute
what it computes with CPU-made keys.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import _runtime

SEED = bytes(range(32))

if not _runtime.gpu_available():
    pytest.fail("test/gpu needs a CUDA device; run it on the GPU machine (test/gpu/run.sh)",
                pytrace=False)

# (N, t, Q bits, P bits): secure sets; the last uses t = 256 (no batching:
# coefficient encoding).
PARAMETER_SETS = {
    "n4096": (4096, 65537, [35, 35], [36]),
    "n8192": (8192, 65537, [50, 50, 50], [50]),
    "n16384": (16384, 65537, [60] * 5, [60]),
    "n4096_t256": (4096, 256, [35, 35], [36]),
}


@pytest.fixture(scope="module", params=list(PARAMETER_SETS), ids=list(PARAMETER_SETS))
def params(request: pytest.FixtureRequest) -> rf.Params:
    n, t, q, p = PARAMETER_SETS[request.param]
    return rf.Params(poly_modulus_degree=n, plaintext_modulus=t, coeff_modulus_bits=q,
                     special_modulus_bits=p)


def keygen(params: rf.Params, device: str) -> rf.KeySet:
    if params.batching:
        return params.keygen(rotations=[1, -1, 7], swap_rows=True, seed=SEED, device=device)
    return params.keygen(seed=SEED, device=device)


@pytest.fixture(scope="module")
def key_pair(params: rf.Params) -> tuple[rf.KeySet, rf.KeySet]:
    return keygen(params, "cpu"), keygen(params, "cuda")


def values_for(params: rf.Params, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, params.plaintext_modulus, params.poly_modulus_degree)


def serialized(key: object) -> bytes:
    return key._native.serialize()  # type: ignore[attr-defined]


def test_gpu_keys_are_the_cpu_keys_byte_for_byte(key_pair: tuple[rf.KeySet, rf.KeySet]) -> None:
    cpu, gpu = key_pair
    assert gpu.device == "cuda" and cpu.device == "cpu"
    assert gpu.secret_key.coefficients() == cpu.secret_key.coefficients()
    assert serialized(gpu.secret_key) == serialized(cpu.secret_key)
    assert serialized(gpu.public_key) == serialized(cpu.public_key)
    assert serialized(gpu.relin_key) == serialized(cpu.relin_key)
    if cpu.params.batching:
        assert gpu.galois_keys is not None and cpu.galois_keys is not None
        assert gpu.galois_keys.elements == cpu.galois_keys.elements
        assert len(cpu.galois_keys.elements) == 4
        assert serialized(gpu.galois_keys) == serialized(cpu.galois_keys)
    else:
        assert gpu.galois_keys is None and cpu.galois_keys is None


def test_gpu_keys_saved_to_files_are_the_cpu_files(
    key_pair: tuple[rf.KeySet, rf.KeySet], tmp_path: Path
) -> None:
    cpu, gpu = key_pair
    cpu.save_evaluation_keys(tmp_path / "cpu.rfkeys")
    gpu.save_evaluation_keys(tmp_path / "gpu.rfkeys")
    assert (tmp_path / "cpu.rfkeys").read_bytes() == (tmp_path / "gpu.rfkeys").read_bytes()


def test_gpu_encoding_and_decoding_are_the_cpu_ones(
    key_pair: tuple[rf.KeySet, rf.KeySet]
) -> None:
    cpu, gpu = key_pair
    n = cpu.params.poly_modulus_degree
    for seed, count in ((1, n), (2, n // 3), (3, 1)):
        values = values_for(cpu.params, seed)[:count]
        on_cpu, on_gpu = cpu.encode(values), gpu.encode(values)
        np.testing.assert_array_equal(on_gpu.coefficients, on_cpu.coefficients)
        expected = np.zeros(n, dtype=np.int64)
        expected[:count] = values
        np.testing.assert_array_equal(gpu.decode(on_cpu), expected)
        np.testing.assert_array_equal(cpu.decode(on_gpu), expected)


def test_gpu_encoding_rejects_what_the_cpu_rejects(params: rf.Params) -> None:
    if not params.batching:
        with pytest.raises(ValueError, match="batching"):
            _runtime.gpu_encode_slots(params._context, np.zeros(4, dtype=np.uint64))
        return
    t, n = params.plaintext_modulus, params.poly_modulus_degree
    with pytest.raises(ValueError, match="not below the plaintext modulus"):
        _runtime.gpu_encode_slots(params._context, np.array([1, t], dtype=np.uint64))
    with pytest.raises(ValueError, match="do not fit"):
        _runtime.gpu_encode_slots(params._context, np.zeros(n + 1, dtype=np.uint64))


@pytest.mark.parametrize("symmetric", [False, True], ids=["public", "symmetric"])
def test_gpu_encryptions_are_the_cpu_encryptions(params: rf.Params, symmetric: bool) -> None:
    # Fresh key sets: both Prngs stand at the same domain after keygen.
    cpu, gpu = keygen(params, "cpu"), keygen(params, "cuda")
    for seed in (4, 5):  # two in a row: the domains stay in step
        values = values_for(params, seed)
        ct_cpu = cpu.encrypt(values, symmetric=symmetric)
        ct_gpu = gpu.encrypt(values, symmetric=symmetric)
        np.testing.assert_array_equal(ct_gpu.residues(), ct_cpu.residues())
        np.testing.assert_array_equal(gpu.decrypt(ct_cpu), values)
        np.testing.assert_array_equal(cpu.decrypt(ct_gpu), values)


@pytest.mark.parametrize("symmetric", [False, True], ids=["public", "symmetric"])
def test_gpu_batches_encrypt_and_decrypt_as_single_calls(params: rf.Params, symmetric: bool) -> None:
    # A batch on the GPU (chunks of rows a launch) gives the ciphertexts the
    # CPU's batch and a sequence of single calls give, and decrypts them back.
    cpu, gpu = keygen(params, "cpu"), keygen(params, "cuda")
    singles = keygen(params, "cuda")
    rows = np.stack([values_for(params, seed) for seed in range(9)])
    batch_gpu = gpu.encrypt(rows, symmetric=symmetric)
    batch_cpu = cpu.encrypt(rows, symmetric=symmetric)
    assert len(batch_gpu) == len(rows)
    for k, row in enumerate(rows):
        single = singles.encrypt(row, symmetric=symmetric)
        np.testing.assert_array_equal(batch_gpu[k].residues(), single.residues())
        np.testing.assert_array_equal(batch_gpu[k].residues(), batch_cpu[k].residues())
    # The Prngs stay in step after the batch (all three encrypt once more).
    after = values_for(params, 99)
    after_gpu = gpu.encrypt(after, symmetric=symmetric).residues()
    np.testing.assert_array_equal(after_gpu, singles.encrypt(after, symmetric=symmetric).residues())
    np.testing.assert_array_equal(after_gpu, cpu.encrypt(after, symmetric=symmetric).residues())
    np.testing.assert_array_equal(gpu.decrypt(batch_cpu), rows)
    np.testing.assert_array_equal(cpu.decrypt(batch_gpu), rows)
    # Rows of fewer values than slots: the rest are zeros, as for single calls.
    short = rows[:3, : params.poly_modulus_degree // 2 + 3]
    for got, want in zip(gpu.encrypt(short, symmetric=symmetric),
                         cpu.encrypt(short, symmetric=symmetric), strict=True):
        np.testing.assert_array_equal(got.residues(), want.residues())
    if params.batching:
        with pytest.raises(ValueError, match="do not fit"):
            gpu.encrypt(np.zeros((2, params.poly_modulus_degree + 1), dtype=np.int64))
        with pytest.raises(ValueError, match="plaintext modulus"):
            gpu.encrypt(np.full((2, 4), params.plaintext_modulus))
        bad = rows.copy()
        bad[-1, 5] = -1  # the runtime finds it while staging the last row
        with pytest.raises(ValueError, match="found -1"):
            gpu.encrypt(bad, symmetric=symmetric)
        # A refused batch draws nothing: the key sets stay in step.
        np.testing.assert_array_equal(gpu.encrypt(after, symmetric=symmetric).residues(),
                                      cpu.encrypt(after, symmetric=symmetric).residues())


def test_gpu_encryption_of_a_cpu_plaintext_under_cpu_keys(
    key_pair: tuple[rf.KeySet, rf.KeySet]
) -> None:
    # The native functions directly, on the same Prng seed and the CPU's keys.
    cpu, _ = key_pair
    values = values_for(cpu.params, 6)
    plaintext = cpu.encode(values)._native
    pk, sk = cpu.public_key._native, cpu.secret_key._native
    for name in ("encrypt_public", "encrypt_symmetric"):
        key = pk if name == "encrypt_public" else sk
        want = getattr(_runtime, name)(key, plaintext, _runtime.Prng.from_seed(SEED))
        got = getattr(_runtime, "gpu_" + name)(key, plaintext, _runtime.Prng.from_seed(SEED))
        np.testing.assert_array_equal(np.asarray(got.data), np.asarray(want.data), err_msg=name)


def test_gpu_decryption_of_a_three_component_ciphertext(
    key_pair: tuple[rf.KeySet, rf.KeySet]
) -> None:
    cpu, gpu = key_pair
    t = cpu.params.plaintext_modulus
    x, y = values_for(cpu.params, 7), values_for(cpu.params, 8)
    product = _runtime.multiply_hps(cpu.encrypt(x)._native, cpu.encrypt(y)._native)
    assert product.size == 3
    want = _runtime.decrypt(cpu.secret_key._native, product)
    got = _runtime.gpu_decrypt(gpu.secret_key._native, product)
    np.testing.assert_array_equal(np.asarray(got.coefficients), np.asarray(want.coefficients))
    if cpu.params.batching:
        expected = (x.astype(object) * y.astype(object)) % t
        np.testing.assert_array_equal(
            np.asarray(_runtime.gpu_decode_slots(got)).astype(object), expected)


def test_gpu_timings_of_encryption_and_decryption(key_pair: tuple[rf.KeySet, rf.KeySet]) -> None:
    # Each timing call checks its last run against the CPU reference itself
    # (it raises otherwise); here: one positive time per timed run, a
    # three-component ciphertext restored between runs, bad counts refused.
    cpu, _ = key_pair
    values = values_for(cpu.params, 9)
    plaintext = cpu.encode(values)._native
    pk, sk = cpu.public_key._native, cpu.secret_key._native
    prng = _runtime.Prng.from_seed(SEED)
    times = _runtime.gpu_time_encrypt_public(pk, plaintext, prng, 2, 5)
    assert len(times) == 5 and all(0 < us < 1e6 for us in times)
    product = _runtime.multiply_hps(cpu.encrypt(values)._native, cpu.encrypt(values)._native)
    times = _runtime.gpu_time_decrypt(sk, product, 2, 5)
    assert len(times) == 5 and all(0 < us < 1e6 for us in times)
    with pytest.raises(Exception, match="iterations must be at least 1"):
        _runtime.gpu_time_decrypt(sk, product, 1, 0)
    with pytest.raises(Exception, match="iterations must be at least 1"):
        _runtime.gpu_time_encrypt_public(pk, plaintext, prng, 1, 0)


def test_gpu_keyset_rejects_unknown_devices(params: rf.Params) -> None:
    with pytest.raises(ValueError, match='"cpu" or "cuda"'):
        params.keygen(seed=SEED, device="gpu")


@rf.circuit(plaintext_modulus=65537)
def rotate_product(x: rf.Encrypted, y: rf.Encrypted):
    return (x * y).rotate(1) + x


def test_compiled_cuda_program_on_gpu_keys_matches_cpu_keys(tmp_path: Path) -> None:
    program = rf.compile(rotate_product, target="cuda", cache_dir=tmp_path)
    params = program.params
    cpu = params.keygen(galois_elements=program.galois_elements, seed=SEED)
    gpu = params.keygen(galois_elements=program.galois_elements, seed=SEED, device="cuda")
    x, y = values_for(params, 9), values_for(params, 10)

    def run(keys: rf.KeySet) -> rf.Ciphertext:
        program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
        return program(keys.encrypt(x), keys.encrypt(y))

    on_cpu_keys, on_gpu_keys = run(cpu), run(gpu)
    np.testing.assert_array_equal(on_gpu_keys.residues(), on_cpu_keys.residues())
    t, half = params.plaintext_modulus, params.poly_modulus_degree // 2
    products = (x.astype(object) * y.astype(object)) % t
    rotated = np.concatenate([np.roll(products[:half], -1), np.roll(products[half:], -1)])
    expected = ((rotated + x.astype(object)) % t).astype(np.int64)
    np.testing.assert_array_equal(gpu.decrypt(on_gpu_keys), expected)
    np.testing.assert_array_equal(cpu.decrypt(on_gpu_keys), expected)
