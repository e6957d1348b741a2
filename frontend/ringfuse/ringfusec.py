"""`ringfusec`: build a circuit written in Python into a standalone executable.

    ringfusec circuit.py -o circuit [--target cpu] [--circuit NAME]

The executable is the server side: it reads evaluation keys and serialized
inputs and writes the encrypted outputs (runtime/tools/circuit_main.cpp).
Next to it go `circuit.params` (the parameter set) and `circuit.json` (the
inputs, outputs and keys it needs), from which a client makes keys and inputs.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from . import resources
from .circuit import Circuit, Trace, TraceError, trace
from .compile import (
    DEFAULT_TRANSFORMS,
    RUNTIME_INCLUDE_DIR,
    Cache,
    PipelineOptions,
    cuda_compiler,
    cxx_compiler,
    emit_source,
    resolve_target,
    run_cxx,
)
from .driver import CompilerError
from .params import Params
from .plain_matrix import check_layout_fits, matrix_description

__all__ = ["Executable", "build", "build_executable", "find_circuit", "main"]

CIRCUIT_MAIN = resources.circuit_main()
EXECUTABLE_FLAGS = ("-std=c++17", "-O2")

_EPILOG = """\
Next to the executable go two files for the client:
  CIRCUIT.params  the parameter set (rf.Params.load)
  CIRCUIT.json    the circuit's inputs, outputs and the evaluation keys it needs

A client makes keys and inputs for it:
  params = rf.Params.load("circuit.params")
  needs = json.load(open("circuit.json"))
  keys = params.keygen(galois_elements=needs["galois_elements"])
  keys.save_evaluation_keys("eval.rfkeys")        # relinearization + Galois keys
  keys.encrypt(x).save("x.rfct")                   # an rf.Encrypted input
  keys.encode(w).save("w.rfpt")                    # an rf.Plain input
  for name, plaintext in zip(needs["matrices"]["m"]["inputs"],   # an rf.PlainMatrix m:
                             rf.encode_matrix(needs["matrices"]["m"], m, params)):
      plaintext.save(f"{name}.rfpt")               # one file per diagonal, in that order

the server runs
  ./circuit --keys eval.rfkeys --in x.rfct w.rfpt --out out.rfct

and the client decrypts keys.decrypt(rf.Ciphertext.load("out.rfct", params)).
"""


class RingfusecError(Exception):
    """A circuit file that cannot be built: no circuit in it, several, a missing runtime."""


@dataclass(frozen=True)
class Executable:
    """What `build` made: the executable and the client's two files."""

    path: Path
    params_path: Path
    description_path: Path
    description: dict[str, Any]


def main(argv: Sequence[str] | None = None) -> int:
    """The `ringfusec` command; returns its exit status."""
    arguments = _parser().parse_args(argv)
    try:
        executable = build(
            arguments.circuit_file,
            arguments.output,
            target=arguments.target,
            variant=arguments.variant,
            reserve_depth=arguments.reserve_depth,
            transforms=tuple(arguments.transforms.split(",")),
            optimize=not arguments.no_optimize,
            max_galois_keys=arguments.max_galois_keys,
            max_galois_key_bytes=arguments.max_galois_key_bytes,
            circuit_name=arguments.circuit,
        )
    except (RingfusecError, CompilerError, TraceError, TypeError, ValueError) as error:
        print(f"ringfusec: error: {error}", file=sys.stderr)
        return 1
    _report(executable)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ringfusec",
        description="Build a ringfuse circuit (a Python file with an @rf.circuit function) "
        "into an executable that runs it on encrypted inputs.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("circuit_file", type=Path, help="the Python file that defines the circuit")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the executable to write")
    parser.add_argument(
        "--target", default="cpu",
        help="where it runs: cpu (the default), cuda (the GPU; needs nvcc) or auto",
    )
    parser.add_argument(
        "--variant", default="hps",
        help="the BFV multiplication: one of the compiler's variants (hps, the default; "
        "lhps: leveled HPS, each product on as few primes of Q as its noise allows; "
        "chps: compact HPS; behz), or auto (the cheapest by the compiler's cost model)",
    )
    parser.add_argument(
        "--reserve-depth", type=int, default=0, metavar="K",
        help="room the outputs keep for K more products by fresh ciphertexts (default 0: "
        "the outputs need only decrypt)",
    )
    parser.add_argument(
        "--transforms", default=",".join(DEFAULT_TRANSFORMS), metavar="KINDS",
        help="the transform kinds the program may run, comma-separated: ntt (the "
        "default), dgt; with several, the compiler picks by measured cost",
    )
    parser.add_argument(
        "--no-optimize", action="store_true",
        help="lower each operation as written, without the whole-circuit optimizations "
        "(baby-step giant-step, lazy relinearization, hoisted rotations)",
    )
    parser.add_argument(
        "--max-galois-keys", type=int, default=0, metavar="K",
        help="at most K Galois keys: further rotations from power-of-two steps (0: no limit)",
    )
    parser.add_argument(
        "--max-galois-key-bytes", type=int, default=0, metavar="BYTES",
        help="at most BYTES of Galois keys (0: no limit)",
    )
    parser.add_argument(
        "--circuit", metavar="NAME", help="which circuit, if the file defines several"
    )
    return parser


