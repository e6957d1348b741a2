"""Tracing: turn a Python function on encrypted values into `bfv` IR text.

A circuit is an ordinary Python function whose parameters are annotated
`rf.Encrypted` (a ciphertext input) or `rf.Plain` (a plaintext input). Tracing
calls it once with proxy values that record every operation, so Python loops
unroll and the result is one straight-line `func.func` in the `bfv` dialect.

All arithmetic is modulo the plaintext modulus t: Python ints and numpy arrays
used as constants are reduced mod t before they are encoded. A scalar constant
is broadcast to every slot; an array of length L fills slots 0..L-1 and leaves
the rest zero.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn, TypeAlias, TypeVar, overload

try:
    import numpy as np
except ImportError:  # numpy is only needed by circuits that use array constants
    np = None  # type: ignore[assignment]

from . import driver
from .params import Params
from .values import integer_or_none

__all__ = ["Circuit", "Encrypted", "Plain", "Trace", "TraceError", "circuit", "trace"]

InputKind = Literal["encrypted", "plain"]

DEFAULT_PLAINTEXT_MODULUS = 65537
MAX_POLY_MODULUS_DEGREE = 2**17
# The constants are printed as i64 attributes, so every residue must fit one.
PLAINTEXT_MODULUS_BOUND = 2**63

_CIPHERTEXT = "!bfv.ciphertext<#params, 2>"
_CIPHERTEXT_3 = "!bfv.ciphertext<#params, 3>"
_PLAINTEXT = "!bfv.plaintext<#params>"

_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")

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


class TraceError(Exception):
    """A circuit cannot be traced: a bad annotation, Python control flow on an
    encrypted value, a non-encrypted return value, and the like."""


# --------------------------------------------------------------------------
# Circuit: the decorated function and its parameters
# --------------------------------------------------------------------------


class Circuit:
    """A Python function declared as a BFV circuit by `@rf.circuit`.

    It is a description, not something to call: trace it with `rf.trace` to
    see its IR, or compile it with `rf.compile` to run it.

    >>> @rf.circuit(plaintext_modulus=65537)
    ... def f(x: rf.Encrypted, w: rf.Plain):
    ...     return x * w
    >>> f.parameters
    (('x', 'encrypted'), ('w', 'plain'))
    """

    def __init__(
        self,
        function: Callable[..., Any],
        plaintext_modulus: int = DEFAULT_PLAINTEXT_MODULUS,
        poly_modulus_degree: int | None = None,
    ) -> None:
        plaintext_modulus = _check_plaintext_modulus(plaintext_modulus)
        poly_modulus_degree = _check_poly_modulus_degree(poly_modulus_degree)
        # Keeps __doc__, __module__ and __wrapped__, so help() and inspect work;
        # first, so that the function's own attributes cannot shadow ours.
        functools.update_wrapper(self, function)
        self.function = function
        self.name: str = getattr(function, "__name__", type(function).__name__)
        self.plaintext_modulus = plaintext_modulus
        self.poly_modulus_degree = poly_modulus_degree
        self._signature = _signature_of(function, self.name)
        self.parameters: tuple[tuple[str, InputKind], ...] = _parameter_kinds(
            self._signature, self.name
        )

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            f"{self.name} is a circuit, not a function to call directly: compile it "
            f"with rf.compile({self.name}) and call the program it returns, or look "
            f"at its IR with rf.trace({self.name})"
        )

    def __repr__(self) -> str:
        params = ", ".join(
            f"{name}: {'Encrypted' if kind == 'encrypted' else 'Plain'}"
            for name, kind in self.parameters
        )
        size = f", N={self.poly_modulus_degree}" if self.poly_modulus_degree else ""
        return f"<rf.Circuit {self.name}({params}), t={self.plaintext_modulus}{size}>"


_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def circuit(function: _F, /) -> Circuit: ...


@overload
def circuit(
    *, plaintext_modulus: int = ..., poly_modulus_degree: int | None = ...
) -> Callable[[_F], Circuit]: ...


def circuit(
    function: Callable[..., Any] | None = None,
    /,
    *,
    plaintext_modulus: int = DEFAULT_PLAINTEXT_MODULUS,
    poly_modulus_degree: int | None = None,
) -> Circuit | Callable[[Callable[..., Any]], Circuit]:
    """Declare a function as a BFV circuit, with or without arguments.

    `plaintext_modulus` is t (all arithmetic is mod t); `poly_modulus_degree`
    is N, or None to let the compiler choose it from the circuit's depth.

    >>> @rf.circuit(plaintext_modulus=65537)
    ... def f(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    ...     return x * y + w * x
    >>> @rf.circuit                     # t = 65537
    ... def square(x: rf.Encrypted):
    ...     return x * x
    """
    if function is None:
        return lambda f: _declare(f, plaintext_modulus, poly_modulus_degree)
    return _declare(function, plaintext_modulus, poly_modulus_degree)


def _declare(
    function: Callable[..., Any], plaintext_modulus: int, poly_modulus_degree: int | None
) -> Circuit:
    if isinstance(function, Circuit):
        function = function.function
    if not callable(function):
        raise TypeError(
            f"rf.circuit expects a function, got {type(function).__name__}; pass the "
            "parameters by keyword: @rf.circuit(plaintext_modulus=65537)"
        )
    return Circuit(function, plaintext_modulus, poly_modulus_degree)


def _check_plaintext_modulus(t: object) -> int:
    modulus = integer_or_none(t)
    if modulus is None:
        raise TypeError(f"plaintext_modulus must be an int, got {type(t).__name__}")
    if not 2 <= modulus < PLAINTEXT_MODULUS_BOUND:
        raise ValueError(f"plaintext_modulus must be in [2, 2**63), got {t}")
    return modulus


def _check_poly_modulus_degree(n: object) -> int | None:
    if n is None:
        return None
    degree = integer_or_none(n)
    if degree is None:
        raise TypeError(f"poly_modulus_degree must be an int or None, got {type(n).__name__}")
    if not (2 <= degree <= MAX_POLY_MODULUS_DEGREE and degree & (degree - 1) == 0):
        raise ValueError(
            f"poly_modulus_degree must be a power of two in [2, 2**17] or None, got {n}"
        )
    return degree


def _signature_of(function: Callable[..., Any], name: str) -> inspect.Signature:
    try:
        # eval_str resolves annotations written under `from __future__ import annotations`.
        return inspect.signature(function, eval_str=True)
    except (NameError, AttributeError, SyntaxError):
        # An annotation names something not visible from the function's globals
        # (e.g. `import ringfuse as rf` inside a function): fall back to the text.
        return inspect.signature(function)
    except (TypeError, ValueError) as error:
        raise TraceError(f"cannot read the parameters of {name}: {error}") from error


def _parameter_kinds(
    signature: inspect.Signature, function_name: str
) -> tuple[tuple[str, InputKind], ...]:
    kinds = tuple(
        (parameter.name, _parameter_kind(parameter, function_name))
        for parameter in signature.parameters.values()
    )
    if not any(kind == "encrypted" for _, kind in kinds):
        raise TraceError(
            f"{function_name} has no rf.Encrypted parameter; a circuit computes on "
            "encrypted inputs, so at least one parameter must be annotated rf.Encrypted"
        )
    return kinds


def _parameter_kind(parameter: inspect.Parameter, function_name: str) -> InputKind:
    where = f"parameter `{parameter.name}` of {function_name}"
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        raise TraceError(
            f"{where} is variadic (*args/**kwargs); a circuit has a fixed list of "
            "inputs, each annotated rf.Encrypted or rf.Plain"
        )
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        raise TraceError(
            f"{where} has no annotation; annotate it `{parameter.name}: rf.Encrypted` "
            f"(a ciphertext input) or `{parameter.name}: rf.Plain` (a plaintext input)"
        )
    if annotation is Encrypted or _names_class(annotation, "Encrypted"):
        return "encrypted"
    if annotation is Plain or _names_class(annotation, "Plain"):
        return "plain"
    raise TraceError(
        f"{where} is annotated {_annotation_text(annotation)}; a circuit parameter "
        "must be annotated rf.Encrypted or rf.Plain"
    )


def _names_class(annotation: object, class_name: str) -> bool:
    """An unevaluated string annotation such as "rf.Encrypted"."""
    return isinstance(annotation, str) and annotation.split(".")[-1] == class_name


def _annotation_text(annotation: object) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation)


# --------------------------------------------------------------------------
# Trace: the recorded IR
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Trace:
    """The `bfv` IR of one circuit, as recorded by `rf.trace`.

    >>> t = rf.trace(f)
    >>> print(t.mlir)                   # the IR text
    >>> t.inputs
    [('x', 'encrypted'), ('y', 'encrypted'), ('w', 'plain')]
    >>> t.num_outputs
    1
    """

    name: str
    mlir: str
    inputs: list[tuple[str, InputKind]]
    num_outputs: int
    plaintext_modulus: int
    poly_modulus_degree: int | None

    def verify(self) -> str:
        """Parse and verify the IR with `ringfuse-opt`; return what it prints.

        Raises `CompilerError` with the compiler's diagnostics if it rejects it.

        >>> print(rf.trace(f).verify())
        """
        return driver.run_opt(self.mlir)


def trace(function: Circuit | Callable[..., Any], *, params: Params | None = None) -> Trace:
    """Trace a circuit (or an undecorated, annotated function) into `bfv` IR.

    The function runs once on proxy values; Python loops unroll. With `params`
    (an `rf.Params` of the circuit's t, and of its N if it fixed one), the IR
    carries the whole parameter set, which the compiler then keeps.

    >>> def f(x: rf.Encrypted, w: rf.Plain):
    ...     return x * x + w
    >>> print(rf.trace(f).mlir)
    >>> rf.trace(f, params=params).mlir.splitlines()[0]
    '#params = #bfv.params<t = 65537, N = 64, Q = [...], P = [...], dnum = 1>'
    """
    declared = function if isinstance(function, Circuit) else circuit(function)
    if params is not None:
        _check_params_fit(declared, params)
    tracer = _Tracer(declared, params)
    args, kwargs = tracer.input_proxies()
    try:
        result = declared.function(*args, **kwargs)
    finally:
        # Proxies that escape (stored in a global, say) must not keep recording.
        tracer.finished = True
    outputs = tracer.collect_outputs(result)
    return Trace(
        name=declared.name,
        mlir=tracer.render_module(outputs),
        inputs=list(declared.parameters),
        num_outputs=len(outputs),
        plaintext_modulus=declared.plaintext_modulus,
        poly_modulus_degree=tracer.poly_modulus_degree,
    )


def _check_params_fit(declared: Circuit, params: object) -> None:
    """Given parameters must be the circuit's: same t, and same N if it fixed one."""
    if not isinstance(params, Params):
        raise TypeError(f"params must be an rf.Params or None, got {type(params).__name__}")
    if params.plaintext_modulus != declared.plaintext_modulus:
        raise ValueError(
            f"params have plaintext modulus t = {params.plaintext_modulus}, but "
            f"{declared.name} computes mod t = {declared.plaintext_modulus}; make the "
            f"parameters with plaintext_modulus={declared.plaintext_modulus}"
        )
    fixed = declared.poly_modulus_degree
    if fixed is not None and params.poly_modulus_degree != fixed:
        raise ValueError(
            f"{declared.name} fixes N = {fixed} (poly_modulus_degree), but params have "
            f"N = {params.poly_modulus_degree}"
        )


@dataclass(frozen=True)
class _Constant:
    """A constant plaintext: residues mod t, broadcast (scalar) or slot-wise."""

    residues: tuple[int, ...]
    is_scalar: bool

    def attribute(self) -> str:
        if self.is_scalar:
            return f"{self.residues[0]} : i64"
        values = ", ".join(map(str, self.residues))
        return f"dense<[{values}]> : tensor<{len(self.residues)}xi64>"


class _Tracer:
    """Records the ops of one trace as SSA text, numbering values as it goes."""

    def __init__(self, declared: Circuit, params: Params | None = None) -> None:
        self.circuit = declared
        self.params = params
        self.plaintext_modulus = declared.plaintext_modulus
        self.poly_modulus_degree = (
            declared.poly_modulus_degree if params is None else params.poly_modulus_degree
        )
        self.finished = False
        self._body: list[str] = []
        self._next_result = 0
        self._encoded: dict[_Constant, str] = {}

    def input_proxies(self) -> tuple[list[Proxy], dict[str, Proxy]]:
        args: list[Proxy] = []
        kwargs: dict[str, Proxy] = {}
        parameters = self.circuit._signature.parameters.values()
        for index, (parameter, (name, kind)) in enumerate(zip(parameters, self.circuit.parameters)):
            proxy_class = Encrypted if kind == "encrypted" else Plain
            proxy = proxy_class(self, f"%arg{index}", name)
            if parameter.kind == parameter.KEYWORD_ONLY:
                kwargs[name] = proxy
            else:
                args.append(proxy)
        return args, kwargs

    def emit(self, operation: str) -> str:
        result = f"%{self._next_result}"
        self._next_result += 1
        self._body.append(f"    {result} = {operation}")
        return result

    def encode(self, constant: _Constant) -> str:
        # Identical constants share one encode, placed at their first use.
        if constant not in self._encoded:
            self._encoded[constant] = self.emit(
                f"bfv.encode {constant.attribute()} -> {_PLAINTEXT}"
            )
        return self._encoded[constant]

    def check_active(self, expression: str) -> None:
        if self.finished:
            raise TraceError(
                f"{expression}: this value belongs to a trace of {self.circuit.name} "
                "that has already finished; values cannot outlive their trace"
            )

    def check_owns(self, proxy: _Proxy, expression: str) -> None:
        if proxy._tracer is not self:
            raise TraceError(
                f"{expression}: the operands come from different traces "
                f"({self.circuit.name} and {proxy._tracer.circuit.name}); a value "
                "can only be combined with values of its own circuit"
            )

    def collect_outputs(self, result: object) -> list[Encrypted]:
        name = self.circuit.name
        if isinstance(result, (tuple, list)):
            if not result:
                raise TraceError(
                    f"{name} returned an empty {type(result).__name__}; a circuit "
                    "must return at least one encrypted value"
                )
            return [
                self._check_output(item, f"output {i} of {name}") for i, item in enumerate(result)
            ]
        return [self._check_output(result, f"the return value of {name}")]

    def _check_output(self, value: object, what: str) -> Encrypted:
        if isinstance(value, Encrypted):
            if value._tracer is not self:
                raise TraceError(
                    f"{what} is an encrypted value from a trace of "
                    f"{value._tracer.circuit.name}, not of {self.circuit.name}"
                )
            return value
        if value is None:
            found, hint = "None", "did you forget `return`?"
        elif isinstance(value, Plain):
            found = f"the plaintext input `{value._label}`"
            hint = "outputs are encrypted, so return a value computed from an encrypted input"
        else:
            found = _describe_kind(value)
            hint = "a circuit returns encrypted values (one, or a tuple/list of them)"
        raise TraceError(f"{what} is {found}, not an encrypted value; {hint}")

    def render_module(self, outputs: Sequence[Encrypted]) -> str:
        arguments = ", ".join(
            f"%arg{i}: {_CIPHERTEXT if kind == 'encrypted' else _PLAINTEXT}"
            for i, (_, kind) in enumerate(self.circuit.parameters)
        )
        result_types = ", ".join([_CIPHERTEXT] * len(outputs))
        if len(outputs) > 1:
            result_types = f"({result_types})"
        returned = ", ".join(output._value for output in outputs)
        return "\n".join(
            [
                f"#params = {self._params_attribute()}",
                "module {",
                f"  func.func @{_symbol_name(self.circuit.name)}({arguments}) -> {result_types} {{",
                *self._body,
                f"    return {returned} : {', '.join([_CIPHERTEXT] * len(outputs))}",
                "  }",
                "}",
                "",
            ]
        )

    def _params_attribute(self) -> str:
        degree = f", N = {self.poly_modulus_degree}" if self.poly_modulus_degree else ""
        chosen = "" if self.params is None else _chosen_moduli(self.params)
        return f"#bfv.params<t = {self.plaintext_modulus}{degree}{chosen}>"


def _chosen_moduli(params: Params) -> str:
    """`, Q = [...], P = [...], dnum = d` of a whole parameter set (P and dnum
    only if it has special primes: without them there is no key switching)."""
    text = f", Q = [{', '.join(map(str, params.coeff_modulus))}]"
    if params.special_modulus:
        text += f", P = [{', '.join(map(str, params.special_modulus))}], dnum = {params.dnum}"
    return text


def _symbol_name(name: str) -> str:
    if _BARE_SYMBOL.fullmatch(name):
        return name
    return '"' + "".join(_escape_string_char(char) for char in name) + '"'


def _escape_string_char(char: str) -> str:
    # MLIR string literals take `\XX` hex escapes for any byte.
    if char.isascii() and char.isprintable() and char not in '"\\':
        return char
    return "".join(f"\\{byte:02X}" for byte in char.encode("utf-8"))


# --------------------------------------------------------------------------
# Proxies: the values a circuit computes with while it is traced
# --------------------------------------------------------------------------


class _Proxy:
    """What Encrypted and Plain share: a place in a trace, no Python value."""

    # Makes numpy return NotImplemented from `array op proxy`, so Python calls
    # our reflected operator instead of numpy broadcasting over the proxy.
    __array_ufunc__ = None
    __hash__ = None  # type: ignore[assignment]

    _kind_name = "value"
    _known_when = "the circuit runs"

    def __init__(self, tracer: _Tracer, value: str, label: str | None = None) -> None:
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
                self._tracer.emit(f"bfv.add {self._value}, {operand._value} : {_CIPHERTEXT}")
            )
        if _is_zero(operand):
            return self
        return self._plain_op("add_plain", self._plaintext_value(operand))

    def _subtract(self, other: Operand, expression: _Expression, reflected: bool) -> Encrypted:
        operand = self._operand(other, expression)
        if isinstance(operand, Encrypted):
            return self._derived(
                self._tracer.emit(f"bfv.sub {self._value}, {operand._value} : {_CIPHERTEXT}")
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
            product = self._tracer.emit(
                f"bfv.mul {self._value}, {operand._value} : {_CIPHERTEXT} -> {_CIPHERTEXT_3}"
            )
            # Users only ever see 2-component ciphertexts.
            return self._derived(
                self._tracer.emit(f"bfv.relinearize {product} : {_CIPHERTEXT_3} -> {_CIPHERTEXT}")
            )
        if isinstance(operand, _Constant) and operand.is_scalar and operand.residues[0] == 1:
            return self
        return self._plain_op("mul_plain", self._plaintext_value(operand))

    def _operand(self, other: object, expression: _Expression) -> Encrypted | Plain | _Constant:
        """Check that `other` can meet this value in an op; constants reduced mod t."""
        self._tracer.check_active(str(expression))
        if isinstance(other, _Proxy):
            self._tracer.check_owns(other, str(expression))
            assert isinstance(other, (Encrypted, Plain))
            return other
        return _constant(other, self._tracer, expression)

    def _plaintext_value(self, operand: Plain | _Constant) -> str:
        if isinstance(operand, Plain):
            return operand._value
        return self._tracer.encode(operand)

    def _plain_op(self, op_name: str, plaintext: str) -> Encrypted:
        return self._derived(
            self._tracer.emit(
                f"bfv.{op_name} {self._value}, {plaintext} : {_CIPHERTEXT}, {_PLAINTEXT}"
            )
        )

    def _unary_op(self, op_name: str, expression: str) -> Encrypted:
        self._tracer.check_active(expression)
        return self._derived(self._tracer.emit(f"bfv.{op_name} {self._value} : {_CIPHERTEXT}"))

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
        return self._derived(
            self._tracer.emit(f"bfv.rotate {self._value} by {steps} : {_CIPHERTEXT}")
        )

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
# Constants
# --------------------------------------------------------------------------


def _constant(value: object, tracer: _Tracer, expression: _Expression) -> _Constant:
    """An int or 1-D integer array as residues mod t, or a TypeError/ValueError."""
    t = tracer.plaintext_modulus
    if _is_integer_scalar(value):
        return _Constant((int(value) % t,), is_scalar=True)  # type: ignore[call-overload]
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


def _array_constant(array: Any, tracer: _Tracer, expression: _Expression) -> _Constant:
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
    return _Constant(tuple(v % t for v in array.tolist()), is_scalar=False)


def _is_zero(operand: Plain | _Constant) -> bool:
    return isinstance(operand, _Constant) and operand.is_scalar and operand.residues[0] == 0


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
