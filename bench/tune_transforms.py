#!/usr/bin/env python3
"""Autotunes ringfuse's GPU transforms and writes the cost table the compiler reads.

Runs `transform_bench` (bench/cuda, built with the CUDA runtime) over every
decomposition the runtime supports, for a polynomial of log Q = 1260 bits: 21
limbs of 60-bit primes, at logN = 10 .. 17, forward and inverse, NTT and DGT.
Every timed
transform is first checked word for word against the CPU reference.

    python3 bench/tune_transforms.py --bench build/runtime/bench/cuda/transform_bench \\
        --out passes/CostModels/data/transform-costs.json

The table (`entries`: one row per timed variant, with the device and date it
was measured on) is what `rns-choose-transform` reads; the summary printed
last gives, per variant, the fastest shape with its achieved bandwidth and
butterfly rate against the H200's measured ceilings and the floor they imply.
Exits non-zero if any variant was wrong or failed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LOG_Q_BITS = 1260
LIMBS = 21

# Ceilings measured on a lent H200: a device-to-device copy (bytes read plus
# written), and Harvey/Shoup butterflies with lazy reduction on operands in
# registers.
COPY_BYTES_PER_S = 4.25e12
BUTTERFLIES_PER_S = 7.95e11

METHOD = (
    "transform_bench: random residues below each prime; the output of the first "
    "run is compared word for word with the CPU reference; then enough input sets "
    "to exceed 100 MB (so the 50 MB L2 does not serve them) are each transformed "
    "once per batch, the batch captured as a CUDA graph; 3 warm-up and 15 timed "
    "replays between CUDA events; median per transform. Every CUDA call checked."
)


@dataclass(frozen=True)
class Variant:
    transform: str
    log_n: int
    direction: str
    log_n1: int = 0
    radix: int = 0
    ot: int = 0

    def line(self) -> str:
        return (
            f"{self.transform} {self.log_n} {LIMBS} {self.direction} "
            f"{self.log_n1} {self.radix} {self.ot}"
        )


def ntt_shapes(log_n: int) -> list[tuple[int, int, int]]:
    """Every (logN1, radix, ot) ntt.cu supports (isSupportedNttShape's rules)."""
    shapes = []
    for log_n1 in (0, 4, 5, 6, 7, 8):
        log_n2 = log_n - log_n1
        if log_n2 > 11 or log_n1 >= log_n:
            continue
        if log_n1 and log_n2 < 4:
            continue
        for radix in (4, 8, 16):
            for ot in (0, 1, 2):
                if ot <= log_n2:
                    shapes.append((log_n1, radix, ot))
    return shapes


def variants(log_ns: list[int], quick: bool) -> list[Variant]:
    out = []
    for log_n in log_ns:
        for direction in ("forward", "inverse"):
            # The DGT's split of N/2 = R x C is fixed (dgt.h's dgtShape); the
            # table records log R as its logN1.
            out.append(Variant("dgt", log_n, direction, (log_n - 1) // 2))
            for log_n1, radix, ot in ntt_shapes(log_n):
                if quick and radix == 16:
                    continue
                out.append(Variant("ntt", log_n, direction, log_n1, radix, ot))
    return out


def floor_us(log_n: int) -> dict[str, float]:
    """The floor of one transform of every limb: data read and written once
    at copy bandwidth, and N/2 log N butterflies per limb at the butterfly rate
    (a DGT does the same work in Gaussian-integer butterflies over N/2 points)."""
    limbs, n = LIMBS, 1 << log_n
    byte_count = 2 * limbs * n * 8
    butterflies = limbs * n // 2 * log_n
    memory = byte_count / COPY_BYTES_PER_S * 1e6
    compute = butterflies / BUTTERFLIES_PER_S * 1e6
    return {"bytes": byte_count, "butterflies": butterflies, "memory_us": memory,
            "compute_us": compute, "floor_us": max(memory, compute)}


def device_name() -> str:
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
            check=True, capture_output=True, text=True).stdout.strip().splitlines()[0]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return "unknown GPU"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bench", type=Path, required=True, help="transform_bench binary")
    parser.add_argument("--out", type=Path, required=True, help="cost table (JSON)")
    parser.add_argument("--log-n", type=int, nargs="+", default=list(range(10, 18)))
    parser.add_argument("--quick", action="store_true", help="skip radix 16")
    args = parser.parse_args()

    todo = variants(args.log_n, args.quick)
    result = subprocess.run([str(args.bench)], input="\n".join(v.line() for v in todo) + "\n",
                            capture_output=True, text=True)
    by_line = {v.line(): v for v in todo}
    entries, failures = [], []
    for raw in result.stdout.splitlines():
        record = json.loads(raw)
        variant = by_line[record["config"]]
        if "error" in record or not record.get("correct", False):
            failures.append(record)
            continue
        entries.append({
            "transform": variant.transform, "logN": variant.log_n,
            "limbs": LIMBS, "direction": variant.direction,
            "logN1": variant.log_n1, "radix": variant.radix, "ot": variant.ot,
            "median_us": round(record["median_us"], 3),
            "min_us": round(record["min_us"], 3), "max_us": round(record["max_us"], 3),
        })
    table = {
        "device": device_name(),
        "date": datetime.date.today().isoformat(),
        "log_q_bits": LOG_Q_BITS,
        "method": METHOD,
        "entries": entries,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1) + "\n")

    print(f"{len(entries)} variants timed on {table['device']}, {len(failures)} failed; "
          f"table in {args.out}")
    print(f"{'variant':<24}{'logN':>5}{'best us':>9}  {'shape':<22}{'floor us':>9}"
          f"{'x floor':>8}{'TB/s':>7}{'bfly/s':>10}")
    best: dict[tuple, dict] = {}
    for e in entries:
        key = (e["transform"], e["direction"], e["ot"] > 0, e["logN"])
        if key not in best or e["median_us"] < best[key]["median_us"]:
            best[key] = e
    for key in sorted(best):
        e = best[key]
        f = floor_us(e["logN"])
        name = f"{e['transform']} {e['direction'][:3]}{' OT' if key[2] else ''}"
        shape = "fixed split" if e["transform"] == "dgt" else \
            f"N1=2^{e['logN1']} r{e['radix']} ot{e['ot']}"
        seconds = e["median_us"] * 1e-6
        print(f"{name:<24}{e['logN']:>5}{e['median_us']:>9.1f}  {shape:<22}{f['floor_us']:>9.1f}"
              f"{e['median_us'] / f['floor_us']:>8.2f}{f['bytes'] / seconds / 1e12:>7.2f}"
              f"{f['butterflies'] / seconds:>10.2e}")
    for failure in failures:
        print("FAILED:", json.dumps(failure), file=sys.stderr)
    if result.returncode not in (0, 1) or result.stderr.strip():
        print(result.stderr, file=sys.stderr)
    return 1 if failures or not entries else 0


if __name__ == "__main__":
    sys.exit(main())
