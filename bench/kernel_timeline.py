#!/usr/bin/env python3
"""When each kernel of HMult runs on the GPU, replay by replay.

    python bench/kernel_timeline.py [--set 15,540,180 ...] [--variant chps] [--replays 20]
                                    [--trace-library build/runtime/bench/cuda/libkernel_trace.so]
                                    [--out bench/results/<name>.json]

ncu times one kernel at a time and hmult_steps.py times prefixes of the program;
neither shows how HMult's concurrent launches share the GPU. This script runs the
program as bench_gpu times it (graph replays back to back) in a child process into
which the CUDA driver loads bench/cuda/kernel_trace.cpp (CUDA_INJECTION64_PATH), a
CUPTI library that records every kernel's start and end. The replays are told apart
by the graph launch each kernel came from; the last --replays of them, which must all
hold the same number of kernels, are reported: for the replay of median span, each
kernel's start and end (from the replay's first start), stream and name, and over all
of them the span and the time during which no kernel was resident. A kernel starts when its first block
does: a dependent launch (dependent_launch.cuh) starts while the kernel before it
ends and waits for it, so overlapping intervals are not all work. The tracing adds
about 2% to a replay. The whole program is checked once (it decrypts to x * y mod t).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import benchlib as bench
import ringfuse as rf
from hmult_steps import parse_set
from ringfuse._native import runtime
from word_sizes import WORD_SIZES, params_for

DEFAULT_SETS: tuple[tuple[int, int, int], ...] = ((15, 540, 180), (16, 1440, 240))
DEFAULT_LIBRARY = bench.REPO_ROOT / "build" / "runtime" / "bench" / "cuda" / "libkernel_trace.so"
WARMUP = 5

Kernel = tuple[int, int, int, str]  # start ns, end ns, stream, mangled name


def run_child(
    log_n: int, log_q: int, log_p: int, variant: str, word_size: int, replays: int
) -> None:
    """In the traced process: HMult checked once, then timed replays."""
    params = params_for(log_n, log_q, log_p, word_size)
    keys = params.keygen()
    rng = np.random.default_rng(1)
    xs, ys = bench.random_slots(rng, params.slot_count), bench.random_slots(rng, params.slot_count)
    x, y = keys.encrypt(xs), keys.encrypt(ys)
    program = rf.compile(bench.hmult, target="cuda", params=params, variant=variant,
                         word_size=word_size)
    program.set_evaluation_keys(keys.relin_key)
    bench.check_circuit("hmult", program, keys, x, y, xs, ys)
    timed = program._native.time_runs([x._native, y._native], WARMUP, replays)
    print(json.dumps({"median_us": float(statistics.median(timed))}))


def read_replays(path: Path) -> list[list[Kernel]]:
    """The kernels of each graph launch in the trace, each sorted by start, in the
    order the launches started."""
    by_launch: dict[int, list[Kernel]] = {}
    for line in path.read_text().splitlines():
        start, end, launch, graph, stream, name = line.split(",", 5)
        if graph == "1":
            by_launch.setdefault(int(launch), []).append((int(start), int(end), int(stream), name))
    return sorted((sorted(kernels) for kernels in by_launch.values()), key=lambda r: r[0][0])


def idle_ns(replay: Sequence[Kernel]) -> int:
    """Time within the replay's span during which no kernel was resident."""
    idle, covered = 0, replay[0][1]
    for start, end, _, _ in replay[1:]:
        idle += max(0, start - covered)
        covered = max(covered, end)
    return idle


def short_name(mangled: str) -> str:
    """The kernel's name and template arguments, without namespaces or parameters."""
    demangled = mangled
    if shutil.which("c++filt"):
        demangled = subprocess.run(
            ["c++filt", mangled], capture_output=True, text=True, check=True
        ).stdout.strip()
    demangled = re.sub(r"[\w:]*\(anonymous namespace\)::|ringfuse::runtime::cuda::", "", demangled)
    return re.sub(r"^void |\([^()]*\)$", "", demangled)


