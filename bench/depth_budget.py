#!/usr/bin/env python3
"""How deep each variant goes at each HMult parameter set, and the noise budget it leaves.

    python bench/depth_budget.py [--device cuda|cpu] [--sets K] [--out FILE]

For each of bench_gpu.py's six parameter sets (60-bit primes, t = 786433)
and each variant (hps, lhps, chps, behz), one circuit multiplies x * y * x * y ...
and returns every product, a few more than the set should hold (where the
last still has budget left, the depth is reported as a lower bound). The outputs are decrypted: every one whose noise
budget is above zero must decrypt to its product of slots mod t (else the
script fails), and the deepest such product is the set's maximum depth for
the variant. Prints per set and variant that depth and the budget left at
each depth, and writes JSON. A script that reports numbers, not a test (the
test suites check one set: test_e2e.py's depth test).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
import benchlib  # noqa: E402  (sets, device and commit records, sys.path for ringfuse)

import ringfuse as rf  # noqa: E402
from ringfuse._native import runtime  # noqa: E402

T = 786433  # 3 * 2^18 + 1: batches (t = 1 mod 2N) at every degree up to 2^17
VARIANTS = ("hps", "lhps", "chps", "behz")
# A product costs about log2 t + 13 bits at these degrees and a fresh
# ciphertext about log2 t + 10: the depth to try, a few past that.
BITS_PER_PRODUCT = 30


def params_of(log_n: int, log_q: int, log_p: int) -> rf.Params:
    return rf.Params(poly_modulus_degree=1 << log_n, plaintext_modulus=T,
                     coeff_modulus_bits=[60] * (log_q // 60),
                     special_modulus_bits=[60] * (log_p // 60))


def depth_to_try(log_q: int) -> int:
    return max(1, (log_q - 27) // BITS_PER_PRODUCT + 1)


def every_depth(depth: int) -> rf.Circuit:
    """x * y * x * y ..., each of the `depth` products returned."""

    def chain(x: rf.Encrypted, y: rf.Encrypted):
        results, product = [], x
        for i in range(depth):
            product = product * (y if i % 2 == 0 else x)
            results.append(product)
        return tuple(results)

    chain.__name__ = f"every_depth{depth}"
    return rf.circuit(plaintext_modulus=T)(chain)


def measure(
    sets: Sequence[tuple[int, int, int]], device: str, cache: Any,
    report: Callable[[list[dict[str, Any]]], None],
) -> list[dict[str, Any]]:
    """The records of every set and variant; `report` gets them after each set."""
    cases = [(s, variant) for s in sets for variant in VARIANTS]
    circuits = {s: every_depth(depth_to_try(s[1])) for s in sets}
    chosen = {s: params_of(*s) for s in sets}

    def build(case: tuple[tuple[int, int, int], str]) -> None:
        s, variant = case
        traced = rf.trace(circuits[s], params=chosen[s])
        source = benchlib.compiler.emit_source(
            traced, cache, target=device, options=benchlib.compiler.PipelineOptions(variant))
        benchlib.compiler.build_library(source, cache, target=device)

    with ThreadPoolExecutor() as pool:
        list(pool.map(build, cases))
    records = []
    for s in sets:
        keys = chosen[s].keygen()
        rng = np.random.default_rng(s[0])
        xs, ys = (rng.integers(0, T, chosen[s].poly_modulus_degree) for _ in range(2))
        x, y = keys.encrypt(xs), keys.encrypt(ys)
        for variant in VARIANTS:
            program = rf.compile(circuits[s], target=device, params=chosen[s], variant=variant,
                                 cache_dir=cache.root)
            program.set_evaluation_keys(keys.relin_key)
            outputs = program(x, y)
            budgets, expected = [], xs.copy()
            for i, output in enumerate(outputs):
                expected = expected * (ys if i % 2 == 0 else xs) % T
                budget = keys.noise_budget(output)
                budgets.append(budget)
                if budget > 0 and not np.array_equal(keys.decrypt(output), expected):
                    raise AssertionError(f"{variant} at {s}: product {i + 1} has budget {budget} "
                                         "but does not decrypt to its slots")
            deepest = max((d for d, b in enumerate(budgets, 1) if b > 0), default=0)
            records.append({"log_n": s[0], "log_q": s[1], "log_p": s[2], "variant": variant,
                            "max_depth": deepest, "limit_reached": budgets[-1] == 0,
                            "noise_budget_bits": budgets})
            print(f"{s} {variant}: depth {deepest}, budgets {budgets}", file=sys.stderr, flush=True)
        report(records)
    return records


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--sets", type=int, default=len(benchlib.SETS),
                        help="only the first K parameter sets")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "depth-budget.json")
    parser.add_argument("--cache-dir", type=Path)
    args = parser.parse_args(argv)
    if args.device == "cuda" and not runtime().cuda_available():
        print("depth_budget: no usable CUDA device", file=sys.stderr)
        return 2
    header = {**benchlib.report_header("bench/depth_budget.py", args.device),
              "plaintext_modulus": T}
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def write(records: list[dict[str, Any]]) -> None:
        args.out.write_text(json.dumps({**header, "measurements": records}, indent=2) + "\n")

    records = measure(benchlib.SETS[: args.sets], args.device,
                      benchlib.compiler.Cache.at(args.cache_dir), write)
    print(f"{'set (logN, log Q, log P)':26} " + " ".join(f"{v:>6}" for v in VARIANTS)
          + "   (maximum depth; budget left there, bits)")
    for s in benchlib.SETS[: args.sets]:
        cells = []
        for variant in VARIANTS:
            r = next(r for r in records if (r["log_n"], r["log_q"], r["log_p"]) == s
                     and r["variant"] == variant)
            left = r["noise_budget_bits"][r["max_depth"] - 1] if r["max_depth"] else 0
            at_least = "" if r["limit_reached"] else ">="
            cells.append(f"{at_least:>2}{r['max_depth']:>3} ({left:>2})")
        print(f"{str(s):26} " + " ".join(cells))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
