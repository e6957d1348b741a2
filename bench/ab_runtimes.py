#!/usr/bin/env python3
"""A/B of two ringfuse trees on one GPU: HMult at the six sets and the 21-limb NTT.

    python bench/ab_runtimes.py BASE_TREE NEW_TREE [--rounds 4] [--out ab.json]

Each tree is a checkout with its runtime built (its `frontend/ringfuse`
extension) and its compiler binaries in `build/compiler/bin`. For each tree a
separate process imports that tree's benchmark library (`bench/benchlib.py`,
or `bench/bench_gpu.py` in trees from before the split), so the two runtimes
never share a process. First each tree builds its programs (HMult with HPS
and compact HPS at bench_gpu's six sets, the forward NTT of 21 limbs at
logN 14 ... 17), each tree in a cache of its own beside the report; then the
rounds alternate the trees, A B, B A, ..., each round measuring every
program as bench_gpu does (`Program.time_runs`: graph replays between CUDA
events, warm-up, median, checked before and after). Reported per benchmark:
the median over rounds of each tree's medians, and new / base. A script
that reports numbers, not a test: nothing here passes or fails on speed.
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

VARIANTS = ("hps", "chps")
METHOD = (
    "each tree's programs built first; then rounds alternating the trees (A B, B A, ...), "
    "each a process of its own measuring every program with bench_gpu's Program.time_runs "
    "(CUDA graph replays between CUDA events after warm-up, median; checked before and "
    "after); reported: the median over rounds of each tree's medians"
)
KEY_SEED = bytes(range(32))  # the same keys in every round and tree


def worker(
    tree: Path, out: Path, cache_dir: Path, build_only: bool, runs: tuple[int, int], device: str
) -> None:
    """Build (and unless `build_only`, measure) every program with `tree`'s code."""
    sys.path.insert(0, str(tree / "bench"))
    name = "benchlib" if (tree / "bench" / "benchlib.py").exists() else "bench_gpu"
    lib: Any = importlib.import_module(name)
    runtime_file = lib.runtime().__file__
    if not str(Path(runtime_file).resolve()).startswith(str(tree.resolve())):
        raise SystemExit(f"{tree}: loaded another tree's runtime, {runtime_file}")
    cache = lib.compiler.Cache.at(cache_dir)
    params = {s: lib.params_of(*s) for s in lib.SETS}
    circuits = [lib.CircuitBench("hmult", *s, variant) for s in lib.SETS for variant in VARIANTS]
    ntt_ir = {log_n: lib.ntt_kernel_ir(lib.ntt_params(log_n)) for log_n in lib.NTT_LOG_N}
    libraries = lib.build_all(circuits, params, ntt_ir, cache, device)
    if build_only:
        return
    records = []
    keys = {s: params[s].keygen(seed=KEY_SEED) for s in lib.SETS}
    for index, bench in enumerate(circuits):
        s = (bench.log_n, bench.log_q, bench.log_p)
        record = lib.measure_circuit(bench, params[s], keys[s], cache, device, runs, 7 + index)
        records.append({"benchmark": f"hmult {bench.variant} {s}", "median_us": record["median_us"]})
    for log_n in lib.NTT_LOG_N:
        record = lib.measure_ntt(lib.NttBench(log_n), libraries, device, runs, 70 + log_n)
        records.append({"benchmark": f"ntt_forward logN {log_n}", "median_us": record["median_us"]})
    out.write_text(json.dumps({"runtime": runtime_file, "records": records}) + "\n")


def run_worker(
    tree: Path, out: Path, build_only: bool, runs: tuple[int, int], device: str
) -> None:
    # Each tree's programs in a cache of their own, beside the report.
    env = {
        **os.environ,
        "RINGFUSE_BIN_DIR": str(tree / "build" / "compiler" / "bin"),
        "PYTHONPATH": str(tree / "frontend"),
    }
    cache_dir = out.parent / "cache" / tree.name
    command = [sys.executable, __file__, "--worker", str(tree), "--out", str(out),
               "--cache-dir", str(cache_dir),
               "--warmup", str(runs[0]), "--iterations", str(runs[1]), "--device", device]
    if build_only:
        command.append("--build-only")
    subprocess.run(command, env=env, check=True)


def device_name(device: str) -> str:
    if device == "cpu":
        return "CPU driver"
    query = ["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]
    try:
        return subprocess.run(query, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown CUDA device"


def summarize(rounds: dict[str, list[dict[str, float]]]) -> list[dict[str, Any]]:
    rows = []
    for benchmark in rounds["base"][0]:
        base = statistics.median(r[benchmark] for r in rounds["base"])
        new = statistics.median(r[benchmark] for r in rounds["new"])
        rows.append({
            "benchmark": benchmark,
            "base_us": round(base, 2),
            "new_us": round(new, 2),
            "new_over_base": round(new / base, 4),
            "base_rounds": [r[benchmark] for r in rounds["base"]],
            "new_rounds": [r[benchmark] for r in rounds["new"]],
        })
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, help="BASE_TREE NEW_TREE")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("ab.json"))
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: a dry run of the same path on the CPU driver")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    runs = (args.warmup, args.iterations)
    if args.worker:
        worker(args.worker, args.out, args.cache_dir, args.build_only, runs, args.device)
        return 0
    if len(args.trees) != 2 or args.rounds < 1:
        parser.error("give BASE_TREE and NEW_TREE, and --rounds >= 1")
    trees = {"base": args.trees[0].resolve(), "new": args.trees[1].resolve()}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    for label, tree in trees.items():
        started = time.perf_counter()
        run_worker(tree, args.out.with_suffix(f".{label}.build"), True, runs, args.device)
        print(f"{label}: built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    rounds: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    runtimes = {}
    for r in range(args.rounds):
        for label in ("base", "new") if r % 2 == 0 else ("new", "base"):
            part = args.out.with_suffix(f".{label}.{r}.json")
            run_worker(trees[label], part, False, runs, args.device)
            result = json.loads(part.read_text())
            runtimes[label] = result["runtime"]
            rounds[label].append({x["benchmark"]: x["median_us"] for x in result["records"]})
            print(f"round {r + 1}/{args.rounds}: {label} measured", file=sys.stderr)
    rows = summarize(rounds)
    args.out.write_text(json.dumps({
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": device_name(args.device),
        "method": METHOD,
        "trees": {label: str(tree) for label, tree in trees.items()},
        "runtimes": runtimes,
        "device": args.device,
        "rounds": args.rounds,
        "warmup": runs[0],
        "iterations": runs[1],
        "rows": rows,
    }, indent=2) + "\n")
    width = max(len(row["benchmark"]) for row in rows)
    print(f"{'benchmark':<{width}}  base us   new us   new/base")
    for row in rows:
        print(f"{row['benchmark']:<{width}}  {row['base_us']:7.1f}  {row['new_us']:7.1f}"
              f"   {row['new_over_base']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
