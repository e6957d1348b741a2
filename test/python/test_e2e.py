"""End to end: Python circuits compiled by the real compiler, run encrypted,
decrypted, and compared with the same computation in numpy mod t.

Every test here needs the compiler binaries (`ringfuse-opt --ringfuse-pipeline`,
`ringfuse-translate --emit-cpp`). Compiled programs and their keys are made
once per module (`compiled`), so that the suite stays within a few minutes on
two cores; set $RINGFUSE_CACHE_DIR to reuse compiled programs across runs.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import bfv_oracle as oracle
import ringfuse as rf
from ringfuse import _runtime, driver
from runtime_support import SEED, padded, python_environment, rotate_rows, toy_params

pytestmark = pytest.mark.needs_compiler

T = 65537
REPO_ROOT = Path(__file__).resolve().parents[2]
Vector = npt.NDArray[np.int64]


# --------------------------------------------------------------------------
# Compiled programs and keys, shared by the module
# --------------------------------------------------------------------------


Compiled = Callable[..., tuple[rf.Program, rf.KeySet]]


# The suite runs on the CPU driver; on a GPU machine, RINGFUSE_TEST_TARGET=cuda
# runs it on the CUDA driver (test/gpu/run.sh does).
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")


@pytest.fixture(scope="module")
def compiled(cache_dir: Path) -> Iterator[Compiled]:
    """`compiled(circuit, **compile_args)`: the program and its keys, made once."""
    made: dict[tuple[int, tuple[tuple[str, object], ...]], tuple[rf.Program, rf.KeySet]] = {}

    def get(circuit: rf.Circuit, **compile_args: object) -> tuple[rf.Program, rf.KeySet]:
        compile_args.setdefault("target", TARGET)
        key = (id(circuit), tuple(sorted(compile_args.items(), key=lambda item: item[0])))
        if key not in made:
            program = rf.compile(circuit, cache_dir=cache_dir, **compile_args)  # type: ignore[arg-type]
            made[key] = (program, program.keygen(seed=SEED))
        return made[key]

    yield get


def slots(program: rf.Program, seed: int) -> Vector:
    """Random values for every slot of the program's parameters."""
    return np.random.default_rng(seed).integers(0, T, program.params.slot_count)


def swap_rows(values: Vector) -> Vector:
    return values.reshape(2, -1)[::-1].ravel()


def scale_round_plans(source: str) -> list[list[str]]:
    """The fields of an emitted program's RfScaleRound entries."""
    plans = re.search(r"const RfScaleRound scale_rounds\[\] = \{(.*)\};", source)
    entries = re.findall(r"\{([^{}]*)\}", plans.group(1)) if plans else []
    return [entry.split(", ") for entry in entries]


def converts_result(fields: list[str]) -> bool:
    """Whether a scale_round plan converts its result (rns-fuse's via)."""
    return fields[6] == "1"


def fused_plans(source: str) -> list[list[str]]:
    """The scale_round plans that convert their result."""
    return [fields for fields in scale_round_plans(source) if converts_result(fields)]


def conversions(source: str) -> int:
    """Base conversions an emitted program runs: convert calls, and the
    scale_round calls whose plan converts its result."""
    fused = {k for k, fields in enumerate(scale_round_plans(source)) if converts_result(fields)}
    calls = re.findall(r"k->scale_round\(rt, (\d+),", source)
    return source.count("k->convert(") + sum(int(plan) in fused for plan in calls)


def generated_kernel_outputs(source: str) -> list[int]:
    """The number of outputs of each generated (elementwise) kernel, in order."""
    signatures = re.findall(r"inline void elementwise_\d+\((.*)\)", source)
    return [parameters.count("uint64_t *out") for parameters in signatures]


def check(keys: rf.KeySet, ciphertext: rf.Ciphertext, expected: Vector) -> None:
    np.testing.assert_array_equal(keys.decrypt(ciphertext), np.mod(expected, T))


# --------------------------------------------------------------------------
# Circuits
# --------------------------------------------------------------------------


@rf.circuit(plaintext_modulus=T)
def add_sub_neg(x: rf.Encrypted, y: rf.Encrypted, z: rf.Encrypted):
    return -(x + y) + z - x - (-y)


