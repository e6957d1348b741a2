#!/usr/bin/env python3
"""The recursive-multiplication application of the BFV variants paper, per variant.

    python bench/recursive_mult.py [--device cuda|cpu] [--steps 20] [--out FILE]
    python bench/recursive_mult.py --plot FILE      # FILE's plot, beside it as .png

ct1 <- ct1 * ct2 (tensor product and relinearization), `--steps` times, at
logN = 15, Q = 13 primes of 60 bits and P = one (log QP = 840), t = 65537,
with ct2 a fresh encryption. For each variant (hps, lhps, chps, behz) the chain of k products is
compiled for every k = 1 .. steps at these parameters, and timed with
`Program.time_runs` (bench_gpu.py's method: inputs bound once, warm-up
replays, CUDA events around each graph replay). The programs are timed in
turn, ROUNDS times over, so that a drift of the GPU's clocks spreads over all
of them; T(k) is the median of chain k's timed replays. Chain k is compiled
with reserve_depth = steps - k: its output keeps room for the products that
follow it in the whole chain, so the chains of k and k - 1 products share
their first k - 1 products and those products' levels (checked), and the k-th
multiplication takes T(k) - T(k - 1). Each chain is checked first: it decrypts
to x * y^k mod t. The levels are the compiler's: bfv-choose-levels on the
traced chain, which spends the whole chain's spare noise budget. The noise
budget left after each step is reported too.

Prints a table beside Phantom's numbers (H200: LHPS 11.8 ms in all, per step
from 896 us down to 313 us; HPS 18.9 ms; BEHZ 21.3 ms) and writes JSON. A
script that reports numbers, not a test.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import re
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
import benchlib  # noqa: E402  (Stats, device and commit records, sys.path for ringfuse)

import ringfuse as rf  # noqa: E402
from ringfuse import driver  # noqa: E402
from ringfuse._native import runtime  # noqa: E402

compiler = importlib.import_module("ringfuse.compile")

T = 65537
LOG_N = 15
Q_PRIMES = 13
PRIME_BITS = 60
STEPS = 20
VARIANTS = ("hps", "lhps", "chps", "behz")
PHANTOM_TOTAL_MS = {"lhps": 11.8, "hps": 18.9, "behz": 21.3}
PHANTOM_LHPS_STEP_US = (896.0, 313.0)  # first and last step
RUNS = (3, 10)  # warm-up, timed iterations per round
ROUNDS = 6


def params() -> rf.Params:
    return rf.Params(
        poly_modulus_degree=1 << LOG_N,
        plaintext_modulus=T,
        coeff_modulus_bits=[PRIME_BITS] * Q_PRIMES,
        special_modulus_bits=[PRIME_BITS],
    )


def chain(steps: int) -> rf.Circuit:
    """ct1 <- ct1 * ct2, `steps` times."""

    def recursive(x: rf.Encrypted, y: rf.Encrypted):
        product = x
        for _ in range(steps):
            product = product * y
        return product

    recursive.__name__ = f"recursive{steps}"
    return rf.circuit(plaintext_modulus=T)(recursive)


def levels(circuit: rf.Circuit, chosen: rf.Params, reserve_depth: int) -> list[int]:
    """The number of Q's primes each product runs on (bfv-choose-levels)."""
    leveled = driver.run_tool(
        compiler.OPT,
        rf.trace(circuit, params=chosen).mlir,
        f"--bfv-select-parameters=reserve-depth={reserve_depth}",
        "--bfv-expand-slot-sums",
        f"--bfv-choose-levels=reserve-depth={reserve_depth}",
    )
    return [
        int(match.group(1)) if match.group(1) else Q_PRIMES
        for match in re.finditer(r"bfv\.mul [^{:]*(?:\{level = (\d+) : i64\})?", leveled)
    ]


