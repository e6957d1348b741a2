"""Every end-to-end circuit on the CUDA driver, word for word against the CPU driver.

Runs only on a machine with a CUDA device (test/gpu/run.sh); the circuits are
test/python/test_e2e.py's. Same traced IR, same parameters, same keys, same
input ciphertexts: the outputs must be the same residues, on the first run and
on the replays of the captured CUDA graph.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import _runtime

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import test_e2e  # noqa: E402  (the circuits)
import test_whole_circuit  # noqa: E402  (the optimized circuits)
from runtime_support import grouped_arguments  # noqa: E402

SEED = bytes(range(32))

if not _runtime.cuda_available():
    pytest.fail("test/gpu needs a CUDA device; run it on the GPU machine (test/gpu/run.sh)",
                pytrace=False)


def inputs_for(program: rf.Program, keys: rf.KeySet, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    n = program.params.poly_modulus_degree
    t = program.params.plaintext_modulus
    values: list[object] = []
    for _, kind in program.inputs:
        slots = rng.integers(0, t, n)
        values.append(keys.encrypt(slots) if kind == "encrypted" else slots)
    return values


# The other variants: leveled HPS (products and relinearizations below the
# full Q; the deep circuit at its explicit parameters reaches level 1),
# compact HPS, BEHZ, and the cost model's choice.
VARIANT_CASES = [
    ("lhps", test_e2e.CHAINS[4], {}),
    ("lhps", test_e2e.CHAINS[6], {}),
    ("lhps", test_e2e.every_depth, {"params": rf.Params(**test_e2e.DEEP_PARAMS)}),
    ("chps", test_e2e.CHAINS[4], {}),
    ("chps", test_e2e.every_depth, {"params": rf.Params(**test_e2e.DEEP_PARAMS)}),
    ("behz", test_e2e.CHAINS[4], {}),
    ("behz", test_e2e.every_depth, {"params": rf.Params(**test_e2e.DEEP_PARAMS)}),
    ("auto", test_e2e.every_depth, {"params": rf.Params(**test_e2e.DEEP_PARAMS)}),
]


@pytest.mark.parametrize("circuit", test_e2e.ALL_CIRCUITS, ids=lambda circuit: circuit.name)
def test_cuda_outputs_are_the_cpu_outputs(circuit: rf.Circuit, tmp_path: Path) -> None:
    compare_cuda_with_cpu(circuit, tmp_path)


@pytest.mark.parametrize(
    "variant, circuit, compile_args",
    VARIANT_CASES,
    ids=[f"{variant}-{circuit.name}" for variant, circuit, _ in VARIANT_CASES],
)
def test_cuda_outputs_of_every_variant_are_the_cpu_outputs(
    variant: str, circuit: rf.Circuit, compile_args: dict[str, object], tmp_path: Path
) -> None:
    compare_cuda_with_cpu(circuit, tmp_path, variant=variant, **compile_args)


# 128 ciphertext primes of 61 bits: HPS's and BEHZ's conversions from Q sum
# 128 products of a word below 2^61 and a weight below 2^60, more than one
# exact 128-bit sum holds (126, productsPerSum), so the kernels reduce
# between sums.
WIDE_PARAMS = rf.Params(poly_modulus_degree=1024, plaintext_modulus=test_e2e.T,
                        coeff_modulus_bits=[61] * 128, special_modulus_bits=[61] * 8,
                        allow_insecure=True)


@pytest.mark.parametrize("variant", ["hps", "behz"])
def test_dot_products_longer_than_one_exact_sum_are_the_cpu_outputs(
    variant: str, tmp_path: Path
) -> None:
    compare_cuda_with_cpu(test_e2e.CHAINS[1], tmp_path, variant=variant, params=WIDE_PARAMS)


# 20 ciphertext primes and 4 special ones: the conversions from Q and the
# roundings of QR (at least 16 limbs in, 8 out: cuda::mmaPays) take their dot
# products on the tensor cores in one chunk of 32 inputs, key switching's
# conversions from 4 limbs on the CUDA cores.
TENSOR_CORE_PARAMS = rf.Params(poly_modulus_degree=1024, plaintext_modulus=test_e2e.T,
                               coeff_modulus_bits=[60] * 20, special_modulus_bits=[60] * 4,
                               allow_insecure=True)


@pytest.mark.parametrize("variant", ["hps", "chps", "lhps", "behz"])
def test_tensor_core_dot_products_are_the_cpu_outputs(variant: str, tmp_path: Path) -> None:
    compare_cuda_with_cpu(test_e2e.CHAINS[1], tmp_path, variant=variant,
                          params=TENSOR_CORE_PARAMS)


@pytest.mark.parametrize("variant", ["hps", "chps", "lhps", "behz"])
def test_fused_tensor_products_are_the_cpu_outputs(variant: str, tmp_path: Path) -> None:
    # N = 2^15: the forward NTTs and tensor products are one ntt_products.
    compare_cuda_with_cpu(test_e2e.CHAINS[1], tmp_path, variant=variant,
                          params=test_e2e.LARGE_PARAMS)


# Q of primes from 24 to 50 bits: ntt_products reduces each transformed factor
# by a quotient estimated from its prime's length (cuda::makeNttLimb), with
# constants of another form below 30 bits; key switching's digits reach the
# 61-bit P.
MIXED_WIDTH_PARAMS = rf.Params(poly_modulus_degree=1 << 15, plaintext_modulus=test_e2e.T,
                               coeff_modulus_bits=[24, 29, 31, 45, 50],
                               special_modulus_bits=[61], allow_insecure=True)


@pytest.mark.parametrize("variant", ["hps", "behz"])
def test_fused_tensor_products_over_primes_of_every_width_are_the_cpu_outputs(
    variant: str, tmp_path: Path
) -> None:
    compare_cuda_with_cpu(test_e2e.CHAINS[1], tmp_path, variant=variant,
                          params=MIXED_WIDTH_PARAMS)


# Narrow bases at N = 2^10: key switching's digits of one, three and two limbs
# (Q of two, three and four primes, P of one, three and two), so that its inner
# product sums one to three digits, and lifts of Q from two to four limbs, on
# the tiles. At N >= 2^15 conversions and roundings from at most four limbs take
# one coefficient per thread instead (cuda::convertColumnsKernel and
# scaleRoundColumnsKernel): key switching's digits of four and three limbs and
# its division by P, HPS's lift of three. Below 2^16 a thread takes four
# outputs, from 2^16 on all of them.
NARROW_BASE_CASES = [
    ("hps", 10, 2, 1), ("chps", 10, 3, 3), ("lhps", 10, 4, 2), ("behz", 10, 4, 2),
    ("chps", 15, 8, 4), ("lhps", 15, 4, 2), ("hps", 16, 3, 3),
]


@pytest.mark.parametrize(
    "variant, log_n, q_primes, p_primes",
    NARROW_BASE_CASES,
    ids=[f"{variant}-n{log_n}-q{q}-p{p}" for variant, log_n, q, p in NARROW_BASE_CASES],
)
def test_conversions_from_narrow_bases_are_the_cpu_outputs(
    variant: str, log_n: int, q_primes: int, p_primes: int, tmp_path: Path
) -> None:
    # Circuits compute on slots: 65537 batches up to N = 2^15, 786433 beyond.
    t = test_e2e.T if log_n <= 15 else 786433
    params = rf.Params(poly_modulus_degree=1 << log_n, plaintext_modulus=t,
                       coeff_modulus_bits=[60] * q_primes,
                       special_modulus_bits=[60] * p_primes, allow_insecure=True)
    compare_cuda_with_cpu(test_e2e.product_chain(2, t), tmp_path, variant=variant,
                          params=params)


def compare_cuda_with_cpu(
    circuit: rf.Circuit,
    tmp_path: Path,
    runs: int = 3,
    cuda_transforms: tuple[str, ...] = ("ntt",),
    **compile_args: object,
) -> None:
    """The CUDA program's outputs (its transforms `cuda_transforms`) are the
    CPU NTT program's, word for word, eager, captured and replayed."""
    cpu = rf.compile(circuit, target="cpu", cache_dir=tmp_path, **compile_args)  # type: ignore[arg-type]
    gpu = rf.compile(circuit, target="cuda", cache_dir=tmp_path,  # type: ignore[arg-type]
                     transforms=cuda_transforms, **compile_args)
    assert gpu.device == "cuda" and cpu.params == gpu.params
    keys = cpu.keygen(seed=SEED)
    gpu.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    arguments = grouped_arguments(circuit, inputs_for(cpu, keys, seed=len(circuit.name)))

    def outputs(program: rf.Program) -> list[np.ndarray]:
        result = program(*arguments)
        results = result if isinstance(result, tuple) else (result,)
        return [ciphertext.residues() for ciphertext in results]

    expected = outputs(cpu)
    for run in range(runs):  # eager, captured, replayed
        for got, want in zip(outputs(gpu), expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"run {run}")


