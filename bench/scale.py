"""Throughput of an rf.dask.ProgramPool against its number of workers.

    python bench/scale.py --device cpu --workers 1 2 --out bench/results/scale-cpu-COMMIT.json
    python bench/scale.py --device cuda --workers 1 --out ...     # one worker a GPU

HMult at (13, 120, 60): `--items` inputs (pairs of fresh ciphertexts) mapped
over a local cluster of W workers, the median wall time of `--repeats` maps
after one warm-up map (which also starts the workers' programs), and items /
that time; the same items as one direct batch call (`prog(bx, by)`) in this
process for comparison. Every pool result is checked word for word against
the direct batch's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import ringfuse as rf  # noqa: E402
from benchlib import T, median_seconds, params_of, report_header  # noqa: E402
from ringfuse.dask import ProgramPool  # noqa: E402

SEED = bytes(range(32))


@rf.circuit(plaintext_modulus=T)
def hmult(x: rf.Encrypted, y: rf.Encrypted):
    return x * y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    params = params_of(13, 120, 60)
    program = rf.compile(hmult, args.device, params=params, cache_dir=tempfile.mkdtemp())
    keys = program.keygen(seed=SEED)
    rng = np.random.default_rng(1)
    rows = rng.integers(0, T, (args.items, params.poly_modulus_degree))
    bx, by = keys.encrypt(rows), keys.encrypt(rows[::-1].copy())
    direct = program(bx, by)
    direct_s = median_seconds(lambda: program(bx, by), args.repeats)
    records: list[dict[str, Any]] = [
        {"workers": 0, "mode": "direct batch", "items_per_s": round(args.items / direct_s, 1)}]
    print(f"direct batch: {args.items / direct_s:9.1f}/s", flush=True)
    pairs = list(zip(bx, by))
    for workers in args.workers:
        with ProgramPool(program, keys.evaluation_keys(), workers=workers) as pool:
            results = list(pool.map(pairs))
            for k, result in enumerate(results):
                if not np.array_equal(result.residues(), direct[k].residues()):
                    raise AssertionError(f"pool result {k} differs from the direct batch's")
            seconds = median_seconds(lambda: list(pool.map(pairs)), args.repeats)
        rate = args.items / seconds
        records.append({"workers": workers, "mode": "pool", "items_per_s": round(rate, 1),
                        "share_of_direct": round(rate * direct_s / args.items, 3)})
        print(f"{workers} worker(s): {rate:9.1f}/s ({rate * direct_s / args.items:.2f} of "
              "the direct batch)", flush=True)
    report = {
        **report_header("scale", args.device),
        "method": (f"HMult (13, 120, 60), {args.items} items; median wall time of "
                   f"{args.repeats} maps after a warm-up map, and of the direct batch call"),
        "records": records,
    }
    if args.out:
        args.out.write_text(json.dumps(report, indent=1))
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