def build(circuits: Sequence[rf.Circuit], chosen: rf.Params, cache: Any, device: str) -> None:
    """Every chain of every variant into the cache, in parallel (nvcc is the slow step)."""

    def one(k: int, variant: str) -> None:
        traced = rf.trace(circuits[k - 1], params=chosen)
        source = compiler.emit_source(
            traced, cache, target=device,
            options=compiler.PipelineOptions(variant, reserve_depth=len(circuits) - k))
        compiler.build_library(source, cache, target=device)

    started = time.perf_counter()
    with ThreadPoolExecutor() as pool:
        jobs = [pool.submit(one, k, v) for k in range(1, len(circuits) + 1) for v in VARIANTS]
        for job in jobs:
            job.result()
    print(f"built {len(jobs)} programs in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def measure(steps: int, device: str, cache: Any, seed: int) -> dict[str, Any]:
    chosen = params()
    circuits = [chain(k) for k in range(1, steps + 1)]
    leveled = levels(circuits[-1], chosen, 0)
    for k, circuit in enumerate(circuits, 1):
        if levels(circuit, chosen, steps - k) != leveled[:k]:
            raise AssertionError(f"lhps: the chain of {k} products does not share the levels "
                                 f"of the first {k} of {steps} ({leveled})")
    build(circuits, chosen, cache, device)
    keys = chosen.keygen()
    rng = np.random.default_rng(seed)
    xs, ys = (rng.integers(0, T, chosen.poly_modulus_degree) for _ in range(2))
    x, y = keys.encrypt(xs), keys.encrypt(ys)
    results: dict[str, Any] = {}
    for variant in VARIANTS:
        programs, budgets = [], []
        expected = xs.copy()
        for k, circuit in enumerate(circuits, 1):
            expected = expected * ys % T
            program = rf.compile(circuit, target=device, params=chosen, variant=variant,
                                 reserve_depth=steps - k, cache_dir=cache.root)
            program.set_evaluation_keys(keys.relin_key)
            out = program(x, y)
            if not np.array_equal(keys.decrypt(out), expected):
                raise AssertionError(f"{variant}: {k} products do not decrypt to x * y^{k}")
            budgets.append(keys.noise_budget(out))
            programs.append(program)
        samples: list[list[float]] = [[] for _ in programs]
        for _ in range(ROUNDS):
            for times, program in zip(samples, programs):
                times.extend(program._native.time_runs([x._native, y._native], *RUNS))
        totals = [benchlib.Stats.of(times).median_us for times in samples]
        print(f"{variant}: {[round(t) for t in totals]} us", file=sys.stderr, flush=True)
        steps_us = [totals[0]] + [b - a for a, b in zip(totals, totals[1:])]
        results[variant] = {
            "levels": leveled if variant == "lhps" else [Q_PRIMES] * steps,
            "chain_median_us": totals,
            "step_us": [round(value, 3) for value in steps_us],
            "noise_budget_bits": budgets,
            "total_ms": round(totals[-1] / 1000, 3),
            "phantom_total_ms": PHANTOM_TOTAL_MS.get(variant),
        }
    return results


def print_table(report: dict[str, Any]) -> None:
    results = report["variants"]
    print(f"\nrecursive multiplication, logN {LOG_N}, log QP = {PRIME_BITS * (Q_PRIMES + 1)}, "
          f"t = {T}, on {report['device']['name']}")
    header = "step " + "".join(f"| {v} level | {v} us | {v} budget " for v in results)
    print(header)
    for step in range(len(next(iter(results.values()))["step_us"])):
        row = f"{step + 1:4} "
        for data in results.values():
            row += (f"| {data['levels'][step]:10} | {data['step_us'][step]:7.1f} "
                    f"| {data['noise_budget_bits'][step]:9} ")
        print(row)
    for variant, data in results.items():
        phantom = data["phantom_total_ms"]
        versus = f", Phantom {phantom} ms ({phantom / data['total_ms']:.2f}x)" if phantom else ""
        print(f"{variant}: {data['total_ms']} ms in all{versus}")


def plot(path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(path.read_text())
    figure, axes = plt.subplots(figsize=(7, 4.2))
    for variant, data in report["variants"].items():
        steps = range(1, len(data["step_us"]) + 1)
        axes.plot(steps, data["step_us"], marker="o", markersize=3,
                  label=f"ringfuse {variant.upper()} ({data['total_ms']:.2f} ms in all)")
    first, last = PHANTOM_LHPS_STEP_US
    axes.plot([1, STEPS], [first, last], linestyle="--", color="grey",
              label=f"Phantom LHPS, first and last step ({PHANTOM_TOTAL_MS['lhps']} ms in all)")
    axes.set_xlabel("multiplication (depth)")
    axes.set_xticks(range(1, STEPS + 1))
    axes.set_ylabel("time per multiplication (us)")
    axes.set_title(f"ct1 <- ct1 * ct2, logN {LOG_N}, log QP 840, {report['device']['name']}",
                   fontsize=9)
    axes.set_ylim(bottom=0)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    out = path.with_suffix(".png")
    figure.savefig(out, dpi=120)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--steps", type=int, default=STEPS)
    parser.add_argument("--out", type=Path, help="the JSON file to write")
    parser.add_argument("--cache-dir", type=Path, help="compiled programs")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--plot", type=Path, metavar="FILE", help="plot FILE and stop")
    args = parser.parse_args(argv)
    if args.plot:
        print(f"wrote {plot(args.plot)}")
        return 0
    if args.device == "cuda" and not runtime().cuda_available():
        print("recursive_mult: --device cuda, but there is no usable CUDA device", file=sys.stderr)
        return 2
    if args.steps < 1:
        print("recursive_mult: --steps must be at least 1", file=sys.stderr)
        return 2
    report = {
        **benchlib.report_header("bench/recursive_mult.py", args.device),
        "python": platform.python_version(),
        "method": benchlib.method(args.device, (RUNS[0], RUNS[1] * ROUNDS))
        + f" Here the programs are timed in turn, {ROUNDS} rounds of {RUNS[0]} warm-up and "
        f"{RUNS[1]} timed replays each; per-step times are differences of consecutive "
        "chains' medians.",
        "variants": measure(args.steps, args.device, compiler.Cache.at(args.cache_dir),
                            args.seed),
    }
    out: Path = args.out or BENCH_DIR / "results" / f"recursive-{args.device}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print_table(report)
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
