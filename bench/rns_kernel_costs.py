#!/usr/bin/env python3
"""What base conversion and scale-and-round cost on the GPU: the data behind
the compiler's variant cost model (passes/VariantCostModel.cpp).

    python bench/rns_kernel_costs.py [--device cuda|cpu] [--kernels K,...] [--out FILE]

Each measurement is a kernel program written as MLIR text, one launch: a
`convert` from a basis of `in` 60-bit primes to one of `out` other primes
(fast, exact, or BEHZ's Montgomery and Shenoy-Kumaresan conversions, the
latter reading the input's last prime as the redundant one), or a
`scale_round` (by 1; or BEHZ's fast floor) from `in + out` primes dividing by
the first `in`, keeping the other `out`. Timed with `Program.time_runs`
(bench_gpu.py's method: inputs bound once, warm-up, CUDA events around each
graph replay, the median). The launch reads residues the program's input
holds (uniformly random residues for the input limbs; the scale-and-round's
kept limbs are whatever its buffer holds: its time does not depend on them).

Prints the measurements and a least-squares fit per kernel,
time = fixed + MACs / rate + bytes / bandwidth (MACs = N x in x out, bytes =
8 N (in + out)), and writes both as JSON. A script that reports numbers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))
import benchlib  # noqa: E402

import ringfuse as rf  # noqa: E402
from ringfuse._native import runtime  # noqa: E402

T = 65537
LOG_N = (13, 14, 15, 16)
SHAPES = ((2, 3), (4, 5), (8, 9), (13, 14), (24, 25), (4, 28), (25, 24))  # (in, out) limbs
KERNELS = ("convert_fast", "convert_exact", "convert_montgomery", "convert_shenoy_kumaresan",
           "scale_round", "fast_floor")
# The rns.convert method of each conversion kernel (program ABI's RF_CONVERT_*).
CONVERT_METHODS = {"convert_fast": 0, "convert_exact": 1, "convert_montgomery": 2,
                   "convert_shenoy_kumaresan": 3}
RUNS = (5, 30)


def kernel_ir(kernel: str, log_n: int, limbs_in: int, limbs_out: int) -> str:
    n = 1 << log_n
    params = rf.Params(poly_modulus_degree=n, plaintext_modulus=T,
                       coeff_modulus_bits=[60] * (limbs_in + limbs_out),
                       special_modulus_bits=[60], allow_insecure=True)
    q, rest = list(params.coeff_modulus[:limbs_in]), list(params.coeff_modulus[limbs_in:])
    p = list(params.special_modulus)

    def basis(name: str, moduli: Sequence[int]) -> str:
        return f"#{name} = #rns.basis<{name}: [{', '.join(map(str, moduli))}]>\n"

    buffer = f"!kernel.buffer<{n}, #Q>"
    if kernel in ("scale_round", "fast_floor"):
        floor = ", floor" if kernel == "fast_floor" else ""
        work = (f'    %w = kernel.alloc {{slot = 0}} : !kernel.buffer<{n}, #QR>\n'
                f'    %o = kernel.alloc {{slot = 1}} : !kernel.buffer<{n}, #R>\n'
                f'    kernel.launch "scale_round" ins(%w : !kernel.buffer<{n}, #QR>) '
                f'outs(%o : !kernel.buffer<{n}, #R>) {{divisor = #Q, numerator = 1 : i64{floor}}}\n')
    else:
        method = CONVERT_METHODS[kernel]
        attributes = f" {{method = {method} : i32}}" if method else ""
        work = (f'    %o = kernel.alloc {{slot = 0}} : !kernel.buffer<{n}, #R>\n'
                f'    kernel.launch "convert" ins(%c0 : {buffer}) '
                f'outs(%o : !kernel.buffer<{n}, #R>){attributes}\n')
    ir = (
        basis("Q", q) + basis("R", rest) + basis("QR", q + rest)
        + f"#params = #bfv.params<t = {T}, N = {n}, Q = [{', '.join(map(str, q))}], "
        f"P = [{', '.join(map(str, p))}], dnum = {limbs_in}>\n"
        "module {\n"
        f"  func.func @{kernel}_{limbs_in}_{limbs_out}(%c0: {buffer}, %c1: {buffer}) -> "
        f"({buffer}, {buffer})\n"
        f"      attributes {{kernel.slots = {work.count('kernel.alloc')}, "
        "ringfuse.inputs = array<i64: 2>, ringfuse.outputs = array<i64: 2>, "
        "ringfuse.params = #params} {\n" + work
        + f"    return %c0, %c1 : {buffer}, {buffer}\n  }}\n}}\n"
    )
    return ir


def measure(device: str, cache: Any, kernels: Sequence[str]) -> list[dict[str, Any]]:
    cases = [(k, log_n, a, b) for log_n in LOG_N for a, b in SHAPES for k in kernels]
    programs = [kernel_ir(*case) for case in cases]

    def build(ir: str) -> Path:
        return benchlib.build_ntt(ir, cache, device)

    with ThreadPoolExecutor() as pool:
        libraries = list(pool.map(build, programs))
    rt = runtime()
    records = []
    for (kernel, log_n, limbs_in, limbs_out), library in zip(cases, libraries, strict=True):
        native = rt.Program.load(str(library), device)
        context = native.context
        moduli, n = list(context.coeff_modulus), int(context.degree)
        rng = np.random.default_rng(log_n * 100 + limbs_in)
        data = np.concatenate([benchlib.random_residues(rng, moduli, n) for _ in range(2)])
        ciphertext = rt.ciphertext_from_data(context, 2, data)
        stats = benchlib.Stats.of(native.time_runs([ciphertext], *RUNS))
        n = 1 << log_n
        # Shenoy-Kumaresan converts from all but the redundant input prime.
        converted_from = limbs_in - 1 if kernel == "convert_shenoy_kumaresan" else limbs_in
        records.append({
            "kernel": kernel, "log_n": log_n, "in": limbs_in, "out": limbs_out,
            "macs": n * converted_from * limbs_out, "bytes": 8 * n * (limbs_in + limbs_out),
            **vars(stats),
        })
        print(f"{kernel:14} logN={log_n} {limbs_in:2} -> {limbs_out:2}: {stats.median_us:8.1f} us",
              file=sys.stderr, flush=True)
    return records


def fit(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per kernel: fixed us, MACs per us, bytes per us (least squares, non-negative)."""
    fits = {}
    for kernel in dict.fromkeys(r["kernel"] for r in records):
        rows = [r for r in records if r["kernel"] == kernel]
        design = np.array([[1.0, r["macs"], r["bytes"]] for r in rows])
        times = np.array([r["median_us"] for r in rows])
        coefficients, *_ = np.linalg.lstsq(design, times, rcond=None)
        fixed, per_mac, per_byte = (max(float(c), 1e-15) for c in coefficients)
        predicted = design @ np.array([fixed, per_mac, per_byte])
        fits[kernel] = {
            "fixed_us": round(fixed, 3),
            "macs_per_us": round(1 / per_mac),
            "bytes_per_us": round(1 / per_byte),
            "worst_relative_error": round(float(np.max(np.abs(predicted - times) / times)), 3),
        }
    return fits


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--out", type=Path, default=BENCH_DIR / "results" / "rns-kernel-costs.json")
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--kernels", default=",".join(KERNELS),
                        help=f"which kernels, comma-separated (default: all of {', '.join(KERNELS)})")
    args = parser.parse_args(argv)
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown or not kernels:
        print(f"rns_kernel_costs: unknown kernels {unknown}; choose from {', '.join(KERNELS)}",
              file=sys.stderr)
        return 2
    if args.device == "cuda" and not runtime().cuda_available():
        print("rns_kernel_costs: no usable CUDA device", file=sys.stderr)
        return 2
    compiler = benchlib.compiler
    records = measure(args.device, compiler.Cache.at(args.cache_dir), kernels)
    report = {
        **benchlib.report_header("bench/rns_kernel_costs.py", args.device),
        "method": benchlib.method(args.device, RUNS),
        "fit": fit(records),
        "measurements": records,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["fit"], indent=2))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
