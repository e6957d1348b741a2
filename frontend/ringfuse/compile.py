"""`rf.compile`: a circuit, traced, lowered, emitted, built and loaded.

    traced bfv IR  --ringfuse-opt --ringfuse-pipeline------------->  kernel IR
    kernel IR      --ringfuse-translate --emit-cpp | --emit-cuda-->  source (program_abi.h)
    source         --c++ -shared | nvcc -shared------------------->  program.so, loaded
                                                                     by the runtime

Both expensive steps are cached on disk (`$RINGFUSE_CACHE_DIR`, else
`~/.cache/ringfuse`), so compiling the same circuit again is instant:

- `sources/<key>.cpp` (`.cu` for CUDA), the emitted source, keyed by the
  traced IR, the target and the identity (path, size, mtime) of the compiler
  binaries: a rebuilt compiler emits again;
- `programs/<key>.so`, the shared library, keyed by the source, the C++ or
  CUDA compiler command, the compiler binary and the runtime headers the
  source includes, and the target.

Entries are only ever created (written under a temporary name, then renamed),
never rewritten in place: the runtime dlopen()s them, and dlopen hands back an
already loaded library for a path it has seen, whatever the file holds now.
"""

from __future__ import annotations

import functools

import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import driver, resources
from ._native import runtime
from .circuit import Circuit, InputKind, Trace, trace
from .driver import CompilerError
from .parameter_kinds import TracedParameter
from .params import Params
from .program import Program

__all__ = [
    "SUPPORTED_TARGETS", "PipelineOptions", "compile", "supported_transforms",
    "supported_variants",
]

SUPPORTED_TARGETS = ("cpu", "cuda", "auto")
# Besides the compiler's variants: bfv-choose-variant picks one by its cost model.
AUTO_VARIANT = "auto"
# Further products a caller may reserve room for (Q grows about 30 bits each).
MAX_RESERVE_DEPTH = 1000
# The pipeline's default transform kinds (rns-choose-transform's): the NTT,
# which every fused kernel runs.
DEFAULT_TRANSFORMS: tuple[str, ...] = ("ntt",)

CACHE_DIR_VARIABLE = "RINGFUSE_CACHE_DIR"
OPT = "ringfuse-opt"
TRANSLATE = "ringfuse-translate"
PIPELINE = "--ringfuse-pipeline"
EMIT_ARGS = {"cpu": ("--emit-cpp",), "cuda": ("--emit-cuda",)}
SOURCE_SUFFIX = {"cpu": ".cpp", "cuda": ".cu"}
PRINT_IR_AFTER_ALL = "--mlir-print-ir-after-all"
RUNTIME_INCLUDE_DIR = resources.runtime_include_dir()
# What every program is built with; the compiler itself comes from $CXX.
SHARED_LIBRARY_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-shared")
# A CUDA program links its own (static) cudart: it launches its generated
# kernels on the driver's stream and reports each launch's error code to the
# driver (check_launch), so the two runtimes need not be one.
CUDA_LIBRARY_FLAGS = ("-std=c++17", "-O2", "-Xcompiler", "-fPIC", "-shared")
CUDA_ARCH_VARIABLE = "RINGFUSE_CUDA_ARCH"


