"""Random circuits against numpy: differential testing of the whole compiler.

hypothesis draws a circuit (additions, subtractions, negations, products of
ciphertexts, plaintext and constant operands, rotations, row swaps, slot
sums; multiplicative depth at most 2), compiles it for every variant, runs it
on encrypted inputs and compares the decryption with the same operations on
numpy arrays mod t. A failing circuit shrinks to a minimal reproducer, printed
as its list of operations.

`make test` runs a few fixed examples on the CPU target (derandomized, so CI
is stable); RINGFUSE_RANDOM_CIRCUITS=N runs N fresh examples, and
RINGFUSE_TEST_TARGET=cuda runs them on the GPU.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ringfuse as rf
from runtime_support import SEED, rotate_rows

pytestmark = pytest.mark.needs_compiler

T = 65537
TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
EXAMPLES = int(os.environ.get("RINGFUSE_RANDOM_CIRCUITS", "0"))
VARIANTS = ("hps", "lhps", "chps", "behz")
MAX_DEPTH = 2


@dataclass(frozen=True)
class Op:
    """One step: `kind` on values `a` (and `b`) of the list built so far, or
    with `amount` (a constant, a rotation's steps)."""

    kind: str
    a: int
    b: int = 0
    amount: int = 0


UNARY = ("neg", "rotate", "swap", "sum", "mul_const", "add_const", "mul_plain", "add_plain")
BINARY = ("add", "sub", "mul")


@st.composite
def circuits(draw: st.DrawFn) -> list[Op]:
    """Up to 6 steps over the inputs x and y (values 0 and 1), each within
    the depth budget."""
    depths = [0, 0]
    ops: list[Op] = []
    for _ in range(draw(st.integers(1, 6))):
        a = draw(st.integers(0, len(depths) - 1))
        kind = draw(st.sampled_from(UNARY + BINARY))
        b = draw(st.integers(0, len(depths) - 1)) if kind in BINARY else 0
        if kind == "mul" and max(depths[a], depths[b]) + 1 > MAX_DEPTH:
            kind = "add"
        amount = 0
        if kind == "rotate":
            amount = draw(st.sampled_from([1, -1, 3, 100]))
        elif kind in ("mul_const", "add_const"):
            amount = draw(st.integers(0, T - 1))
        depth = max(depths[a], depths[b] if kind in BINARY else 0)
        depths.append(depth + (kind == "mul"))
        ops.append(Op(kind, a, b, amount))
    return ops


def traced(ops: list[Op]) -> rf.Circuit:
    def random_circuit(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
        return evaluate(ops, [x, y], w, traced=True)

    return rf.circuit(plaintext_modulus=T)(random_circuit)


def evaluate(ops: list[Op], values: list[Any], w: Any, traced: bool = False) -> Any:
    """The operations on traced values, or on numpy arrays mod t (the reference)."""
    def reduce(v: Any) -> Any:
        return v if traced else v % T

    for op in ops:
        a, b = values[op.a], values[op.b]
        if op.kind == "add":
            out = a + b
        elif op.kind == "sub":
            out = a - b
        elif op.kind == "mul":
            out = a * b
        elif op.kind == "neg":
            out = -a
        elif op.kind == "rotate":
            out = a.rotate(op.amount) if traced else rotate_rows(a, op.amount)
        elif op.kind == "swap":
            out = a.swap_rows() if traced else np.roll(a.reshape(2, -1), 1, axis=0).ravel()
        elif op.kind == "sum":
            out = a.sum() if traced else np.full_like(a, a.sum() % T)
        elif op.kind == "mul_const":
            out = a * op.amount
        elif op.kind == "add_const":
            out = a + op.amount
        elif op.kind == "mul_plain":
            out = a * w
        else:  # add_plain
            out = a + w
        values.append(reduce(out))
    return values[-1]


def check(ops: list[Op], variant: str, cache_dir: Path) -> None:
    program = rf.compile(traced(ops), TARGET, variant=variant, cache_dir=cache_dir)
    keys = program.keygen(seed=SEED)
    rng = np.random.default_rng(len(ops))
    n = program.params.poly_modulus_degree
    x, y, w = (rng.integers(0, T, n).astype(np.int64) for _ in range(3))
    got = keys.decrypt(program(keys.encrypt(x), keys.encrypt(y), w=w))
    want = evaluate(ops, [x.astype(object), y.astype(object)], w.astype(object))
    np.testing.assert_array_equal(got, np.asarray(want, dtype=np.int64),
                                  err_msg=f"{variant}: {ops}")


# Fixed examples in `make test`: a few, derandomized; more on request.
SETTINGS = settings(
    max_examples=EXAMPLES or 4,
    derandomize=EXAMPLES == 0,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.parametrize("variant", VARIANTS)
@SETTINGS
@given(ops=circuits())
def test_a_random_circuit_decrypts_to_numpys_result(
    ops: list[Op], variant: str, cache_dir: Path
) -> None:
    check(ops, variant, cache_dir)


def test_the_reference_itself() -> None:
    # The numpy side of a known circuit: ((x + y) * x).rotate(1), swapped.
    x, y = np.arange(64, dtype=object), np.ones(64, dtype=object)
    ops = [Op("add", 0, 1), Op("mul", 2, 0), Op("rotate", 3, amount=1), Op("swap", 4)]
    want = np.roll(rotate_rows(((x + y) * x) % T, 1).reshape(2, -1), 1, axis=0).ravel()
    np.testing.assert_array_equal(evaluate(ops, [x, y], None), want)
