"""The circuit decorator and its parameters, the package's public names, the
driver that runs the compiler binaries (with stand-in tools), and round trips
of traced IR through the real `ringfuse-opt` (marked `needs_compiler`).
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

import ringfuse as rf
from ringfuse import driver
from tracing_helpers import (
    REPO_ROOT,
    ROUND_TRIP_CIRCUITS,
    documented_example,
    op_counts,
    quickstart,
    traced,
)


# --------------------------------------------------------------------------
# The decorator and its parameters
# --------------------------------------------------------------------------


def test_bare_decorator_uses_default_plaintext_modulus():
    @rf.circuit
    def f(x: rf.Encrypted, w: rf.Plain):
        return x * w

    assert isinstance(f, rf.Circuit)
    assert (f.plaintext_modulus, f.poly_modulus_degree) == (65537, None)
    assert f.parameters == (("x", "encrypted"), ("w", "plain"))
    assert f.name == "f"


def test_decorator_with_arguments_keeps_them():
    @rf.circuit(plaintext_modulus=257, poly_modulus_degree=1024)
    def g(x: rf.Encrypted):
        return x

    assert (g.name, g.plaintext_modulus, g.poly_modulus_degree) == ("g", 257, 1024)
    assert g.function(5) == 5  # the original function is kept as written


def test_undecorated_function_traces_with_default_parameters():
    assert rf.trace(quickstart).mlir == rf.trace(rf.circuit(quickstart)).mlir


def test_calling_a_circuit_directly_points_to_compile_and_trace():
    circuit = rf.circuit(quickstart)
    with pytest.raises(TypeError, match=r"rf\.compile\(quickstart\).*rf\.trace\(quickstart\)"):
        circuit(1, 2, 3)


@pytest.mark.parametrize("t", [1, 0, -5, 2**63])
def test_plaintext_modulus_out_of_range_is_rejected(t: int):
    with pytest.raises(ValueError, match=r"plaintext_modulus must be in \[2, 2\*\*63\)"):
        rf.circuit(plaintext_modulus=t)(quickstart)


@pytest.mark.parametrize("t", [65537.0, True, "65537", None])
def test_plaintext_modulus_that_is_not_an_int_is_rejected(t: Any):
    with pytest.raises(TypeError, match="plaintext_modulus must be an int"):
        rf.circuit(plaintext_modulus=t)(quickstart)


def test_smallest_and_largest_plaintext_moduli_are_accepted():
    assert rf.circuit(plaintext_modulus=2)(quickstart).plaintext_modulus == 2
    assert "t = 9223372036854775807" in traced(quickstart, plaintext_modulus=2**63 - 1)


@pytest.mark.parametrize("n", [0, 1, 3, 12, 2**18, -8])
def test_poly_modulus_degree_that_is_not_a_power_of_two_in_range_is_rejected(n: int):
    with pytest.raises(
        ValueError, match=r"poly_modulus_degree must be a power of two in \[2, 2\*\*17\]"
    ):
        rf.circuit(poly_modulus_degree=n)(quickstart)


@pytest.mark.parametrize("n", [2, 4096, 2**17])
def test_poly_modulus_degree_powers_of_two_in_range_are_accepted(n: int):
    assert f"N = {n}>" in traced(quickstart, poly_modulus_degree=n)


def test_poly_modulus_degree_that_is_not_an_int_is_rejected():
    with pytest.raises(TypeError, match="poly_modulus_degree must be an int or None"):
        rf.circuit(poly_modulus_degree=8192.0)(quickstart)  # type: ignore[arg-type]


def test_positional_plaintext_modulus_is_a_clear_error():
    with pytest.raises(TypeError, match="pass the parameters by keyword"):
        rf.circuit(65537)  # type: ignore[call-overload]


def test_package_exports_the_public_names():
    assert rf.__version__ == "0.1.0"
    for name in [
        "circuit",
        "trace",
        "Encrypted",
        "Plain",
        "PlainMatrix",
        "Circuit",
        "Trace",
        "TraceError",
        "CompilerError",
    ]:
        assert name in rf.__all__
        assert hasattr(rf, name)
    assert issubclass(rf.TraceError, Exception)
    assert issubclass(rf.CompilerError, Exception)


# --------------------------------------------------------------------------
# The driver, with stand-in tools (no compiler needed)
# --------------------------------------------------------------------------


def _fake_tool(directory: Path, name: str, script: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def test_find_tool_looks_in_ringfuse_bin_dir_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = _fake_tool(tmp_path / "bin", "ringfuse-opt", "exit 0")
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path / "bin"))
    assert driver.find_tool("ringfuse-opt") == fake


def test_find_tool_falls_back_to_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    fake = _fake_tool(tmp_path / "on-path", "ringfuse-test-only-tool", "exit 0")
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path / "empty"))
    monkeypatch.setenv("PATH", str(tmp_path / "on-path"))
    assert driver.find_tool("ringfuse-test-only-tool") == fake


def test_find_tool_ignores_files_that_are_not_executable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "ringfuse-test-only-tool").write_text("not a program")
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(rf.CompilerError):
        driver.find_tool("ringfuse-test-only-tool")


def test_missing_tool_error_says_how_to_build_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path))
    monkeypatch.setenv("PATH", "")
    with pytest.raises(rf.CompilerError) as raised:
        driver.find_tool("ringfuse-test-only-tool")
    message = str(raised.value)
    assert "cannot find the compiler binary `ringfuse-test-only-tool`" in message
    assert "`make build` at the repository root" in message
    assert str(tmp_path) in message and str(REPO_ROOT / "build" / "compiler" / "bin") in message


def test_run_opt_sends_the_text_on_stdin_with_pass_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _fake_tool(tmp_path, "ringfuse-opt", 'echo "args: $*"; cat')
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path))
    output = driver.run_opt("module {}\n", "--bfv-expand-slot-sums", "--verify-each")
    assert output == "args: --bfv-expand-slot-sums --verify-each -\nmodule {}\n"


def test_run_opt_failure_carries_the_diagnostics(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _fake_tool(
        tmp_path, "ringfuse-opt", "echo \"<stdin>:3:5: error: 'bfv.add' op bad\" >&2; exit 1"
    )
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path))
    with pytest.raises(rf.CompilerError) as raised:
        driver.run_opt("module {}\n")
    assert "<stdin>:3:5: error: 'bfv.add' op bad" in str(raised.value)
    assert "exit status 1" in str(raised.value)
    assert raised.value.stderr.strip() == "<stdin>:3:5: error: 'bfv.add' op bad"


def test_trace_verify_returns_what_ringfuse_opt_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _fake_tool(tmp_path, "ringfuse-opt", "cat")
    monkeypatch.setenv("RINGFUSE_BIN_DIR", str(tmp_path))
    t = rf.trace(quickstart)
    assert t.verify() == t.mlir


# --------------------------------------------------------------------------
# Round trips through the real compiler
# --------------------------------------------------------------------------


@pytest.mark.needs_compiler
@pytest.mark.parametrize("name", sorted(ROUND_TRIP_CIRCUITS))
def test_traced_circuit_is_accepted_by_ringfuse_opt(name: str):
    t = rf.trace(ROUND_TRIP_CIRCUITS[name])
    printed = t.verify()
    assert f"@{t.name}(" in printed
    # Without passes the compiler must keep every op: same ops, same counts.
    assert op_counts(printed) == op_counts(t.mlir)


@pytest.mark.needs_compiler
def test_ringfuse_opt_output_parses_again_to_the_same_text():
    printed = rf.trace(documented_example).verify()
    assert driver.run_opt(printed) == printed


@pytest.mark.needs_compiler
def test_ringfuse_opt_rejects_broken_ir_with_diagnostics():
    broken = rf.trace(quickstart).mlir.replace("bfv.relinearize %0", "bfv.relinearize %arg0")
    with pytest.raises(rf.CompilerError, match="error"):
        driver.run_opt(broken)