def compile(
    circuit: Circuit | Callable[..., Any],
    target: str = "cpu",
    *,
    params: Params | None = None,
    dump_ir: str | os.PathLike[str] | None = None,
    variant: str = "hps",
    reserve_depth: int = 0,
    transforms: Sequence[str] = DEFAULT_TRANSFORMS,
    optimize: bool = True,
    max_galois_keys: int = 0,
    max_galois_key_bytes: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Program:
    """Compile a circuit into a `Program` that runs on encrypted inputs.

    The compiler chooses a 128-bit secure parameter set for the circuit's
    depth unless `params` gives one (of the circuit's t). `dump_ir` names a
    folder that receives the traced IR and the IR after every pass
    (`00-traced.mlir`, `01-bfv-select-parameters.mlir`, ...). `variant` is the
    BFV multiplication's algorithm: "hps" (every product at the full Q),
    "lhps" (leveled HPS: each product on as few primes of Q as the circuit's
    noise allows, chosen at compile time; products early in a circuit whose
    outputs have budget to spare spend it), "chps" (compact HPS: one operand
    switched to an auxiliary base R ~ Q, the product divided by R straight
    into Q), "behz" (Bajard-Eynard-Hasan-Zucca: fast conversions corrected
    through redundant moduli instead of HPS's fixed-point rounding) or
    "auto" (the one the compiler's GPU cost model prices lowest for this
    circuit). `reserve_depth` is how many more products by fresh
    ciphertexts (each relinearized) the caller will take of the outputs:
    the parameters leave room for them, and leveled HPS does not spend that
    room (by default the outputs need only decrypt, with a 10-bit margin).
    `transforms` are the transform kinds the program may run (the
    compiler's, `supported_transforms()`): "ntt" (the default), "dgt" (the
    hierarchical DGT); with several, each transform gets the one the
    measured cost table says is fastest. Any choice computes the same words.
    `optimize` (on by default) lets the compiler optimize the circuit as a
    whole: sums of plaintext-times-rotation terms in baby steps and giant
    steps, one relinearization per sum of products, rotations of one
    ciphertext sharing one decomposition, one division by P per sum of
    key-switched values; off, each operation is lowered as written.
    `max_galois_keys` / `max_galois_key_bytes` (0: no limit) bound the Galois
    keys the program needs (`prog.galois_elements`, `prog.galois_key_bytes`):
    beyond, rotations are built from power-of-two steps, more key switches
    for less key memory. `cache_dir` overrides
    `$RINGFUSE_CACHE_DIR` / `~/.cache/ringfuse`.

    `target` is "cpu", "cuda" (the GPU; CUDA source built with nvcc) or
    "auto", which picks the GPU when one is usable and says so on stderr.

    >>> prog = rf.compile(f)                     # target="cpu"
    >>> keys = prog.keygen()
    >>> out = prog(keys.encrypt(a), keys.encrypt(b), w=c)
    >>> keys.decrypt(out)
    """
    options = PipelineOptions(
        variant, reserve_depth, transforms,  # type: ignore[arg-type]
        optimize, max_galois_keys, max_galois_key_bytes,
    )
    device = resolve_target(target)
    traced = trace(circuit, params=params)
    cache = Cache.at(cache_dir)
    source_path = emit_source(traced, cache, target=device, options=options, dump_ir=dump_ir)
    library_path = build_library(source_path, cache, target=device)
    if device == "cuda" and not runtime().cuda_available():
        raise RuntimeError(
            f"target='cuda' needs a usable CUDA device, and this machine has none (the "
            f"program was built: {library_path}); use target='cpu' or 'auto'"
        )
    return Program._load(library_path, traced, source_path, device)


def check_target(target: object) -> None:
    """A ValueError naming the supported targets unless `target` is one."""
    if target not in SUPPORTED_TARGETS:
        raise ValueError(
            f"unknown target {target!r}; supported targets: {_quoted(SUPPORTED_TARGETS)}"
        )


def resolve_target(target: object) -> str:
    """The device a target runs on: "cpu" or "cuda" ("auto": the GPU if usable)."""
    check_target(target)
    if target != "auto":
        return str(target)
    if runtime().cuda_available():
        print("ringfuse: target='auto' compiles for the GPU (CUDA device found)", file=sys.stderr)
        return "cuda"
    print("ringfuse: target='auto' compiles for the CPU (no usable CUDA device)", file=sys.stderr)
    return "cpu"


def check_reserve_depth(reserve_depth: object) -> None:
    """A ValueError unless `reserve_depth` is a count of products (0 to 1000)."""
    if (
        not isinstance(reserve_depth, int)
        or isinstance(reserve_depth, bool)
        or not 0 <= reserve_depth <= MAX_RESERVE_DEPTH
    ):
        raise ValueError(
            f"reserve_depth must be a whole number of products from 0 to "
            f"{MAX_RESERVE_DEPTH}, not {reserve_depth!r}"
        )


def supported_variants() -> tuple[str, ...]:
    """The BFV multiplication variants rf.compile takes: the compiler's (its
    #bfv.variant names, the one list, as `ringfuse-opt --list-variants`
    prints them) and "auto"."""
    return _compiler_names(str(driver.find_tool(OPT)), "--list-variants") + (AUTO_VARIANT,)


@functools.lru_cache(maxsize=None)
def _compiler_names(tool: str, flag: str) -> tuple[str, ...]:
    """The names `ringfuse-opt <flag>` prints, one a line (cached per binary)."""
    return tuple(driver.run_tool(OPT, "", flag).split())


def check_variant(variant: object) -> None:
    """A ValueError naming the supported variants unless `variant` is one."""
    variants = supported_variants()
    if variant in variants:
        return
    raise ValueError(f"unknown variant {variant!r}; supported variants: {_quoted(variants)}")


def supported_transforms() -> tuple[str, ...]:
    """The transform kinds rf.compile's `transforms` takes: the compiler's
    #rns.transform kinds, as `ringfuse-opt --list-transforms` prints them."""
    return _compiler_names(str(driver.find_tool(OPT)), "--list-transforms")


def check_transforms(transforms: object) -> None:
    """A ValueError unless `transforms` is a non-empty sequence of distinct
    supported transform kinds (a bare string is refused: ("dgt",), not "dgt")."""
    supported = supported_transforms()
    if (
        isinstance(transforms, (str, bytes))
        or not isinstance(transforms, Sequence)
        or not transforms
        or any(kind not in supported for kind in transforms)
        or len(set(transforms)) != len(transforms)
    ):
        raise ValueError(
            f"transforms must be a non-empty sequence of distinct transform kinds from "
            f"{_quoted(supported)}, not {transforms!r}"
        )


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in names)


