"""Whole-circuit optimizations end to end: every variant's optimized and
unoptimized programs (`rf.compile(optimize=...)`) decrypt to numpy's answer,
the optimized one with fewer key switches and about the same noise budget;
Galois-key budgets (`max_galois_keys`, `max_galois_key_bytes`).

On a GPU machine, RINGFUSE_TEST_TARGET=cuda runs it on the CUDA driver
(test/gpu/run.sh does).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import ringfuse as rf
from runtime_support import SEED, grouped_arguments, padded, python_environment, rotate_rows

pytestmark = pytest.mark.needs_compiler

T = 65537
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
VARIANTS = ("hps", "lhps", "chps", "behz")
Vector = npt.NDArray[np.int64]

# A 32-term diagonal matrix-vector product's constant diagonals.
DIAGONALS = np.random.default_rng(7).integers(0, T, (32, 64))


@rf.circuit(plaintext_modulus=T)
def sum_of_products(a: rf.Encrypted, b: rf.Encrypted, c: rf.Encrypted, d: rf.Encrypted):
    return a * b + c * d + a * c - b * d


@rf.circuit(plaintext_modulus=T)
def rotation_sum(x: rf.Encrypted):
    total = x
    for steps in range(1, 13):
        total = total + x.rotate(steps)
    return total


@rf.circuit(plaintext_modulus=T)
def constant_matrix(x: rf.Encrypted):
    total = x * DIAGONALS[0]
    for steps in range(1, 32):
        total = total + x.rotate(steps) * DIAGONALS[steps]
    return total


@rf.circuit(plaintext_modulus=T)
def long_dot(xs: rf.Encrypted[20], ys: rf.Encrypted[20], ws: rf.Plain[20]):
    """Sums of 20 products and more: the tensors' sums (summed before their
    rounding) and a sum of plaintext products are sum_of_products launches."""
    products = xs[0] * ys[0]
    weighted = xs[0] * ws[0]
    for i in range(1, 20):
        products = products + xs[i] * ys[i]
        weighted = weighted + xs[i] * ws[i]
    return products, weighted


@rf.circuit(plaintext_modulus=T)
def mixed(x: rf.Encrypted, y: rf.Encrypted, w0: rf.Plain, w1: rf.Plain, w2: rf.Plain,
          w3: rf.Plain, w4: rf.Plain, w5: rf.Plain, w6: rf.Plain, w7: rf.Plain):
    """Plaintext inputs rotated at run time (baby-step giant-step over 8
    terms), a polynomial's sum of products relinearized once before its
    rotation, and a product used twice."""
    weights = (w0, w1, w2, w3, w4, w5, w6, w7)
    linear = x * w0
    for steps in range(1, 8):
        linear = linear + x.rotate(-steps) * weights[steps]
    square = x * x
    cubic = square * x + 3 * square + x * y - y
    return linear + cubic.rotate(5), square + square


def expected_outputs(circuit: rf.Circuit, values: list[Vector]) -> list[Vector]:
    if circuit is sum_of_products:
        a, b, c, d = values
        return [a * b + c * d + a * c - b * d]
    if circuit is rotation_sum:
        (x,) = values
        return [sum(rotate_rows(x, steps) for steps in range(13))]
    if circuit is constant_matrix:
        (x,) = values
        return [sum(rotate_rows(x, steps) * padded(DIAGONALS[steps], x.size)
                    for steps in range(32))]
    if circuit is long_dot:
        xs, ys, ws = values[:20], values[20:40], values[40:]
        return [sum(x * y for x, y in zip(xs, ys)), sum(x * w for x, w in zip(xs, ws))]
    x, y, *weights = values
    linear = sum(rotate_rows(x, -steps) * weights[steps] for steps in range(8))
    square = x * x
    cubic = square * x + 3 * square + x * y - y
    return [linear + rotate_rows(cubic, 5), 2 * square]


def run(circuit: rf.Circuit, cache_dir: Path, **compile_args: object
        ) -> tuple[rf.Program, list[Vector], list[int]]:
    """Compiles and runs the circuit on random inputs; returns the program,
    the decrypted outputs minus numpy's (mod t: all zero when right) and the
    outputs' noise budgets."""
    program = rf.compile(circuit, target=TARGET, cache_dir=cache_dir, **compile_args)  # type: ignore[arg-type]
    keys = program.keygen(seed=SEED)
    rng = np.random.default_rng(len(circuit.name))
    values = [rng.integers(0, T, program.params.slot_count) for _ in program.inputs]
    arguments = grouped_arguments(circuit, [
        keys.encrypt(value) if kind == "encrypted" else value
        for value, (_, kind) in zip(values, program.inputs, strict=True)])
    result = program(*arguments)
    outputs = result if isinstance(result, tuple) else (result,)
    wanted = expected_outputs(circuit, [value.astype(object) for value in values])
    errors = [np.mod(keys.decrypt(output).astype(object) - want, T)
              for output, want in zip(outputs, wanted, strict=True)]
    return program, errors, [keys.noise_budget(output) for output in outputs]


def key_switches(program: rf.Program) -> int:
    source = program.source_path.read_text()
    return len(re.findall(r"k->(ntt_key_switch|key_switch_inner_product)\(", source))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    "circuit", [sum_of_products, rotation_sum, constant_matrix, mixed, long_dot],
    ids=lambda circuit: circuit.name)
