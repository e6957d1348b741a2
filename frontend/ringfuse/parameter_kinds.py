"""What a circuit parameter can be, and the IR inputs each one becomes.

A parameter's annotation says what the compiled program takes for it:

- `rf.Encrypted` / `rf.Plain`: one ciphertext / one plaintext (the kinds
  "encrypted" and "plain"); one IR input named after the parameter, `x`;
- `rf.Encrypted[n]` / `rf.Plain[n]`: a fixed-length list of n of them (an
  `InputList`); n IR inputs `xs[0]`, ..., `xs[n-1]`, and a Python list of n
  proxies inside the circuit;
- `rf.PlainMatrix[rows, cols]`: a plaintext matrix W (a `MatrixShape`) that
  multiplies encrypted vectors as `w @ x`; one plaintext IR input per
  generalized diagonal, `w.diag[k]` (`w.block[r][c].diag[k]` for a matrix cut
  into blocks), k being the rotation step that diagonal multiplies
  (plain_matrix.py).

The IR knows its inputs only by position (`%arg0`, ...); the names above are
what `Trace.inputs`, `Program.inputs` and ringfusec's description list, in
that order. The annotation objects are created by `__class_getitem__` on the
proxy classes, so a bad length or shape fails where it is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from .tracing import InputKind, TraceError
from .values import integer_or_none

if TYPE_CHECKING:
    from .plain_matrix import MatrixLayout

__all__ = [
    "MAX_MATRIX_DIMENSION",
    "InputList",
    "MatrixShape",
    "ParameterKind",
    "TracedParameter",
    "annotation_text",
    "input_list",
    "is_encrypted",
    "matrix_shape",
]

# The longest slot row of any parameter set (N = 2^17 has rows of 2^16 slots).
MAX_MATRIX_DIMENSION = 2**16

_CLASS_NAME = {"encrypted": "Encrypted", "plain": "Plain"}


@dataclass(frozen=True)
class InputList:
    """What `rf.Encrypted[n]` and `rf.Plain[n]` stand for: n inputs of one kind."""

    kind: InputKind
    length: int

    def __str__(self) -> str:
        return f"rf.{_CLASS_NAME[self.kind]}[{self.length}]"


@dataclass(frozen=True)
class MatrixShape:
    """What `rf.PlainMatrix[rows, cols]` stands for: a rows x cols plaintext matrix."""

    rows: int
    cols: int

    def __str__(self) -> str:
        return f"rf.PlainMatrix[{self.rows}, {self.cols}]"


# How a circuit declares one parameter: `Circuit.parameters` pairs each name with one.
ParameterKind: TypeAlias = "InputKind | InputList | MatrixShape"


@dataclass(frozen=True)
class TracedParameter:
    """One parameter of a traced circuit and the IR inputs it became, in order
    (a contiguous run of the function's arguments); a matrix also keeps the
    layout of its diagonals, which the program needs to encode the matrix."""

    name: str
    kind: ParameterKind
    inputs: tuple[tuple[str, InputKind], ...]
    layout: MatrixLayout | None = None


def annotation_text(kind: ParameterKind) -> str:
    """How the annotation of a parameter of this kind is written: `rf.Plain[3]`."""
    if isinstance(kind, (InputList, MatrixShape)):
        return str(kind)
    return f"rf.{_CLASS_NAME[kind]}"


def is_encrypted(kind: ParameterKind) -> bool:
    """Whether a parameter of this kind is encrypted (one ciphertext or a list)."""
    return kind == "encrypted" or (isinstance(kind, InputList) and kind.kind == "encrypted")


def input_list(kind: InputKind, length: object) -> InputList:
    """`rf.Encrypted[length]` / `rf.Plain[length]`, checked."""
    spelled = f"rf.{_CLASS_NAME[kind]}[{length!r}]"
    count = integer_or_none(length)
    if count is None or count < 1:
        raise TraceError(
            f"{spelled}: the length of a list of inputs must be a positive int, as in "
            f"rf.{_CLASS_NAME[kind]}[4]"
        )
    return InputList(kind, count)


def matrix_shape(shape: object) -> MatrixShape:
    """`rf.PlainMatrix[rows, cols]`, checked."""
    items = shape if isinstance(shape, tuple) else (shape,)
    spelled = f"rf.PlainMatrix[{', '.join(map(repr, items))}]"
    dimensions = [integer_or_none(item) for item in items]
    if len(dimensions) != 2 or any(d is None or d < 1 for d in dimensions):
        raise TraceError(
            f"{spelled}: a plaintext matrix is declared with two positive ints, its rows "
            "and columns, as in rf.PlainMatrix[8, 16]"
        )
    rows, cols = dimensions
    assert rows is not None and cols is not None
    if max(rows, cols) > MAX_MATRIX_DIMENSION:
        raise TraceError(
            f"{spelled}: rows and columns are limited to {MAX_MATRIX_DIMENSION} (2^16, the "
            "longest slot row of any parameter set); split the matrix and multiply its "
            "parts in separate rf.PlainMatrix parameters"
        )
    return MatrixShape(rows, cols)
