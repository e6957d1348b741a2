"""Plaintext matrices: `rf.PlainMatrix[rows, cols]` and the product `w @ x`.

A parameter `w: rf.PlainMatrix[rows, cols]` is a matrix W the compiled program
takes at run time (a numpy array). Inside the circuit, `w @ x` multiplies it by
the vector in the first `cols` slots of the first slot row of the encrypted x;
the result holds y = W x (mod t) in slots 0..rows-1 and zeros elsewhere.

The generalized-diagonal method needs nothing of x's other slots. For each
offset k in [-(rows-1), cols-1], diag_k holds W[i][i+k] in slot i (for
0 <= i < rows and 0 <= i+k < cols; every other slot, the second row included,
is zero), and

    y = sum_k diag_k * x.rotate(k)          (x.rotate(0) is x itself)

since rotating x left by k brings x[i+k] to slot i. The trace emits exactly
that sum (one `rotate`, one plaintext product and one addition per diagonal),
each diagonal a plaintext input of the circuit (`w.diag[k]`), never a constant.
The compiler, not this module, rewrites such sums into baby-step giant-step
form and hoists the rotations; the frontend states the plain sum.

When N is known at trace time (the circuit fixes `poly_modulus_degree`, or
`params` were given), a row has h = N/2 slots and offsets k and k + h are the
same rotation: they share one input, whose diagonal holds both (their entries
never share a slot, as cols <= h). Each class k mod h is represented by its
member in [cols - h, cols - 1], so the steps stay in (-h, h), are the offsets
themselves when nothing merges, and form one contiguous range when rows +
cols - 1 >= h (4096 diagonals and 4095 rotations for 4096 x 4096 at N = 8192).
When N is not known the offsets stay as they are; the compiler picks N with
N/2 >= max(rows, cols), which `Program` checks when it loads.

A matrix wider or taller than a row (N known, rows or cols > h) is cut into
blocks of h x h (the last ones smaller): x comes as a list of ciphertexts,
each holding h consecutive entries of x, and y_r = sum_c W_rc @ x_c comes back
as a list too; each block has its own diagonal inputs, `w.block[r][c].diag[k]`.

The client side, `encode_matrix`, turns the numpy matrix into the diagonals'
plaintexts in the order of the inputs: each diagonal is one or two strided
slices of the matrix, so the work is numpy copies and one encode per diagonal.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import numpy.typing as npt

from ._native import runtime
from .parameter_kinds import MatrixShape, matrix_shape
from .traced_values import Encrypted, Plain, _describe, _describe_kind, _Proxy
from .tracing import TraceError

if TYPE_CHECKING:
    from .params import Params
    from .tracing import Tracer

__all__ = [
    "DiagonalBlock",
    "MatrixLayout",
    "PlainMatrix",
    "check_layout_fits",
    "diagonal_slots",
    "diagonal_steps",
    "encode_matrix",
    "encode_matrix_inputs",
    "matrix_description",
    "matrix_layout",
    "reduce_mod",
]


# --------------------------------------------------------------------------
# Layout: which diagonals a matrix has, and in which order they are inputs
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class DiagonalBlock:
    """Block (block_row, block_col) of a matrix, the rows x cols entries from
    (row_start, col_start) on, and the rotation steps of its diagonals, in the
    order of their inputs."""

    block_row: int
    block_col: int
    row_start: int
    col_start: int
    rows: int
    cols: int
    steps: tuple[int, ...]


@dataclass(frozen=True)
class MatrixLayout:
    """How one rf.PlainMatrix parameter becomes plaintext inputs.

    `row_length` is N/2 if N was known at trace time: blocks are then at most
    N/2 square and each step stands for its class mod N/2. None: one block,
    and each step is the offset k itself.
    """

    shape: MatrixShape
    row_length: int | None
    row_blocks: int
    col_blocks: int
    blocks: tuple[DiagonalBlock, ...]  # row-major: block (r, c) is blocks[r * col_blocks + c]

    def block(self, block_row: int, block_col: int) -> DiagonalBlock:
        return self.blocks[block_row * self.col_blocks + block_col]

    @property
    def input_count(self) -> int:
        return sum(len(block.steps) for block in self.blocks)

    def input_names(self, name: str) -> list[str]:
        """`w.diag[k]` per diagonal, or `w.block[r][c].diag[k]` when there are blocks."""
        names = []
        for block in self.blocks:
            prefix = name
            if len(self.blocks) > 1:
                prefix = f"{name}.block[{block.block_row}][{block.block_col}]"
            names.extend(f"{prefix}.diag[{step}]" for step in block.steps)
        return names


def matrix_layout(shape: MatrixShape, poly_modulus_degree: int | None) -> MatrixLayout:
    """The layout of a rows x cols matrix for N (None: not known yet)."""
    if poly_modulus_degree is None:
        steps = diagonal_steps(shape.rows, shape.cols, None)
        block = DiagonalBlock(0, 0, 0, 0, shape.rows, shape.cols, steps)
        return MatrixLayout(shape, None, 1, 1, (block,))
    row_length = poly_modulus_degree // 2
    row_starts = range(0, shape.rows, row_length)
    col_starts = range(0, shape.cols, row_length)
    blocks = []
    for block_row, row_start in enumerate(row_starts):
        for block_col, col_start in enumerate(col_starts):
            rows = min(row_length, shape.rows - row_start)
            cols = min(row_length, shape.cols - col_start)
            steps = diagonal_steps(rows, cols, row_length)
            blocks.append(
                DiagonalBlock(block_row, block_col, row_start, col_start, rows, cols, steps)
            )
    return MatrixLayout(shape, row_length, len(row_starts), len(col_starts), tuple(blocks))


def diagonal_steps(rows: int, cols: int, row_length: int | None) -> tuple[int, ...]:
    """The rotation steps of a rows x cols block's diagonals, ascending: the
    offsets -(rows-1)..cols-1, each as its representative mod `row_length` in
    [cols - row_length, cols - 1] if that is known. Steps whose diagonal has
    no entry are left out (with these offsets none is, but the sum must never
    carry a product by zero)."""
    offsets = range(-(rows - 1), cols)
    if row_length is None:
        steps = list(offsets)
    else:
        window_start = cols - row_length
        steps = sorted({k if k >= window_start else k + row_length for k in offsets})
    return tuple(
        step for step in steps if any(_diagonal_segments(rows, cols, step, row_length))
    )


def _diagonal_segments(
    rows: int, cols: int, step: int, row_length: int | None
) -> list[tuple[int, int, int]]:
    """Where diagonal `step` of a rows x cols block has entries: (lo, hi, shift)
    for each run of rows lo <= i < hi holding W[i][i + step - shift].

    Without a row length, shift is 0. With one, step stands for its class mod
    h = row_length and lies in [cols - h, cols - 1], so i + step is in
    [cols - h, rows + cols - 2] and the columns it reaches are i + step (when
    below cols) and i + step - h (when at least h): two runs at most.
    """
    shifts = (0,) if row_length is None else (0, row_length)
    segments = []
    for shift in shifts:
        lo, hi = max(0, shift - step), min(rows, shift + cols - step)
        if lo < hi:
            segments.append((lo, hi, shift))
    return segments


# --------------------------------------------------------------------------
# The proxy: `w @ x` while a circuit is traced
# --------------------------------------------------------------------------


class PlainMatrix(_Proxy):
    """A plaintext matrix input, as `rf.PlainMatrix[rows, cols]` (a parameter
    annotation); supplied as a numpy integer array of that shape when the
    compiled circuit runs. In the circuit, `w @ x` is W times the vector in
    x's first `cols` slots.

    >>> @rf.circuit
    ... def layer(w: rf.PlainMatrix[64, 128], x: rf.Encrypted):
    ...     return w @ x                    # y = W x in slots 0..63
    >>> prog = rf.compile(layer)
    >>> y = prog(w=weights, x=keys.encrypt(vector))
    """

    _kind_name = "plaintext matrix"
    _known_when = "the compiled circuit runs"
    _is_matrix = True

    def __class_getitem__(cls, shape: tuple[int, int]) -> MatrixShape:
        """`rf.PlainMatrix[rows, cols]`: a parameter that is a rows x cols matrix."""
        return matrix_shape(shape)

    def __init__(
        self,
        tracer: Tracer,
        label: str,
        layout: MatrixLayout,
        diagonals: dict[tuple[int, int], tuple[Plain, ...]],
    ) -> None:
        # A matrix is no single SSA value: its diagonals are, one input each.
        super().__init__(tracer, value="", label=label)
        self._layout = layout
        self._diagonals = diagonals

    @classmethod
    def traced_input(cls, tracer: Tracer, name: str, shape: MatrixShape) -> PlainMatrix:
        """The proxy of parameter `name`, adding one plaintext input per diagonal."""
        layout = matrix_layout(shape, tracer.poly_modulus_degree)
        names = iter(layout.input_names(name))
        diagonals = {}
        for block in layout.blocks:
            inputs = []
            for _ in block.steps:
                input_name = next(names)
                inputs.append(Plain(tracer, tracer.add_input(input_name, "plain"), input_name))
            diagonals[(block.block_row, block.block_col)] = tuple(inputs)
        return cls(tracer, name, layout, diagonals)

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, cols), as declared."""
        return (self._layout.shape.rows, self._layout.shape.cols)

    @property
    def layout(self) -> MatrixLayout:
        return self._layout

    def __matmul__(self, vector: object) -> Encrypted | list[Encrypted]:
        """W x: one ciphertext in, one out; or, for a matrix cut into blocks of
        N/2, a list of ciphertexts (x's blocks) in and a list (y's blocks) out."""
        expression = f"{_describe(self)} @ {_describe(vector)}"
        self._tracer.check_active(expression)
        blocks = self._vector_blocks(vector, expression)
        # x_c.rotate(k) is one value however many row blocks use it.
        rotations: dict[tuple[int, int], Encrypted] = {}
        products = [
            self._block_row_product(block_row, blocks, rotations)
            for block_row in range(self._layout.row_blocks)
        ]
        if isinstance(vector, (list, tuple)) or len(products) > 1:
            return products
        return products[0]

    def __rmatmul__(self, other: object) -> NoReturn:
        raise TraceError(
            f"{_describe(other)} @ {_describe(self)}: the matrix goes on the left: "
            f"{_describe(self)} @ x is the matrix times the vector in an encrypted x's slots"
        )

    def _vector_blocks(self, vector: object, expression: str) -> list[Encrypted]:
        """x as the list of its blocks, checked against the layout."""
        layout, shape = self._layout, self._layout.shape
        if isinstance(vector, Encrypted):
            self._tracer.check_owns(vector, expression)
            if layout.col_blocks > 1:
                raise TraceError(
                    f"{expression}: {self._label} has {shape.cols} columns, more than the "
                    f"{layout.row_length} slots of a row at N = "
                    f"{self._tracer.poly_modulus_degree}; pass x as a list of "
                    f"{layout.col_blocks} ciphertexts, each holding {layout.row_length} "
                    f"consecutive entries of x (the last one the rest), e.g. a parameter "
                    f"xs: rf.Encrypted[{layout.col_blocks}]"
                )
            return [vector]
        if not isinstance(vector, (list, tuple)):
            raise TraceError(
                f"{expression}: the right operand of @ must be an encrypted vector "
                f"(rf.Encrypted) or a list of them (x in blocks of N/2 slots), not "
                f"{_describe_kind(vector)}"
            )
        if layout.row_length is None:
            raise TraceError(
                f"{expression}: a list of ciphertexts holds x in blocks of N/2 slots, but "
                f"{self._tracer.circuit.name} leaves N to the compiler; either fix N in "
                f"@rf.circuit(poly_modulus_degree=...), or pass one ciphertext holding all "
                f"{shape.cols} entries of x (the compiler then picks N with N/2 >= "
                f"{max(shape.rows, shape.cols)})"
            )
        if len(vector) != layout.col_blocks:
            raise TraceError(
                f"{expression}: {self._label} has {shape.cols} columns, which at N = "
                f"{self._tracer.poly_modulus_degree} ({layout.row_length} slots a row) "
                f"make {layout.col_blocks} block{'s' if layout.col_blocks > 1 else ''} "
                f"of x; got a list of {len(vector)} ciphertext"
                f"{'s' if len(vector) != 1 else ''}"
            )
        for index, block in enumerate(vector):
            if not isinstance(block, Encrypted):
                raise TraceError(
                    f"{expression}: block {index} of x is {_describe_kind(block)}, not an "
                    "encrypted value"
                )
            self._tracer.check_owns(block, expression)
        return list(vector)

    def _block_row_product(
        self,
        block_row: int,
        vector_blocks: Sequence[Encrypted],
        rotations: dict[tuple[int, int], Encrypted],
    ) -> Encrypted:
        """y_r = sum over c and the diagonals k of W_rc: diag_k * x_c.rotate(k)."""
        total: Encrypted | None = None
        for block_col, vector_block in enumerate(vector_blocks):
            block = self._layout.block(block_row, block_col)
            diagonals = self._diagonals[(block_row, block_col)]
            for step, diagonal in zip(block.steps, diagonals):
                if (block_col, step) not in rotations:
                    rotations[(block_col, step)] = vector_block.rotate(step)
                term = rotations[(block_col, step)] * diagonal
                total = term if total is None else total + term
        # Every block has its k = 0 diagonal at least, so the sum is never empty.
        assert total is not None
        return total


