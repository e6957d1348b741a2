#!/usr/bin/env python3
"""Where HMult's real time goes on the GPU, step by step.

    python bench/hmult_steps.py [--set 15,540,180 ...] [--variant chps] [--rounds 2]
                                [--out bench/results/<name>.json]

ncu times one kernel at a time, which hides how HMult's concurrent launches share
the GPU. This script times prefixes instead: the emitted program of `x * y` cut
after each of its steps (a concurrent region, a fused launch, or one library
call), each prefix built and timed as bench_gpu times HMult (`Program.time_runs`:
graph replays between CUDA events, medians). What a step adds to the prefix
before it is its share of the real time. The whole program is checked first
(it decrypts to x * y mod t); a prefix's outputs are not meaningful and are not
read. The rounds alternate over the prefixes, so drift shows as disagreement
between rounds. See bench/README.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

import benchlib as bench
import ringfuse as rf
from ringfuse._native import runtime

compiler: ModuleType = importlib.import_module("ringfuse.compile")

DEFAULT_SETS: tuple[tuple[int, int, int], ...] = ((15, 660, 60), (15, 540, 180), (16, 1440, 240))
RUN_FUNCTION = 'extern "C" void ringfuse_run('
# Library calls that only look things up; they are not steps.
LOOKUPS = ("k->buffer(", "k->stream(")


@dataclass(frozen=True)
class Step:
    """Lines [first, last] of the emitted source, and the library calls they make."""

    first: int
    last: int
    calls: tuple[str, ...]

    @property
    def label(self) -> str:
        names = [call.split("(", 1)[0].removeprefix("k->") for call in self.calls]
        counted = {name: names.count(name) for name in dict.fromkeys(names)}
        return ", ".join(f"{n} x{c}" if c > 1 else n for n, c in counted.items())


def run_body(lines: Sequence[str]) -> tuple[int, int]:
    """The first and last line inside ringfuse_run's body."""
    start = next(i for i, line in enumerate(lines) if line.startswith(RUN_FUNCTION))
    end = next(i for i in range(start + 1, len(lines)) if lines[i] == "}")
    return start + 1, end - 1


def program_steps(source: str) -> list[Step]:
    """The steps of an emitted CUDA program, in order (see the module docstring)."""
    lines = source.split("\n")
    first, last = run_body(lines)
    steps: list[Step] = []
    i = first
    while i <= last:
        text = lines[i].strip()
        if text == "k->concurrent_begin(rt);":
            end = next(
                j for j in range(i, last + 1) if lines[j].strip() == "k->concurrent_end(rt);"
            )
        elif text == "{":
            end = next(j for j in range(i, last + 1) if lines[j] == lines[i].replace("{", "}"))
        elif text.startswith("k->") and not text.startswith(LOOKUPS):
            end = i
        else:
            i += 1
            continue
        calls = tuple(
            line.strip()
            for line in lines[i : end + 1]
            if "k->" in line and "concurrent_" not in line and not line.strip().startswith(LOOKUPS)
        )
        steps.append(Step(i, end, calls))
        i = end + 1
    if not steps:
        raise ValueError("the emitted program has no library calls")
    return steps


def cut_after(source: str, steps: Sequence[Step], count: int) -> str:
    """The program with only its first `count` steps (the rest of its body dropped)."""
    lines = source.split("\n")
    _, last = run_body(lines)
    return "\n".join(lines[: steps[count - 1].last + 1] + lines[last + 1 :])


def time_program(
    source: str, name: str, traced: Any, cache: Any, x: rf.Ciphertext, y: rf.Ciphertext,
    keys: rf.KeySet, runs: tuple[int, int],
) -> float:
    path = cache.entry("sources", f"hmult-steps-{name}", ".cu")
    compiler.write_atomically(path, source.encode())
    library = compiler.build_library(path, cache, target="cuda")
    program = rf.Program._load(library, traced, path, "cuda")
    program.set_evaluation_keys(keys.relin_key)
    program(x, y)  # binds the keys to the native program
    warmup, iterations = runs
    timed = program._native.time_runs([x._native, y._native], warmup, iterations)
    return float(statistics.median(timed))