# The DGT in every transform of the CUDA program (dgt_forward / dgt_inverse
# compute the NTT's words): its outputs are the CPU NTT program's, at the
# default N and at N = 2^16.
DGT_CASES = [
    (test_e2e.quickstart, {}),
    (test_e2e.rotations, {}),
    (test_e2e.product_chain(2, 786433),
     {"params": rf.Params(poly_modulus_degree=1 << 16, plaintext_modulus=786433,
                          coeff_modulus_bits=[60] * 8, special_modulus_bits=[60] * 2)}),
]


@pytest.mark.parametrize("circuit, compile_args", DGT_CASES,
                         ids=[circuit.name for circuit, _ in DGT_CASES])
@pytest.mark.parametrize("variant", ["hps", "behz"])
def test_cuda_dgt_programs_give_the_cpu_ntt_program_s_outputs(
    circuit: rf.Circuit, compile_args: dict[str, object], variant: str, tmp_path: Path
) -> None:
    compare_cuda_with_cpu(circuit, tmp_path, variant=variant, cuda_transforms=("dgt",),
                          **compile_args)


# Q of four 60-bit primes and P of two: the digits are converted before key
# switching. A product, its relinearization and a slot sum's rotations run
# library kernels with generated sums between them; three outputs of the
# same inputs give a product beside generated kernels that read its inputs.
SCHEDULE_PARAMS = rf.Params(poly_modulus_degree=16384, plaintext_modulus=test_e2e.T,
                            coeff_modulus_bits=[60] * 4, special_modulus_bits=[60] * 2)