# --------------------------------------------------------------------------
# The client side: a numpy matrix as the diagonals' plaintexts
# --------------------------------------------------------------------------


def check_layout_fits(layout: MatrixLayout, poly_modulus_degree: int) -> str | None:
    """Why a layout cannot run at N, or None if it can: its row length must
    be N/2, or, made without N, N/2 must hold a row and a column of it."""
    row_length = poly_modulus_degree // 2
    shape = layout.shape
    if layout.row_length is None:
        if max(shape.rows, shape.cols) <= row_length:
            return None
        return (
            f"{shape} needs rows of at least {max(shape.rows, shape.cols)} slots, but "
            f"N = {poly_modulus_degree} has {row_length}; fix poly_modulus_degree >= "
            f"{2 * max(shape.rows, shape.cols)} in @rf.circuit"
        )
    if layout.row_length == row_length:
        return None
    return (
        f"{shape} was traced for rows of {layout.row_length} slots (N = "
        f"{2 * layout.row_length}), but the program runs at N = {poly_modulus_degree}"
    )


def encode_matrix(
    layout: MatrixLayout, matrix: object, params: Params, where: str
) -> list[Any]:
    """The runtime plaintexts of a matrix's diagonals, in the order of its inputs.

    `matrix` is an integer array-like of the declared shape; entries are
    reduced mod t (negative weights are fine). `where` names the argument in
    errors.

    >>> encode_matrix(layout, np.eye(8, dtype=np.int64), prog.params, "argument 'w'")
    """
    if not params.batching:
        raise ValueError(f"{where}: a matrix is encoded in slots, which {params!r} has not")
    problem = check_layout_fits(layout, params.poly_modulus_degree)
    if problem is not None:
        raise ValueError(f"{where}: {problem}")
    residues = _matrix_residues(matrix, layout.shape, params.plaintext_modulus, where)
    encode_slots, context = runtime().encode_slots, params._context
    return [encode_slots(context, slots) for slots in diagonal_slots(layout, residues)]


