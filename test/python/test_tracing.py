"""Tracing Python circuits into `bfv` IR text: the module and every operation
(its refusals: test_tracing_errors.py; the decorator, the driver and the
compiler round trips: test_circuit_driver.py).

Most tests read the emitted IR through `body()` (tracing_helpers.py), which
keeps each op's result, name and operands and drops the types, so an assertion
reads like the program.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ringfuse as rf
from tracing_helpers import (
    CT,
    PT,
    T,
    arithmetic_mix,
    body,
    documented_example,
    multi_output,
    op_counts,
    op_names,
    plaintext_ops,
    power_five,
    product_chain,
    quickstart,
    rotations,
    traced,
    unrolled_loop,
)


# --------------------------------------------------------------------------
# The module as a whole
# --------------------------------------------------------------------------


def test_documented_example_traces_to_the_documented_module_text():
    expected = f"""#params = #bfv.params<t = 65537>
module {{
  func.func @documented_example(%arg0: {CT}, %arg1: {CT}, %arg2: {PT}) -> ({CT}, {CT}) {{
    %0 = bfv.mul %arg0, %arg1 : {CT} -> !bfv.ciphertext<#params, 3>
    %1 = bfv.relinearize %0 : !bfv.ciphertext<#params, 3> -> {CT}
    %2 = bfv.mul_plain %arg0, %arg2 : {CT}, {PT}
    %3 = bfv.add %1, %2 : {CT}
    %4 = bfv.sub %3, %arg0 : {CT}
    %5 = bfv.negate %4 : {CT}
    %6 = bfv.encode 7 : i64 -> {PT}
    %7 = bfv.add_plain %5, %6 : {CT}, {PT}
    %8 = bfv.encode dense<[1, 2, 3]> : tensor<3xi64> -> {PT}
    %9 = bfv.sub_plain %7, %8 : {CT}, {PT}
    %10 = bfv.rotate %9 by 3 : {CT}
    %11 = bfv.rotate %10 by -1 : {CT}
    %12 = bfv.swap_rows %11 : {CT}
    %13 = bfv.sum_slots %12 : {CT}
    return %13, %1 : {CT}, {CT}
  }}
}}
"""
    assert rf.trace(documented_example).mlir == expected


def test_known_ring_degree_appears_in_the_params_attribute():
    mlir = traced(quickstart, plaintext_modulus=257, poly_modulus_degree=8192)
    assert mlir.splitlines()[0] == "#params = #bfv.params<t = 257, N = 8192>"


def test_unknown_ring_degree_is_left_out_of_the_params_attribute():
    assert rf.trace(quickstart).mlir.splitlines()[0] == "#params = #bfv.params<t = 65537>"


def test_arguments_are_typed_by_their_annotation_in_order():
    signature = rf.trace(quickstart).mlir.splitlines()[2]
    assert f"@quickstart(%arg0: {CT}, %arg1: {CT}, %arg2: {PT}) -> {CT} {{" in signature


def test_single_output_result_type_needs_no_parentheses():
    signature = rf.trace(power_five).mlir.splitlines()[2]
    assert signature.endswith(f") -> {CT} {{")


def test_function_name_that_is_not_a_bare_identifier_is_quoted():
    square = lambda x: x * x  # noqa: E731 (a lambda is the point here)
    square.__annotations__ = {"x": rf.Encrypted}
    assert 'func.func @"<lambda>"(' in rf.trace(square).mlir


def test_function_name_with_quote_and_unicode_is_escaped():
    def f(x: rf.Encrypted):
        return x

    f.__name__ = 'a"b\u00e9'
    assert 'func.func @"a\\22b\\C3\\A9"(' in rf.trace(f).mlir


def test_unicode_identifier_is_quoted():
    def café(x: rf.Encrypted):
        return x

    assert 'func.func @"caf\\C3\\A9"(' in rf.trace(café).mlir


def test_trace_reports_inputs_and_number_of_outputs():
    t = rf.trace(rf.circuit(plaintext_ops))
    assert t.inputs == [("x", "encrypted"), ("w", "plain")]
    assert t.num_outputs == 4
    assert t.name == "plaintext_ops"
    assert (t.plaintext_modulus, t.poly_modulus_degree) == (65537, None)


# --------------------------------------------------------------------------
# 1. Arithmetic: add, sub, negate
# --------------------------------------------------------------------------


def test_add_sub_and_negate_are_emitted_in_program_order():
    assert body(rf.trace(arithmetic_mix).mlir) == [
        "%0 = bfv.add %arg0, %arg1",
        "%1 = bfv.sub %0, %arg2",
        "%2 = bfv.negate %1",
        "return %2",
    ]


def test_ciphertext_subtraction_keeps_operand_order():
    def f(x: rf.Encrypted, y: rf.Encrypted):
        return y - x

    assert body(rf.trace(f).mlir) == ["%0 = bfv.sub %arg1, %arg0", "return %0"]


def test_adding_zero_and_multiplying_by_one_emit_nothing():
    def f(x: rf.Encrypted):
        return ((x + 0) - 0) * 1 * (T + 1) + T

    assert body(rf.trace(f).mlir) == ["return %arg0"]


def test_zero_minus_encrypted_is_just_a_negation():
    def f(x: rf.Encrypted):
        return 0 - x

    assert body(rf.trace(f).mlir) == ["%0 = bfv.negate %arg0", "return %0"]


def test_multiplying_by_zero_still_emits_the_product():
    def f(x: rf.Encrypted):
        return x * 0

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.encode 0",
        "%1 = bfv.mul_plain %arg0, %0",
        "return %1",
    ]


def test_builtin_sum_over_encrypted_values_adds_them():
    def f(x: rf.Encrypted, y: rf.Encrypted, z: rf.Encrypted):
        return sum([x, y, z])

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.add %arg0, %arg1",
        "%1 = bfv.add %0, %arg2",
        "return %1",
    ]


# --------------------------------------------------------------------------
# 2. Multiplication and powers
# --------------------------------------------------------------------------


def test_depth_four_product_chain_emits_four_mul_relinearize_pairs():
    mlir = rf.trace(product_chain).mlir
    assert op_names(mlir) == ["mul", "relinearize"] * 4
    assert body(mlir)[-3:] == [
        "%6 = bfv.mul %5, %arg4",
        "%7 = bfv.relinearize %6",
        "return %7",
    ]


def test_each_mul_is_relinearized_before_its_result_is_used():
    lines = body(rf.trace(product_chain).mlir)
    for i in range(0, 8, 2):
        product = lines[i].split(" = ")[0]
        assert lines[i + 1] == f"%{i + 1} = bfv.relinearize {product}"
    assert lines[2].startswith("%2 = bfv.mul %1, %arg2")


def test_mul_result_type_has_three_components_until_relinearized():
    lines = rf.trace(product_chain).mlir.splitlines()
    mul = next(line for line in lines if "bfv.mul " in line)
    relin = next(line for line in lines if "bfv.relinearize" in line)
    assert mul.endswith(f": {CT} -> !bfv.ciphertext<#params, 3>")
    assert relin.endswith(f": !bfv.ciphertext<#params, 3> -> {CT}")


def test_power_five_uses_three_multiplications():
    assert body(rf.trace(power_five).mlir) == [
        "%0 = bfv.mul %arg0, %arg0",
        "%1 = bfv.relinearize %0",
        "%2 = bfv.mul %1, %1",
        "%3 = bfv.relinearize %2",
        "%4 = bfv.mul %3, %arg0",
        "%5 = bfv.relinearize %4",
        "return %5",
    ]


@pytest.mark.parametrize(
    ("exponent", "multiplications"),
    [(1, 0), (2, 1), (3, 2), (4, 2), (7, 4), (8, 3), (16, 4), (17, 5)],
)
def test_power_uses_square_and_multiply(exponent: int, multiplications: int):
    def f(x: rf.Encrypted):
        return x**exponent

    counts = op_counts(rf.trace(f).mlir)
    assert counts["mul"] == multiplications
    assert counts["relinearize"] == multiplications


@pytest.mark.parametrize("exponent", [0, -1])
def test_power_with_exponent_below_one_is_rejected(exponent: int):
    def f(x: rf.Encrypted):
        return x**exponent

    with pytest.raises(ValueError, match=r"x \*\* -?\d+: the exponent must be >= 1"):
        rf.trace(f)


@pytest.mark.parametrize("exponent", [2.0, True, "2"])
def test_power_with_non_integer_exponent_is_rejected(exponent: object):
    def f(x: rf.Encrypted):
        return x**exponent

    with pytest.raises(TypeError, match="the exponent must be an int"):
        rf.trace(f)


def test_division_is_rejected_with_a_hint():
    def f(x: rf.Encrypted):
        return x / 2

    with pytest.raises(TypeError, match=r"x / 2: an encrypted value cannot be divided"):
        rf.trace(f)


# --------------------------------------------------------------------------
# 3. Plaintext inputs
# --------------------------------------------------------------------------


def test_plain_operand_ops_put_the_ciphertext_first():
    assert body(rf.trace(plaintext_ops).mlir) == [
        "%0 = bfv.add_plain %arg0, %arg1",
        "%1 = bfv.sub_plain %0, %arg1",
        "%2 = bfv.mul_plain %arg0, %arg1",
        "%3 = bfv.negate %arg0",
        "%4 = bfv.add_plain %3, %arg1",
        "%5 = bfv.add_plain %arg0, %arg1",
        "return %1, %2, %4, %5",
    ]


def test_plain_on_the_left_of_multiplication_is_mul_plain():
    def f(x: rf.Encrypted, w: rf.Plain):
        return w * (x * x)

    assert body(rf.trace(f).mlir)[-2:] == ["%2 = bfv.mul_plain %1, %arg1", "return %2"]


def test_plain_minus_encrypted_negates_the_ciphertext_then_adds_the_plaintext():
    def f(x: rf.Encrypted, w: rf.Plain):
        return w - x

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.negate %arg0",
        "%1 = bfv.add_plain %0, %arg1",
        "return %1",
    ]


def test_plain_op_types_name_ciphertext_then_plaintext():
    mlir = rf.trace(plaintext_ops).mlir
    assert f"bfv.add_plain %arg0, %arg1 : {CT}, {PT}" in mlir


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        (lambda w, v: w * v, "w * v"),
        (lambda w, v: w + 2, "w + 2"),
        (lambda w, v: 2 * w, "2 * w"),
        (lambda w, v: w - np.array([1, 2]), "w - <int64 array of shape (2,)>"),
        (lambda w, v: np.array([1, 2]) - v, "<int64 array of shape (2,)> - v"),
    ],
)
def test_plaintext_only_expression_is_rejected(expression: Callable[..., Any], text: str):
    def f(x: rf.Encrypted, w: rf.Plain, v: rf.Plain):
        return x + expression(w, v)

    with pytest.raises(TypeError) as raised:
        rf.trace(f)
    assert str(raised.value) == (
        f"{text}: both operands are plaintext; a circuit computes on encrypted values — "
        "compute plaintext-only expressions in numpy before the call"
    )


def test_negating_a_plaintext_input_is_rejected():
    def f(x: rf.Encrypted, w: rf.Plain):
        return x + (-w)

    with pytest.raises(TypeError, match="-w: the operand is plaintext"):
        rf.trace(f)


def test_plaintext_with_unsupported_type_names_both_kinds():
    def f(x: rf.Encrypted, w: rf.Plain):
        return x + w * 1.5

    with pytest.raises(TypeError, match=r"w \* 1.5: cannot combine a plaintext input with a float"):
        rf.trace(f)


# --------------------------------------------------------------------------
# 4. Rotations, row swap, slot sum
# --------------------------------------------------------------------------


def test_rotation_by_positive_step_rotates_left():
    def f(x: rf.Encrypted):
        return x.rotate(5)

    assert body(rf.trace(f).mlir) == ["%0 = bfv.rotate %arg0 by 5", "return %0"]


def test_rotation_by_negative_step_rotates_right():
    def f(x: rf.Encrypted):
        return x.rotate(-2)

    assert body(rf.trace(f).mlir) == ["%0 = bfv.rotate %arg0 by -2", "return %0"]


def test_rotation_by_zero_emits_nothing():
    def f(x: rf.Encrypted):
        return x.rotate(0)

    assert body(rf.trace(f).mlir) == ["return %arg0"]


def test_rotations_swap_and_sum_chain_in_order():
    assert body(rf.trace(rotations).mlir) == [
        "%0 = bfv.rotate %arg0 by 3",
        "%1 = bfv.rotate %0 by -1",
        "%2 = bfv.swap_rows %1",
        "%3 = bfv.sum_slots %2",
        "return %3",
    ]


def test_slot_sum_is_a_single_op_until_n_is_chosen():
    def f(x: rf.Encrypted):
        return x.sum()

    assert op_names(traced(f, poly_modulus_degree=8192)) == ["sum_slots"]


@pytest.mark.parametrize("step", [4, -4, 100])
def test_rotation_step_of_half_n_or_more_is_rejected_when_n_is_known(step: int):
    def f(x: rf.Encrypted):
        return x.rotate(step)

    with pytest.raises(
        ValueError, match=r"each row has 4 slots, so the step must satisfy \|step\| < 4"
    ):
        traced(f, poly_modulus_degree=8)


@pytest.mark.parametrize("step", [3, -3])
def test_rotation_step_just_below_half_n_is_accepted(step: int):
    def f(x: rf.Encrypted):
        return x.rotate(step)

    assert body(traced(f, poly_modulus_degree=8))[0] == f"%0 = bfv.rotate %arg0 by {step}"


def test_rotation_step_is_unbounded_while_n_is_unknown():
    def f(x: rf.Encrypted):
        return x.rotate(40000)

    assert body(rf.trace(f).mlir)[0] == "%0 = bfv.rotate %arg0 by 40000"


@pytest.mark.parametrize("step", [1.0, True, "1"])
def test_rotation_by_non_integer_is_rejected(step: object):
    def f(x: rf.Encrypted):
        return x.rotate(step)  # type: ignore[arg-type]

    with pytest.raises(TypeError, match="the rotation step must be an int"):
        rf.trace(f)


def test_rotation_accepts_numpy_integer_step():
    def f(x: rf.Encrypted):
        return x.rotate(np.int32(2))

    assert body(rf.trace(f).mlir)[0] == "%0 = bfv.rotate %arg0 by 2"


# --------------------------------------------------------------------------
# 5. Several outputs
# --------------------------------------------------------------------------


def test_tuple_of_outputs_is_returned_in_order():
    def f(x: rf.Encrypted, y: rf.Encrypted):
        return x + y, x - y

    t = rf.trace(f)
    assert body(t.mlir)[-1] == "return %0, %1"
    assert f") -> ({CT}, {CT}) {{" in t.mlir
    assert t.num_outputs == 2


def test_list_of_outputs_is_accepted_like_a_tuple():
    def f(x: rf.Encrypted, y: rf.Encrypted):
        return [x * y, -x, y]

    t = rf.trace(f)
    assert body(t.mlir)[-1] == "return %1, %2, %arg1"
    assert t.num_outputs == 3


def test_same_value_returned_twice_and_input_returned_directly():
    t = rf.trace(multi_output)
    assert body(t.mlir) == ["%0 = bfv.add %arg0, %arg1", "return %0, %0, %arg0"]
    assert t.mlir.count(f"return %0, %0, %arg0 : {CT}, {CT}, {CT}") == 1


def test_input_returned_unchanged_is_a_valid_circuit():
    def identity(x: rf.Encrypted):
        return x

    assert body(rf.trace(identity).mlir) == ["return %arg0"]


@pytest.mark.parametrize(
    ("returned", "message"),
    [
        (lambda x, w: w, "is the plaintext input `w`, not an encrypted value"),
        (lambda x, w: 3, "is an int, not an encrypted value"),
        (lambda x, w: np.array([1]), "is a numpy array of dtype int64, not an encrypted value"),
        (lambda x, w: None, "is None, not an encrypted value; did you forget `return`?"),
        (lambda x, w: (), "returned an empty tuple"),
        (lambda x, w: [], "returned an empty list"),
        (lambda x, w: (x, w), "output 1 of f is the plaintext input `w`"),
        (lambda x, w: ((x, x),), "output 0 of f is a tuple"),
    ],
)
def test_returning_something_other_than_encrypted_values_is_rejected(
    returned: Callable[..., Any], message: str
):
    def f(x: rf.Encrypted, w: rf.Plain):
        return returned(x, w)

    with pytest.raises(rf.TraceError, match=re.escape(message)):
        rf.trace(f)


# --------------------------------------------------------------------------
# 6. Constants
# --------------------------------------------------------------------------


def test_scalar_constant_is_encoded_as_i64_and_broadcast():
    def f(x: rf.Encrypted):
        return x + 5

    mlir = rf.trace(f).mlir
    assert f"%0 = bfv.encode 5 : i64 -> {PT}" in mlir
    assert body(mlir) == ["%0 = bfv.encode 5", "%1 = bfv.add_plain %arg0, %0", "return %1"]


@pytest.mark.parametrize(("value", "residue"), [(-1, 16), (-17, 0), (20, 3), (-35, 16), (1000, 14)])
def test_integer_constants_are_reduced_mod_t(value: int, residue: int):
    def f(x: rf.Encrypted):
        return x * value

    assert body(traced(f, plaintext_modulus=17))[0] == f"%0 = bfv.encode {residue}"


def test_integer_minus_encrypted_encodes_then_negates_then_adds():
    def f(x: rf.Encrypted):
        return 10 - x

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.encode 10",
        "%1 = bfv.negate %arg0",
        "%2 = bfv.add_plain %1, %0",
        "return %2",
    ]


def test_encrypted_minus_integer_is_sub_plain():
    def f(x: rf.Encrypted):
        return x - 10

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.encode 10",
        "%1 = bfv.sub_plain %arg0, %0",
        "return %1",
    ]


def test_array_constant_is_encoded_as_dense_i64_tensor():
    def f(x: rf.Encrypted):
        return x * np.array([4, 5, 6])

    mlir = rf.trace(f).mlir
    assert f"%0 = bfv.encode dense<[4, 5, 6]> : tensor<3xi64> -> {PT}" in mlir
    assert body(mlir)[1] == "%1 = bfv.mul_plain %arg0, %0"


def test_array_on_the_left_is_the_same_op():
    def f(x: rf.Encrypted):
        return np.array([4, 5, 6]) * x + np.array([1], dtype=np.uint8)

    assert body(rf.trace(f).mlir) == [
        "%0 = bfv.encode dense<[4, 5, 6]>",
        "%1 = bfv.mul_plain %arg0, %0",
        "%2 = bfv.encode dense<[1]>",
        "%3 = bfv.add_plain %1, %2",
        "return %3",
    ]


def test_array_values_are_reduced_mod_t_including_negatives():
    def f(x: rf.Encrypted):
        return x + np.array([-1, 17, 35, 2**62], dtype=np.int64)

    assert (
        body(traced(f, plaintext_modulus=17))[0]
        == f"%0 = bfv.encode dense<[16, 0, 1, {2**62 % 17}]>"
    )


def test_uint64_array_values_reduce_exactly():
    def f(x: rf.Encrypted):
        return x + np.array([2**64 - 1], dtype=np.uint64)

    assert body(rf.trace(f).mlir)[0] == f"%0 = bfv.encode dense<[{(2**64 - 1) % T}]>"


def test_numpy_integer_scalar_is_a_scalar_constant():
    def f(x: rf.Encrypted):
        return x * np.int64(3)

    assert body(rf.trace(f).mlir)[0] == "%0 = bfv.encode 3"


def test_identical_constants_are_encoded_once_at_first_use():
    def f(x: rf.Encrypted, y: rf.Encrypted):
        a = x * y
        b = a + 3
        c = b * np.array([1, 2])
        d = c + (3 + T)  # the same residue as 3
        return d * np.array([1, 2]) - 3

    lines = body(rf.trace(f).mlir)
    assert lines == [
        "%0 = bfv.mul %arg0, %arg1",
        "%1 = bfv.relinearize %0",
        "%2 = bfv.encode 3",
        "%3 = bfv.add_plain %1, %2",
        "%4 = bfv.encode dense<[1, 2]>",
        "%5 = bfv.mul_plain %3, %4",
        "%6 = bfv.add_plain %5, %2",
        "%7 = bfv.mul_plain %6, %4",
        "%8 = bfv.sub_plain %7, %2",
        "return %8",
    ]


def test_scalar_and_one_element_array_are_different_constants():
    def f(x: rf.Encrypted):
        return x + 7 + np.array([7])

    assert op_counts(rf.trace(f).mlir)["encode"] == 2


@pytest.mark.parametrize("dtype", [np.bool_, np.float64, np.complex128, object])
def test_array_with_non_integer_dtype_is_rejected(dtype: Any):
    def f(x: rf.Encrypted):
        return x * np.array([1, 0], dtype=dtype)

    with pytest.raises(TypeError, match="a constant array must have an integer dtype"):
        rf.trace(f)


@pytest.mark.parametrize(
    ("array", "message"),
    [
        (np.array([[1, 2]]), r"must be 1-D \(one value per slot\), got shape \(1, 2\)"),
        (np.array(5), r"must be 1-D \(one value per slot\), got shape \(\)"),
        (np.array([], dtype=np.int64), "must not be empty"),
    ],
)
def test_array_with_wrong_shape_is_rejected(array: Any, message: str):
    def f(x: rf.Encrypted):
        return x + array

    with pytest.raises(ValueError, match=message):
        rf.trace(f)


def test_array_longer_than_n_is_rejected_when_n_is_known():
    def f(x: rf.Encrypted):
        return x + np.arange(9)

    with pytest.raises(ValueError, match="has 9 values but N = 8 gives only 8 slots"):
        traced(f, poly_modulus_degree=8)


def test_array_of_exactly_n_values_is_accepted():
    def f(x: rf.Encrypted):
        return x + np.arange(8)

    assert (
        body(traced(f, poly_modulus_degree=8))[0]
        == "%0 = bfv.encode dense<[0, 1, 2, 3, 4, 5, 6, 7]>"
    )


@pytest.mark.parametrize(
    ("operand", "message"),
    [
        (1.5, r"x \* 1.5: cannot combine an encrypted value with a float"),
        ([1, 2], r"x \* <list>: cannot combine an encrypted value with a list.*np.array"),
        (True, r"x \* True: cannot combine an encrypted value with a bool"),
        ("3", r"x \* <str>: cannot combine an encrypted value with a str"),
    ],
)
def test_unsupported_constant_types_are_rejected(operand: object, message: str):
    def f(x: rf.Encrypted):
        return x * operand

    with pytest.raises(TypeError, match=message):
        rf.trace(f)


# --------------------------------------------------------------------------
# 7. Python loops unroll
# --------------------------------------------------------------------------


def test_python_loop_unrolls_into_repeated_ops():
    mlir = rf.trace(unrolled_loop).mlir
    counts = op_counts(mlir)
    assert counts == {"mul": 5, "relinearize": 5, "encode": 1, "add_plain": 5}
    lines = body(mlir)
    assert lines[:4] == [
        "%0 = bfv.mul %arg0, %arg0",
        "%1 = bfv.relinearize %0",
        "%2 = bfv.encode 7",
        "%3 = bfv.add_plain %1, %2",
    ]
    # Each iteration multiplies the previous accumulator by x and adds the shared constant.
    assert lines[4:7] == [
        "%4 = bfv.mul %3, %arg0",
        "%5 = bfv.relinearize %4",
        "%6 = bfv.add_plain %5, %2",
    ]
    assert lines[-1] == "return %15"