@pytest.mark.parametrize("circuit", [test_e2e.dot_product, test_e2e.three_outputs],
                         ids=lambda circuit: circuit.name)
def test_dataflow_schedule_keeps_every_dependency_over_many_replays(
    circuit: rf.Circuit, tmp_path: Path
) -> None:
    # The CUDA driver starts each library kernel once the earlier ones whose
    # words it shares are done, and lets the rest overlap it. A dependency it
    # missed would be a race that one run may not show: twenty replays of the
    # captured graph, at N = 2^14 where kernels are long enough to overlap,
    # each the CPU's words.
    compare_cuda_with_cpu(circuit, tmp_path, runs=20, params=SCHEDULE_PARAMS)


def product_on_both_drivers(tmp_path: Path) -> tuple[rf.Program, rf.Program, rf.KeySet]:
    """x * y compiled for the CPU and the GPU, and keys both switch with."""
    circuit = test_e2e.CHAINS[1]
    cpu = rf.compile(circuit, target="cpu", cache_dir=tmp_path)
    gpu = rf.compile(circuit, target="cuda", cache_dir=tmp_path)
    keys = cpu.keygen(seed=SEED)
    gpu.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    return cpu, gpu, keys


def test_outputs_kept_on_the_gpu_feed_the_next_run(tmp_path: Path) -> None:
    # (x * y) * y twice over, the product never leaving the GPU between runs.
    cpu, gpu, keys = product_on_both_drivers(tmp_path)
    x, y = (keys.encrypt(values) for values in inputs_for_values(cpu, 2))
    expected = cpu(cpu(x, y), y)
    on_gpu = gpu.run_on_gpu(gpu.run_on_gpu(x.to_gpu(), y.to_gpu()), y)
    assert isinstance(on_gpu, rf.GpuCiphertext)
    np.testing.assert_array_equal(on_gpu.to_host().residues(), expected.residues())


