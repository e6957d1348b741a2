"""Throughput of an rf.dask.ProgramPool against its number of workers.

    python bench/scale.py --device cpu --workers 1 2 --out bench/results/scale-cpu-COMMIT.json
    python bench/scale.py --device cuda --workers 1 2 --set 16 1440 240 --out ...  # a worker a GPU

HMult at a parameter set (default (13, 120, 60)), two ways for each count W
of workers in `--workers`:

- streamed: `--items` inputs (pairs of fresh ciphertexts in this process)
  mapped over a local cluster of W workers, `--chunk` inputs a task (one
  batched call); the median wall time of `--repeats` maps after a warm-up map
  (which also starts the workers' programs);
- resident (CUDA only): every worker times `--resident-size` instances a
  launch with its inputs in its GPU's memory (Program.time_batch: CUDA
  events, medians), all workers at once, and the rates are summed.

Beside them, the same items as one direct batch call (`prog(bx, by)`) in
this process, and its resident rate. Every pool result is checked word for
word against the direct batch's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

# benchlib first: it puts the ringfuse to measure on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (  # noqa: E402
    T, median_seconds, params_of, report_header, resident_per_s, write_report,
)
import ringfuse as rf  # noqa: E402
from ringfuse.dask import ProgramPool  # noqa: E402

SEED = bytes(range(32))


@rf.circuit(plaintext_modulus=T)
def hmult(x: rf.Encrypted, y: rf.Encrypted):
    return x * y


def resident_on_worker(pool: str, inputs: list[rf.Ciphertext], size: int) -> float:
    """resident_per_s of the pool's program on the worker this runs on."""
    from ringfuse.dask import _PROGRAMS

    return resident_per_s(_PROGRAMS[pool], inputs, size, warmup=5, iterations=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--set", type=int, nargs=3, default=[13, 120, 60],
                        metavar=("LOGN", "LOGQ", "LOGP"))
    parser.add_argument("--items", type=int, default=64)
    parser.add_argument("--chunk", type=int, default=16, help="inputs a task (one batched call)")
    parser.add_argument("--resident-size", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    params = params_of(*args.set)
    program = rf.compile(hmult, args.device, params=params, cache_dir=tempfile.mkdtemp())
    keys = program.keygen(seed=SEED)
    rng = np.random.default_rng(1)
    rows = rng.integers(0, T, (args.items, params.poly_modulus_degree))
    # In host memory (a GPU key set's batches are made on the GPU): the
    # direct call streams them, as the pool's client does.
    bx, by = keys.encrypt(rows).to_host(), keys.encrypt(rows[::-1].copy()).to_host()
    direct = program(bx, by)
    if not np.array_equal(keys.decrypt(direct), rows * rows[::-1] % T):
        raise AssertionError("the direct batch does not decrypt to the products")
    direct_s = median_seconds(lambda: program(bx, by), args.repeats)
    direct_rate = args.items / direct_s
    records: list[dict[str, Any]] = [
        {"workers": 0, "mode": "direct batch, streamed", "items_per_s": round(direct_rate, 1)}]
    print(f"direct batch, streamed: {direct_rate:9.1f}/s", flush=True)
    resident = args.device == "cuda"
    if resident:
        direct_resident = resident_per_s(program, [bx[0], by[0]], args.resident_size,
                                         warmup=5, iterations=100)
        records.append({"workers": 0, "mode": "direct batch, resident",
                        "items_per_s": round(direct_resident, 1)})
        print(f"direct batch, resident: {direct_resident:9.1f}/s", flush=True)
    pairs = list(zip(bx, by))
    for workers in args.workers:
        with ProgramPool(program, keys.evaluation_keys(), workers=workers) as pool:
            results = list(pool.map(pairs, chunk=args.chunk))
            for k, result in enumerate(results):
                if not np.array_equal(result.residues(), direct[k].residues()):
                    raise AssertionError(f"pool result {k} differs from the direct batch's")
            seconds = median_seconds(lambda: list(pool.map(pairs, chunk=args.chunk)),
                                     args.repeats)
            rate = args.items / seconds
            records.append({"workers": workers, "mode": "pool, streamed",
                            "items_per_s": round(rate, 1),
                            "share_of_direct": round(rate / direct_rate, 3)})
            print(f"{workers} worker(s), streamed: {rate:9.1f}/s ({rate / direct_rate:.2f} of "
                  "the direct batch)", flush=True)
            if resident:
                rates = pool.client.run(resident_on_worker, pool._pool, [bx[0], by[0]],
                                        args.resident_size)
                total = sum(rates.values())
                records.append({"workers": workers, "mode": "pool, resident",
                                "items_per_s": round(total, 1),
                                "per_worker": [round(r, 1) for r in rates.values()],
                                "share_of_direct": round(total / direct_resident, 3)})
                print(f"{workers} worker(s), resident: {total:9.1f}/s ({total / direct_resident:.2f}"
                      " of the direct batch's)", flush=True)
    report = {
        **report_header("scale", args.device),
        "method": (f"HMult {tuple(args.set)}, {args.items} items streamed, {args.chunk} a task; "
                   f"median wall time of {args.repeats} maps after a warm-up map, and of the "
                   f"direct batch call; resident: {args.resident_size} instances a launch, "
                   "median of 100 replays (CUDA events) after 5, all workers at once"),
        "records": records,
    }
    write_report(args.out, report)


if __name__ == "__main__":
    main()