def test_optimized_and_unoptimized_programs_both_compute_the_circuit(
    circuit: rf.Circuit, variant: str, cache_dir: Path
) -> None:
    optimized, errors, budgets = run(circuit, cache_dir, variant=variant)
    plain, plain_errors, plain_budgets = run(circuit, cache_dir, variant=variant, optimize=False)
    for error in errors + plain_errors:
        assert not error.any()
    assert key_switches(optimized) <= key_switches(plain)
    # Within 2 bits of the unoptimized program's budget (issue 45).
    assert all(b >= p - 2 for b, p in zip(budgets, plain_budgets, strict=True)), (
        budgets, plain_budgets)


@pytest.mark.parametrize(
    ("circuit", "optimized_switches", "plain_switches"),
    [(sum_of_products, 1, 4), (rotation_sum, 12, 12), (constant_matrix, 10, 31), (mixed, 8, 11)],
    ids=lambda value: value.name if isinstance(value, rf.Circuit) else str(value),
)
def test_the_optimizations_remove_key_switches(
    circuit: rf.Circuit, optimized_switches: int, plain_switches: int, cache_dir: Path
) -> None:
    optimized = rf.compile(circuit, target=TARGET, cache_dir=cache_dir)
    plain = rf.compile(circuit, target=TARGET, cache_dir=cache_dir, optimize=False)
    assert (key_switches(optimized), key_switches(plain)) == (optimized_switches, plain_switches)


def test_rotations_of_one_ciphertext_share_one_decomposition(cache_dir: Path) -> None:
    # Twelve rotations: one forward transform per digit of x's c1 and one
    # inverse transform and division by P per component for the whole sum.
    optimized = rf.compile(rotation_sum, target=TARGET, cache_dir=cache_dir)
    plain = rf.compile(rotation_sum, target=TARGET, cache_dir=cache_dir, optimize=False)

    def calls(program: rf.Program, *names: str) -> int:
        source = program.source_path.read_text()
        return sum(source.count(f"k->{name}(") for name in names)

    divisions = ("scale_round", "scale_round_add")
    assert (calls(optimized, *divisions), calls(plain, *divisions)) == (2, 24)
    assert (calls(optimized, "ntt_inverse"), calls(plain, "ntt_inverse")) == (2, 24)
    # The unoptimized program transforms each rotation's digits in its key
    # switch (ntt_key_switch); the optimized one each digit of x once.
    assert calls(optimized, "ntt_forward", "ntt_forward_from") == optimized.params.dnum
    assert calls(optimized, "ntt_key_switch") == 0 and calls(plain, "ntt_key_switch") == 12


def test_a_galois_key_budget_builds_rotations_from_powers_of_two(cache_dir: Path) -> None:
    unlimited, _, _ = run(rotation_sum, cache_dir)
    limited, errors, _ = run(rotation_sum, cache_dir, max_galois_keys=4)
    assert not any(error.any() for error in errors)
    assert len(unlimited.galois_elements) == 12
    # Steps 1..12 from the keys for 1, 2, 4 and 8.
    n = limited.params.poly_modulus_degree
    assert limited.galois_elements == tuple(sorted(pow(3, k, 2 * n) for k in (1, 2, 4, 8)))
    assert limited.galois_key_bytes == 4 * unlimited.galois_key_bytes // 12
    # (Steps 1..12 as chains of those keys with shared prefixes: 12 rotations.)
    assert key_switches(limited) >= key_switches(unlimited)


def test_a_galois_key_byte_budget_counts_each_key(cache_dir: Path) -> None:
    unlimited = rf.compile(rotation_sum, target=TARGET, cache_dir=cache_dir)
    per_key = unlimited.galois_key_bytes // len(unlimited.galois_elements)
    limited = rf.compile(rotation_sum, target=TARGET, cache_dir=cache_dir,
                         max_galois_key_bytes=5 * per_key)
    assert len(limited.galois_elements) <= 5


def test_a_galois_key_budget_too_small_for_powers_of_two_is_refused(cache_dir: Path) -> None:
    with pytest.raises(rf.CompilerError, match=r"the Galois-key budget \(max-keys 2"):
        rf.compile(rotation_sum, target=TARGET, cache_dir=cache_dir, max_galois_keys=2)


REPO_ROOT = Path(__file__).resolve().parents[2]


def test_ringfusec_passes_the_galois_key_budget_to_the_compiler(tmp_path: Path) -> None:
    (tmp_path / "circuit.py").write_text(
        "import ringfuse as rf\n\n\n"
        "@rf.circuit(plaintext_modulus=65537)\n"
        "def rotations(x: rf.Encrypted):\n"
        "    return x.rotate(3) + x.rotate(5) + x.rotate(6)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-m", "ringfuse.ringfusec", "circuit.py", "-o", "circuit",
         "--max-galois-keys", "2", "--no-optimize"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
        env=python_environment(),
    )
    assert completed.returncode == 1
    assert "the Galois-key budget (max-keys 2, max-bytes 0" in completed.stderr
    assert not (tmp_path / "circuit").exists()


def test_the_private_inference_example_runs_and_checks_itself() -> None:
    completed = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / "private_inference.py")],
        capture_output=True, text=True, check=False,
        env=python_environment(),
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.count("correct: True") == 2


def test_long_sums_of_products_run_as_sum_of_products(cache_dir: Path) -> None:
    """The optimized long_dot's sums are data for the library kernel (the
    emitted calls), not generated bodies of one modular product each."""
    program, errors, _ = run(long_dot, cache_dir)
    assert not any(error.any() for error in errors)
    source = program.source_path.read_text()
    assert len(re.findall(r"k->sum_of_products\(", source)) >= 2
    assert "mulMod" not in source
