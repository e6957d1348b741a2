"""Circuits: declaring a Python function as a BFV circuit, and tracing it.

A circuit is an ordinary Python function whose parameters are annotated
`rf.Encrypted` (a ciphertext input), `rf.Plain` (a plaintext input), a list of
n of either (`rf.Encrypted[n]`, `rf.Plain[n]`) or `rf.PlainMatrix[rows, cols]`
(a plaintext matrix, for `w @ x`). Tracing calls it once with proxy values
that record every operation, so Python loops unroll and the result is one
straight-line `func.func` in the `bfv` dialect.

All arithmetic is modulo the plaintext modulus t: Python ints and numpy arrays
used as constants are reduced mod t before they are encoded. A scalar constant
is broadcast to every slot; an array of length L fills slots 0..L-1 and leaves
the rest zero.

This module holds `@rf.circuit`, `Circuit` (the declaration and the checks of
its signature) and `rf.trace`, which runs a circuit on proxy inputs. The parts
it puts together, each in its own module:

- tracing.py: the trace context (`Tracer`), its result (`Trace`) and `TraceError`;
- traced_values.py: the proxies a traced function computes with (`Encrypted`,
  `Plain`) and the constants it meets;
- parameter_kinds.py: what a parameter's annotation can be, and the IR inputs
  (with their names) each kind becomes;
- plain_matrix.py: `rf.PlainMatrix`, its diagonals and `w @ x`;
- ir_printer.py: how the traced ops are written as `bfv` MLIR text.

`Trace`, `TraceError` and `InputKind` are importable from here too.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias, TypeVar, overload

from .parameter_kinds import (
    InputList,
    MatrixShape,
    ParameterKind,
    TracedParameter,
    annotation_text,
    input_list,
    is_encrypted,
    matrix_shape,
)
from .params import Params
from .plain_matrix import PlainMatrix
from .traced_values import Encrypted, Plain, Proxy, traced_outputs
from .tracing import InputKind, Trace, TraceError, Tracer
from .values import integer_or_none

__all__ = [
    "Circuit",
    "Encrypted",
    "Plain",
    "PlainMatrix",
    "Trace",
    "TraceError",
    "circuit",
    "trace",
]

DEFAULT_PLAINTEXT_MODULUS = 65537
MAX_POLY_MODULUS_DEGREE = 2**17
# The constants are printed as i64 attributes, so every residue must fit one.
PLAINTEXT_MODULUS_BOUND = 2**63


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

    A list or matrix parameter's kind is what its annotation stands for:
    `InputList(kind='encrypted', length=3)` for `rf.Encrypted[3]`,
    `MatrixShape(rows=4, cols=5)` for `rf.PlainMatrix[4, 5]`.
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
        self.parameters: tuple[tuple[str, ParameterKind], ...] = _parameter_kinds(
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
            f"{name}: {annotation_text(kind).removeprefix('rf.')}" for name, kind in self.parameters
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
) -> tuple[tuple[str, ParameterKind], ...]:
    kinds = tuple(
        (parameter.name, _parameter_kind(parameter, function_name))
        for parameter in signature.parameters.values()
    )
    if not any(is_encrypted(kind) for _, kind in kinds):
        raise TraceError(
            f"{function_name} has no rf.Encrypted parameter; a circuit computes on "
            "encrypted inputs, so at least one parameter must be annotated rf.Encrypted "
            "(or rf.Encrypted[n])"
        )
    return kinds


_ANNOTATION_KINDS = (
    "rf.Encrypted or rf.Plain (or a list of n of them, rf.Encrypted[n] or rf.Plain[n], "
    "or a plaintext matrix, rf.PlainMatrix[rows, cols])"
)


def _parameter_kind(parameter: inspect.Parameter, function_name: str) -> ParameterKind:
    where = f"parameter `{parameter.name}` of {function_name}"
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        raise TraceError(
            f"{where} is variadic (*args/**kwargs); a circuit has a fixed list of "
            f"inputs, each annotated {_ANNOTATION_KINDS}"
        )
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        raise TraceError(
            f"{where} has no annotation; annotate it `{parameter.name}: rf.Encrypted` "
            f"(a ciphertext input) or `{parameter.name}: rf.Plain` (a plaintext input)"
        )
    if annotation is Encrypted:
        return "encrypted"
    if annotation is Plain:
        return "plain"
    if isinstance(annotation, (InputList, MatrixShape)):
        return annotation
    if annotation is PlainMatrix:
        raise TraceError(
            f"{where} is annotated rf.PlainMatrix without a shape; declare it "
            f"`{parameter.name}: rf.PlainMatrix[rows, cols]`"
        )
    if isinstance(annotation, str):
        kind = _kind_from_text(annotation, where)
        if kind is not None:
            return kind
    raise TraceError(
        f"{where} is annotated {_annotation_text(annotation)}; a circuit parameter "
        f"must be annotated {_ANNOTATION_KINDS}"
    )


# An annotation left as text because it could not be evaluated, e.g.
# "alias.Encrypted", "rf.Plain[3]" or "PlainMatrix[4, 8]": matched by the
# class's name, with int literals for a subscript.
_ANNOTATION_TEXT = re.compile(
    r"(?:[A-Za-z_][\w.]*\.)?(?P<name>Encrypted|Plain|PlainMatrix)\s*(?:\[(?P<subscript>[^\]]*)\])?"
)


def _kind_from_text(annotation: str, where: str) -> ParameterKind | None:
    match = _ANNOTATION_TEXT.fullmatch(annotation.strip())
    if match is None:
        return None
    name, subscript = match.group("name"), match.group("subscript")
    if subscript is None:
        if name == "PlainMatrix":
            raise TraceError(
                f"{where} is annotated {annotation!r} without a shape; declare it "
                "rf.PlainMatrix[rows, cols]"
            )
        return "encrypted" if name == "Encrypted" else "plain"
    items = [item.strip() for item in subscript.split(",")]
    if not all(re.fullmatch(r"\d+", item) for item in items):
        raise TraceError(
            f"{where} is annotated {annotation!r}, which could not be evaluated: a text "
            "annotation (as `from __future__ import annotations` makes every one) is "
            "evaluated in the module's globals; write the length or shape as int literals, "
            "use names of the module, or set the function's __annotations__ to the objects"
        )
    numbers = tuple(int(item) for item in items)
    if name == "PlainMatrix":
        return matrix_shape(numbers)
    if len(numbers) != 1:
        raise TraceError(f"{where} is annotated {annotation!r}; a list takes one length")
    return input_list("encrypted" if name == "Encrypted" else "plain", numbers[0])


def _annotation_text(annotation: object) -> str:
    if isinstance(annotation, type):
        return annotation.__qualname__
    return repr(annotation)


# --------------------------------------------------------------------------
# rf.trace: one call of the circuit on proxies
# --------------------------------------------------------------------------


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
    tracer = Tracer(declared, params)
    args, kwargs, parameters = _input_proxies(tracer, declared)
    try:
        result = declared.function(*args, **kwargs)
    finally:
        # Proxies that escape (stored in a global, say) must not keep recording.
        tracer.finished = True
    outputs = traced_outputs(tracer, result)
    return Trace(
        name=declared.name,
        mlir=tracer.render_module(outputs),
        inputs=list(tracer.inputs),
        num_outputs=len(outputs),
        plaintext_modulus=declared.plaintext_modulus,
        poly_modulus_degree=tracer.poly_modulus_degree,
        parameters=parameters,
    )


# What a parameter of each kind is inside the traced function.
ParameterProxy: TypeAlias = "Proxy | list[Proxy] | PlainMatrix"


def _input_proxies(
    tracer: Tracer, declared: Circuit
) -> tuple[list[ParameterProxy], dict[str, ParameterProxy], tuple[TracedParameter, ...]]:
    """The positional and keyword arguments to call the traced function with,
    and the IR inputs each parameter became (added to `tracer` in order)."""
    args: list[ParameterProxy] = []
    kwargs: dict[str, ParameterProxy] = {}
    parameters = []
    signature_parameters = declared._signature.parameters.values()
    for parameter, (name, kind) in zip(signature_parameters, declared.parameters):
        first_input = len(tracer.inputs)
        proxy = _parameter_proxy(tracer, name, kind)
        layout = proxy.layout if isinstance(proxy, PlainMatrix) else None
        inputs = tuple(tracer.inputs[first_input:])
        parameters.append(TracedParameter(name, kind, inputs, layout))
        if parameter.kind == parameter.KEYWORD_ONLY:
            kwargs[name] = proxy
        else:
            args.append(proxy)
    return args, kwargs, tuple(parameters)


def _parameter_proxy(tracer: Tracer, name: str, kind: ParameterKind) -> ParameterProxy:
    if isinstance(kind, MatrixShape):
        return PlainMatrix.traced_input(tracer, name, kind)
    if isinstance(kind, InputList):
        return [_input_proxy(tracer, f"{name}[{index}]", kind.kind) for index in range(kind.length)]
    return _input_proxy(tracer, name, kind)


def _input_proxy(tracer: Tracer, name: str, kind: InputKind) -> Proxy:
    proxy_class = Encrypted if kind == "encrypted" else Plain
    return proxy_class(tracer, tracer.add_input(name, kind), name)


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