# --------------------------------------------------------------------------
# The cache
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class Cache:
    """The on-disk cache: one file per entry, under `root/<kind>/<key><suffix>`."""

    root: Path

    @classmethod
    def at(cls, cache_dir: str | os.PathLike[str] | None = None) -> Cache:
        """`cache_dir`, else `$RINGFUSE_CACHE_DIR`, else `~/.cache/ringfuse`."""
        if cache_dir is None:
            cache_dir = os.environ.get(CACHE_DIR_VARIABLE) or Path.home() / ".cache" / "ringfuse"
        return cls(Path(cache_dir).expanduser())

    def entry(self, kind: str, key: str, suffix: str) -> Path:
        directory = self.root / kind
        directory.mkdir(parents=True, exist_ok=True)
        return directory / f"{key}{suffix}"


def _digest(*parts: object) -> str:
    """SHA-256 of the parts, in an unambiguous encoding (JSON)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _file_identity(path: Path) -> list[object]:
    # Size and mtime, not contents: a compiler binary is tens of megabytes,
    # and hashing it would make every cache hit slow.
    stat = path.stat()
    return [str(path), stat.st_size, stat.st_mtime_ns]


def write_atomically(path: Path, data: bytes) -> None:
    """Write `path` under a temporary name in its folder, then rename it into place."""
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------
# Traced IR -> C++ source
# --------------------------------------------------------------------------


def emit_source(
    traced: Trace,
    cache: Cache,
    *,
    target: str = "cpu",
    options: PipelineOptions | None = None,
    dump_ir: str | os.PathLike[str] | None = None,
) -> Path:
    """The path of the C++ source emitted for `traced`, from the cache when it is there.

    With `dump_ir` the compiler always runs, so that the folder gets its files.

    >>> emit_source(rf.trace(f), Cache.at()).read_text()
    """
    tools = [_file_identity(driver.find_tool(name)) for name in (OPT, TRANSLATE)]
    emit_args = EMIT_ARGS[target]
    pipeline_args = (options or PipelineOptions()).arguments()
    key = _digest("source", traced.mlir, target, tools, pipeline_args, emit_args)
    path = cache.entry("sources", key, SOURCE_SUFFIX[target])
    if dump_ir is None and path.exists():
        return path
    kernel_ir = _run_pipeline(
        traced.mlir, pipeline_args, None if dump_ir is None else Path(dump_ir)
    )
    source = driver.run_tool(TRANSLATE, kernel_ir, *emit_args)
    if dump_ir is not None:
        _write_emitted_source(Path(dump_ir), source, target)
    write_atomically(path, source.encode())
    return path


@dataclass(frozen=True)
class PipelineOptions:
    """The compiler pipeline's options, checked when made (a ValueError says
    what is wrong); `rf.compile` documents each."""

    variant: str = "hps"
    reserve_depth: int = 0
    transforms: tuple[str, ...] = DEFAULT_TRANSFORMS
    optimize: bool = True
    max_galois_keys: int = 0
    max_galois_key_bytes: int = 0

    def __post_init__(self) -> None:
        check_variant(self.variant)
        check_reserve_depth(self.reserve_depth)
        check_transforms(self.transforms)
        # A list is as good as a tuple, but the options are hashed and kept.
        object.__setattr__(self, "transforms", tuple(self.transforms))
        if not isinstance(self.optimize, bool):
            raise ValueError(f"optimize must be True or False, not {self.optimize!r}")
        # The compiler's options are 32-bit (keys) and 64-bit (bytes) unsigned.
        for name, bound in (("max_galois_keys", 2**32), ("max_galois_key_bytes", 2**64)):
            value = getattr(self, name)
            if (not isinstance(value, int) or isinstance(value, bool)
                    or not 0 <= value < bound):
                raise ValueError(
                    f"{name} must be a whole number below 2^{bound.bit_length() - 1} "
                    f"(0: no limit), not {value!r}"
                )

    def arguments(self) -> tuple[str, ...]:
        """ringfuse-opt's arguments for the whole pipeline with these options."""
        options = (
            ([] if self.variant == "hps" else [f"variant={self.variant}"])
            + ([f"reserve-depth={self.reserve_depth}"] if self.reserve_depth else [])
            + ([] if tuple(self.transforms) == DEFAULT_TRANSFORMS
               else [f"transforms={','.join(self.transforms)}"])
            + ([] if self.optimize else ["optimize=false"])
            + ([f"max-galois-keys={self.max_galois_keys}"] if self.max_galois_keys else [])
            + ([f"max-galois-key-bytes={self.max_galois_key_bytes}"]
               if self.max_galois_key_bytes else [])
        )
        return (f"{PIPELINE}={' '.join(options)}" if options else PIPELINE,)


