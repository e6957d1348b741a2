#!/usr/bin/env python3
"""GPU benchmarks of ringfuse: HMult, Add, the batched forward NTT, encryption and decryption.

    python bench/bench_gpu.py [--device cuda|cpu] [--quick] [--out bench/results/<name>.json]

Measures, with `Program.time_runs` (inputs bound once, warm-up runs, then
CUDA events around each graph replay; steady_clock around each schedule run on
the CPU driver):

1. HMult: the compiled circuit `x * y` (tensor product + relinearization) with
   HPS, compact HPS (`variant="chps"`) and BEHZ, at six parameter sets of
   60-bit primes and t = 786433 (not leveled HPS: a lone product, whose
   output needs few of Q's bits, would run on a few primes, not the full-Q
   multiplication compared here; see recursive_mult.py);
2. Add: the compiled circuit `x + y` at the same sets;
3. the forward NTT of 21 limbs of 60-bit primes at logN = 14 ... 17: a kernel
   program written as MLIR text (one `kernel.launch "ntt_forward"`), emitted
   with `ringfuse-translate` and built as `rf.compile` builds programs;
4. public-key encryption and decryption (to the plaintext polynomial, no slot
   decoding) at the six sets: on the GPU with `gpu_time_encrypt_public` and
   `gpu_time_decrypt` (inputs uploaded once, one CUDA graph per run, CUDA
   events around each replay), on the CPU one call each under perf_counter.

Prints a table beside Phantom's numbers (H200, same method) and writes the
numbers as JSON. Every program is checked before and after timing: HMult and
Add decrypt to x * y and x + y mod t; the NTT's output sums to N * a_0 per
limb, and on the GPU equals the CPU driver's output word for word. See
bench/README.md.

This file is the command line; what it measures and how is in benchlib.py,
which the other benchmarks import too.
"""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchlib import (
    COPY_CEILING_TBPS,
    FULL_RUNS,
    NTT_LOG_N,
    PHANTOM_CLIENT_RANGE_US,
    PHANTOM_HMULT_BEST_US,
    PHANTOM_HMULT_US,
    PHANTOM_NTT_US,
    QUICK_RUNS,
    QUICK_SETS,
    REPO_ROOT,
    SETS,
    CircuitBench,
    NttBench,
    build_all,
    compiler,
    device_name,
    measure_circuit,
    measure_client,
    measure_ntt,
    method,
    ntt_kernel_ir,
    ntt_params,
    params_of,
    report_header,
)
from ringfuse._native import runtime  # noqa: E402  (importable once benchlib set sys.path)


# --------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def table_rows(records: Sequence[dict[str, Any]]) -> list[list[str]]:
    rows = []
    for r in records:
        if r["name"] == "ntt_forward":
            label = f"logN={r['log_n']} {r['limbs']}x{r['prime_bits']}b"
            extra = f"{r['bandwidth_tbps']:.2f} TB/s ({100 * r['fraction_of_copy_ceiling']:.0f}% of copy)"
        else:
            label = f"logN={r['log_n']} logQ={r['log_q']} logP={r['log_p']} dnum={r['dnum']}"
            extra = f"key {r['key_mib']:.1f} MiB" if r["name"] == "hmult" else ""
        phantom = fmt(r.get("phantom_us"), 0)
        if "phantom_range_us" in r:
            low, high = r["phantom_range_us"]
            phantom = f"{fmt(low, 0)}-{fmt(high, 0)} (range)"
            extra = f"n={r['iterations']}"
        rows.append(
            [
                r["name"] if r.get("variant", "hps") == "hps" else f"{r['name']} {r['variant']}",
                label,
                fmt(r["median_us"]),
                f"{fmt(r['p10_us'])}-{fmt(r['p90_us'])}",
                phantom,
                fmt(r.get("ratio_to_phantom"), 2),
                fmt(r.get("ratio_to_phantom_best"), 2),
                extra,
            ]
        )
    return rows


