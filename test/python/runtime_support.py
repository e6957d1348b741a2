"""Small parameter sets and helpers shared by the runtime tests."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import numpy.typing as npt

import ringfuse as rf

Vector = npt.NDArray[np.int64]

SEED = bytes(range(32))

FRONTEND_DIR = Path(__file__).resolve().parents[2] / "frontend"


def python_environment(**variables: str) -> dict[str, str]:
    """The environment of a Python subprocess that imports ringfuse: the one the tests import,
    this tree's (on PYTHONPATH) or, with RINGFUSE_INSTALLED=1, the installed package."""
    environment = {**os.environ, **variables}
    if os.environ.get("RINGFUSE_INSTALLED") != "1":
        environment["PYTHONPATH"] = str(FRONTEND_DIR)
    return environment


def toy_params(n: int = 64, t: int = 65537, bits: tuple[int, ...] = (30, 30)) -> rf.Params:
    """An insecure, fast parameter set (tests only)."""
    return rf.Params(
        poly_modulus_degree=n,
        plaintext_modulus=t,
        coeff_modulus_bits=list(bits),
        special_modulus_bits=[max(bits)],
        allow_insecure=True,
    )


def rotate_rows(values: Vector, steps: int) -> Vector:
    """BFV's rotation: each row of N/2 slots left by `steps` (right if negative)."""
    return np.roll(values.reshape(2, -1), -steps, axis=1).ravel()


def padded(constant: Vector, n: int) -> Vector:
    """A short constant array as the circuit sees it: the first slots, then zeros."""
    return np.pad(constant.astype(np.int64), (0, n - constant.size))


def grouped_arguments(circuit: rf.Circuit, flat: list[object]) -> list[object]:
    """A program's inputs in `program.inputs` order as the circuit's
    arguments: a list parameter takes its inputs as one list."""
    rest = list(flat)
    arguments: list[object] = []
    for _, spec in circuit.parameters:
        length = getattr(spec, "length", None)
        taken, rest = rest[: length or 1], rest[length or 1:]
        arguments.append(taken if length else taken[0])
    return arguments