def test_calls_after_capture_take_each_call_s_inputs_and_outputs(tmp_path: Path) -> None:
    # A program replays its captured graph from the second call on, with each
    # call's inputs copied in (from the host or within the GPU) and its
    # outputs kept on the GPU or brought back: calls that mix the two kinds of
    # input and of output each give the CPU's words (none reads an earlier
    # call's inputs or leaves its outputs in an earlier call's memory).
    cpu, gpu, keys = product_on_both_drivers(tmp_path)
    pairs = [tuple(keys.encrypt(values) for values in inputs_for_values(cpu, 2 + seed)[:2])
             for seed in range(3)]
    for round_ in range(12):
        x, y = pairs[round_ % 3]
        expected = cpu(x, y).residues()
        arguments = [(x.to_gpu(), y.to_gpu()), (x, y.to_gpu()), (x.to_gpu(), y), (x, y)]
        kept = gpu.run_on_gpu(*arguments[round_ % 4])
        np.testing.assert_array_equal(kept.to_host().residues(), expected)
        np.testing.assert_array_equal(gpu(*arguments[(round_ + 1) % 4]).residues(), expected)
    batch = rf.CiphertextBatch.from_ciphertexts([x, x])
    with pytest.raises(TypeError, match="run_on_gpu runs one instance"):
        gpu.run_on_gpu(batch, y)


def inputs_for_values(program: rf.Program, count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(count)
    t, n = program.params.plaintext_modulus, program.params.poly_modulus_degree
    return [rng.integers(0, t, n) for _ in range(count)]


# The whole-circuit optimizations (on by default) and the same circuits
# without them: baby-step giant-step with plaintexts rotated at run time,
# lazy relinearization, products summed before their rounding, hoisted
# rotations, one division by P per sum. The CPU programs decrypt to numpy's
# answer (test/python/test_whole_circuit.py); the CUDA ones give their words.
WHOLE_CIRCUIT_CASES = [
    (circuit, variant, optimize)
    for circuit in (test_whole_circuit.sum_of_products, test_whole_circuit.rotation_sum,
                    test_whole_circuit.constant_matrix, test_whole_circuit.mixed,
                    test_whole_circuit.long_dot)
    for variant in ("hps", "lhps", "chps", "behz")
    for optimize in (True, False)
]


@pytest.mark.parametrize(
    "circuit, variant, optimize", WHOLE_CIRCUIT_CASES,
    ids=[f"whole-{circuit.name}-{variant}-opt{int(optimize)}"
         for circuit, variant, optimize in WHOLE_CIRCUIT_CASES],
)
def test_cuda_outputs_of_whole_circuits_are_the_cpu_outputs(
    circuit: rf.Circuit, variant: str, optimize: bool, tmp_path: Path
) -> None:
    compare_cuda_with_cpu(circuit, tmp_path, variant=variant, optimize=optimize)


@rf.circuit(plaintext_modulus=test_e2e.T)
def matrix_layer(w: rf.PlainMatrix[24, 40], x: rf.Encrypted):
    return w @ x


def test_cuda_plain_matrix_products_are_the_cpu_outputs(tmp_path: Path) -> None:
    cpu = rf.compile(matrix_layer, target="cpu", cache_dir=tmp_path)
    gpu = rf.compile(matrix_layer, target="cuda", cache_dir=tmp_path)
    keys = cpu.keygen(seed=SEED)
    gpu.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    rng = np.random.default_rng(24)
    w = rng.integers(0, test_e2e.T, (24, 40))
    x = keys.encrypt(rng.integers(0, test_e2e.T, cpu.params.slot_count))
    expected = cpu(w=w, x=x).residues()
    for run in range(3):  # eager, captured, replayed
        np.testing.assert_array_equal(gpu(w=w, x=x).residues(), expected, err_msg=f"run {run}")