def product_chain(depth: int, t: int = T) -> rf.Circuit:
    """x * y * x * y ... with `depth` multiplications in a row, mod t."""

    def chain(x: rf.Encrypted, y: rf.Encrypted):
        result = x
        for i in range(depth):
            result = result * (y if i % 2 == 0 else x)
        return result

    chain.__name__ = f"chain{depth}"
    return rf.circuit(plaintext_modulus=t)(chain)


CHAINS = {depth: product_chain(depth) for depth in range(1, 7)}

SCALES = np.arange(1, 101, dtype=np.int64)
OFFSETS = np.arange(500, 600, dtype=np.int64)


@rf.circuit(plaintext_modulus=T)
def plain_ops(x: rf.Encrypted, w: rf.Plain, v: rf.Plain):
    return x * w + v - x * SCALES + OFFSETS


@rf.circuit(plaintext_modulus=T)
def int_constants(x: rf.Encrypted, y: rf.Encrypted):
    return 3 * x - 7 + x * 65536 + (5 - y) + x * -2


@rf.circuit(plaintext_modulus=T)
def rotations(x: rf.Encrypted):
    return x.rotate(3), x.rotate(-5), x.swap_rows()


@rf.circuit(plaintext_modulus=T)
def slot_sum(x: rf.Encrypted):
    return x.sum()


@rf.circuit(plaintext_modulus=T)
def dot_product(x: rf.Encrypted, y: rf.Encrypted):
    return (x * y).sum()


@rf.circuit(plaintext_modulus=T)
def cubic(x: rf.Encrypted):
    return x**3 + 3 * x**2 - x + 7


@rf.circuit(plaintext_modulus=T)
def three_outputs(x: rf.Encrypted, y: rf.Encrypted):
    return x + y, x * y, x - y


ROWS = 8
# Slot 8i of a row-major 8x8 matrix starts row i.
ROW_STARTS = np.array([1 if j % ROWS == 0 else 0 for j in range(ROWS * ROWS)], dtype=np.int64)


@rf.circuit(plaintext_modulus=T)
def matrix_vector(a: rf.Encrypted, v: rf.Plain):
    """A (8x8, row-major in slots 0..63) times v (tiled 8 times): each row's
    products summed by rotate-and-add into its first slot, the rest masked off."""
    products = a * v
    for step in (4, 2, 1):
        products = products + products.rotate(step)
    return products * ROW_STARTS


@rf.circuit(plaintext_modulus=T)
def input_reused(x: rf.Encrypted):
    # x is transformed for the plaintext product and also needed untransformed
    # by the additions around it.
    return (x + 5) - x * 3


