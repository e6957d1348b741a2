"""`rf.Program`: a compiled circuit, loaded by the runtime and callable.

>>> prog = rf.compile(f)
>>> keys = prog.keygen()                 # binds the evaluation keys to prog
>>> out = prog(keys.encrypt(a), keys.encrypt(b), w=c)
>>> keys.decrypt(out)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from . import plain_matrix
from ._native import runtime
from .batch import CiphertextBatch
from .circuit import InputKind, Trace
from .driver import CompilerError
from .keys import EvaluationKeys, KeySet, encode
from .objects import Ciphertext, GaloisKeys, GpuCiphertext, Plaintext, RelinKey
from .parameter_kinds import InputList, MatrixShape, TracedParameter, annotation_text
from .params import Params

__all__ = ["Program"]

_ANNOTATION = {"encrypted": "rf.Encrypted", "plain": "rf.Plain"}
# What the runtime's manifest calls each kind of input.
_MANIFEST_KIND = {"encrypted": "ciphertext", "plain": "plaintext"}


class Program:
    """A compiled circuit: call it on ciphertexts (and plaintext inputs) to get
    ciphertexts back. Made by `rf.compile`.

    >>> prog = rf.compile(f)
    >>> prog.inputs
    (('x', 'encrypted'), ('y', 'encrypted'), ('w', 'plain'))
    >>> keys = prog.keygen(seed=bytes(32))
    >>> out = prog(keys.encrypt(a), keys.encrypt(b), w=c)   # or prog(x=..., y=..., w=...)

    `inputs` are the compiled function's inputs, one per ciphertext or
    plaintext it takes; a call takes one argument per parameter of the
    circuit (`parameters`): a list parameter's n values or a matrix's
    diagonals are several inputs (`xs[0]`, `w.diag[-1]`, ...).

    A server that holds only evaluation keys binds them instead of `keygen`:

    >>> prog.set_evaluation_keys(*rf.load_evaluation_keys("eval.rfkeys", prog.params))
    """

    def __init__(
        self,
        native: Any,
        *,
        name: str,
        inputs: tuple[tuple[str, InputKind], ...],
        num_outputs: int,
        source_path: Path,
        library_path: Path,
        parameters: tuple[TracedParameter, ...],
    ) -> None:
        self._native = native
        self.name = name
        self.inputs = inputs
        self.parameters = parameters
        self.num_outputs = num_outputs
        self.source_path = source_path
        self.library_path = library_path
        self.params = Params._wrap(native.context)
        self.device: str = native.device
        # The multiplication variant compiled in: with variant="auto", the
        # one the compiler's cost model chose.
        self.variant: str = native.variant
        self._relin_key: RelinKey | None = None
        self._galois_keys: GaloisKeys | None = None
        self._keys_bound = False
        # Per plaintext parameter, the last array given and its encodings: a
        # call with an equal array (a fixed matrix, say) reuses them.
        self._encoded: dict[str, tuple[np.ndarray, list[Any]]] = {}

    @classmethod
    def _load(
        cls, library_path: Path, traced: Trace, source_path: Path, device: str = "cpu"
    ) -> Program:
        """Load a built program on `device` ("cpu" or "cuda") and check that it is
        the traced circuit."""
        try:
            native = runtime().Program.load(str(library_path), device)
        except ValueError as error:
            raise CompilerError(
                f"the compiled program of {traced.name} ({library_path}, built from "
                f"{source_path}) does not load: {error}"
            ) from error
        program = cls(
            native,
            name=traced.name,
            inputs=tuple(traced.inputs),
            num_outputs=traced.num_outputs,
            source_path=source_path,
            library_path=library_path,
            parameters=traced.parameters,
        )
        program._check_matches_trace()
        return program

    def _check_matches_trace(self) -> None:
        # A mismatch is a compiler bug; say so now rather than at the first call.
        expected = [_MANIFEST_KIND[kind] for _, kind in self.inputs]
        found = list(self._native.input_kinds)
        if found != expected or self._native.output_count != self.num_outputs:
            raise CompilerError(
                f"the compiled program of {self.name} ({self.source_path}) takes inputs "
                f"{found} and has {self._native.output_count} outputs, but the circuit "
                f"takes {expected} and has {self.num_outputs}"
            )
        for parameter in self.parameters:
            if parameter.layout is None:
                continue
            problem = plain_matrix.check_layout_fits(
                parameter.layout, self.params.poly_modulus_degree
            )
            if problem is not None:
                raise CompilerError(
                    f"the compiled program of {self.name} cannot take its matrix "
                    f"{parameter.name!r}: {problem}"
                )

    # -- what the program needs ----------------------------------------------

    @property
    def galois_elements(self) -> tuple[int, ...]:
        """The Galois elements g (X -> X^g) it needs keys for, ascending."""
        return tuple(int(g) for g in self._native.required_galois_elements)

    @property
    def galois_key_bytes(self) -> int:
        """The bytes its Galois keys take (where they live: host or GPU): each
        key is a pair of words over Q and P for each digit of Q. Bound it with
        `rf.compile(max_galois_keys=..., max_galois_key_bytes=...)`."""
        params = self.params
        q, p = len(params.coeff_modulus), len(params.special_modulus)
        width = -(-q // params.dnum)
        digits = -(-q // width)
        per_key = 2 * digits * (q + p) * params.poly_modulus_degree * 8
        return per_key * len(self.galois_elements)

    @property
    def needs_relin_key(self) -> bool:
        """Whether it multiplies ciphertexts (and so relinearizes)."""
        return bool(self._native.needs_relin_key)

    def keygen(self, seed: bytes | None = None) -> KeySet:
        """A key set for this program: secret, public and relinearization keys
        and exactly the Galois keys it needs. Binds the evaluation keys to the
        program. `seed` (32 bytes) makes the keys reproducible, for tests.

        >>> keys = prog.keygen()
        >>> keys.save_evaluation_keys("eval.rfkeys")    # for a server
        """
        keys = KeySet.generate(self.params, galois_elements=self.galois_elements, seed=seed)
        self.set_evaluation_keys(keys.relin_key, keys.galois_keys)
        return keys

    def set_evaluation_keys(
        self,
        relin_key: RelinKey | EvaluationKeys | None = None,
        galois_keys: GaloisKeys | None = None,
    ) -> None:
        """Bind the keys later calls switch with: what a server does with keys
        it loaded or was sent (an rf.EvaluationKeys stands for both). They must
        belong to `params` and cover what the program needs.

        >>> prog.set_evaluation_keys(*rf.load_evaluation_keys("eval.rfkeys", prog.params))
        >>> prog.set_evaluation_keys(keys.evaluation_keys())
        """
        if isinstance(relin_key, EvaluationKeys):
            if galois_keys is not None:
                raise TypeError("an rf.EvaluationKeys holds the Galois keys: pass it alone")
            relin_key, galois_keys = relin_key.relin_key, relin_key.galois_keys
        self._check_key(relin_key, RelinKey, "relin_key")
        self._check_key(galois_keys, GaloisKeys, "galois_keys")
        if self.needs_relin_key and relin_key is None:
            raise ValueError(
                f"program {self.name} multiplies ciphertexts, so it needs a relinearization "
                "key; got None (prog.keygen() makes one)"
            )
        have = set() if galois_keys is None else set(galois_keys.elements)
        missing = sorted(set(self.galois_elements) - have)
        if missing:
            raise ValueError(
                f"program {self.name} needs Galois keys for elements "
                f"{list(self.galois_elements)}; missing {missing}. Make them with "
                "prog.keygen() or KeySet.generate(params, galois_elements=prog.galois_elements)"
            )
        self._relin_key, self._galois_keys = relin_key, galois_keys
        self._keys_bound = True

    def _check_key(self, key: object, expected: type, argument: str) -> None:
        if key is None:
            return
        if not isinstance(key, expected):
            raise TypeError(
                f"{argument} must be an rf.{expected.__name__} or None, got {type(key).__name__}"
            )
        assert isinstance(key, (RelinKey, GaloisKeys))
        if key.params != self.params:
            raise ValueError(
                f"{argument} belongs to {key.params!r}, but program {self.name} runs "
                f"under {self.params!r}"
            )

    # -- running -------------------------------------------------------------

    def __call__(
        self, *args: Any, **kwargs: Any
    ) -> Ciphertext | tuple[Ciphertext, ...] | CiphertextBatch | tuple[CiphertextBatch, ...]:
        """Run on inputs in the circuit's parameter order (or by name).

        rf.Encrypted parameters take an rf.Ciphertext; rf.Plain parameters an
        rf.Plaintext, an int (every slot) or a 1-D integer array (encoded as
        `KeySet.encode` does); rf.Encrypted[n] and rf.Plain[n] a list or tuple
        of n such values; rf.PlainMatrix[rows, cols] an integer array of that
        shape (entries reduced mod t). Returns a Ciphertext, or a tuple of them.

        With rf.CiphertextBatch arguments (all of one size K) the program runs
        K instances, instance k on each batch's k-th ciphertext, and returns a
        batch per output. Then an rf.Plain parameter also takes a 2-D array
        of K rows (row k for instance k); every other argument is the same for
        all instances. On the CPU the instances run on all cores;
        `progress=True` shows a progress bar (unless a parameter is named
        `progress`).

        >>> prog(xs=[keys.encrypt(a), keys.encrypt(b)], w=np.eye(8, dtype=np.int64))
        >>> prog(keys.encrypt(rows), w=weights, progress=True)   # a batch in, a batch out
        """
        progress = False
        if "progress" in kwargs and "progress" not in self._parameter_names():
            progress = bool(kwargs.pop("progress"))
        bound = self._bind_arguments(args, kwargs)
        instances = self._batch_size(bound)
        if instances is not None:
            return self._run_batch(bound, instances, progress)
        outputs = [Ciphertext(self.params, native) for native in self._run(self._native.run, bound)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    # -- batches -------------------------------------------------------------

    def _parameter_names(self) -> list[str]:
        return [parameter.name for parameter in self.parameters]

    def _batch_size(self, bound: list[Any]) -> int | None:
        """K if any argument is a batch (all batches of K), else None."""
        sizes = {
            parameter.name: len(value)
            for parameter, value in zip(self.parameters, bound)
            if isinstance(value, CiphertextBatch)
        }
        if not sizes:
            return None
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{name!r} has {size}" for name, size in sizes.items())
            raise ValueError(
                f"{self.name}'s batches must hold one ciphertext per instance, all of one "
                f"size; got batches of different sizes: {listed}"
            )
        return next(iter(sizes.values()))

    def _batch_inputs(self, parameter: TracedParameter, value: Any, instances: int) -> list[Any]:
        """The runtime's batch arguments of one parameter's argument, one per
        runtime input: a native CiphertextBatch, or a list of plaintexts (one
        for all instances, or one per instance)."""
        kind = parameter.kind
        where = f"argument {parameter.name!r} of {self.name} ({annotation_text(kind)})"
        if isinstance(value, CiphertextBatch):
            if kind != "encrypted":
                raise TypeError(
                    f"{where} takes no rf.CiphertextBatch: a batch stands for one encrypted "
                    "value per instance"
                )
            self._check_params(value, where)
            if value.on_gpu and self.device != "cuda":
                raise TypeError(
                    f"{where} is in GPU memory, but program {self.name} runs on the CPU: "
                    "pass value.to_host()"
                )
            return [value._native]
        if kind == "plain" and isinstance(value, np.ndarray) and value.ndim == 2:
            if value.shape[0] != instances:
                raise ValueError(
                    f"{where} takes one value for all {instances} instances or a 2-D array "
                    f"of one row per instance ({instances} rows), got {value.shape[0]} rows"
                )
            return [[self._native_input(parameter.name, kind, row) for row in value]]
        arguments: list[Any] = []
        for native in self._native_inputs(parameter, value):
            if isinstance(native, runtime().Plaintext):
                arguments.append([native])
                continue
            # One ciphertext for every instance: a batch of one, which the
            # runtime places on the GPU once and copies into each instance there.
            if isinstance(native, runtime().DeviceCiphertext):
                native = runtime().download_ciphertext(native)
            arguments.append(runtime().CiphertextBatch.from_ciphertexts([native]))
        return arguments

    def _run_batch(
        self, bound: list[Any], instances: int, progress: bool
    ) -> CiphertextBatch | tuple[CiphertextBatch, ...]:
        arguments: list[Any] = []
        for parameter, value in zip(self.parameters, bound):
            arguments.extend(self._batch_inputs(parameter, value, instances))
        relin, galois = self._bound_keys()
        with _progress_bar(progress, instances, self.name) as bar:
            def report(finished: int) -> None:
                bar.update(finished - bar.n)

            results = self._native.run_batch(
                arguments, relin, galois, 0, report if progress else None
            )
        batches = tuple(CiphertextBatch(self.params, native) for native in results)
        return batches[0] if len(batches) == 1 else batches

    def run_on_gpu(
        self, *args: Any, **kwargs: Any
    ) -> GpuCiphertext | tuple[GpuCiphertext, ...]:
        """As calling the program, with the outputs kept in GPU memory (a program
        compiled for target='cuda'): feed them to the next call without a round
        trip through the host; `to_host()` when the values are wanted.
        Encrypted arguments may be rf.GpuCiphertexts (or rf.Ciphertexts).

        >>> z = prog.run_on_gpu(x.to_gpu(), y.to_gpu())
        >>> keys.decrypt(z.to_host())
        """
        if self.device != "cuda":
            raise RuntimeError(
                f"program {self.name} runs on the CPU; only a program compiled for "
                "target='cuda' keeps its outputs on the GPU"
            )
        if any(isinstance(value, CiphertextBatch) for value in (*args, *kwargs.values())):
            raise TypeError(
                f"run_on_gpu runs one instance of {self.name}; call the program itself with "
                "rf.CiphertextBatch arguments"
            )
        outputs = [
            GpuCiphertext(self.params, native)
            for native in self._run(
                self._native.run_on_device, self._bind_arguments(args, kwargs)
            )
        ]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _run(self, run: Any, bound: list[Any]) -> list[Any]:
        """`run` (the native run or run_on_device) on the bound arguments."""
        native_inputs = self._native_bound_arguments(bound)
        return list(run(native_inputs, *self._bound_keys()))

    def _bound_keys(self) -> tuple[Any, Any]:
        """The runtime's relinearization and Galois keys of the last binding."""
        self._require_keys()
        relin = None if self._relin_key is None else self._relin_key._native
        galois = None if self._galois_keys is None else self._galois_keys._native
        return relin, galois

    def _native_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The runtime inputs of a call's arguments, checked, in the manifest's
        order (a benchmark binds them once with the native time_runs)."""
        return self._native_bound_arguments(self._bind_arguments(args, kwargs))

    def _native_bound_arguments(self, bound: list[Any]) -> list[Any]:
        native_inputs = []
        for parameter, value in zip(self.parameters, bound):
            native_inputs.extend(self._native_inputs(parameter, value))
        return native_inputs

    def _signature(self) -> str:
        parameters = ", ".join(
            f"{parameter.name}: {annotation_text(parameter.kind)}" for parameter in self.parameters
        )
        return f"{self.name}({parameters})"

    def _bind_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        names = [parameter.name for parameter in self.parameters]
        if len(args) > len(names):
            raise TypeError(
                f"{self._signature()} takes {len(names)} arguments, got {len(args)} positional"
            )
        bound = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(
                    f"{self._signature()} got an unexpected argument {name!r}; its "
                    f"parameters are {', '.join(names)}"
                )
            if name in bound:
                raise TypeError(
                    f"{self._signature()} got two values for parameter {name!r} "
                    "(by position and by name)"
                )
            bound[name] = value
        missing = [name for name in names if name not in bound]
        if missing:
            raise TypeError(
                f"{self._signature()} is missing an argument for parameter"
                f"{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}"
            )
        return [bound[name] for name in names]

    def _native_inputs(self, parameter: TracedParameter, value: Any) -> list[Any]:
        """The runtime inputs of one parameter's argument, in the order of its
        inputs; a plaintext array equal to the last one given reuses its encodings."""
        kind = parameter.kind
        if isinstance(kind, str) and kind != "plain":
            return [self._native_input(parameter.name, kind, value)]
        if not isinstance(value, np.ndarray):
            return self._encode_inputs(parameter, value)
        kept = self._encoded.get(parameter.name)
        if (kept is not None and kept[0].dtype == value.dtype and kept[0].shape == value.shape
                and np.array_equal(kept[0], value)):
            return kept[1]
        natives = self._encode_inputs(parameter, value)
        self._encoded[parameter.name] = (value.copy(), natives)
        return natives

    def _encode_inputs(self, parameter: TracedParameter, value: Any) -> list[Any]:
        kind = parameter.kind
        if isinstance(kind, MatrixShape):
            assert parameter.layout is not None
            return plain_matrix.encode_matrix(
                parameter.layout, value, self.params, self._where(parameter)
            )
        if isinstance(kind, InputList):
            values = self._list_values(value, kind, parameter)
            return [
                self._native_input(name, input_kind, item)
                for (name, input_kind), item in zip(parameter.inputs, values)
            ]
        return [self._native_input(parameter.name, kind, value)]

    def _where(self, parameter: TracedParameter) -> str:
        return f"argument {parameter.name!r} of {self.name} ({annotation_text(parameter.kind)})"

    def _list_values(self, value: Any, kind: InputList, parameter: TracedParameter) -> list[Any]:
        if isinstance(value, (list, tuple)) and len(value) == kind.length:
            return list(value)
        where = self._where(parameter)
        if isinstance(value, np.ndarray) and kind.kind == "plain" and value.ndim == 2:
            value = list(value)  # one row per plaintext
        if not isinstance(value, (list, tuple)):
            what = "rf.Ciphertexts" if kind.kind == "encrypted" else "plaintext values"
            raise TypeError(
                f"{where} takes a list or tuple of {kind.length} {what}, got "
                f"{_describe(value)}"
            )
        if len(value) != kind.length:
            raise ValueError(f"{where} takes {kind.length} values, got {len(value)}")
        return list(value)

    def _native_input(self, name: str, kind: InputKind, value: Any) -> Any:
        # The common case first, with no message built: a call's host share.
        if kind == "encrypted" and type(value) in (Ciphertext, GpuCiphertext) and (
            value.params is self.params and value.size == 2
            and (type(value) is Ciphertext or self.device == "cuda")
        ):
            return value._native
        where = f"argument {name!r} of {self.name} ({_ANNOTATION[kind]})"
        if kind == "encrypted":
            if isinstance(value, GpuCiphertext) and self.device != "cuda":
                raise TypeError(
                    f"{where} is in GPU memory, but program {self.name} runs on the CPU: "
                    "pass value.to_host()"
                )
            if not isinstance(value, (Ciphertext, GpuCiphertext)):
                raise TypeError(
                    f"{where} must be an rf.Ciphertext (keys.encrypt(values)), got "
                    f"{_describe(value)}"
                )
            self._check_params(value, where)
            if value.size != 2:
                raise ValueError(
                    f"{where} has {value.size} components; the program takes 2-component "
                    "ciphertexts (fresh, or as a program returns them)"
                )
            return value._native
        if isinstance(value, Plaintext):
            self._check_params(value, where)
            return value._native
        if isinstance(value, (Ciphertext, GpuCiphertext)):
            raise TypeError(
                f"{where} is a plaintext input: pass an rf.Plaintext, an int or a 1-D integer "
                f"array, not an rf.{type(value).__name__}"
            )
        try:
            return encode(self.params, value)._native
        except (TypeError, ValueError) as error:
            raise type(error)(f"{where}: {error}") from None

    def _check_params(
        self, value: Ciphertext | GpuCiphertext | Plaintext, where: str
    ) -> None:
        if value.params != self.params:
            raise ValueError(
                f"{where} belongs to {value.params!r}, but program {self.name} runs under "
                f"{self.params!r}; encrypt it with keys of prog.params (prog.keygen())"
            )

    def _require_keys(self) -> None:
        # A program that switches no keys (no multiplication, no rotation) needs none.
        needs_keys = self.needs_relin_key or bool(self.galois_elements)
        if needs_keys and not self._keys_bound:
            raise RuntimeError(
                f"program {self.name} switches keys (relinearization or rotation) but has no "
                "evaluation keys: call prog.keygen() first, or prog.set_evaluation_keys("
                "relin_key, galois_keys) with keys of prog.params"
            )

    def __reduce__(self) -> tuple[Any, ...]:
        """A program pickles as its compiled artifact, the emitted source with
        what the trace said of its inputs and outputs: the receiver builds it
        (or finds it in its cache) and loads it for the same device. Bound
        keys do not travel: send keys.evaluation_keys()."""
        from .compile import program_from_source

        return program_from_source, (
            self.source_path.read_text(), self.device, self.name, self.inputs,
            self.num_outputs, self.parameters,
        )

    def __repr__(self) -> str:
        outputs = f"{self.num_outputs} output{'s' if self.num_outputs > 1 else ''}"
        return f"<rf.Program {self._signature()} -> {outputs}, {self.params!r}>"


class _NoProgress:
    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, count: int) -> None:
        del count


def _progress_bar(shown: bool, total: int, name: str) -> Any:
    """A tqdm bar of `total` instances when asked for, else one that does nothing."""
    if not shown:
        return _NoProgress()
    from tqdm import tqdm  # only when asked for: a server may run without it

    return tqdm(total=total, unit="instance", desc=name)


def _describe(value: object) -> str:
    if isinstance(value, Plaintext):
        return "an rf.Plaintext (a plaintext cannot stand for an encrypted input)"
    name = type(value).__name__
    return f"an {name}" if name[0].lower() in "aeiou" else f"a {name}"
