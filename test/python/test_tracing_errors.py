"""What tracing refuses, with the message a user sees: Python control flow on
encrypted values, annotations, parameters, values of another trace.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

import ringfuse as rf
from tracing_helpers import (
    CT,
    PT,
    body,
)


# --------------------------------------------------------------------------
# Errors: control flow, annotations, parameters
# --------------------------------------------------------------------------

CONTROL_FLOW = "cannot be used in Python control flow"


def test_if_on_an_encrypted_value_is_a_trace_error():
    def f(x: rf.Encrypted):
        if x:
            return x
        return -x

    with pytest.raises(rf.TraceError) as raised:
        rf.trace(f)
    message = str(raised.value)
    assert message.startswith("bool(x): an encrypted value cannot be used in Python control flow")
    assert "multiply by a 0/1 mask" in message


def test_if_on_a_plaintext_input_is_a_trace_error():
    def f(x: rf.Encrypted, w: rf.Plain):
        return x if w else -x

    with pytest.raises(rf.TraceError, match=f"bool\\(w\\): a plaintext input {CONTROL_FLOW}"):
        rf.trace(f)


@pytest.mark.parametrize(
    ("use", "text"),
    [
        (lambda x, y: x == y, "x == y"),
        (lambda x, y: x != 3, "x != 3"),
        (lambda x, y: x < y, "x < y"),
        (lambda x, y: x <= y, "x <= y"),
        (lambda x, y: x > 0, "x > 0"),
        (lambda x, y: x >= y, "x >= y"),
        (lambda x, y: x and y, "bool(x)"),
        (lambda x, y: not y, "bool(y)"),
        (lambda x, y: int(x), "int(x)"),
        (lambda x, y: float(x), "float(x)"),
        (lambda x, y: len(x), "len(x)"),
        (lambda x, y: iter(x), "iter(x)"),
        (lambda x, y: list(range(x)), "using x as an index"),
        (lambda x, y: [1, 2][y], "using y as an index"),
    ],
)
def test_python_use_of_an_encrypted_value_is_a_trace_error(use: Callable[..., Any], text: str):
    def f(x: rf.Encrypted, y: rf.Encrypted):
        use(x, y)
        return x

    with pytest.raises(
        rf.TraceError, match=f"^{re.escape(text)}: an encrypted value {CONTROL_FLOW}"
    ):
        rf.trace(f)


def test_while_loop_on_an_encrypted_value_is_a_trace_error():
    def f(x: rf.Encrypted):
        while x:
            x = x - 1
        return x

    with pytest.raises(rf.TraceError, match=CONTROL_FLOW):
        rf.trace(f)


def test_encrypted_values_are_not_hashable():
    def f(x: rf.Encrypted):
        return {x: 1} and x

    with pytest.raises(TypeError, match="unhashable"):
        rf.trace(f)


def test_missing_annotation_names_the_parameter():
    def f(x: rf.Encrypted, weights):
        return x

    with pytest.raises(rf.TraceError, match="parameter `weights` of f has no annotation"):
        rf.circuit(f)


def test_other_annotation_names_the_parameter_and_the_annotation():
    def f(x: rf.Encrypted, n: int):
        return x

    with pytest.raises(
        rf.TraceError, match="parameter `n` of f is annotated int; .* rf.Encrypted or rf.Plain"
    ):
        rf.circuit(f)


def test_undecorated_function_without_annotations_is_rejected_by_trace():
    with pytest.raises(rf.TraceError, match="parameter `x` of <lambda> has no annotation"):
        rf.trace(lambda x: x)


def test_variadic_positional_parameters_are_rejected():
    def f(*xs: rf.Encrypted):
        return xs[0]

    with pytest.raises(rf.TraceError, match="parameter `xs` of f is variadic"):
        rf.circuit(f)


def test_variadic_keyword_parameters_are_rejected():
    def f(x: rf.Encrypted, **options: rf.Plain):
        return x

    with pytest.raises(rf.TraceError, match="parameter `options` of f is variadic"):
        rf.circuit(f)


def test_circuit_without_encrypted_parameter_is_rejected():
    def f(w: rf.Plain):
        return w

    with pytest.raises(rf.TraceError, match="f has no rf.Encrypted parameter"):
        rf.circuit(f)


def test_string_annotations_are_resolved():
    def f(x: rf.Encrypted, w: rf.Plain):
        return x * w

    # This module uses `from __future__ import annotations`, so these are strings.
    assert f.__annotations__ == {"x": "rf.Encrypted", "w": "rf.Plain"}
    assert rf.circuit(f).parameters == (("x", "encrypted"), ("w", "plain"))


def test_string_annotations_that_cannot_be_resolved_are_matched_by_name():
    def f(x: unimported_alias.Encrypted, w: Plain):  # noqa: F821 (unresolvable on purpose)
        return x * w

    assert rf.circuit(f).parameters == (("x", "encrypted"), ("w", "plain"))


def test_keyword_only_parameters_are_inputs_in_order():
    def f(x: rf.Encrypted, *, w: rf.Plain):
        return x + w

    t = rf.trace(f)
    assert t.inputs == [("x", "encrypted"), ("w", "plain")]
    assert body(t.mlir)[0] == "%0 = bfv.add_plain %arg0, %arg1"


def test_a_list_parameter_is_n_inputs_named_by_index():
    def f(xs: rf.Encrypted[3], ws: rf.Plain[2], *, y: rf.Encrypted):
        assert isinstance(xs, list) and len(xs) == 3
        return sum(xs[1:], xs[0]) * ws[0] + ws[1] - y

    t = rf.trace(f)
    assert t.inputs == [
        ("xs[0]", "encrypted"), ("xs[1]", "encrypted"), ("xs[2]", "encrypted"),
        ("ws[0]", "plain"), ("ws[1]", "plain"), ("y", "encrypted"),
    ]
    assert [(p.name, len(p.inputs)) for p in t.parameters] == [("xs", 3), ("ws", 2), ("y", 1)]
    assert f"@f(%arg0: {CT}, %arg1: {CT}, %arg2: {CT}, %arg3: {PT}, %arg4: {PT}, %arg5: {CT})" in (
        t.mlir
    )
    assert body(t.mlir)[:3] == [
        "%0 = bfv.add %arg0, %arg1",
        "%1 = bfv.add %0, %arg2",
        "%2 = bfv.mul_plain %1, %arg3",
    ]


def test_list_elements_name_themselves_in_errors():
    def f(xs: rf.Encrypted[2]):
        return xs[1] / 2

    with pytest.raises(TypeError, match=r"xs\[1\] / 2: an encrypted value cannot be divided"):
        rf.trace(f)


def test_list_annotations_written_as_text_are_resolved():
    def f(xs: rf.Encrypted[2], ws: rf.Plain[1]):
        return xs[0] * ws[0]

    assert f.__annotations__ == {"xs": "rf.Encrypted[2]", "ws": "rf.Plain[1]"}
    assert [kind for _, kind in rf.trace(f).inputs] == ["encrypted", "encrypted", "plain"]


def test_a_list_length_must_be_a_positive_int():
    with pytest.raises(rf.TraceError, match=r"rf.Encrypted\[0\]: the length of a list"):
        rf.Encrypted[0]


def test_values_from_two_traces_cannot_be_mixed():
    leaked: list[rf.Encrypted] = []

    def first(x: rf.Encrypted):
        leaked.append(x)
        return x

    def second(y: rf.Encrypted):
        return y * leaked[0]

    rf.trace(first)
    with pytest.raises(
        rf.TraceError, match=r"y \* x: the operands come from different traces \(second and first\)"
    ):
        rf.trace(second)


def test_returning_a_value_from_another_trace_is_rejected():
    leaked: list[rf.Encrypted] = []

    def first(x: rf.Encrypted):
        leaked.append(x)
        return x

    def second(y: rf.Encrypted):
        return leaked[0]

    rf.trace(first)
    with pytest.raises(
        rf.TraceError, match="an encrypted value from a trace of first, not of second"
    ):
        rf.trace(second)


def test_value_used_after_its_trace_finished_is_rejected():
    leaked: list[rf.Encrypted] = []

    def f(x: rf.Encrypted):
        leaked.append(x)
        return x

    rf.trace(f)
    with pytest.raises(rf.TraceError, match="that has already finished"):
        leaked[0] + 1


def test_errors_inside_the_circuit_propagate_unchanged():
    def f(x: rf.Encrypted):
        raise KeyError("from the user's code")

    with pytest.raises(KeyError, match="from the user's code"):
        rf.trace(f)