def _report(executable: Executable) -> None:
    description = executable.description
    inputs = " ".join(
        f"{item['name']}.{'rfpt' if item['kind'] == 'plaintext' else 'rfct'}"
        for item in description["inputs"]
    )
    outputs = " ".join(f"out{i}.rfct" for i in range(description["outputs"]))
    print(f"built {executable.path}: circuit '{description['name']}', {description['parameters']}")
    print(f"  for the client: {executable.params_path}, {executable.description_path}")
    print(f"  run: {executable.path} --keys eval.rfkeys --in {inputs} --out {outputs}")


def build(
    circuit_file: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    target: str = "cpu",
    variant: str = "hps",
    reserve_depth: int = 0,
    transforms: Sequence[str] = DEFAULT_TRANSFORMS,
    optimize: bool = True,
    max_galois_keys: int = 0,
    max_galois_key_bytes: int = 0,
    circuit_name: str | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Executable:
    """Build the circuit of `circuit_file` into the executable `output`, with
    `output.params` and `output.json` beside it (as the `ringfusec` command).

    >>> build("circuit.py", "circuit").description["galois_elements"]
    [3, 16383]
    """
    options = PipelineOptions(
        variant, reserve_depth, transforms,  # type: ignore[arg-type]
        optimize, max_galois_keys, max_galois_key_bytes,
    )
    device = resolve_target(target)
    output = Path(output)
    _require_runtime_library()
    circuit = find_circuit(_import_file(Path(circuit_file)), circuit_name, Path(circuit_file))
    traced = trace(circuit)
    source_path = emit_source(traced, Cache.at(cache_dir), target=device, options=options)
    build_executable(source_path, output, device)
    return _write_client_files(output, traced)


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise RingfusecError(f"no such circuit file: {path}")
    spec = importlib.util.spec_from_file_location(f"_ringfusec_circuit_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise RingfusecError(f"cannot import {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    # The file may import modules that sit next to it, as `python circuit.py` allows.
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise RingfusecError(f"importing {path} failed: {type(error).__name__}: {error}") from error
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


def find_circuit(module: ModuleType, name: str | None, path: Path | None = None) -> Circuit:
    """The module's one `rf.Circuit`, or the one called `name` (its variable or
    function name); a clear error for none, several, or no such name.

    >>> find_circuit(module, None)
    <rf.Circuit f(x: Encrypted, y: Encrypted, w: Plain), t=65537>
    """
    where = str(path) if path is not None else module.__name__
    named = {variable: value for variable, value in vars(module).items() if isinstance(value, Circuit)}
    # One entry per circuit, under its first name (`alias = f` is still one circuit).
    found: dict[str, Circuit] = {}
    for variable, value in named.items():
        if all(value is not known for known in found.values()):
            found[variable] = value
    if name is not None:
        for variable, value in named.items():
            if name in (variable, value.name):
                return value
        listed = ", ".join(found) or "none"
        raise RingfusecError(f"{where} defines no circuit named {name!r}; its circuits: {listed}")
    if not found:
        raise RingfusecError(
            f"{where} defines no rf.Circuit; decorate the circuit's function with @rf.circuit"
        )
    if len(found) > 1:
        raise RingfusecError(
            f"{where} defines {len(found)} circuits ({', '.join(found)}); choose one with "
            "--circuit NAME"
        )
    return next(iter(found.values()))


def build_executable(source_path: Path, output: Path, device: str = "cpu") -> Path:
    """Compile an emitted program with circuit_main.cpp and the runtime library
    into the executable `output` (replaced atomically if it exists).

    >>> build_executable(Path("program.cpp"), Path("circuit"))
    """
    _require_runtime_library()
    output.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=output.parent, prefix=f".{output.name}.")
    os.close(descriptor)
    if device == "cuda":
        # The runtime's link items name its cudart; nvcc adds none of its own.
        compiler = [*cuda_compiler(), "-cudart", "none", "-DRINGFUSE_CIRCUIT_DEVICE=Cuda",
                    f"-arch=sm_{os.environ.get('RINGFUSE_CUDA_ARCH', '90')}"]
    else:
        compiler = cxx_compiler()
    command = [
        *compiler, *EXECUTABLE_FLAGS, f"-I{RUNTIME_INCLUDE_DIR}", str(source_path),
        str(CIRCUIT_MAIN), *runtime_link_items(), "-o", temporary,
    ]
    try:
        run_cxx(command, source_path)
        os.chmod(temporary, 0o755)
        os.replace(temporary, output)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return output


def runtime_link_items() -> list[str]:
    """The archives and libraries an executable links with the runtime (an
    archive named relatively lies beside the list)."""
    # What linking against the runtime takes (its archives, cudart where the
    # CUDA driver is built, system libraries), one item a line; by CMake.
    listed = resources.runtime_link_file()
    items = [line.strip() for line in listed.read_text().splitlines() if line.strip()]
    return [item if item.startswith("-") else str(listed.parent / item) for item in items]


def _require_runtime_library() -> None:
    # Checked before the compiler runs, so a missing build fails fast: the
    # link list and every archive it names.
    listed = resources.runtime_link_file()
    missing = (
        [str(listed)] if not listed.exists()
        else [item for item in runtime_link_items()
              if item.endswith(".a") and not Path(item).exists()]
    )
    if missing:
        raise RingfusecError(
            f"the runtime is not built ({', '.join(missing)} missing); "
            f"{resources.how_to_provide()}"
        )


def _write_client_files(executable: Path, traced: Trace) -> Executable:
    params_path = executable.with_name(executable.name + ".params")
    description_path = executable.with_name(executable.name + ".json")
    completed = subprocess.run(
        [str(executable.resolve()), "--describe", "--write-params", str(params_path)],
        capture_output=True, text=True, check=False,
    )
    if completed.returncode != 0:
        raise CompilerError(
            f"the built executable {executable} does not start:\n{completed.stderr.rstrip()}",
            stderr=completed.stderr,
        )
    described = json.loads(completed.stdout)
    kinds = described["inputs"]
    expected = ["plaintext" if kind == "plain" else "ciphertext" for _, kind in traced.inputs]
    if kinds != expected or described["outputs"] != traced.num_outputs:
        raise CompilerError(
            f"the executable {executable} takes inputs {kinds} and has "
            f"{described['outputs']} outputs, but {traced.name} takes {expected} and has "
            f"{traced.num_outputs}"
        )
    # Names from the trace: the manifest only knows kinds.
    described["inputs"] = [
        {"name": name, "kind": kind} for (name, _), kind in zip(traced.inputs, kinds)
    ]
    # A matrix parameter's inputs are its diagonals: what rf.encode_matrix needs.
    # A layout traced without N must fit the N chosen, as Program checks too.
    n = Params.load(params_path).poly_modulus_degree
    for parameter in traced.parameters:
        problem = None if parameter.layout is None else check_layout_fits(parameter.layout, n)
        if problem is not None:
            raise CompilerError(
                f"the executable {executable} cannot take its matrix {parameter.name!r}: {problem}"
            )
    described["matrices"] = {
        parameter.name: matrix_description(parameter.layout, [n for n, _ in parameter.inputs])
        for parameter in traced.parameters
        if parameter.layout is not None
    }
    description_path.write_text(json.dumps(described, indent=2) + "\n")
    return Executable(executable, params_path, description_path, described)


if __name__ == "__main__":
    sys.exit(main())
