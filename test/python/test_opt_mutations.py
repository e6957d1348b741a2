"""ringfuse-opt and ringfuse-translate on mutated IR: a result or a diagnostic.

hypothesis takes the lit tests' IR (each `// -----` case of test/lit) and a
traced circuit's, mutates it (a line dropped or duplicated, two lines swapped,
a number or an identifier changed, a cut), and runs ringfuse-opt's whole
pipeline on it, and ringfuse-translate on kernel IR. Each run must exit with
0, or 1 and a diagnostic: never a signal (a crash, an abort), never a hang
(10 s), never an exit without saying why. The binaries are release builds
(assertions off), so this checks the verifiers, not asserts.
RINGFUSE_IR_MUTATIONS=N runs N examples each.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ringfuse import driver

pytestmark = pytest.mark.needs_compiler

LIT = Path(__file__).resolve().parents[1] / "lit"


def cases() -> list[str]:
    found = []
    for path in sorted(LIT.rglob("*.mlir")):
        for case in path.read_text().split("// -----"):
            body = "\n".join(line for line in case.splitlines() if not line.startswith("//"))
            if body.strip():
                found.append(body)
    return found


CASES = cases()
NUMBER = re.compile(r"-?\d+")
KERNEL = [c for c in CASES if "kernel." in c]


@st.composite
def mutated_ir(draw: st.DrawFn, pool: list[str]) -> str:
    lines = draw(st.sampled_from(pool)).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        at = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["drop", "duplicate", "swap", "number", "cut", "name"]))
        if kind == "drop":
            del lines[at]
        elif kind == "duplicate":
            lines.insert(at, lines[at])
        elif kind == "swap":
            other = draw(st.integers(0, len(lines) - 1))
            lines[at], lines[other] = lines[other], lines[at]
        elif kind == "number":
            numbers = list(NUMBER.finditer(lines[at]))
            if numbers:
                match = draw(st.sampled_from(numbers))
                value = draw(st.sampled_from(
                    ["0", "-1", "1", "2", "3", "65536", "4294967297", "-9223372036854775808",
                     "18446744073709551615", str(int(match.group()) + 1)]))
                lines[at] = lines[at][: match.start()] + value + lines[at][match.end():]
        elif kind == "cut":
            lines[at] = lines[at][: draw(st.integers(0, len(lines[at])))]
        else:
            lines[at] = re.sub(r"%\w+", "%" + draw(st.sampled_from(["0", "x", "arg0"])),
                               lines[at], count=1)
    return "\n".join(lines)


def survives(tool: str, ir: str, *args: str) -> None:
    result = subprocess.run([str(driver.find_tool(tool)), *args], input=ir, text=True,
                            capture_output=True, timeout=10)
    assert result.returncode in (0, 1), (
        f"{tool} {' '.join(args)} exited with {result.returncode} on:\n{ir}\n"
        f"stderr:\n{result.stderr[-2000:]}"
    )
    if result.returncode == 1:
        assert "error" in result.stderr, f"{tool} failed without a diagnostic on:\n{ir}"


# `make test`: 60 fixed examples each (stable CI); RINGFUSE_IR_MUTATIONS=N: N fresh ones.
MUTATIONS = int(os.environ.get("RINGFUSE_IR_MUTATIONS", "0"))
SETTINGS = settings(max_examples=MUTATIONS or 60, derandomize=MUTATIONS == 0,
                    deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(mutated_ir(CASES))
def test_the_pipeline_on_mutated_ir_ends_in_a_result_or_a_diagnostic(ir: str) -> None:
    survives("ringfuse-opt", ir, "--ringfuse-pipeline")


@SETTINGS
@given(mutated_ir(KERNEL))
def test_emission_of_mutated_kernel_ir_ends_in_a_result_or_a_diagnostic(ir: str) -> None:
    survives("ringfuse-translate", ir, "--emit-cpp")
