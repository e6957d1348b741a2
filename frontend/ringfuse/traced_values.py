"""The value proxies: what a circuit computes with while it is traced.

A traced function receives `Encrypted` and `Plain` proxies instead of values.
They hold no number, only an SSA name in one trace: each Python operator on
them (`+ - * **`, unary `-`, `rotate`, `swap_rows`, `sum`) picks a `bfv` op
and records it with the tracer, and anything that would need the value
(`if`, `bool()`, comparisons, `len()`) raises `TraceError`. `rf.Encrypted[n]`
and `rf.Plain[n]` annotate a parameter that is a list of n inputs
(parameter_kinds.py); the third proxy, `rf.PlainMatrix`, is in plain_matrix.py.

Constants: an int or a 1-D numpy integer array met in an operation is reduced
mod t; a scalar is broadcast to every slot, an array of length L fills slots
0..L-1 and leaves the rest zero. `traced_outputs` checks what a circuit
returned.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

try:
    import numpy as np
except ImportError:  # numpy is only needed by circuits that use array constants
    np = None  # type: ignore[assignment]

from . import ir_printer
from .parameter_kinds import InputList, input_list
from .tracing import TraceError

if TYPE_CHECKING:
    from .tracing import Tracer

__all__ = [
    "Constant",
    "Encrypted",
    "Operand",
    "Plain",
    "Proxy",
    "traced_outputs",
]

_CONTROL_FLOW_HINT = (
    "{kind} cannot be used in Python control flow (`if`, `while`, `and`/`or`/`not`, "
    "comparisons): its value is unknown until {when}. Use arithmetic instead "
    "(e.g. multiply by a 0/1 mask)"
)
_PLAINTEXT_ONLY_HINT = (
    "both operands are plaintext; a circuit computes on encrypted values — "
    "compute plaintext-only expressions in numpy before the call"
)
_OPERAND_KINDS = "rf.Encrypted, rf.Plain, an int, or a 1-D numpy integer array"


# --------------------------------------------------------------------------
# Proxies: the values a circuit computes with while it is traced
# --------------------------------------------------------------------------


class _Proxy:
    """What Encrypted, Plain and PlainMatrix share: a place in a trace, no Python value."""

    # Makes numpy return NotImplemented from `array op proxy`, so Python calls
    # our reflected operator instead of numpy broadcasting over the proxy.
    __array_ufunc__ = None
    __hash__ = None  # type: ignore[assignment]

    _kind_name = "value"
    _known_when = "the circuit runs"
    # Only rf.PlainMatrix's proxy: lets the `@` errors here name it without an
    # import cycle (plain_matrix.py builds on this module).
    _is_matrix = False

    def __init__(self, tracer: Tracer, value: str, label: str | None = None) -> None:
        self._tracer = tracer
        self._value = value  # the SSA name
        self._label = label  # the parameter name, for inputs

    def __repr__(self) -> str:
        what = self._label if self._label is not None else self._value
        return f"<rf.{type(self).__name__} {what} in a trace of {self._tracer.circuit.name}>"

    def _refuse_python_use(self, use: str) -> NoReturn:
        hint = _CONTROL_FLOW_HINT.format(kind=_describe_kind(self), when=self._known_when)
        raise TraceError(f"{use}: {hint}")

    def __bool__(self) -> NoReturn:
        self._refuse_python_use(f"bool({_describe(self)})")

    def __int__(self) -> NoReturn:
        self._refuse_python_use(f"int({_describe(self)})")

    def __float__(self) -> NoReturn:
        self._refuse_python_use(f"float({_describe(self)})")

    def __complex__(self) -> NoReturn:
        self._refuse_python_use(f"complex({_describe(self)})")

    def __index__(self) -> NoReturn:
        self._refuse_python_use(f"using {_describe(self)} as an index")

    def __len__(self) -> NoReturn:
        self._refuse_python_use(f"len({_describe(self)})")

    def __iter__(self) -> NoReturn:
        self._refuse_python_use(f"iter({_describe(self)})")

    def _compare(self, other: object, operator: str) -> NoReturn:
        self._refuse_python_use(f"{_describe(self)} {operator} {_describe(other)}")

    def __eq__(self, other: object) -> NoReturn:
        self._compare(other, "==")

    def __ne__(self, other: object) -> NoReturn:
        self._compare(other, "!=")

    def __lt__(self, other: object) -> NoReturn:
        self._compare(other, "<")

    def __le__(self, other: object) -> NoReturn:
        self._compare(other, "<=")

    def __gt__(self, other: object) -> NoReturn:
        self._compare(other, ">")

    def __ge__(self, other: object) -> NoReturn:
        self._compare(other, ">=")


class Encrypted(_Proxy):
    """An encrypted input (as a parameter annotation) and, while a circuit is
    traced, every encrypted value it computes.

    Supports `+ - *` with Encrypted, Plain, ints and 1-D numpy integer arrays
    (on either side, all mod t), unary `-`, `x ** k`, `x.rotate(k)`,
    `x.swap_rows()` and `x.sum()`.

    >>> @rf.circuit
    ... def f(x: rf.Encrypted, y: rf.Encrypted):
    ...     return (x * y + 3).rotate(1)
    """

    _kind_name = "encrypted value"
    _known_when = "decryption"

    def __class_getitem__(cls, length: int) -> InputList:
        """`rf.Encrypted[n]`: a parameter that is a list of n encrypted inputs.

        >>> def f(xs: rf.Encrypted[3]):
        ...     return xs[0] * xs[1] + xs[2]
        """
        return input_list("encrypted", length)

    def _derived(self, value: str) -> Encrypted:
        return Encrypted(self._tracer, value)

    # -- binary arithmetic -------------------------------------------------

    def __add__(self, other: Operand) -> Encrypted:
        return self._add(other, _Expression(self, "+", other))

    def __radd__(self, other: Operand) -> Encrypted:
        return self._add(other, _Expression(other, "+", self))

    def __sub__(self, other: Operand) -> Encrypted:
        return self._subtract(other, _Expression(self, "-", other), reflected=False)

    def __rsub__(self, other: Operand) -> Encrypted:
        return self._subtract(other, _Expression(other, "-", self), reflected=True)

    def __mul__(self, other: Operand) -> Encrypted:
        return self._multiply(other, _Expression(self, "*", other))

    def __rmul__(self, other: Operand) -> Encrypted:
        return self._multiply(other, _Expression(other, "*", self))

    # Two ciphertexts always meet in the left operand's method (Python only tries
    # the reflected one when that fails), so `self` is the first operand there.

    def _add(self, other: Operand, expression: _Expression) -> Encrypted:
        operand = self._operand(other, expression)
        if isinstance(operand, Encrypted):
            return self._derived(
                self._tracer.emit(ir_printer.add(self._value, operand._value))
            )
        if _is_zero(operand):
            return self
        return self._plain_op("add_plain", self._plaintext_value(operand))

    def _subtract(self, other: Operand, expression: _Expression, reflected: bool) -> Encrypted:
        operand = self._operand(other, expression)
        if isinstance(operand, Encrypted):
            return self._derived(
                self._tracer.emit(ir_printer.sub(self._value, operand._value))
            )
        if not reflected:
            if _is_zero(operand):
                return self
            return self._plain_op("sub_plain", self._plaintext_value(operand))
        # p - x has no op of its own: it is (-x) + p. The constant is encoded
        # before the negation so that each encode comes at the first use of its value.
        if _is_zero(operand):
            return -self
        plaintext = self._plaintext_value(operand)
        return (-self)._plain_op("add_plain", plaintext)

    def _multiply(self, other: Operand, expression: _Expression) -> Encrypted:
        operand = self._operand(other, expression)
        if isinstance(operand, Encrypted):
            product = self._tracer.emit(ir_printer.mul(self._value, operand._value))
            # Users only ever see 2-component ciphertexts.
            return self._derived(self._tracer.emit(ir_printer.relinearize(product)))
        if isinstance(operand, Constant) and operand.is_scalar and operand.residues[0] == 1:
            return self
        return self._plain_op("mul_plain", self._plaintext_value(operand))

    def _operand(self, other: object, expression: _Expression) -> Encrypted | Plain | Constant:
        """Check that `other` can meet this value in an op; constants reduced mod t."""
        self._tracer.check_active(str(expression))
        if isinstance(other, _Proxy):
            self._tracer.check_owns(other, str(expression))
            if other._is_matrix:
                raise TypeError(
                    f"{expression}: cannot combine an encrypted value with a plaintext "
                    f"matrix; a matrix multiplies an encrypted vector with @ "
                    f"({_describe(other)} @ {_describe(self)})"
                )
            assert isinstance(other, (Encrypted, Plain))
            return other
        return _constant(other, self._tracer, expression)

    def _plaintext_value(self, operand: Plain | Constant) -> str:
        if isinstance(operand, Plain):
            return operand._value
        return self._tracer.encode(operand)

    def _plain_op(self, op_name: str, plaintext: str) -> Encrypted:
        operation = ir_printer.plain_op(op_name, self._value, plaintext)
        return self._derived(self._tracer.emit(operation))

    def _unary_op(self, op_name: str, expression: str) -> Encrypted:
        self._tracer.check_active(expression)
        return self._derived(self._tracer.emit(ir_printer.unary_op(op_name, self._value)))

    # -- unary and slot operations -------------------------------------------

    def __neg__(self) -> Encrypted:
        return self._unary_op("negate", f"-{_describe(self)}")

    def __pow__(self, exponent: int, modulo: None = None) -> Encrypted:
        """`x ** k` for an int k >= 1, by square-and-multiply.

        >>> x ** 5       # 3 multiplications: x^2, x^4, x^4 * x
        """
        expression = f"{_describe(self)} ** {exponent!r}"
        if modulo is not None:
            raise TypeError(
                f"pow({_describe(self)}, {exponent!r}, {modulo!r}): arithmetic is "
                "already mod t; pow() takes no third argument here"
            )
        if not _is_integer_scalar(exponent):
            raise TypeError(
                f"{expression}: the exponent must be an int, got {type(exponent).__name__}"
            )
        if exponent < 1:
            raise ValueError(
                f"{expression}: the exponent must be >= 1 (an encrypted value "
                "has no inverse to raise to a negative power, and x ** 0 is "
                "just the constant 1)"
            )
        self._tracer.check_active(expression)
        return self._power(int(exponent))

    def _power(self, exponent: int) -> Encrypted:
        # Left-to-right binary exponentiation: one squaring per bit after the
        # leading one and one extra product per further set bit.
        result = self
        for bit in bin(exponent)[3:]:
            result = result * result
            if bit == "1":
                result = result * self
        return result

    def rotate(self, steps: int) -> Encrypted:
        """Rotate each of the two rows of N/2 slots left by `steps` (right if negative).

        `steps == 0` returns the value unchanged. Once N is known, |steps| < N/2.

        >>> x.rotate(1)      # slot i of each row receives slot i + 1
        >>> x.rotate(-1)     # slot i + 1 receives slot i
        """
        expression = f"{_describe(self)}.rotate({steps!r})"
        if not _is_integer_scalar(steps):
            raise TypeError(
                f"{expression}: the rotation step must be an int, got {type(steps).__name__}"
            )
        steps = int(steps)
        if steps == 0:
            return self
        row_length = self._row_length()
        if row_length is not None and abs(steps) >= row_length:
            raise ValueError(
                f"{expression}: with N = {self._tracer.poly_modulus_degree} each row has "
                f"{row_length} slots, so the step must satisfy |step| < {row_length}"
            )
        self._tracer.check_active(expression)
        return self._derived(self._tracer.emit(ir_printer.rotate(self._value, steps)))

    def swap_rows(self) -> Encrypted:
        """Exchange the two rows of slots.

        >>> x.swap_rows()
        """
        return self._unary_op("swap_rows", f"{_describe(self)}.swap_rows()")

    def sum(self) -> Encrypted:
        """Every slot receives the sum of all slots (mod t).

        The compiler expands it into rotations and additions once N is chosen.

        >>> x.sum()
        """
        return self._unary_op("sum_slots", f"{_describe(self)}.sum()")

    def _row_length(self) -> int | None:
        degree = self._tracer.poly_modulus_degree
        return None if degree is None else degree // 2

    # `w @ x` is rf.PlainMatrix's; any other `@` is refused with what to write.
    def __matmul__(self, other: object) -> NoReturn:
        _refuse_matmul(self, other)

    def __rmatmul__(self, other: object) -> NoReturn:
        _refuse_matmul(other, self)

    # Division has no BFV counterpart; say so rather than "unsupported operand".
    def __truediv__(self, other: object) -> NoReturn:
        self._refuse_division(other, "/")

    def __floordiv__(self, other: object) -> NoReturn:
        self._refuse_division(other, "//")

    def _refuse_division(self, other: object, operator: str) -> NoReturn:
        raise TypeError(
            f"{_describe(self)} {operator} {_describe(other)}: an encrypted value cannot be "
            "divided; arithmetic is mod t, so multiply by the inverse mod t instead"
        )


class Plain(_Proxy):
    """A plaintext input (as a parameter annotation), supplied unencrypted when
    the compiled circuit runs. It can meet encrypted values in `+ - *`; on its
    own it cannot be computed with.

    >>> @rf.circuit
    ... def f(x: rf.Encrypted, w: rf.Plain):
    ...     return w * x - w
    """

    _kind_name = "plaintext input"
    _known_when = "the compiled circuit runs"

    def __class_getitem__(cls, length: int) -> InputList:
        """`rf.Plain[n]`: a parameter that is a list of n plaintext inputs.

        >>> def f(x: rf.Encrypted, ws: rf.Plain[2]):
        ...     return ws[0] * x + ws[1]
        """
        return input_list("plain", length)

    def __add__(self, other: Operand) -> Encrypted:
        return self._forward(other, "+", "__radd__")

    def __radd__(self, other: Operand) -> Encrypted:
        return self._refuse_plaintext_only(_Expression(other, "+", self))

    def __sub__(self, other: Operand) -> Encrypted:
        return self._forward(other, "-", "__rsub__")

    def __rsub__(self, other: Operand) -> Encrypted:
        return self._refuse_plaintext_only(_Expression(other, "-", self))

    def __mul__(self, other: Operand) -> Encrypted:
        return self._forward(other, "*", "__rmul__")

    def __rmul__(self, other: Operand) -> Encrypted:
        return self._refuse_plaintext_only(_Expression(other, "*", self))

    def __neg__(self) -> NoReturn:
        raise TypeError(
            f"-{_describe(self)}: the operand is plaintext; a circuit computes on "
            "encrypted values — compute plaintext-only expressions in numpy before the call"
        )

    def __matmul__(self, other: object) -> NoReturn:
        _refuse_matmul(self, other)

    def __rmatmul__(self, other: object) -> NoReturn:
        _refuse_matmul(other, self)

    def _forward(self, other: Operand, operator: str, reflected: str) -> Encrypted:
        if isinstance(other, Encrypted):
            result: Encrypted = getattr(other, reflected)(self)
            return result
        return self._refuse_plaintext_only(_Expression(self, operator, other))

    def _refuse_plaintext_only(self, expression: _Expression) -> NoReturn:
        if not _is_supported_operand(expression.left) or not _is_supported_operand(
            expression.right
        ):
            raise TypeError(
                f"{expression}: cannot combine a plaintext input with "
                f"{_describe_kind(expression.other_than(self))}; operands are {_OPERAND_KINDS}"
            )
        raise TypeError(f"{expression}: {_PLAINTEXT_ONLY_HINT}")


Proxy: TypeAlias = "Encrypted | Plain"
Operand: TypeAlias = "Encrypted | Plain | int | np.integer[Any] | np.ndarray[Any, Any]"


# eq=False: a generated __eq__ would compare proxies, and proxies refuse comparison.
@dataclass(frozen=True, eq=False)
class _Expression:
    """`left op right` as the user wrote it, for error messages."""

    left: object
    operator: str
    right: object

    def __str__(self) -> str:
        return f"{_describe(self.left)} {self.operator} {_describe(self.right)}"

    def other_than(self, value: object) -> object:
        return self.right if self.left is value else self.left


# --------------------------------------------------------------------------
# A circuit's outputs
# --------------------------------------------------------------------------


def traced_outputs(tracer: Tracer, result: object) -> list[Encrypted]:
    """What the traced function returned, as a list of its own encrypted values."""
    name = tracer.circuit.name
    if isinstance(result, (tuple, list)):
        if not result:
            raise TraceError(
                f"{name} returned an empty {type(result).__name__}; a circuit "
                "must return at least one encrypted value"
            )
        return [
            _check_output(tracer, item, f"output {i} of {name}") for i, item in enumerate(result)
        ]
    return [_check_output(tracer, result, f"the return value of {name}")]


def _check_output(tracer: Tracer, value: object, what: str) -> Encrypted:
    if isinstance(value, Encrypted):
        if value._tracer is not tracer:
            raise TraceError(
                f"{what} is an encrypted value from a trace of "
                f"{value._tracer.circuit.name}, not of {tracer.circuit.name}"
            )
        return value
    if value is None:
        found, hint = "None", "did you forget `return`?"
    elif isinstance(value, Plain):
        found = f"the plaintext input `{value._label}`"
        hint = "outputs are encrypted, so return a value computed from an encrypted input"
    elif isinstance(value, (tuple, list)):
        found = _describe_kind(value)
        hint = (
            "a circuit returns a flat tuple/list of encrypted values; unpack a list "
            "such as the blocks of w @ xs: `return (*ys, z)`"
        )
    else:
        found = _describe_kind(value)
        hint = "a circuit returns encrypted values (one, or a tuple/list of them)"
    raise TraceError(f"{what} is {found}, not an encrypted value; {hint}")


def _refuse_matmul(left: object, right: object) -> NoReturn:
    """`left @ right` where `left` is not an rf.PlainMatrix: say what to write."""
    expression = f"{_describe(left)} @ {_describe(right)}"
    if isinstance(right, _Proxy) and right._is_matrix:
        hint = (
            f"the matrix goes on the left: {_describe(right)} @ {_describe(left)} is the "
            "matrix times the vector in the encrypted value's slots"
        )
    elif isinstance(left, Plain):
        hint = (
            f"{_describe(left)} is an rf.Plain (one plaintext of slot values), not a matrix; "
            "annotate it rf.PlainMatrix[rows, cols] to multiply encrypted vectors by it, or "
            "use * for a slot-wise product"
        )
    elif _is_array(left):
        hint = (
            "a matrix is a run-time input of the circuit: declare a parameter "
            "`w: rf.PlainMatrix[rows, cols]`, write w @ x, and pass the array as w when "
            "the compiled program runs"
        )
    else:
        hint = (
            "@ multiplies an rf.PlainMatrix parameter by an encrypted vector (w @ x); "
            "use * for slot-wise products"
        )
    raise TraceError(f"{expression}: {hint}")


# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Constant:
    """A constant plaintext: residues mod t, broadcast (scalar) or slot-wise."""

    residues: tuple[int, ...]
    is_scalar: bool


def _constant(value: object, tracer: Tracer, expression: _Expression) -> Constant:
    """An int or 1-D integer array as residues mod t, or a TypeError/ValueError."""
    t = tracer.plaintext_modulus
    if _is_integer_scalar(value):
        return Constant((int(value) % t,), is_scalar=True)  # type: ignore[call-overload]
    if _is_array(value):
        return _array_constant(value, tracer, expression)
    hint = ""
    if isinstance(value, (list, tuple)):
        hint = "; wrap a list of slot values in np.array(..., dtype=np.int64)"
    elif isinstance(value, float) or (np is not None and isinstance(value, np.floating)):
        hint = "; BFV arithmetic is on integers mod t"
    raise TypeError(
        f"{expression}: cannot combine an encrypted value with {_describe_kind(value)}; "
        f"operands are {_OPERAND_KINDS}{hint}"
    )


def _array_constant(array: Any, tracer: Tracer, expression: _Expression) -> Constant:
    if not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            f"{expression}: a constant array must have an integer dtype, got {array.dtype}"
            " (BFV slots hold integers mod t)"
        )
    if array.ndim != 1:
        raise ValueError(
            f"{expression}: a constant array must be 1-D (one value per slot), got shape "
            f"{array.shape}"
        )
    if array.size == 0:
        raise ValueError(f"{expression}: a constant array must not be empty")
    degree = tracer.poly_modulus_degree
    if degree is not None and array.size > degree:
        raise ValueError(
            f"{expression}: a constant array has {array.size} values but N = {degree} "
            f"gives only {degree} slots"
        )
    t = tracer.plaintext_modulus
    # tolist() gives exact Python ints, so uint64 values reduce without overflow.
    return Constant(tuple(v % t for v in array.tolist()), is_scalar=False)


def _is_zero(operand: Plain | Constant) -> bool:
    return isinstance(operand, Constant) and operand.is_scalar and operand.residues[0] == 0


def _is_python_int(value: object) -> bool:
    # bool is an int subclass, but True as a modulus or constant is a mistake.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_integer_scalar(value: object) -> bool:
    return _is_python_int(value) or (np is not None and isinstance(value, np.integer))


def _is_array(value: object) -> bool:
    return np is not None and isinstance(value, np.ndarray)


def _is_supported_operand(value: object) -> bool:
    return isinstance(value, _Proxy) or _is_integer_scalar(value) or _is_array(value)


def _describe(value: object) -> str:
    """How a value reads inside an error message's expression."""
    if isinstance(value, _Proxy):
        return value._label if value._label is not None else "<encrypted>"
    if _is_integer_scalar(value):
        return repr(int(value))  # type: ignore[call-overload]
    if _is_array(value):
        return f"<{value.dtype} array of shape {value.shape}>"  # type: ignore[attr-defined]
    if isinstance(value, (float, bool)):
        return repr(value)
    return f"<{type(value).__name__}>"


def _describe_kind(value: object) -> str:
    """What a value is, as a noun phrase, for error messages."""
    if isinstance(value, _Proxy):
        return _with_article(value._kind_name)
    if value is None:
        return "None"
    if _is_array(value):
        return f"a numpy array of dtype {value.dtype}"  # type: ignore[attr-defined]
    return _with_article(type(value).__name__)


def _with_article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"
