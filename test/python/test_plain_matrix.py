"""Plaintext matrices (`rf.PlainMatrix[rows, cols]`, `w @ x`) and lists of inputs
(`rf.Encrypted[n]`, `rf.Plain[n]`).

Three layers: the trace (which diagonals become inputs, which rotations are
emitted, merged when N is known, the errors); the client's diagonals, checked
against numpy by replaying the traced sum on plain vectors (so large shapes
are checked without compiling them); and end to end on the CPU target, every
result compared with numpy's `(W @ x) % t`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import ringfuse as rf
from ringfuse.parameter_kinds import InputList, MatrixShape
from ringfuse.plain_matrix import MatrixLayout, diagonal_slots, matrix_layout, reduce_mod
from runtime_support import SEED, python_environment, toy_params

T = 65537
Vector = npt.NDArray[np.int64]


def rotation_steps(mlir: str) -> list[int]:
    return [int(step) for step in re.findall(r"bfv\.rotate %\w+ by (-?\d+)", mlir)]


def op_count(mlir: str, op: str) -> int:
    return len(re.findall(rf"= bfv\.{op} ", mlir))


def matrix_circuit(rows: int, cols: int, n: int | None = None) -> rf.Circuit:
    """`w @ x` for a rows x cols matrix (N fixed to n if given)."""

    def product(w, x):
        return w @ x

    # Set, not written: under `from __future__ import annotations` an annotation
    # is text evaluated in the module's globals, where rows and cols are not.
    product.__annotations__ = {"w": rf.PlainMatrix[rows, cols], "x": rf.Encrypted}
    product.__name__ = f"matrix_{rows}x{cols}" + ("" if n is None else f"_n{n}")
    return rf.circuit(plaintext_modulus=T, poly_modulus_degree=n)(product)


# --------------------------------------------------------------------------
# Annotations
# --------------------------------------------------------------------------


def test_subscripted_annotations_stand_for_lists_and_matrices():
    assert rf.Encrypted[3] == InputList("encrypted", 3)
    assert rf.Plain[2] == InputList("plain", 2)
    assert rf.PlainMatrix[4, 5] == MatrixShape(4, 5)

    def f(xs: rf.Encrypted[2], ws: rf.Plain[3], w: rf.PlainMatrix[4, 5], x: rf.Encrypted):
        return x

    circuit = rf.circuit(f)
    assert circuit.parameters == (
        ("xs", InputList("encrypted", 2)),
        ("ws", InputList("plain", 3)),
        ("w", MatrixShape(4, 5)),
        ("x", "encrypted"),
    )
    assert "f(xs: Encrypted[2], ws: Plain[3], w: PlainMatrix[4, 5], x: Encrypted)" in repr(circuit)


def test_unresolvable_string_annotations_are_read_by_name_and_int_literals():
    def f(xs: alias.Encrypted[2], w: PlainMatrix[4, 5]):  # noqa: F821 (unresolvable on purpose)
        return w @ xs[0]

    assert rf.circuit(f).parameters == (("xs", InputList("encrypted", 2)), ("w", MatrixShape(4, 5)))


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: rf.Encrypted[0], r"rf.Encrypted\[0\]: the length .* a positive int"),
        (lambda: rf.Plain["3"], r"rf.Plain\['3'\]: the length .* a positive int"),
        (lambda: rf.Encrypted[True], r"a positive int"),
        (lambda: rf.PlainMatrix[3], r"rf.PlainMatrix\[3\]: .* two positive ints"),
        (lambda: rf.PlainMatrix[0, 2], r"two positive ints"),
        (lambda: rf.PlainMatrix[2, 3, 4], r"two positive ints"),
        (lambda: rf.PlainMatrix[2**16 + 1, 2], r"limited to 65536"),
    ],
)
def test_bad_lengths_and_shapes_are_trace_errors(make: Callable[[], object], message: str):
    with pytest.raises(rf.TraceError, match=message):
        make()


def test_a_matrix_without_a_shape_is_refused():
    def f(x: rf.Encrypted, w: rf.PlainMatrix):
        return x

    with pytest.raises(rf.TraceError, match=r"`w` of f is annotated rf.PlainMatrix without"):
        rf.circuit(f)


def test_a_list_of_encrypted_inputs_makes_a_circuit_encrypted():
    def f(xs: rf.Encrypted[2], w: rf.PlainMatrix[2, 2]):
        return w @ xs[1]

    rf.circuit(f)  # no "has no rf.Encrypted parameter"


# --------------------------------------------------------------------------
# Tracing w @ x
# --------------------------------------------------------------------------


def test_square_product_has_one_input_and_rotation_per_diagonal():
    traced = rf.trace(matrix_circuit(8, 8))
    names = [name for name, _ in traced.inputs]
    assert names == [f"w.diag[{k}]" for k in range(-7, 8)] + ["x"]
    assert rotation_steps(traced.mlir) == [k for k in range(-7, 8) if k != 0]
    assert (op_count(traced.mlir, "mul_plain"), op_count(traced.mlir, "add")) == (15, 14)
    # Every product is a diagonal input times x or a rotation of x: no constants.
    assert "bfv.encode" not in traced.mlir
    (matrix,) = [p for p in traced.parameters if p.name == "w"]
    assert matrix.layout is not None and matrix.layout.row_length is None


@pytest.mark.parametrize("rows, cols", [(5, 12), (12, 5), (1, 7), (7, 1), (1, 1)])
def test_rectangular_products_rotate_by_every_offset(rows: int, cols: int):
    traced = rf.trace(matrix_circuit(rows, cols))
    offsets = range(-(rows - 1), cols)
    assert [name for name, _ in traced.inputs][:-1] == [f"w.diag[{k}]" for k in offsets]
    assert rotation_steps(traced.mlir) == [k for k in offsets if k != 0]


def test_known_n_merges_offsets_a_row_apart_into_one_input():
    # N = 64: rows of 32 slots; offsets -19..24 fall into 32 classes, each
    # represented by its member in [25 - 32, 24].
    traced = rf.trace(matrix_circuit(20, 25, n=64))
    steps = rotation_steps(traced.mlir)
    assert steps == [k for k in range(-7, 25) if k != 0]
    assert len(traced.inputs) == 32 + 1
    assert all(abs(k) < 32 for k in steps)


def test_known_n_leaves_offsets_alone_when_they_fit_a_row():
    assert rotation_steps(rf.trace(matrix_circuit(8, 8, n=64)).mlir) == [
        k for k in range(-7, 8) if k != 0
    ]


def test_params_given_to_trace_fix_n_for_the_layout():
    traced = rf.trace(matrix_circuit(20, 25), params=toy_params(64))
    assert len(traced.inputs) == 33


@pytest.mark.parametrize("size, n", [(4096, 8192), (2048, 4096)])
def test_a_full_row_matrix_has_a_diagonal_per_slot_and_one_rotation_fewer(size: int, n: int):
    traced = rf.trace(matrix_circuit(size, size, n=n))
    steps = rotation_steps(traced.mlir)
    assert len(traced.inputs) == size + 1
    assert steps == list(range(1, size))
    assert max(abs(k) for k in steps) < n // 2


def test_a_matrix_wider_than_a_row_is_cut_into_blocks():
    def f(w: rf.PlainMatrix[40, 50], xs: rf.Encrypted[2]):
        return w @ xs

    traced = rf.trace(rf.circuit(plaintext_modulus=T, poly_modulus_degree=64)(f))
    names = [name for name, _ in traced.inputs]
    # Blocks 32x32, 32x18, 8x32, 8x18: min(rows + cols - 1, 32) diagonals each.
    for prefix, count in [("w.block[0][0]", 32), ("w.block[0][1]", 32),
                          ("w.block[1][0]", 32), ("w.block[1][1]", 25)]:
        assert sum(name.startswith(prefix + ".diag[") for name in names) == count
    assert names[-2:] == ["xs[0]", "xs[1]"]
    assert traced.num_outputs == 2
    # A rotation of a block of x is emitted once, for both row blocks.
    steps = rotation_steps(traced.mlir)
    assert len(steps) == len(set(zip(steps, re.findall(r"bfv\.rotate (%\w+)", traced.mlir))))
    assert len(steps) == 31 + 31
    assert op_count(traced.mlir, "mul_plain") == 32 + 32 + 32 + 25


def test_a_matrix_taller_than_a_row_takes_one_ciphertext_and_gives_a_list():
    def f(w: rf.PlainMatrix[40, 20], x: rf.Encrypted):
        ys = w @ x
        assert isinstance(ys, list) and len(ys) == 2
        return ys

    assert rf.trace(rf.circuit(poly_modulus_degree=64)(f)).num_outputs == 2


def test_a_list_of_one_block_gives_a_list_back():
    def f(w: rf.PlainMatrix[4, 4], x: rf.Encrypted):
        (y,) = w @ [x]
        return y

    rf.trace(rf.circuit(poly_modulus_degree=64)(f))


def test_a_matrix_used_twice_shares_its_diagonal_inputs():
    def f(w: rf.PlainMatrix[3, 3], x: rf.Encrypted, y: rf.Encrypted):
        return w @ x + w @ y

    traced = rf.trace(f)
    assert len(traced.inputs) == 5 + 2
    assert op_count(traced.mlir, "mul_plain") == 10


# --------------------------------------------------------------------------
# Tracing errors
# --------------------------------------------------------------------------


def trace_error(function: Callable[..., object], n: int | None = None) -> str:
    with pytest.raises(rf.TraceError) as raised:
        rf.trace(rf.circuit(poly_modulus_degree=n)(function))
    return str(raised.value)


def test_plain_times_encrypted_with_at_says_to_declare_a_matrix():
    def f(w: rf.Plain, x: rf.Encrypted):
        return w @ x

    assert "w @ x: w is an rf.Plain" in trace_error(f)
    assert "rf.PlainMatrix[rows, cols]" in trace_error(f)


def test_vector_times_matrix_says_the_matrix_goes_on_the_left():
    def f(w: rf.PlainMatrix[2, 2], x: rf.Encrypted):
        return x @ w

    assert "x @ w: the matrix goes on the left: w @ x" in trace_error(f)


def test_at_between_ciphertexts_and_with_numpy_arrays_is_refused():
    def ciphertexts(x: rf.Encrypted, y: rf.Encrypted):
        return x @ y

    def array(x: rf.Encrypted):
        return np.eye(2, dtype=np.int64) @ x

    assert "use * for slot-wise products" in trace_error(ciphertexts)
    assert "declare a parameter `w: rf.PlainMatrix[rows, cols]`" in trace_error(array)


def test_a_matrix_times_something_not_encrypted_is_refused():
    def f(w: rf.PlainMatrix[2, 2], x: rf.Encrypted, p: rf.Plain):
        return w @ p

    assert "must be an encrypted vector (rf.Encrypted) or a list of them" in trace_error(f)


def test_a_matrix_in_slot_arithmetic_is_refused():
    def f(w: rf.PlainMatrix[2, 2], x: rf.Encrypted):
        return x + w

    with pytest.raises(TypeError, match=r"x \+ w: cannot combine .* a plaintext matrix"):
        rf.trace(f)


def test_a_list_needs_a_known_n():
    def f(w: rf.PlainMatrix[4, 4], xs: rf.Encrypted[1]):
        return w @ xs

    assert "leaves N to the compiler" in trace_error(f)


def test_the_number_of_blocks_must_match_the_columns():
    def f(w: rf.PlainMatrix[4, 50], xs: rf.Encrypted[3]):
        return w @ xs

    message = trace_error(f, n=64)
    assert "w has 50 columns, which at N = 64 (32 slots a row) make 2 blocks" in message
    assert "got a list of 3 ciphertexts" in message


def test_one_ciphertext_cannot_hold_more_columns_than_a_row():
    def f(w: rf.PlainMatrix[4, 50], x: rf.Encrypted):
        return w @ x

    assert "pass x as a list of 2 ciphertexts" in trace_error(f, n=64)


def test_blocks_of_x_must_be_encrypted():
    def f(w: rf.PlainMatrix[4, 50], x: rf.Encrypted, p: rf.Plain):
        return w @ [x, p]

    assert "block 1 of x is a plaintext input" in trace_error(f, n=64)


def test_returning_the_list_of_blocks_inside_a_tuple_says_to_unpack_it():
    def f(w: rf.PlainMatrix[40, 4], x: rf.Encrypted):
        return w @ x, x

    assert "unpack a list" in trace_error(f, n=64)


# --------------------------------------------------------------------------
# The client's diagonals: the traced sum replayed on plain vectors
# --------------------------------------------------------------------------


def replay(layout: MatrixLayout, matrix: Vector, x: Vector, n: int) -> Vector:
    """What the traced sum computes on x (laid out in blocks of N/2 slots)
    from the diagonals the client encodes: y_r = sum_c,k diag * rotate(x_c, k)."""
    row_length = n // 2
    col_blocks = -(-layout.shape.cols // row_length)
    x_blocks = [np.zeros(row_length, dtype=object) for _ in range(col_blocks)]
    for c in range(col_blocks):
        part = x[c * row_length : (c + 1) * row_length]
        x_blocks[c][: part.size] = part
    y_blocks = [np.zeros(row_length, dtype=object) for _ in range(layout.row_blocks)]
    diagonals = diagonal_slots(layout, reduce_mod(matrix, T))
    for block in layout.blocks:
        for step in block.steps:
            diagonal = np.zeros(row_length, dtype=object)
            slots = next(diagonals)
            diagonal[: slots.size] = slots
            y_blocks[block.block_row] += diagonal * np.roll(x_blocks[block.block_col], -step)
    return np.concatenate(y_blocks)[: layout.shape.rows] % T


@pytest.mark.parametrize(
    "rows, cols, traced_n, run_n",
    [
        (8, 8, None, 64),
        (5, 12, None, 64),
        (12, 5, None, 64),
        # Made without N, run where offsets a row apart are different inputs.
        (20, 25, None, 64),
        (20, 25, 64, 64),  # merged
        (32, 32, 64, 64),  # a full row
        (40, 50, 64, 64),  # blocks
        (70, 9, 64, 64),  # three row blocks, one column block
        (1100, 1000, 4096, 4096),  # merged at the smallest secure N for t = 65537
    ],
)
def test_the_diagonals_compute_the_matrix_product(
    rows: int, cols: int, traced_n: int | None, run_n: int
):
    rng = np.random.default_rng(rows * 1000 + cols)
    matrix, x = rng.integers(-3 * T, 3 * T, (rows, cols)), rng.integers(0, T, cols)
    layout = matrix_layout(MatrixShape(rows, cols), traced_n)
    np.testing.assert_array_equal(replay(layout, matrix, x, run_n), (matrix % T) @ x % T)


def test_reduction_mod_t_is_exact_for_every_integer_dtype():
    extremes = np.array([np.iinfo(np.int64).min, -1, 0, T, np.iinfo(np.int64).max])
    for array in [extremes, np.array([-(2**40), 2**40 + 3]), np.arange(-300, 300, dtype=np.int16)]:
        expected = [int(v) % T for v in array.tolist()]
        assert reduce_mod(array, T).tolist() == expected
    top = np.array([2**64 - 1, 2**63], dtype=np.uint64)
    assert reduce_mod(top, T).tolist() == [(2**64 - 1) % T, 2**63 % T]


# --------------------------------------------------------------------------
# End to end on the CPU target
# --------------------------------------------------------------------------

TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
Compiled = Callable[..., tuple[rf.Program, rf.KeySet]]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Compiled]:
    """`compiled(circuit, params=None)`: the program and its keys, made once."""
    configured = os.environ.get("RINGFUSE_CACHE_DIR")
    cache_dir = Path(configured) if configured else tmp_path_factory.mktemp("ringfuse-cache")
    made: dict[tuple[str, int | None], tuple[rf.Program, rf.KeySet]] = {}

    def get(circuit: rf.Circuit, params: rf.Params | None = None) -> tuple[rf.Program, rf.KeySet]:
        key = (circuit.name, None if params is None else params.poly_modulus_degree)
        if key not in made:
            program = rf.compile(circuit, TARGET, params=params, cache_dir=cache_dir)
            made[key] = (program, program.keygen(seed=SEED))
        return made[key]

    yield get


def decrypted_blocks(keys: rf.KeySet, outputs: rf.Ciphertext | Sequence[rf.Ciphertext]) -> Vector:
    """The first rows of the outputs' slots, one block of N/2 each, joined;
    every other slot must be zero."""
    outputs = [outputs] if isinstance(outputs, rf.Ciphertext) else list(outputs)
    row_length = keys.params.poly_modulus_degree // 2
    rows = [keys.decrypt(output) for output in outputs]
    for slots in rows:
        assert not slots[row_length:].any(), "the second row of slots must stay zero"
    return np.concatenate([slots[:row_length] for slots in rows])


def check_product(keys: rf.KeySet, outputs: object, matrix: Vector, x: Vector) -> None:
    got = decrypted_blocks(keys, outputs)  # type: ignore[arg-type]
    expected = np.zeros(got.size, dtype=np.int64)
    expected[: matrix.shape[0]] = (matrix % T) @ x % T
    np.testing.assert_array_equal(got, expected)


SECURE_SHAPES = [(8, 8), (5, 12), (12, 5)]
MATRICES = {shape: matrix_circuit(*shape) for shape in SECURE_SHAPES}
MERGED = {shape: matrix_circuit(*shape, n=64) for shape in [(20, 25), (32, 32)]}


@pytest.mark.needs_compiler
@pytest.mark.parametrize("rows, cols", SECURE_SHAPES)
def test_matrix_times_encrypted_vector_at_secure_parameters(
    compiled: Compiled, rows: int, cols: int
):
    program, keys = compiled(MATRICES[(rows, cols)])
    assert not program.params.insecure
    rng = np.random.default_rng(rows * 100 + cols)
    # Signed entries beyond t: the program reduces them mod t.
    matrix, x = rng.integers(-2 * T, 2 * T, (rows, cols)), rng.integers(0, T, cols)
    check_product(keys, program(w=matrix, x=keys.encrypt(x)), matrix, x)
    # Positionally, and with a narrow dtype.
    small = rng.integers(-100, 100, (rows, cols)).astype(np.int8)
    check_product(keys, program(small, keys.encrypt(x)), small.astype(np.int64), x)


@pytest.mark.needs_compiler
@pytest.mark.parametrize("rows, cols", sorted(MERGED))
def test_merged_diagonals_at_a_fixed_n(compiled: Compiled, rows: int, cols: int):
    # rows + cols - 1 > N/2 = 32: offsets a row apart share one input.
    program, keys = compiled(MERGED[(rows, cols)], toy_params(64))
    assert len(program.inputs) == 32 + 1
    rng = np.random.default_rng(rows + cols)
    matrix, x = rng.integers(0, T, (rows, cols)), rng.integers(0, T, cols)
    check_product(keys, program(w=matrix, x=keys.encrypt(x)), matrix, x)


@pytest.mark.needs_compiler
def test_a_matrix_given_again_is_reused_and_one_changed_in_place_is_not(compiled: Compiled):
    # The encodings (Python) and prepared words (runtime) of the last matrix
    # are kept: an equal array reuses them, one changed in place between
    # calls, or of another dtype, must not.
    program, keys = compiled(MATRICES[(8, 8)])
    rng = np.random.default_rng(88)
    matrix, x = rng.integers(0, T, (8, 8)), rng.integers(0, T, 8)
    ciphertext = keys.encrypt(x)
    check_product(keys, program(w=matrix, x=ciphertext), matrix, x)
    check_product(keys, program(w=matrix.copy(), x=ciphertext), matrix, x)
    matrix[3, 5] = (matrix[3, 5] + 1) % T
    check_product(keys, program(w=matrix, x=ciphertext), matrix, x)
    narrow = (matrix % 100).astype(np.int16)
    check_product(keys, program(w=narrow, x=ciphertext), narrow.astype(np.int64), x)


@rf.circuit(plaintext_modulus=T, poly_modulus_degree=64)
def block_product(w: rf.PlainMatrix[40, 50], xs: rf.Encrypted[2]):
    return w @ xs


@rf.circuit(plaintext_modulus=T, poly_modulus_degree=64)
def tall_product(w: rf.PlainMatrix[40, 20], x: rf.Encrypted):
    return w @ x


@pytest.mark.needs_compiler
def test_a_block_matrix_takes_and_returns_lists_of_blocks(compiled: Compiled):
    program, keys = compiled(block_product, toy_params(64))
    rng = np.random.default_rng(40)
    matrix, x = rng.integers(0, T, (40, 50)), rng.integers(0, T, 50)
    xs = (keys.encrypt(x[:32]), keys.encrypt(x[32:]))
    outputs = program(w=matrix, xs=xs)
    assert isinstance(outputs, tuple) and len(outputs) == 2
    check_product(keys, outputs, matrix, x)

    program, keys = compiled(tall_product, toy_params(64))
    matrix, x = rng.integers(0, T, (40, 20)), rng.integers(0, T, 20)
    check_product(keys, program(matrix, keys.encrypt(x)), matrix, x)


@rf.circuit(plaintext_modulus=T)
def list_inputs(xs: rf.Encrypted[3], ws: rf.Plain[2], w: rf.PlainMatrix[6, 6]):
    return xs[0] * ws[0] + xs[1] * ws[1] - xs[2], w @ xs[2]


@pytest.mark.needs_compiler
def test_lists_of_inputs_take_lists_of_values(compiled: Compiled):
    program, keys = compiled(list_inputs)
    names = [name for name, _ in program.inputs]
    assert names[:6] == ["xs[0]", "xs[1]", "xs[2]", "ws[0]", "ws[1]", "w.diag[-5]"]
    assert "list_inputs(xs: rf.Encrypted[3], ws: rf.Plain[2], w: rf.PlainMatrix[6, 6])" in repr(
        program
    )
    n = program.params.slot_count
    rng = np.random.default_rng(3)
    x = [rng.integers(0, T, n) for _ in range(3)]
    w = [rng.integers(0, T, n) for _ in range(2)]
    matrix = rng.integers(0, T, (6, 6))
    encrypted = [keys.encrypt(values) for values in x]
    expected = (x[0] * w[0] % T + x[1] * w[1] % T - x[2]) % T
    for arguments in [
        dict(xs=encrypted, ws=w, w=matrix),
        dict(xs=tuple(encrypted), ws=np.stack(w), w=matrix),  # a 2-D array: one row each
        dict(xs=encrypted, ws=[keys.encode(w[0]), w[1]], w=matrix),
    ]:
        sums, product = program(**arguments)
        np.testing.assert_array_equal(keys.decrypt(sums), expected)
        check_product(keys, product, matrix, x[2][:6])
    sums, _ = program(encrypted, w, matrix)  # positionally
    np.testing.assert_array_equal(keys.decrypt(sums), expected)


@pytest.mark.needs_compiler
def test_wrong_arguments_for_lists_and_matrices_are_clear_errors(compiled: Compiled):
    program, keys = compiled(list_inputs)
    n = program.params.slot_count
    encrypted = [keys.encrypt(np.arange(n) % T) for _ in range(3)]
    w, matrix = [np.ones(n, dtype=np.int64)] * 2, np.eye(6, dtype=np.int64)
    with pytest.raises(
        ValueError, match=r"'xs' of list_inputs \(rf.Encrypted\[3\]\) takes 3 values, got 2"
    ):
        program(xs=encrypted[:2], ws=w, w=matrix)
    with pytest.raises(TypeError, match=r"'xs' .* a list or tuple of 3 rf.Ciphertexts, got a Cip"):
        program(xs=encrypted[0], ws=w, w=matrix)
    with pytest.raises(
        TypeError, match=r"argument 'xs\[1\]' of list_inputs \(rf.Encrypted\) must be an rf.Ciph"
    ):
        program(xs=[encrypted[0], w[0], encrypted[2]], ws=w, w=matrix)
    with pytest.raises(TypeError, match=r"argument 'ws\[0\]' .* is a plaintext input"):
        program(xs=encrypted, ws=[encrypted[0], w[1]], w=matrix)
    with pytest.raises(ValueError, match=r"'w' .* must have shape \(6, 6\) as declared, got \(6, 5"):
        program(xs=encrypted, ws=w, w=matrix[:, :5])
    with pytest.raises(TypeError, match=r"'w' .* must be an integer matrix .* got dtype float64"):
        program(xs=encrypted, ws=w, w=matrix.astype(np.float64))
    with pytest.raises(TypeError, match="missing an argument for parameter 'w'"):
        program(xs=encrypted, ws=w)


# --------------------------------------------------------------------------
# A ringfusec executable, its inputs encoded from its JSON
# --------------------------------------------------------------------------


MATRIX_CIRCUIT_FILE = """\
import ringfuse as rf