def measure_set(
    log_n: int, log_q: int, log_p: int, variant: str, word_size: int, replays: int,
    library: Path,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "kernels.csv"
        env = {**os.environ, "CUDA_INJECTION64_PATH": str(library),
               "RINGFUSE_KERNEL_TRACE": str(trace)}
        child = subprocess.run(
            [sys.executable, __file__, "--child", f"{log_n},{log_q},{log_p}",
             "--variant", variant, "--word-size", str(word_size), "--replays", str(replays)],
            env=env, capture_output=True, text=True,
        )
        if child.returncode != 0 or not trace.exists():
            raise RuntimeError(f"the traced run failed:\n{child.stdout}{child.stderr}")
        median_us = json.loads(child.stdout.strip().splitlines()[-1])["median_us"]
        runs = read_replays(trace)
    last = runs[-replays:]
    counts = Counter(len(run) for run in last)
    if len(last) < replays or len(counts) != 1:
        raise RuntimeError(
            f"the last {replays} replays do not hold one number of kernels each: {dict(counts)}"
        )
    spans = [max(k[1] for k in run) - run[0][0] for run in last]
    order = sorted(range(len(last)), key=lambda i: spans[i])
    middle = last[order[len(order) // 2]]
    first = middle[0][0]
    names = {name: short_name(name) for name in {k[3] for k in middle}}
    return {
        "set": [log_n, log_q, log_p],
        "variant": variant,
        "word_size": word_size,
        "replay_us_traced": round(median_us, 2),
        "kernels_per_replay": len(middle),
        "span_us": {
            "median": round(statistics.median(spans) / 1000, 2),
            "min": round(min(spans) / 1000, 2),
            "max": round(max(spans) / 1000, 2),
        },
        "idle_us_median": round(statistics.median(idle_ns(run) for run in last) / 1000, 2),
        "median_replay": [
            {
                "start_us": round((start - first) / 1000, 2),
                "end_us": round((end - first) / 1000, 2),
                "stream": stream,
                "kernel": names[name],
            }
            for start, end, stream, name in middle
        ],
    }


def print_set(record: dict[str, Any]) -> None:
    log_n, log_q, log_p = record["set"]
    span = record["span_us"]
    print(
        f"\nHMult ({log_n}, {log_q}, {log_p}), {record['variant']}, "
        f"{record['word_size']}-bit words: "
        f"{record['kernels_per_replay']} kernels, span {span['median']:.1f} us "
        f"(min {span['min']:.1f}, max {span['max']:.1f}), none resident "
        f"{record['idle_us_median']:.1f} us; the median replay:"
    )
    for k in record["median_replay"]:
        print(
            f"  {k['start_us']:8.1f} {k['end_us']:8.1f} {k['end_us'] - k['start_us']:7.1f}"
            f"  s{k['stream']:<4d} {k['kernel'][:100]}"
        )


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", dest="sets", type=parse_set, action="append",
                        help="logN,logQ,logP of 60-bit primes (repeatable; default: "
                        + " ".join(",".join(map(str, s)) for s in DEFAULT_SETS) + ")")
    parser.add_argument("--variant", default="chps", help="the BFV multiplication (default chps)")
    parser.add_argument("--word-size", type=int, choices=WORD_SIZES, default=64,
                        help="the program's word size: 64 over 60-bit primes, 32 over 30-bit "
                        "ones, as bench/word_sizes.py (default 64)")
    parser.add_argument("--replays", type=int, default=20, help="replays reported (default 20)")
    parser.add_argument("--trace-library", type=Path, default=DEFAULT_LIBRARY,
                        help="the built kernel_trace library (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="write the numbers as JSON")
    parser.add_argument("--child", type=parse_set, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        bench.compiler.check_variant(args.variant)
    except ValueError as error:
        parser.error(str(error))
    if args.replays < 1:
        parser.error("--replays must be at least 1")
    if args.child is None and not args.trace_library.is_file():
        parser.error(
            f"no kernel_trace library at {args.trace_library}: build the runtime where the "
            "CUDA toolkit has CUPTI (bench/cuda/CMakeLists.txt), or name it"
        )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not runtime().cuda_available():
        print("kernel_timeline.py traces the CUDA driver: it needs a CUDA device", file=sys.stderr)
        return 2
    if args.child is not None:
        run_child(*args.child, variant=args.variant, word_size=args.word_size,
                  replays=args.replays)
        return 0
    library = args.trace_library.resolve()
    records = [
        measure_set(*s, variant=args.variant, word_size=args.word_size, replays=args.replays,
                    library=library)
        for s in (args.sets or DEFAULT_SETS)
    ]
    for record in records:
        print_set(record)
    if args.out:
        report = {**bench.report_header("kernel_timeline", "cuda"), "method": __doc__,
                  "sets": records}
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