def _run_pipeline(mlir: str, pipeline_args: tuple[str, ...], dump_dir: Path | None) -> str:
    if dump_dir is None:
        return driver.run_tool(OPT, mlir, *pipeline_args)
    _prepare_dump_dir(dump_dir)
    (dump_dir / "00-traced.mlir").write_text(mlir)
    try:
        output = driver.run_tool_output(OPT, mlir, *pipeline_args, PRINT_IR_AFTER_ALL)
    except CompilerError as error:
        # The dumps up to the failing pass are what one needs to see why it failed.
        dumps, diagnostics = split_ir_dumps(error.stderr)
        _write_dumps(dump_dir, dumps)
        first_line = str(error).split("\n", 1)[0]
        raise CompilerError(
            f"{first_line}\n{diagnostics.rstrip()}\n(the IR after each pass that ran is in "
            f"{dump_dir})",
            stderr=error.stderr,
        ) from None
    dumps, _ = split_ir_dumps(output.stderr)
    _write_dumps(dump_dir, dumps)
    return output.stdout


# `// -----// IR Dump After BFVToPoly (bfv-to-poly) //----- //`, possibly with
# "Failed" after the pass name and `('func.func' operation: @f)` after the argument.
_DUMP_HEADER = re.compile(r"^// -----// IR Dump After (?P<title>.*) //----- //$", re.MULTILINE)
_DUMP_TITLE = re.compile(r"^(?P<name>.+?)(?P<failed> Failed)? \((?P<argument>[^()]*)\)")
_DUMP_FILE = re.compile(r"^\d\d-.*\.(mlir|cpp)$")