@rf.circuit(plaintext_modulus=T)
def quickstart(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + w * x


@rf.circuit(plaintext_modulus=T)
def plain_only(x: rf.Encrypted, w: rf.Plain):
    return x * w + x + 5


# --------------------------------------------------------------------------
# Circuits against numpy
# --------------------------------------------------------------------------


def test_additions_subtractions_and_negations(compiled: Compiled) -> None:
    program, keys = compiled(add_sub_neg)
    x, y, z = slots(program, 1), slots(program, 2), slots(program, 3)
    out = program(keys.encrypt(x), keys.encrypt(y), keys.encrypt(z))
    check(keys, out, -(x + y) + z - x + y)


@rf.circuit(plaintext_modulus=T)
def doublings(x: rf.Encrypted):
    for _ in range(48):
        x = x + x
    return x * x


def test_a_chain_of_doublings_compiles_and_computes(compiled: Compiled) -> None:
    # Each x + x reads its operand twice, so the doublings form one elementwise
    # group whose sum, written out, has 2^48 terms: rns-to-kernel once expanded
    # it as a sum of products and never finished. The pipeline alone first,
    # bounded, so that a regression fails rather than hangs.
    subprocess.run(
        [str(driver.find_tool("ringfuse-opt")), "--ringfuse-pipeline"],
        input=rf.trace(doublings).mlir, capture_output=True, text=True, check=True, timeout=120,
    )
    program, keys = compiled(doublings)
    x = slots(program, 7)
    doubled = x * pow(2, 48, T) % T
    check(keys, program(keys.encrypt(x)), doubled * doubled)


@pytest.mark.parametrize("depth", sorted(CHAINS))
def test_product_chains_decrypt_correctly_at_every_depth(compiled: Compiled, depth: int) -> None:
    program, keys = compiled(CHAINS[depth])
    x, y = slots(program, 10 + depth), slots(program, 20 + depth)
    expected = x.copy()
    for i in range(depth):
        expected = expected * (y if i % 2 == 0 else x) % T
    check(keys, program(keys.encrypt(x), keys.encrypt(y)), expected)
    assert not program.params.insecure


@pytest.mark.parametrize("variant", ["lhps", "chps", "behz", "auto"])
@pytest.mark.parametrize("depth", [4, 6])
def test_product_chains_of_every_variant_decrypt_correctly(
    compiled: Compiled, variant: str, depth: int
) -> None:
    program, keys = compiled(CHAINS[depth], variant=variant)
    x, y = slots(program, 30 + depth), slots(program, 40 + depth)
    expected = x.copy()
    for i in range(depth):
        expected = expected * (y if i % 2 == 0 else x) % T
    check(keys, program(keys.encrypt(x), keys.encrypt(y)), expected)
    # The program says which variant it runs; auto's is the cost model's.
    if variant == "auto":
        assert program.variant in ("hps", "lhps", "chps", "behz")
    else:
        assert program.variant == variant
    source = program.source_path.read_text()
    if variant == "lhps":  # some product ran, and was relinearized, below the full Q
        assert re.search(r"// Q[0-9]+P\b", source)
    elif variant == "chps":  # the products were divided by R (no conversion back follows)
        hps, _ = compiled(CHAINS[depth])
        hps_source = hps.source_path.read_text()
        assert conversions(source) < conversions(hps_source)
        # HPS's tensor terms round and convert back in one launch (rns-fuse).
        assert conversions(hps_source) > hps_source.count("k->convert(")
        # So do compact HPS's switches into B and extensions to Q u B: a
        # fused plan whose input is its divisor.
        assert any(fields[0] == fields[1] for fields in fused_plans(source))
    elif variant == "behz":  # SmMRq lifts and Shenoy-Kumaresan conversions, fast floors
        assert re.search(r"\{\d+, \d+, 2\}", source) and re.search(r"\{\d+, \d+, 3\}", source)
        assert re.search(r"numerator\d+, \d+, 1, 0, 0\}", source)


def run_against_the_runtime_s_product(
    program: rf.Program, keys: rf.KeySet, variant: str, x_seed: int, y_seed: int
) -> rf.Ciphertext:
    """The compiled product of two encryptions, checked word for word against
    the runtime's own reference multiplication (HPS's or BEHZ's) and
    relinearization."""
    x, y = keys.encrypt(slots(program, x_seed)), keys.encrypt(slots(program, y_seed))
    out = program(x, y)
    multiply = _runtime.multiply_behz if variant == "behz" else _runtime.multiply_hps
    assert keys.relin_key is not None
    reference = _runtime.relinearize(multiply(x._native, y._native), keys.relin_key._native)
    np.testing.assert_array_equal(out.residues(), rf.Ciphertext(program.params, reference).residues())
    return out


@pytest.mark.parametrize("variant", ["hps", "behz"])
def test_a_compiled_product_is_the_runtime_s_product_word_for_word(
    compiled: Compiled, variant: str
) -> None:
    # The compiled lift, tensor, scaling (HPS's or BEHZ's kernels) and
    # relinearization against the runtime's own reference multiplication.
    program, keys = compiled(CHAINS[1], variant=variant)
    out = run_against_the_runtime_s_product(program, keys, variant, 60, 61)
    # kernel-fuse-elementwise: the tensor's three terms are one generated
    # kernel; rns-fuse: the two sums that end the relinearization join its
    # divisions by P.
    source = program.source_path.read_text()
    assert generated_kernel_outputs(source) == [3]
    assert source.count("k->scale_round_add(") == 2
    expected = slots(program, 60) * slots(program, 61) % T
    np.testing.assert_array_equal(keys.decrypt(out, scaling="behz"), expected)
    np.testing.assert_array_equal(keys.decrypt(out), expected)


# From N = 2^15 the tensor terms' forward NTTs and products are one
# ntt_products launch (rns-to-kernel's products-from-log-n).
LARGE_PARAMS = rf.Params(poly_modulus_degree=1 << 15, plaintext_modulus=T,
                         coeff_modulus_bits=[60] * 6, special_modulus_bits=[60])


@pytest.mark.parametrize("variant", ["hps", "behz"])
def test_a_product_with_fused_transforms_is_the_runtime_s_product(
    compiled: Compiled, variant: str
) -> None:
    program, keys = compiled(CHAINS[1], variant=variant, params=LARGE_PARAMS)
    source = program.source_path.read_text()
    assert source.count("k->ntt_products(") == 1
    assert 3 not in generated_kernel_outputs(source)
    out = run_against_the_runtime_s_product(program, keys, variant, 63, 64)
    np.testing.assert_array_equal(keys.decrypt(out), slots(program, 63) * slots(program, 64) % T)


# The DGT as programs run it (dgt_forward / dgt_inverse: the NTT's words) in
# every transform of a circuit: its ciphertexts are its NTT program's, word
# for word, on the same keys and inputs.
@pytest.mark.parametrize(
    "name, variant", [("quickstart", "hps"), ("quickstart", "behz"), ("rotations", "hps")]
)
def test_a_dgt_program_computes_its_ntt_program_s_words(
    compiled: Compiled, name: str, variant: str
) -> None:
    circuit = {"quickstart": quickstart, "rotations": rotations}[name]
    ntt_program, keys = compiled(circuit, variant=variant)
    dgt_program, _ = compiled(circuit, variant=variant, transforms=("dgt",))
    source = dgt_program.source_path.read_text()
    assert "k->dgt_forward(" in source and "k->dgt_inverse(" in source
    assert "k->ntt_" not in source
    x, y, w = slots(ntt_program, 70), slots(ntt_program, 71), slots(ntt_program, 72)
    arguments = (keys.encrypt(x), keys.encrypt(y), w) if name == "quickstart" else (keys.encrypt(x),)

    def outputs(program: rf.Program) -> tuple[rf.Ciphertext, ...]:
        result = program(*arguments)
        return result if isinstance(result, tuple) else (result,)

    by_ntt = outputs(ntt_program)
    expected = (
        [x * y + w * x] if name == "quickstart"
        else [rotate_rows(x, 3), rotate_rows(x, -5), swap_rows(x)]
    )
    for ntt_out, dgt_out, values in zip(by_ntt, outputs(dgt_program), expected, strict=True):
        np.testing.assert_array_equal(dgt_out.residues(), ntt_out.residues())
        check(keys, dgt_out, values)
    # Both kinds allowed: each transform gets the cheaper by the built-in
    # table, and the words are the same again.
    either, _ = compiled(circuit, variant=variant, transforms=("ntt", "dgt"))
    for ntt_out, either_out in zip(by_ntt, outputs(either), strict=True):
        np.testing.assert_array_equal(either_out.residues(), ntt_out.residues())


def test_decryption_refuses_an_unknown_scaling(compiled: Compiled) -> None:
    program, keys = compiled(CHAINS[1])
    with pytest.raises(ValueError, match=r"unknown decryption scaling 'fast'; supported: 'hps', 'behz'"):
        keys.decrypt(keys.encrypt(slots(program, 62)), scaling="fast")


# Q of six 60-bit primes at N = 2^14 (128-bit secure): about ten products.
DEEP_PARAMS = {
    "poly_modulus_degree": 16384,
    "plaintext_modulus": T,
    "coeff_modulus_bits": [60] * 6,
    "special_modulus_bits": [60],
}
TRIED_DEPTH = 13


@rf.circuit(plaintext_modulus=T)
def every_depth(x: rf.Encrypted, y: rf.Encrypted):
    """x * y * x * y ..., each of the 13 products returned."""
    results = []
    product = x
    for i in range(TRIED_DEPTH):
        product = product * (y if i % 2 == 0 else x)
        results.append(product)
    return tuple(results)


def test_variants_reach_the_same_depth_and_report_their_noise_budgets(
    compiled: Compiled, capsys: pytest.CaptureFixture[str]
) -> None:
    budgets: dict[str, list[int]] = {}
    for variant in ("hps", "lhps", "chps", "behz"):
        program, keys = compiled(every_depth, variant=variant, params=rf.Params(**DEEP_PARAMS))
        x, y = slots(program, 50), slots(program, 51)
        outputs = program(keys.encrypt(x), keys.encrypt(y))
        budgets[variant] = [keys.noise_budget(output) for output in outputs]
        expected = x.copy()
        for i, (output, budget) in enumerate(zip(outputs, budgets[variant], strict=True)):
            expected = expected * (y if i % 2 == 0 else x) % T
            if budget > 0:
                check(keys, output, expected)
        with capsys.disabled():  # the report, also under pytest -q
            print(f"\nnoise budget left per depth ({variant}): {budgets[variant]}")
    deepest = {
        variant: max(depth for depth, budget in enumerate(left, 1) if budget > 0)
        for variant, left in budgets.items()
    }
    assert deepest["lhps"] == deepest["chps"] == deepest["behz"] == deepest["hps"] >= 9, budgets
    # Leveled products, the compact switch to R and BEHZ's approximate lift
    # and floor cost a few bits of rounding noise, no more.
    for variant in ("lhps", "chps", "behz"):
        for hps, other in zip(budgets["hps"], budgets[variant], strict=True):
            if hps > 0:
                assert other >= hps - 6, budgets


@rf.circuit(plaintext_modulus=T)
def two_more_products(z: rf.Encrypted, y: rf.Encrypted):
    return z * y * y


def test_leveled_hps_spends_spare_budget_unless_the_caller_reserves_it(cache_dir: Path) -> None:
    """Five products where Q holds about ten: leveled HPS runs them on fewer
    primes and leaves the output a small budget; reserve_depth=2 keeps room
    for two more products, which the caller then takes."""
    params = rf.Params(**DEEP_PARAMS)
    keys = params.keygen(seed=SEED)
    x, y = (np.random.default_rng(seed).integers(0, T, params.slot_count) for seed in (52, 53))
    expected = x.copy()
    for i in range(5):
        expected = expected * (y if i % 2 == 0 else x) % T
    outputs, budgets = {}, {}
    for variant, reserve in (("hps", 0), ("lhps", 0), ("lhps", 2)):
        program = rf.compile(CHAINS[5], target=TARGET, params=params, variant=variant,
                             reserve_depth=reserve, cache_dir=cache_dir)
        program.set_evaluation_keys(keys.relin_key)
        out = program(keys.encrypt(x), keys.encrypt(y))
        check(keys, out, expected)
        outputs[variant, reserve], budgets[variant, reserve] = out, keys.noise_budget(out)
    # The spare budget (more than a prime of it) went into fewer primes.
    assert 10 <= budgets["lhps", 0] < budgets["hps", 0] - 60, budgets
    # Two products cost about 60 bits: reserved, most of that is kept.
    assert budgets["lhps", 2] >= budgets["lhps", 0] + 50, budgets
    follow = rf.compile(two_more_products, target=TARGET, params=params, cache_dir=cache_dir)
    follow.set_evaluation_keys(keys.relin_key)
    out = follow(outputs["lhps", 2], keys.encrypt(y))
    check(keys, out, expected * y % T * y % T)
    assert keys.noise_budget(out) > 0


@pytest.mark.parametrize("circuit", [dot_product, cubic], ids=["dot_product", "cubic"])
def test_leveled_hps_spends_spare_budget_through_sums_and_rotations(
    compiled: Compiled, circuit: rf.Circuit
) -> None:
    """The allowances run back through slot sums (rotations and additions),
    plaintext terms and relinearizations: with Q's spare budget the products
    run on two primes, and the outputs still decrypt with the margin left."""
    program, keys = compiled(circuit, variant="lhps", params=rf.Params(**DEEP_PARAMS))
    x, y = slots(program, 54), slots(program, 55)
    if circuit is dot_product:
        out, expected = program(keys.encrypt(x), keys.encrypt(y)), np.full(x.size, (x * y % T).sum())
    else:
        square = x * x % T
        out, expected = program(keys.encrypt(x)), square * x % T + 3 * square - x + 7
    check(keys, out, expected)
    assert keys.noise_budget(out) >= 10
    assert re.search(r"// Q2P\b", program.source_path.read_text())


def test_plaintext_inputs_and_numpy_constants(compiled: Compiled) -> None:
    program, keys = compiled(plain_ops)
    n = program.params.slot_count
    x, w, v = slots(program, 4), slots(program, 5), slots(program, 6)
    out = program(keys.encrypt(x), w, v=keys.encode(v))
    check(keys, out, x * w + v - x * padded(SCALES, n) + padded(OFFSETS, n))


def test_integer_constants_reduce_mod_t(compiled: Compiled) -> None:
    program, keys = compiled(int_constants)
    x, y = slots(program, 7), slots(program, 8)
    out = program(keys.encrypt(x), keys.encrypt(y))
    check(keys, out, 3 * x - 7 + x * 65536 + (5 - y) - 2 * x)


def test_an_input_still_used_after_a_plaintext_product(compiled: Compiled) -> None:
    program, keys = compiled(input_reused)
    x = slots(program, 18)
    check(keys, program(keys.encrypt(x)), x + 5 - 3 * x)


def product(x: rf.Encrypted, y: rf.Encrypted) -> rf.Encrypted:
    return x * y


@pytest.mark.parametrize(
    "declared, message",
    [
        (dict(plaintext_modulus=65536), "t = 65536 allows no batching at any N from 1024 to 131072"),
        (dict(plaintext_modulus=17, poly_modulus_degree=4096), "t = 17 allows no batching at N = 4096"),
    ],
)
def test_a_plaintext_modulus_without_batching_is_refused(
    declared: dict[str, int], message: str, cache_dir: Path
) -> None:
    # Such a t once compiled, and [1, 2] * [3, 4] decrypted to the polynomial
    # product [3, 10, 8, 0] instead of the slot-wise [3, 8, 0, 0].
    with pytest.raises(rf.CompilerError, match=message):
        rf.compile(rf.circuit(**declared)(product), cache_dir=cache_dir)
    with pytest.raises(rf.CompilerError, match="t = 256 allows no batching at N = 64"):
        rf.compile(rf.circuit(plaintext_modulus=256)(product), params=toy_params(t=256),
                   cache_dir=cache_dir)


def test_rotations_left_right_and_row_swap(compiled: Compiled) -> None:
    program, keys = compiled(rotations)
    x = slots(program, 9)
    left, right, swapped = program(keys.encrypt(x))
    check(keys, left, rotate_rows(x, 3))
    check(keys, right, rotate_rows(x, -5))
    check(keys, swapped, swap_rows(x))


def test_slot_sum_fills_every_slot(compiled: Compiled) -> None:
    program, keys = compiled(slot_sum)
    x = slots(program, 11)
    check(keys, program(keys.encrypt(x)), np.full(x.size, x.sum()))


def test_dot_product_of_two_encrypted_vectors(compiled: Compiled) -> None:
    program, keys = compiled(dot_product)
    x, y = slots(program, 12), slots(program, 13)
    check(keys, program(keys.encrypt(x), keys.encrypt(y)), np.full(x.size, (x * y % T).sum()))


def test_cubic_polynomial(compiled: Compiled) -> None:
    program, keys = compiled(cubic)
    x = slots(program, 14)
    square = x * x % T
    check(keys, program(keys.encrypt(x)), square * x % T + 3 * square - x + 7)


def test_several_outputs_come_back_as_a_tuple(compiled: Compiled) -> None:
    program, keys = compiled(three_outputs)
    x, y = slots(program, 15), slots(program, 16)
    outputs = program(keys.encrypt(x), keys.encrypt(y))
    assert isinstance(outputs, tuple) and len(outputs) == 3
    for out, expected in zip(outputs, (x + y, x * y % T, x - y)):
        check(keys, out, expected)


def test_encrypted_matrix_times_plaintext_vector(compiled: Compiled) -> None:
    program, keys = compiled(matrix_vector)
    rng = np.random.default_rng(17)
    a = rng.integers(0, T, (ROWS, ROWS))
    v = rng.integers(0, T, ROWS)
    out = program(keys.encrypt(a.ravel()), np.tile(v, ROWS))
    expected = np.zeros(program.params.slot_count, dtype=np.int64)
    expected[0 : ROWS * ROWS : ROWS] = (a @ v) % T
    check(keys, out, expected)


# --------------------------------------------------------------------------
# The runtime's output against the independent big-integer oracle
# --------------------------------------------------------------------------


def oracle_decrypt(keys: rf.KeySet, ciphertext: rf.Ciphertext) -> tuple[list[int], int]:
    """The slots and the noise budget of a ciphertext, by textbook BFV over Z_Q."""
    params = keys.params
    primes = list(params.coeff_modulus)
    q = 1
    for prime in primes:
        q *= prime
    big = [oracle.from_rns([list(map(int, limb)) for limb in c], primes) for c in ciphertext.residues()]
    textbook = oracle.Params(params.poly_modulus_degree, q, params.plaintext_modulus)
    secret = keys.secret_key.coefficients()
    message = oracle.decrypt(textbook, secret, big)
    budget = oracle.noise_budget(textbook, secret, big)
    return oracle.decode_slots(message, params.poly_modulus_degree, params.plaintext_modulus), budget


@pytest.mark.parametrize(
    "circuit, params",
    [
        (plain_only, lambda: toy_params(n=64)),
        (
            quickstart,
            lambda: rf.Params(
                poly_modulus_degree=256, plaintext_modulus=T, coeff_modulus_bits=[40, 40, 40],
                special_modulus_bits=[40], allow_insecure=True,
            ),
        ),
    ],
    ids=["add-mul-plain-N64", "multiply-N256"],
)
def test_the_oracle_decrypts_what_the_compiled_program_computes(
    compiled: Compiled, circuit: rf.Circuit, params: Callable[[], rf.Params]
) -> None:
    chosen = params()
    program, keys = compiled(circuit, params=chosen)
    assert program.params == chosen
    n = chosen.poly_modulus_degree
    rng = np.random.default_rng(n)
    x, y, w = (rng.integers(0, T, n) for _ in range(3))
    if circuit is quickstart:
        out = program(keys.encrypt(x), keys.encrypt(y), w)
        expected = (x * y + w * x) % T
    else:
        out = program(keys.encrypt(x), w)
        expected = (x * w + x + 5) % T
    decoded, budget = oracle_decrypt(keys, out)
    assert decoded == expected.tolist()
    assert budget > 0
    assert budget == keys.noise_budget(out)


# --------------------------------------------------------------------------
# Compiling: cache and IR dumps with the real compiler
# --------------------------------------------------------------------------


def test_a_second_compile_is_instant(compiled: Compiled, cache_dir: Path) -> None:
    first, _ = compiled(quickstart)
    start = time.perf_counter()
    again = rf.compile(quickstart, target=TARGET, cache_dir=cache_dir)
    assert time.perf_counter() - start < 1.0
    assert again.library_path == first.library_path


PIPELINE = [
    "bfv-select-parameters",
    "bfv-expand-slot-sums",
    "bfv-to-poly",
    "poly-to-rns",
    "cse",
    "rns-to-kernel",
]


def test_dump_ir_writes_a_file_per_pass_in_pipeline_order(cache_dir: Path, tmp_path: Path) -> None:
    rf.compile(dot_product, cache_dir=cache_dir, dump_ir=tmp_path)
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names[0] == "00-traced.mlir" and names[-1].endswith("-emit-cpp.cpp")
    passes = [name[3:].removesuffix(".mlir") for name in names[1:-1]]
    remaining = iter(passes)
    assert all(expected in remaining for expected in PIPELINE), passes  # in this order
    assert "#bfv.params<t = 65537, N = " in (tmp_path / "01-bfv-select-parameters.mlir").read_text()


def test_quickstart_example_compiles_runs_and_checks(cache_dir: Path) -> None:
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "quickstart.py")],
        capture_output=True, text=True, check=False,
        env=python_environment(RINGFUSE_CACHE_DIR=str(cache_dir)),
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    # `make demo` runs this: on the GPU wherever one is usable.
    where = "GPU" if _runtime.cuda_available() else "CPU"
    assert f"compiled f for the {where} in" in completed.stdout
    assert "x*y + w*x on " in completed.stdout and " encrypted slots: correct (N=" in completed.stdout