def print_table(records: Sequence[dict[str, Any]], device: str, name: str) -> None:
    header = ["benchmark", "parameters", "median us", "p10-p90 us", "Phantom us", "x Phantom",
              "x best", ""]
    rows = [header, *table_rows(records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print(
        f"\nringfuse on {device} ({name}); Phantom: H200, same method (HMult: its HPS; "
        "x best: against its best variant, 0.33 or less is 3x faster; "
        "encrypt/decrypt: the issue's range over the six sets)"
    )
    for index, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            print("  ".join("-" * width for width in widths))


def default_out(device: str, quick: bool) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return REPO_ROOT / "bench" / "results" / f"{device}{'-quick' if quick else ''}-{stamp}.json"


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{QUICK_RUNS[0]} warm-up and {QUICK_RUNS[1]} timed runs, the first "
        f"{QUICK_SETS} sets of each benchmark only (a smoke run)",
    )
    parser.add_argument("--warmup", type=int, help="warm-up runs (overrides the default)")
    parser.add_argument("--iterations", type=int, help="timed runs (overrides the default)")
    parser.add_argument(
        "--out", type=Path, help="the JSON file (default bench/results/<device>-<UTC time>.json)"
    )
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="compiled programs (default $RINGFUSE_CACHE_DIR, else ~/.cache/ringfuse)",
    )
    parser.add_argument("--seed", type=int, default=2024, help="seed of the random inputs")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    device: str = args.device
    if device == "cuda" and not runtime().cuda_available():
        print(
            "bench_gpu: --device cuda, but the runtime sees no CUDA device (or was built "
            "without its CUDA driver); use --device cpu for a dry run",
            file=sys.stderr,
        )
        return 2
    warmup, iterations = QUICK_RUNS if args.quick else FULL_RUNS
    runs = (
        args.warmup if args.warmup is not None else warmup,
        args.iterations if args.iterations is not None else iterations,
    )
    if runs[0] < 0 or runs[1] < 1:
        print("bench_gpu: --warmup must be >= 0 and --iterations >= 1", file=sys.stderr)
        return 2
    sets = SETS[:QUICK_SETS] if args.quick else SETS
    ntt_sizes = NTT_LOG_N[:QUICK_SETS] if args.quick else NTT_LOG_N
    cache = compiler.Cache.at(args.cache_dir)

    params = {s: params_of(*s) for s in sets}
    circuits = [
        CircuitBench(name, *s, variant)
        for s in sets
        for name, variant in (("hmult", "hps"), ("hmult", "chps"), ("hmult", "behz"),
                              ("add", "hps"))
    ]
    ntt_ir = {log_n: ntt_kernel_ir(ntt_params(log_n)) for log_n in ntt_sizes}
    libraries = build_all(circuits, params, ntt_ir, cache, device)

    records: list[dict[str, Any]] = []
    keys = {s: params[s].keygen() for s in sets}
    for index, bench in enumerate(circuits):
        s = (bench.log_n, bench.log_q, bench.log_p)
        print(f"measuring {bench.name} {bench.label} ...", file=sys.stderr, flush=True)
        records.append(
            measure_circuit(bench, params[s], keys[s], cache, device, runs, args.seed + index)
        )
    for index, s in enumerate(sets):
        bench = CircuitBench("client", *s)
        print(f"measuring encrypt_public, decrypt {bench.label} ...", file=sys.stderr, flush=True)
        records.extend(
            measure_client(bench, params[s], keys[s], device, runs, args.seed + 100 + index)
        )
    for log_n in ntt_sizes:
        print(f"measuring ntt_forward {NttBench(log_n).label} ...", file=sys.stderr, flush=True)
        records.append(measure_ntt(NttBench(log_n), libraries, device, runs, args.seed + log_n))

    name = device_name(device)
    report = {
        **report_header("bench/bench_gpu.py", device),
        "quick": bool(args.quick),
        "python": platform.python_version(),
        "method": method(device, runs),
        "warmup": runs[0],
        "iterations": runs[1],
        "measurements": records,
        "reference": {
            "phantom_h200_us": {
                "hmult_hps": {f"{n},{q},{p}": us for (n, q, p), us in PHANTOM_HMULT_US.items()},
                "hmult_best_variant": {
                    f"{n},{q},{p}": us for (n, q, p), us in PHANTOM_HMULT_BEST_US.items()
                },
                "ntt_forward_21_limbs": {str(n): us for n, us in PHANTOM_NTT_US.items()},
                "client_ranges_over_the_six_sets": {
                    name: list(bounds) for name, bounds in PHANTOM_CLIENT_RANGE_US.items()
                },
            },
            "copy_ceiling_tbps": COPY_CEILING_TBPS,
        },
    }
    out: Path = args.out or default_out(device, args.quick)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print_table(records, device, name)
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
