"""What the tracing tests share (test_tracing.py, test_tracing_errors.py,
test_circuit_driver.py): readers of the emitted IR and the circuits that both
the shape tests and the compiler round trips trace.

`body()` keeps each op's result, name and operands and drops the types, so an
assertion reads like the program.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import ringfuse as rf

REPO_ROOT = Path(__file__).resolve().parents[2]
T = 65537
CT = "!bfv.ciphertext<#params, 2>"
PT = "!bfv.plaintext<#params>"


def body(mlir: str) -> list[str]:
    """The function body, one entry per op, without types: `%3 = bfv.add %1, %2`."""
    lines = mlir.splitlines()
    start = next(i for i, line in enumerate(lines) if "func.func" in line) + 1
    end = next(i for i, line in enumerate(lines) if line.strip().startswith("return"))
    return [line.strip().split(" : ")[0] for line in lines[start : end + 1]]


def op_names(mlir: str) -> list[str]:
    """The bfv op names in emission order."""
    return re.findall(r"(?<![#!\w])bfv\.([a-z_]+)", mlir)


def op_counts(mlir: str) -> collections.Counter[str]:
    return collections.Counter(op_names(mlir))


def traced(function: Callable[..., Any], **circuit_args: Any) -> str:
    return rf.trace(rf.circuit(**circuit_args)(function)).mlir


# --------------------------------------------------------------------------
# Circuits shared by the shape tests and the compiler round trip
# --------------------------------------------------------------------------


def arithmetic_mix(x: rf.Encrypted, y: rf.Encrypted, z: rf.Encrypted):
    return -(x + y - z)


def product_chain(
    a: rf.Encrypted, b: rf.Encrypted, c: rf.Encrypted, d: rf.Encrypted, e: rf.Encrypted
):
    return (((a * b) * c) * d) * e


def plaintext_ops(x: rf.Encrypted, w: rf.Plain):
    return (x + w) - w, w * x, w - x, w + x


def rotations(x: rf.Encrypted):
    return x.rotate(3).rotate(-1).rotate(0).swap_rows().sum()


def multi_output(x: rf.Encrypted, y: rf.Encrypted):
    s = x + y
    return s, s, x


def constants(x: rf.Encrypted):
    return x * 3 + np.array([1, 2, 3]) - 3 + (-1) * x


def unrolled_loop(x: rf.Encrypted):
    acc = x
    for _ in range(5):
        acc = acc * x + 7
    return acc


def quickstart(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x * y + w * x


def power_five(x: rf.Encrypted):
    return x**5


def documented_example(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    product = x * y
    h = (-(product + w * x - x) + 7 - np.array([1, 2, 3])).rotate(3).rotate(-1)
    return h.swap_rows().sum(), product


ROUND_TRIP_CIRCUITS: dict[str, rf.Circuit] = {
    "arithmetic_mix": rf.circuit(arithmetic_mix),
    "product_chain": rf.circuit(product_chain),
    "plaintext_ops": rf.circuit(plaintext_ops),
    "rotations": rf.circuit(rotations),
    "rotations_with_known_n": rf.circuit(poly_modulus_degree=8192)(rotations),
    "multi_output": rf.circuit(multi_output),
    "constants": rf.circuit(plaintext_modulus=257)(constants),
    "constants_with_known_n": rf.circuit(poly_modulus_degree=16)(constants),
    "unrolled_loop": rf.circuit(unrolled_loop),
    "quickstart": rf.circuit(plaintext_modulus=65537)(quickstart),
    "power_five": rf.circuit(power_five),
    "documented_example": rf.circuit(documented_example),
}