# --------------------------------------------------------------------------
# The standalone executable
# --------------------------------------------------------------------------

CIRCUIT_FILE = """\
import ringfuse as rf


@rf.circuit(plaintext_modulus=65537)
def served(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return (x * y + w * x).rotate(1), x - y
"""


@pytest.fixture(scope="module")
def executable(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    directory = tmp_path_factory.mktemp("served")
    (directory / "circuit.py").write_text(CIRCUIT_FILE)
    completed = subprocess.run(
        [sys.executable, "-m", "ringfuse.ringfusec", "circuit.py", "-o", "circuit",
         "--target", TARGET],
        cwd=directory, capture_output=True, text=True, check=False,
        env=python_environment(RINGFUSE_CACHE_DIR=str(cache_dir)),
    )
    assert completed.returncode == 0, completed.stderr
    return directory / "circuit"


def test_ringfusec_executable_runs_the_circuit_on_files(executable: Path, tmp_path: Path) -> None:
    params = rf.Params.load(executable.with_name("circuit.params"))
    needs = json.loads(executable.with_name("circuit.json").read_text())
    assert [item["name"] for item in needs["inputs"]] == ["x", "y", "w"]
    keys = params.keygen(galois_elements=needs["galois_elements"], seed=SEED)
    keys.save_evaluation_keys(tmp_path / "eval.rfkeys")
    rng = np.random.default_rng(30)
    x, y, w = (rng.integers(0, T, params.slot_count) for _ in range(3))
    keys.encrypt(x).save(tmp_path / "x.rfct")
    keys.encrypt(y).save(tmp_path / "y.rfct")
    keys.encode(w).save(tmp_path / "w.rfpt")
    completed = subprocess.run(
        [str(executable), "--keys", str(tmp_path / "eval.rfkeys"),
         "--in", str(tmp_path / "x.rfct"), str(tmp_path / "y.rfct"), str(tmp_path / "w.rfpt"),
         "--out", str(tmp_path / "first.rfct"), str(tmp_path / "second.rfct")],
        capture_output=True, text=True, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    first = rf.Ciphertext.load(tmp_path / "first.rfct", params)
    second = rf.Ciphertext.load(tmp_path / "second.rfct", params)
    check(keys, first, rotate_rows((x * y + w * x) % T, 1))
    check(keys, second, x - y)


def test_ringfusec_executable_refuses_a_key_file_of_other_parameters(
    executable: Path, tmp_path: Path
) -> None:
    params = rf.Params.load(executable.with_name("circuit.params"))
    keys = params.keygen(seed=SEED)
    keys.encrypt(1).save(tmp_path / "x.rfct")
    keys.encode(2).save(tmp_path / "w.rfpt")
    wrong = toy_params(n=1024).keygen(rotations=[1], seed=SEED)
    wrong.save_evaluation_keys(tmp_path / "wrong.rfkeys")
    completed = subprocess.run(
        [str(executable), "--keys", str(tmp_path / "wrong.rfkeys"),
         "--in", str(tmp_path / "x.rfct"), str(tmp_path / "x.rfct"), str(tmp_path / "w.rfpt"),
         "--out", str(tmp_path / "a.rfct"), str(tmp_path / "b.rfct")],
        capture_output=True, text=True, check=False,
    )
    assert completed.returncode != 0
    assert "wrong.rfkeys: the evaluation keys were made for other parameters" in completed.stderr
    assert not (tmp_path / "a.rfct").exists()


# --------------------------------------------------------------------------
# The CUDA target builds everywhere nvcc is (CI has no GPU)
# --------------------------------------------------------------------------

ALL_CIRCUITS = [
    add_sub_neg, *CHAINS.values(), plain_ops, int_constants, rotations, slot_sum,
    dot_product, cubic, three_outputs, matrix_vector, input_reused, quickstart, plain_only,
]


@pytest.mark.parametrize(
    "circuit, variant",
    [(circuit, "hps") for circuit in ALL_CIRCUITS]
    + [(CHAINS[6], "lhps"), (CHAINS[6], "chps"), (CHAINS[6], "behz")],
    ids=lambda value: value.name if isinstance(value, rf.Circuit) else value,
)
def test_the_emitted_cuda_of_every_circuit_builds_with_nvcc(
    circuit: rf.Circuit, variant: str, cache_dir: Path
) -> None:
    compiler = importlib.import_module("ringfuse.compile")
    cache = compiler.Cache.at(cache_dir)
    source = compiler.emit_source(
        rf.trace(circuit), cache, target="cuda", options=compiler.PipelineOptions(variant))
    # (A circuit of rotations alone has no generated kernel: each rotation's
    # sum joins its key switch's division by P.)
    assert source.suffix == ".cu" and "#include <cuda_runtime.h>" in source.read_text()
    library = compiler.build_library(source, cache, target="cuda")
    assert library.stat().st_size > 0