@rf.circuit(plaintext_modulus=65537)
def layer(m: rf.PlainMatrix[6, 10], x: rf.Encrypted):
    return m @ x
"""


def test_ringfusec_executable_takes_a_matrix_encoded_from_its_description(
    tmp_path: Path,
) -> None:
    (tmp_path / "circuit.py").write_text(MATRIX_CIRCUIT_FILE)
    completed = subprocess.run(
        [sys.executable, "-m", "ringfuse.ringfusec", "circuit.py", "-o", "layer"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
        env=python_environment(),
    )
    assert completed.returncode == 0, completed.stderr
    params = rf.Params.load(tmp_path / "layer.params")
    needs = json.loads((tmp_path / "layer.json").read_text())
    matrix = needs["matrices"]["m"]
    assert (matrix["rows"], matrix["cols"], matrix["row_length"]) == (6, 10, None)
    assert [item["name"] for item in needs["inputs"]] == [*matrix["inputs"], "x"]
    keys = params.keygen(galois_elements=needs["galois_elements"], seed=SEED)
    keys.save_evaluation_keys(tmp_path / "eval.rfkeys")
    rng = np.random.default_rng(31)
    m = rng.integers(-5, 5, (6, 10))
    x = rng.integers(0, T, params.slot_count)
    files = []
    for name, plaintext in zip(matrix["inputs"], rf.encode_matrix(matrix, m, params), strict=True):
        plaintext.save(tmp_path / f"{name}.rfpt")
        files.append(str(tmp_path / f"{name}.rfpt"))
    keys.encrypt(x).save(tmp_path / "x.rfct")
    completed = subprocess.run(
        [str(tmp_path / "layer"), "--keys", str(tmp_path / "eval.rfkeys"),
         "--in", *files, str(tmp_path / "x.rfct"), "--out", str(tmp_path / "y.rfct")],
        capture_output=True, text=True, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    expected = np.zeros(params.slot_count, dtype=np.int64)
    expected[:6] = (m @ x[:10]) % T
    decrypted = keys.decrypt(rf.Ciphertext.load(tmp_path / "y.rfct", params))
    np.testing.assert_array_equal(decrypted, expected)
    with pytest.raises(ValueError, match="the description names 2 inputs"):
        rf.encode_matrix({**matrix, "inputs": ["a", "b"]}, m, params)
