"""The benchmark scripts run and write their reports (not their numbers: a
benchmark is a script, not a timed test). bench/throughput.py once called
itself instead of benchlib's report writer and failed only after its first
parameter set, on the GPU."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_support import python_environment

pytestmark = pytest.mark.needs_compiler

BENCH_DIR = Path(__file__).resolve().parents[2] / "bench"


def test_throughput_writes_every_record_and_plots_them(tmp_path: Path) -> None:
    report = tmp_path / "throughput.json"
    completed = subprocess.run(
        [sys.executable, str(BENCH_DIR / "throughput.py"), "--device", "cpu", "--quick",
         "--sizes", "1", "2", "--repeats", "1", "--out", str(report)],
        capture_output=True, text=True, check=False, timeout=600,
        env=python_environment(RINGFUSE_CACHE_DIR=str(tmp_path / "cache")),
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    records = json.loads(report.read_text())["records"]
    # Two sets, four operations, two sizes; batches checked against single calls.
    assert len(records) == 16
    assert {r["operation"] for r in records} == {"hmult", "rotation", "encryption", "decryption"}
    assert all(r["batch_per_s"] > 0 and r["singles_per_s"] > 0 for r in records)
    plotted = subprocess.run(
        [sys.executable, str(BENCH_DIR / "throughput.py"), "--plot", str(report)],
        capture_output=True, text=True, check=False, timeout=120, env=python_environment(),
    )
    assert plotted.returncode == 0, plotted.stderr
    assert report.with_suffix(".png").stat().st_size > 0