@dataclass(frozen=True)
class IrDump:
    """The IR printed after one pass."""

    pass_argument: str  # "bfv-to-poly"
    failed: bool
    ir: str


def split_ir_dumps(stderr: str) -> tuple[list[IrDump], str]:
    """The dumps `--mlir-print-ir-after-all` wrote to `stderr`, and the rest
    (diagnostics).

    A dump is the text from its header to the end of its top-level operation
    (the first line that is just `}`); what follows it before the next header
    is diagnostics of the next pass.

    >>> dumps, diagnostics = split_ir_dumps(tool_output.stderr)
    >>> dumps[0].pass_argument
    'bfv-select-parameters'
    """
    headers = list(_DUMP_HEADER.finditer(stderr))
    diagnostics = [stderr[: headers[0].start()] if headers else stderr]
    dumps = []
    for index, header in enumerate(headers):
        end = headers[index + 1].start() if index + 1 < len(headers) else len(stderr)
        section = stderr[header.end() : end].strip("\n").split("\n")
        closing = next((i for i, line in enumerate(section) if line == "}"), len(section) - 1)
        ir, rest = section[: closing + 1], section[closing + 1 :]
        dumps.append(_dump_of(header.group("title"), "\n".join(ir).strip("\n") + "\n"))
        diagnostics.extend(line + "\n" for line in rest if line.strip())
    return dumps, "".join(diagnostics)


def _dump_of(title: str, ir: str) -> IrDump:
    match = _DUMP_TITLE.match(title)
    if match is None:
        return IrDump(_file_name_part(title), failed=False, ir=ir)
    return IrDump(_file_name_part(match.group("argument")), bool(match.group("failed")), ir)


def _file_name_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "pass"


def _prepare_dump_dir(dump_dir: Path) -> None:
    dump_dir.mkdir(parents=True, exist_ok=True)
    # Dumps of an earlier compilation would be mistaken for this one's.
    for old in dump_dir.iterdir():
        if old.is_file() and _DUMP_FILE.match(old.name):
            old.unlink()


def _write_dumps(dump_dir: Path, dumps: Sequence[IrDump]) -> None:
    for number, dump in enumerate(dumps, start=1):
        suffix = "-failed" if dump.failed else ""
        (dump_dir / f"{number:02d}-{dump.pass_argument}{suffix}.mlir").write_text(dump.ir)


def _write_emitted_source(dump_dir: Path, source: str, target: str) -> None:
    number = sum(1 for path in dump_dir.iterdir() if _DUMP_FILE.match(path.name))
    emit = EMIT_ARGS[target][0].lstrip("-")
    (dump_dir / f"{number:02d}-{emit}{SOURCE_SUFFIX[target]}").write_text(source)


# --------------------------------------------------------------------------
# C++ source -> shared library
# --------------------------------------------------------------------------


def cxx_compiler() -> list[str]:
    """The system C++ compiler as a command: `$CXX` (may hold flags), else `c++`."""
    words = shlex.split(os.environ.get("CXX", "")) or ["c++"]
    found = shutil.which(words[0])
    if found is None:
        raise CompilerError(
            f"cannot find the C++ compiler `{words[0]}` (from "
            f"{'$CXX' if os.environ.get('CXX') else 'the default, c++'}); install g++ or "
            "clang++, or point $CXX at one"
        )
    return [found, *words[1:]]