def matrix_description(layout: MatrixLayout, names: Sequence[str]) -> dict[str, Any]:
    """What ringfusec's JSON says of a matrix parameter: its shape, the slot row
    its layout was made for (None: N was not fixed when it was traced) and its
    inputs' names in order; enough for `encode_matrix_inputs` to encode it."""
    return {
        "rows": layout.shape.rows,
        "cols": layout.shape.cols,
        "row_length": layout.row_length,
        "inputs": list(names),
    }


def encode_matrix_inputs(
    description: dict[str, Any], matrix: object, params: Params
) -> list[Any]:
    """A matrix's plaintext inputs for a ringfusec executable, in the order of
    `description["inputs"]` (the JSON's `matrices` entry of the parameter), as
    rf.Plaintexts to save, one file per input name.

    >>> needs = json.load(open("circuit.json"))
    >>> for name, plaintext in zip(needs["matrices"]["w"]["inputs"],
    ...                            rf.encode_matrix(needs["matrices"]["w"], w, params)):
    ...     plaintext.save(f"{name}.rfpt")
    """
    from .objects import Plaintext  # the runtime's objects import the frontend's

    try:
        rows, cols = int(description["rows"]), int(description["cols"])
        row_length = description["row_length"]
        names = list(description["inputs"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(
            f"not a matrix description of ringfusec's JSON (rows, cols, row_length, "
            f"inputs): {description!r}"
        ) from error
    layout = matrix_layout(
        matrix_shape((rows, cols)), None if row_length is None else 2 * int(row_length)
    )
    if layout.input_count != len(names):
        raise ValueError(
            f"the description names {len(names)} inputs, but a {rows} x {cols} matrix laid "
            f"out for rows of {row_length} slots has {layout.input_count}"
        )
    natives = encode_matrix(layout, matrix, params, f"the {rows} x {cols} matrix")
    return [Plaintext(params, native) for native in natives]


def diagonal_slots(
    layout: MatrixLayout, residues: npt.NDArray[np.uint64]
) -> Iterator[npt.NDArray[np.uint64]]:
    """Each diagonal's slots 0..rows-1 of its block (the rest of its slots are
    zero), in the order of the matrix's inputs, from the (rows, cols) residues."""
    for block in layout.blocks:
        entries = np.ascontiguousarray(
            residues[
                block.row_start : block.row_start + block.rows,
                block.col_start : block.col_start + block.cols,
            ]
        ).ravel()
        # W[i][j] is entries[i * cols + j], so a diagonal's run of rows is one
        # slice with stride cols + 1.
        stride = block.cols + 1
        for step in block.steps:
            slots = np.zeros(block.rows, dtype=np.uint64)
            segments = _diagonal_segments(block.rows, block.cols, step, layout.row_length)
            for lo, hi, shift in segments:
                start = lo * stride + step - shift
                slots[lo:hi] = entries[start : start + (hi - lo - 1) * stride + 1 : stride]
            yield slots


def _matrix_residues(
    matrix: object, shape: MatrixShape, modulus: int, where: str
) -> npt.NDArray[np.uint64]:
    """`matrix` as a (rows, cols) uint64 array of residues mod t."""
    array = np.asarray(matrix)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"{where} must be an integer matrix (a numpy array of an integer dtype), got "
            f"dtype {array.dtype}"
        )
    if array.shape != (shape.rows, shape.cols):
        raise ValueError(
            f"{where} must have shape ({shape.rows}, {shape.cols}) as declared, got "
            f"{array.shape}"
        )
    return reduce_mod(array, modulus)


def reduce_mod(array: npt.NDArray[Any], modulus: int) -> npt.NDArray[np.uint64]:
    """An integer array's entries mod `modulus` (< 2^63), as uint64.

    numpy's signed remainder is several times slower than its unsigned one,
    so negative entries are first lifted by a multiple of the modulus.
    """
    if array.size == 0:
        return array.astype(np.uint64)
    low, high = int(array.min()), int(array.max())
    if 0 <= low and high < modulus:
        return array.astype(np.uint64)
    if low >= 0:
        return array.astype(np.uint64) % np.uint64(modulus)
    lift = -(low // modulus) * modulus  # the least multiple of the modulus >= -low
    if high + lift >= 2**63:  # the lift would overflow int64: the slow, exact way
        return np.mod(array, modulus).astype(np.uint64)
    lifted = array.astype(np.int64) + np.int64(lift)
    return lifted.view(np.uint64) % np.uint64(modulus)
