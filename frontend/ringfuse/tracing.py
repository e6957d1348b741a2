"""The trace context: the state of one trace in progress, and its result.

`Tracer` records the ops of one trace: it numbers the SSA values, keeps the
op lines in order, gives identical constants one shared encode, and refuses
values of a finished trace or of another circuit's. `Trace` is what `rf.trace`
returns: the `bfv` IR text with the circuit's inputs and output count.
`TraceError` is raised wherever a circuit cannot be traced.

The tracer also numbers the function's arguments: each parameter adds its IR
inputs in order (one for `rf.Encrypted`, n for `rf.Encrypted[n]`, one per
diagonal for `rf.PlainMatrix`; parameter_kinds.py), each with a name.

`rf.trace` itself, which runs a circuit once on proxy inputs, is in
circuit.py; the proxies are in traced_values.py and the op text in
ir_printer.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from . import driver, ir_printer

if TYPE_CHECKING:
    from .circuit import Circuit
    from .parameter_kinds import TracedParameter
    from .params import Params
    from .traced_values import Constant, Encrypted, _Proxy

__all__ = ["InputKind", "Trace", "TraceError", "Tracer"]

InputKind = Literal["encrypted", "plain"]


class TraceError(Exception):
    """A circuit cannot be traced: a bad annotation, Python control flow on an
    encrypted value, a non-encrypted return value, and the like."""


@dataclass(frozen=True)
class Trace:
    """The `bfv` IR of one circuit, as recorded by `rf.trace`.

    `inputs` are the function's arguments in order, one per IR input (a list
    or matrix parameter has several); `parameters` say which of them each
    parameter of the circuit became.

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
    parameters: tuple[TracedParameter, ...]

    def verify(self) -> str:
        """Parse and verify the IR with `ringfuse-opt`; return what it prints.

        Raises `CompilerError` with the compiler's diagnostics if it rejects it.

        >>> print(rf.trace(f).verify())
        """
        return driver.run_opt(self.mlir)


class Tracer:
    """Records the ops of one trace as SSA text, numbering values as it goes."""

    def __init__(self, declared: Circuit, params: Params | None = None) -> None:
        self.circuit = declared
        self.params = params
        self.plaintext_modulus = declared.plaintext_modulus
        self.poly_modulus_degree = (
            declared.poly_modulus_degree if params is None else params.poly_modulus_degree
        )
        self.finished = False
        # The function's arguments, `%arg<i>` being inputs[i]: (name, kind).
        self.inputs: list[tuple[str, InputKind]] = []
        self._body: list[str] = []
        self._next_result = 0
        self._encoded: dict[Constant, str] = {}

    def add_input(self, name: str, kind: InputKind) -> str:
        """A new argument of the traced function; its SSA name `%arg<i>`."""
        self.inputs.append((name, kind))
        return f"%arg{len(self.inputs) - 1}"

    def emit(self, operation: str) -> str:
        """Record `%n = operation`; return the new value's SSA name `%n`."""
        result = f"%{self._next_result}"
        self._next_result += 1
        self._body.append(f"{result} = {operation}")
        return result

    def encode(self, constant: Constant) -> str:
        # Identical constants share one encode, placed at their first use.
        if constant not in self._encoded:
            self._encoded[constant] = self.emit(
                ir_printer.encode(constant.residues, constant.is_scalar)
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

    def render_module(self, outputs: Sequence[Encrypted]) -> str:
        return ir_printer.module(
            self.circuit.name,
            [kind for _, kind in self.inputs],
            self._body,
            [output._value for output in outputs],
            ir_printer.params_attribute(
                self.plaintext_modulus, self.poly_modulus_degree, self.params
            ),
        )
