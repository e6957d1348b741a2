#!/usr/bin/env python3
"""Plots transform time against logN per variant from the autotuner's cost table.

    python3 bench/plot_transforms.py passes/CostModels/data/transform-costs.json \\
        --out bench/results/transforms-h200.png [--direction forward]

One line per variant (NTT or DGT, with or without on-the-fly twiddling), each
point the fastest shape the table holds for that variant at that logN, for
log Q = 1260 (21 limbs of 60 bits), beside the transforms' floor and Phantom's
radix-8 NTT.
Needs matplotlib (`pip install matplotlib`; not a dependency of ringfuse).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tune_transforms import floor_us

# Phantom's 21-limb forward NTT on an H200, logN 14..17 (bench_gpu.py).
PHANTOM_FORWARD_US = {14: 22.0, 15: 29.0, 16: 43.0, 17: 81.0}


def best_times(entries: list[dict], direction: str) -> dict[str, dict[int, float]]:
    lines: dict[str, dict[int, float]] = {}
    for e in entries:
        if e["direction"] != direction:
            continue
        name = e["transform"].upper()
        if e["transform"] == "ntt":
            name += " OT" if e["ot"] else " no OT"
        points = lines.setdefault(name, {})
        points[e["logN"]] = min(points.get(e["logN"], float("inf")), e["median_us"])
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--direction", choices=("forward", "inverse"), default="forward")
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = json.loads(args.table.read_text())
    lines = best_times(table["entries"], args.direction)
    figure, axes = plt.subplots(figsize=(8, 5))
    for name in sorted(lines):
        log_ns = sorted(lines[name])
        axes.plot(log_ns, [lines[name][n] for n in log_ns], marker="o", label=name)
    log_ns = sorted({n for points in lines.values() for n in points})
    axes.plot(log_ns, [floor_us(n)["floor_us"] for n in log_ns], ":", color="gray",
              label="floor")
    if args.direction == "forward":
        phantom = sorted(PHANTOM_FORWARD_US)
        axes.plot(phantom, [PHANTOM_FORWARD_US[n] for n in phantom], "k--",
                  label="Phantom radix-8 NTT")
    axes.set_yscale("log")
    axes.set_xlabel("logN")
    axes.set_ylabel(f"{args.direction} transform of log Q = 1260 bits (us)")
    axes.set_title(f"ringfuse transforms on {table['device']} ({table['date']})")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