def cuda_compiler() -> list[str]:
    """nvcc: from PATH, else the toolkit's usual place."""
    found = driver.find_nvcc()
    if found is None:
        raise CompilerError(
            "cannot find nvcc, the CUDA compiler the cuda target needs; install the CUDA "
            "toolkit (or PyPI's nvidia-cuda-nvcc) or use target='cpu'"
        )
    return [found]


def _runtime_headers_digest() -> str:
    # The emitted source includes runtime headers (program_abi.h at least): a
    # changed ABI must rebuild every program.
    return resources.files_digest(RUNTIME_INCLUDE_DIR, "*.h")


def build_library(source_path: Path, cache: Cache, *, target: str = "cpu") -> Path:
    """The shared library of an emitted source, from the cache when it is there.

    Compile errors raise `CompilerError` with the C++ compiler's output.

    >>> build_library(Path("program.cpp"), Cache.at())
    PosixPath('~/.cache/ringfuse/programs/3f1c....so')
    """
    if target == "cuda":
        compiler = cuda_compiler()
        arch = os.environ.get(CUDA_ARCH_VARIABLE, "90")
        command = [*compiler, *CUDA_LIBRARY_FLAGS, f"-arch=sm_{arch}", f"-I{RUNTIME_INCLUDE_DIR}"]
    else:
        compiler = cxx_compiler()
        command = [*compiler, *SHARED_LIBRARY_FLAGS, f"-I{RUNTIME_INCLUDE_DIR}"]
    key = _digest(
        "library",
        hashlib.sha256(source_path.read_bytes()).hexdigest(),
        command,
        _file_identity(Path(compiler[0])),
        _runtime_headers_digest(),
        target,
    )
    library = cache.entry("programs", key, ".so")
    if library.exists():
        return library
    descriptor, temporary = tempfile.mkstemp(dir=library.parent, prefix=f".{key}.", suffix=".so")
    os.close(descriptor)
    try:
        run_cxx([*command, str(source_path), "-o", temporary], source_path)
        os.replace(temporary, library)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return library


def program_from_source(
    source: str,
    device: str,
    name: str,
    inputs: tuple[tuple[str, InputKind], ...],
    num_outputs: int,
    parameters: tuple[TracedParameter, ...],
) -> Program:
    """A pickled program on this machine: its emitted source into the cache,
    built (or found built), loaded for `device` and checked against what its
    trace said."""
    check_target(device)
    cache = Cache.at()
    key = hashlib.sha256(source.encode()).hexdigest()
    source_path = cache.entry("sources", key, SOURCE_SUFFIX[device])
    if not source_path.exists():
        write_atomically(source_path, source.encode())
    library_path = build_library(source_path, cache, target=device)
    if device == "cuda" and not runtime().cuda_available():
        raise RuntimeError(
            f"program {name} was pickled for target='cuda', and this machine has no usable "
            f"CUDA device (the program was built: {library_path})"
        )
    program = Program(
        runtime().Program.load(str(library_path), device),
        name=name,
        inputs=inputs,
        num_outputs=num_outputs,
        source_path=source_path,
        library_path=library_path,
        parameters=parameters,
    )
    program._check_matches_trace()
    return program


def run_cxx(command: list[str], source_path: Path) -> None:
    """Run a C++ compiler command; a `CompilerError` with its output if it fails."""
    try:
        completed = subprocess.run(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False
        )
    except OSError as error:
        raise CompilerError(f"could not run the C++ compiler {command[0]}: {error}") from error
    if completed.returncode != 0:
        raise CompilerError(
            f"the C++ compiler failed (exit status {completed.returncode}) on the emitted "
            f"program {source_path}:\n$ {shlex.join(command)}\n{completed.stdout.rstrip()}",
            stderr=completed.stdout,
        )
