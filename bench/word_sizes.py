"""HMult with 64-bit and 32-bit words side by side, at the six parameter sets.

    python bench/word_sizes.py [--device cuda|cpu] [--variants chps,hps] [--rounds 3]
                               [--sets N] [--out bench/results/word-sizes-h200-COMMIT.json]
                               [--table passes/CostModels/data/word_size-costs.json]

At each set (logN, logQ, logP), `x * y` compiled twice: with 64-bit words over
60-bit primes (Q = [60] * logQ/60, P = [60] * logP/60, as bench_gpu.py) and
with 32-bit words over 30-bit primes (Q = [30] * logQ/30, P = [30] * logP/30:
the same log Q, log P and digits of the same width, so the same security and
noise). Both are timed in alternating rounds in one process on one device
(`Program.time_runs`: inputs bound once, warm-up runs, CUDA events around each
graph replay), each round's median kept; the reported time is the median of
the rounds'. Every program decrypts to x * y mod t before and after timing.
`--table` also writes the compiler's word-size table from the first variant's
times (bfv-select-parameters' `word-bits=auto` reads it; rebuild the
compiler after replacing passes/CostModels/data/word_size-costs.json).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

# benchlib first: it puts the ringfuse to measure on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (  # noqa: E402
    SETS, T, check_circuit, hmult, method, params_of, random_slots,
    report_header, write_report,
)
import ringfuse as rf  # noqa: E402

WORD_SIZES = (64, 32)
SEED = bytes(range(32))


def params_for(log_n: int, log_q: int, log_p: int, word_size: int) -> rf.Params:
    """The set's primes: 60 bits for 64-bit words, 30 for 32-bit ones."""
    if word_size == 64:
        return params_of(log_n, log_q, log_p)
    return rf.Params(poly_modulus_degree=1 << log_n, plaintext_modulus=T,
                     coeff_modulus_bits=[30] * (log_q // 30),
                     special_modulus_bits=[30] * (log_p // 30))


class Contender:
    """One compiled HMult, its keys and inputs, checked once."""

    def __init__(self, program: rf.Program, seed: int) -> None:
        self.program = program
        self.keys = program.keygen(seed=SEED)
        program.set_evaluation_keys(self.keys.relin_key)
        rng = np.random.default_rng(seed)
        n = program.params.poly_modulus_degree
        self.xs, self.ys = random_slots(rng, n), random_slots(rng, n)
        self.x, self.y = self.keys.encrypt(self.xs), self.keys.encrypt(self.ys)
        self.check()

    def check(self) -> None:
        check_circuit("hmult", self.program, self.keys, self.x, self.y, self.xs, self.ys)

    def median_us(self, warmup: int, iterations: int) -> float:
        times = self.program._native.time_runs([self.x._native, self.y._native], warmup,
                                               iterations)
        return float(statistics.median(times))


def measure(sets: Sequence[tuple[int, int, int]], variants: Sequence[str], device: str,
            rounds: int, runs: tuple[int, int], cache: Path) -> list[dict[str, Any]]:
    jobs = [(s, v, w) for s in sets for v in variants for w in WORD_SIZES]
    print(f"compiling {len(jobs)} programs", flush=True)
    with ThreadPoolExecutor(max_workers=8) as pool:
        programs = dict(zip(jobs, pool.map(
            lambda job: rf.compile(hmult, target=device, params=params_for(*job[0], job[2]),
                                   variant=job[1], word_size=job[2], cache_dir=cache),
            jobs)))
    records = []
    for s in sets:
        for variant in variants:
            contenders = {w: Contender(programs[(s, variant, w)], seed=s[0]) for w in WORD_SIZES}
            medians: dict[int, list[float]] = {w: [] for w in WORD_SIZES}
            for _ in range(rounds):  # alternating: 64, 32, 64, 32, ...
                for w in WORD_SIZES:
                    medians[w].append(contenders[w].median_us(*runs))
            for contender in contenders.values():
                contender.check()
            us = {w: round(statistics.median(medians[w]), 1) for w in WORD_SIZES}
            record = {
                "log_n": s[0], "log_q": s[1], "log_p": s[2], "variant": variant,
                **{f"us_{w}": us[w] for w in WORD_SIZES},
                **{f"rounds_us_{w}": [round(m, 1) for m in medians[w]] for w in WORD_SIZES},
                **{f"primes_{w}": [len(contenders[w].program.params.coeff_modulus),
                                   len(contenders[w].program.params.special_modulus)]
                   for w in WORD_SIZES},
                "ratio_32_to_64": round(us[32] / us[64], 3),
                "faster": 32 if us[32] < us[64] else 64,
            }
            records.append(record)
            print(f"({s[0]}, {s[1]}, {s[2]}) {variant}: 64-bit {us[64]:,.1f} us, "
                  f"32-bit {us[32]:,.1f} us ({record['ratio_32_to_64']:.3f}x)", flush=True)
    return records


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--variants", default="chps",
                        help="comma-separated BFV variants (default chps)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sets", type=int, default=len(SETS),
                        help="the first N of the six sets")
    parser.add_argument("--cache", type=Path, help="program cache (default: a new one)")
    parser.add_argument("--out", type=Path, help="JSON report")
    parser.add_argument("--table", type=Path,
                        help="the compiler's word-size table, from the first variant")
    args = parser.parse_args(argv)
    sets = SETS[: args.sets]
    runs = (2, 5) if args.device == "cpu" else (10, 50)
    cache = args.cache or Path(tempfile.mkdtemp(prefix="ringfuse-words-"))
    records = measure(sets, args.variants.split(","), args.device, args.rounds, runs, cache)
    report = {**report_header("word_sizes", args.device),
              "method": method(args.device, runs) + f" {args.rounds} alternating rounds; "
              "the median of the rounds' medians.",
              "records": records}
    write_report(args.out, report)
    if args.table:
        first = args.variants.split(",")[0]
        table = {
            "source": f"bench/word_sizes.py on {report['device']['name']} at "
                      f"{report['commit']} ({first})",
            "date": report["date"][:10],
            "entries": [{key: r[key] for key in ("log_n", "log_q", "log_p", "us_64", "us_32")}
                        for r in records if r["variant"] == first],
        }
        args.table.write_text(json.dumps(table, indent=1) + "\n")
        print(f"wrote {args.table}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
