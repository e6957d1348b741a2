"""The host's share of a single call on the GPU: wall time of a call with its
inputs already in GPU memory against the device time of its schedule.

    python bench/host_share.py --out bench/results/host-share-h200-COMMIT.json

Two circuits at logN 13: a sum of four products (eight rf.GpuCiphertext
inputs) and a 32 x 32 plaintext matrix times a vector (its matrix the same
numpy array every call). For each: the device time (Program.time_runs: the
median of 200 graph replays, CUDA events), and the median wall time of 300
calls (after 30 warm-up calls) through the Python API (`prog.run_on_gpu`)
and through the runtime's own call (`run_on_device`, no Python around it);
the host's share is wall time minus device time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# benchlib first: it puts the ringfuse to measure on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import T, median_seconds, report_header, write_report  # noqa: E402
import ringfuse as rf  # noqa: E402

LOG_N = 13
SEED = bytes(range(32))
WARMUP, CALLS = 30, 300


@rf.circuit(plaintext_modulus=T, poly_modulus_degree=1 << LOG_N)
def four_products(xs: rf.Encrypted[4], ys: rf.Encrypted[4]):
    return xs[0] * ys[0] + xs[1] * ys[1] + xs[2] * ys[2] + xs[3] * ys[3]


@rf.circuit(plaintext_modulus=T, poly_modulus_degree=1 << LOG_N)
def matvec32(w: rf.PlainMatrix[32, 32], x: rf.Encrypted):
    return w @ x


def median_us(call: Callable[[], Any]) -> float:
    return median_seconds(call, CALLS, warmup=WARMUP) * 1e6


def measure(name: str, circuit: Any, arguments: Callable[[rf.KeySet, np.random.Generator], dict],
            cache: str) -> dict[str, Any]:
    program = rf.compile(circuit, "cuda", cache_dir=cache)
    keys = program.keygen(seed=SEED)
    rng = np.random.default_rng(1)
    kwargs = arguments(keys, rng)
    # Checked once on the host: the GPU call's outputs decrypt as the CPU's.
    host = program(**{k: v.to_host() if isinstance(v, rf.GpuCiphertext) else
                      [x.to_host() for x in v] if isinstance(v, list) else v
                      for k, v in kwargs.items()})
    gpu = program.run_on_gpu(**kwargs)
    if not np.array_equal(keys.decrypt(gpu.to_host()), keys.decrypt(host)):
        raise AssertionError(f"{name}: the GPU call disagrees with the host call")
    native = program._native
    inputs = program._native_arguments((), kwargs)
    relin, galois = program._bound_keys()
    device = statistics.median(native.time_runs(inputs, 20, 200))
    python_us = median_us(lambda: program.run_on_gpu(**kwargs))
    runtime_us = median_us(lambda: native.run_on_device(inputs, relin, galois))
    record = {
        "circuit": name, "log_n": LOG_N, "device_us": round(device, 1),
        "python_call_us": round(python_us, 1), "runtime_call_us": round(runtime_us, 1),
        "host_share_python_us": round(python_us - device, 1),
        "host_share_runtime_us": round(runtime_us - device, 1),
    }
    print(f"{name:14s} device {device:7.1f} us  python call {python_us:7.1f} us "
          f"(+{python_us - device:6.1f})  runtime call {runtime_us:7.1f} us "
          f"(+{runtime_us - device:6.1f})", flush=True)
    return record


def four_products_arguments(keys: rf.KeySet, rng: np.random.Generator) -> dict:
    n = keys.params.poly_modulus_degree
    return {name: [keys.encrypt(rng.integers(0, T, n)).to_gpu() for _ in range(4)]
            for name in ("xs", "ys")}


def matvec_arguments(keys: rf.KeySet, rng: np.random.Generator) -> dict:
    n = keys.params.poly_modulus_degree
    return {"w": rng.integers(0, T, (32, 32)), "x": keys.encrypt(rng.integers(0, T, n)).to_gpu()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="the JSON report to write")
    args = parser.parse_args()
    cache = tempfile.mkdtemp(prefix="ringfuse-host-share-")
    records = [measure("four products", four_products, four_products_arguments, cache),
               measure("matvec 32", matvec32, matvec_arguments, cache)]
    report = {
        **report_header("host_share", "cuda"),
        "method": (f"device: median of 200 graph replays (Program.time_runs, CUDA events); "
                   f"calls: median wall time of {CALLS} calls after {WARMUP} warm-up calls, "
                   "inputs in GPU memory, outputs left there"),
        "records": records,
    }
    write_report(args.out, report)


if __name__ == "__main__":
    main()
