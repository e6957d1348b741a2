"""Runs ringfuse's static compiler binaries (`ringfuse-opt`, ...) as subprocesses.

The compiler is not linked into Python: the frontend writes IR as text and hands
it to the binaries, which run anywhere without LLVM installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import resources

__all__ = ["CompilerError", "ToolOutput", "find_tool", "run_opt", "run_tool", "run_tool_output"]

BIN_DIR_VARIABLE = "RINGFUSE_BIN_DIR"


class CompilerError(Exception):
    """A compiler binary is missing, could not run, or rejected its input.

    `stderr` holds the tool's diagnostics (empty when it never ran).
    """

    def __init__(self, message: str, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr


def find_tool(name: str) -> Path:
    """Locate a compiler binary: `$RINGFUSE_BIN_DIR`, then the package's own (an installed
    wheel's bundle, or `<repo>/build/compiler/bin`), then PATH.

    >>> find_tool("ringfuse-opt")
    PosixPath('/path/to/ringfuse/build/compiler/bin/ringfuse-opt')
    """
    searched = _candidate_dirs()
    for directory in searched:
        candidate = directory / name
        if _is_executable(candidate):
            return candidate
    on_path = shutil.which(name)
    if on_path is not None:
        return Path(on_path)
    places = ", ".join(str(d) for d in searched) or "(no directories)"
    raise CompilerError(
        f"cannot find the compiler binary `{name}`: looked in {places} and on PATH. "
        f"To provide it, {resources.how_to_provide()}, or point ${BIN_DIR_VARIABLE} at the "
        "directory that holds it"
    )


def find_nvcc() -> str | None:
    """The CUDA compiler: from PATH, else the toolkit's usual place; None if neither."""
    return shutil.which("nvcc") or shutil.which("/usr/local/cuda/bin/nvcc")


def run_opt(mlir: str, *pass_args: str) -> str:
    """Run `ringfuse-opt` on IR text (read from stdin) and return what it prints.

    Raises `CompilerError` with the tool's diagnostics if it exits nonzero.

    >>> print(run_opt(rf.trace(f).mlir))                  # parse and verify
    >>> print(run_opt(text, "--bfv-expand-slot-sums"))    # run a pass
    """
    return run_tool("ringfuse-opt", mlir, *pass_args)


@dataclass(frozen=True)
class ToolOutput:
    """What a compiler binary printed: its result (stdout) and diagnostics (stderr)."""

    stdout: str
    stderr: str


def run_tool(name: str, input: str, *args: str) -> str:
    """Run compiler binary `name` on `input` (its stdin) and return its stdout.

    Raises `CompilerError` with the tool's diagnostics if it exits nonzero.

    >>> kernel_ir = run_tool("ringfuse-opt", rf.trace(f).mlir, "--ringfuse-pipeline")
    >>> cpp = run_tool("ringfuse-translate", kernel_ir, "--emit-cpp")
    """
    return run_tool_output(name, input, *args).stdout


def run_tool_output(name: str, input: str, *args: str) -> ToolOutput:
    """`run_tool`, keeping stderr too (where `--mlir-print-ir-after-all` writes).

    On failure the `CompilerError`'s `stderr` holds everything the tool printed there.
    """
    return _run_tool(name, [*args, "-"], input)


def _candidate_dirs() -> list[Path]:
    directories = []
    configured = os.environ.get(BIN_DIR_VARIABLE)
    if configured:
        directories.append(Path(configured))
    directories.append(resources.compiler_bin_dir())
    return directories


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _run_tool(name: str, args: list[str], stdin: str) -> ToolOutput:
    tool = find_tool(name)
    command = [str(tool), *args]
    try:
        completed = subprocess.run(
            command, input=stdin, capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise CompilerError(f"could not run {tool}: {error}") from error
    if completed.returncode != 0:
        raise CompilerError(
            f"{name} failed (exit status {completed.returncode}) running "
            f"`{' '.join(command)}`:\n{completed.stderr.rstrip()}",
            stderr=completed.stderr,
        )
    return ToolOutput(completed.stdout, completed.stderr)