def measure_set(
    log_n: int, log_q: int, log_p: int, variant: str, rounds: int, runs: tuple[int, int], seed: int
) -> dict[str, Any]:
    params = bench.params_of(log_n, log_q, log_p)
    cache = compiler.Cache.at()
    traced = compiler.trace(bench.hmult, params=params)
    full = compiler.emit_source(
        traced, cache, target="cuda", options=compiler.PipelineOptions(variant)).read_text()
    steps = program_steps(full)
    if cut_after(full, steps, len(steps)) != full:
        raise AssertionError("the steps do not cover the whole program")
    keys = params.keygen()
    rng = np.random.default_rng(seed)
    xs, ys = bench.random_slots(rng, params.slot_count), bench.random_slots(rng, params.slot_count)
    x, y = keys.encrypt(xs), keys.encrypt(ys)
    whole = rf.compile(bench.hmult, target="cuda", params=params, variant=variant)
    whole.set_evaluation_keys(keys.relin_key)
    bench.check_circuit("hmult", whole, keys, x, y, xs, ys)
    tag = f"{log_n}-{log_q}-{log_p}-{variant}"
    times: list[list[float]] = [[] for _ in steps]
    for _ in range(rounds):
        for k in range(1, len(steps) + 1):
            prefix = cut_after(full, steps, k)
            times[k - 1].append(time_program(prefix, f"{tag}-{k}", traced, cache, x, y, keys, runs))
    medians = [float(np.median(t)) for t in times]
    records = []
    for k, step in enumerate(steps):
        before = medians[k - 1] if k else 0.0
        records.append(
            {
                "step": k + 1,
                "calls": list(step.calls),
                "label": step.label,
                "prefix_us": [round(t, 2) for t in times[k]],
                "adds_us": round(medians[k] - before, 2),
            }
        )
    return {
        "set": [log_n, log_q, log_p],
        "variant": variant,
        "total_us": round(medians[-1], 2),
        "steps": records,
    }


def print_set(record: dict[str, Any]) -> None:
    log_n, log_q, log_p = record["set"]
    print(f"\nHMult ({log_n}, {log_q}, {log_p}), {record['variant']}: {record['total_us']:.1f} us")
    for step in record["steps"]:
        share = 100 * step["adds_us"] / record["total_us"]
        rounds = " / ".join(f"{t:.1f}" for t in step["prefix_us"])
        print(
            f"  {step['step']:2d}  {step['adds_us']:7.1f} us {share:5.1f}%"
            f"  (prefix {rounds})  {step['label']}"
        )


def parse_set(text: str) -> tuple[int, int, int]:
    try:
        log_n, log_q, log_p = (int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a set is logN,logQ,logP (e.g. 15,540,180), not {text!r}"
        ) from None
    return log_n, log_q, log_p


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="sets", type=parse_set, action="append",
                        help="logN,logQ,logP of 60-bit primes (repeatable; default: "
                        + " ".join(",".join(map(str, s)) for s in DEFAULT_SETS) + ")")
    parser.add_argument("--variant", default="chps", help="the BFV multiplication (default chps)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="write the numbers as JSON")
    args = parser.parse_args(argv)
    try:
        compiler.check_variant(args.variant)
    except ValueError as error:
        parser.error(str(error))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not runtime().cuda_available():
        print("hmult_steps.py times the CUDA driver: it needs a CUDA device", file=sys.stderr)
        return 2
    records = [
        measure_set(
            *s, variant=args.variant, rounds=args.rounds, runs=bench.FULL_RUNS, seed=args.seed
        )
        for s in (args.sets or DEFAULT_SETS)
    ]
    for record in records:
        print_set(record)
    if args.out:
        report = {**bench.report_header("hmult_steps", "cuda"), "method": __doc__, "sets": records}
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
