"""Application benchmarks: whole circuits with the compiler's whole-circuit
optimizations on and off (`rf.compile(optimize=...)`).

    python bench/apps.py --device cuda --out bench/results/apps-h200-COMMIT.json
    python bench/apps.py --device cpu --quick --out /tmp/apps.json   # a dry run
    python bench/apps.py --plot bench/results/apps-h200-COMMIT.json  # its plot, as .png

The applications:
- matvec-R: an R x R plaintext matrix (rf.PlainMatrix, run-time input) times
  an encrypted vector at logN 13; the largest size runs optimized only (its
  unoptimized program would need R - 1 rotation keys and key switches);
- dot-64: a 64-term encrypted dot product (each term a ciphertext, slot-wise:
  N/2 x 2 dot products at once);
- poly-15: a degree-15 polynomial with constant coefficients in 8 products
  (Paterson-Stockmeyer: x^2, x^3, x^4, x^8, x^12 and three giant-step products);
- pir-64: a PIR-style selection: 64 database rows of N slots (plaintexts)
  times an encrypted one-hot query (one ciphertext per row, all ones or zeros);
- net-64: two layers with plaintext weights, y = W2 (W1 x)^2, W1 64 x 64 and
  W2 16 x 64, on a 64-value encrypted input.

For each: device time (Program.time_runs, as bench_gpu.py measures HMult),
the key switches and transforms its schedule launches, the noise budget left
in its outputs, and the compile time (cold: an empty cache). Every program is
checked against numpy before and after timing.
"""

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import benchlib  # noqa: E402  (sys.path for ringfuse, the device and commit records)
from benchlib import Stats, rf

# Circuits here annotate sizes from variables, so this module must not use
# `from __future__ import annotations` (rf.PlainMatrix[rows, cols] must be
# evaluated where it is written).

T = benchlib.T
Values = list[np.ndarray]


@dataclass(frozen=True)
class App:
    """A circuit, how to make its arguments, and what they must give."""

    name: str
    circuit: rf.Circuit
    # (program, rng) -> (keyword arguments with plaintext values, the values in slot form)
    arguments: Callable[[rf.Program, rf.KeySet, np.random.Generator], tuple[dict[str, Any], Values]]
    expected: Callable[[Values, int], Values]
    unoptimized: bool = True  # whether the unoptimized program is measured too


def slots(rng: np.random.Generator, n: int, bound: int = T) -> np.ndarray:
    return rng.integers(0, bound, n, dtype=np.int64)


def sum_of_products(lhs: list, rhs: list):
    """lhs[0] rhs[0] + lhs[1] rhs[1] + ..., traced (a chain of additions)."""
    total = lhs[0] * rhs[0]
    for a, b in zip(lhs[1:], rhs[1:]):
        total = total + a * b
    return total


def matvec_app(size: int, log_n: int) -> App:
    @rf.circuit(plaintext_modulus=T, poly_modulus_degree=1 << log_n)
    def matvec(w: rf.PlainMatrix[size, size], x: rf.Encrypted):
        return w @ x

    def arguments(program, keys, rng):
        n = program.params.poly_modulus_degree
        w = rng.integers(0, T, (size, size), dtype=np.int64)
        x = slots(rng, n)
        return {"w": w, "x": keys.encrypt(x)}, [w, x]

    def expected(values, n):
        w, x = values
        y = np.zeros(n, dtype=object)
        y[:size] = (w.astype(object) @ x[:size].astype(object)) % T
        return [y]

    return App(f"matvec-{size}", matvec, arguments, expected, unoptimized=size <= 1024)


def dot_app(terms: int) -> App:
    @rf.circuit(plaintext_modulus=T)
    def dot(xs: rf.Encrypted[terms], ys: rf.Encrypted[terms]):
        return sum_of_products(xs, ys)

    def arguments(program, keys, rng):
        n = program.params.poly_modulus_degree
        xs, ys = [slots(rng, n) for _ in range(terms)], [slots(rng, n) for _ in range(terms)]
        return ({"xs": [keys.encrypt(x) for x in xs], "ys": [keys.encrypt(y) for y in ys]},
                xs + ys)

    def expected(values, n):
        xs, ys = values[:terms], values[terms:]
        return [sum(x.astype(object) * y.astype(object) for x, y in zip(xs, ys)) % T]

    return App(f"dot-{terms}", dot, arguments, expected)


POLY_COEFFICIENTS = [int(c) for c in np.random.default_rng(15).integers(0, T, 16)]


@rf.circuit(plaintext_modulus=T)
def poly15(x: rf.Encrypted):
    c = POLY_COEFFICIENTS
    x2 = x * x
    x3 = x2 * x
    x4 = x2 * x2
    x8 = x4 * x4
    x12 = x8 * x4

    def block(k: int):  # c_k + c_{k+1} x + c_{k+2} x^2 + c_{k+3} x^3
        return c[k + 1] * x + c[k + 2] * x2 + c[k + 3] * x3 + c[k]

    return block(0) + x4 * block(4) + x8 * block(8) + x12 * block(12)


def poly15_app() -> App:
    def arguments(program, keys, rng):
        x = slots(rng, program.params.poly_modulus_degree)
        return {"x": keys.encrypt(x)}, [x]

    def expected(values, n):
        x = values[0].astype(object)
        return [sum(c * x**k for k, c in enumerate(POLY_COEFFICIENTS)) % T]

    return App("poly-15", poly15, arguments, expected)


def pir_app(rows: int) -> App:
    @rf.circuit(plaintext_modulus=T)
    def pir(query: rf.Encrypted[rows], database: rf.Plain[rows]):
        return sum_of_products(query, database)

    def arguments(program, keys, rng):
        n = program.params.poly_modulus_degree
        database = rng.integers(0, T, (rows, n), dtype=np.int64)
        chosen = int(rng.integers(0, rows))
        query = [keys.encrypt(np.full(n, int(i == chosen))) for i in range(rows)]
        return {"query": query, "database": database}, [database, np.array([chosen])]

    def expected(values, n):
        database, chosen = values
        return [database[int(chosen[0])].astype(object)]

    return App(f"pir-{rows}", pir, arguments, expected)


def net_app(inputs: int, hidden: int, outputs: int) -> App:
    @rf.circuit(plaintext_modulus=T)
    def net(w1: rf.PlainMatrix[hidden, inputs], w2: rf.PlainMatrix[outputs, hidden],
            x: rf.Encrypted):
        h = w1 @ x
        return w2 @ (h * h)

    def arguments(program, keys, rng):
        n = program.params.poly_modulus_degree
        w1 = rng.integers(0, 16, (hidden, inputs), dtype=np.int64)
        w2 = rng.integers(0, 16, (outputs, hidden), dtype=np.int64)
        x = slots(rng, n, 256)
        return {"w1": w1, "w2": w2, "x": keys.encrypt(x)}, [w1, w2, x]

    def expected(values, n):
        w1, w2, x = (value.astype(object) for value in values)
        h = (w1 @ x[:inputs]) % T
        y = np.zeros(n, dtype=object)
        y[:outputs] = (w2 @ (h * h % T)) % T
        return [y]

    return App(f"net-{inputs}", net, arguments, expected)


def apps(quick: bool) -> list[App]:
    if quick:
        return [matvec_app(16, 12), matvec_app(64, 12), dot_app(8), poly15_app(), pir_app(8),
                net_app(16, 16, 4)]
    return [matvec_app(256, 13), matvec_app(1024, 13), matvec_app(4096, 13), dot_app(64),
            poly15_app(), pir_app(64), net_app(64, 64, 16)]


# --------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------


def build(app: App, optimize: bool, device: str, cache_root: Path) -> tuple[rf.Program, float]:
    """The compiled program, from an empty cache of its own (a cold compile), and
    its compile time in seconds. A CUDA build on a machine without a GPU stops
    after building."""
    cache = cache_root / f"{app.name}-{'on' if optimize else 'off'}"
    start = time.perf_counter()
    program = rf.compile(app.circuit, target=device, optimize=optimize, cache_dir=cache)
    return program, time.perf_counter() - start


def counts(program: rf.Program) -> dict[str, int]:
    """Key switches and transform launches in the program's schedule."""
    source = program.source_path.read_text()
    calls = re.findall(r"k->(\w+)\(", source)
    return {
        "key_switches": sum(c in ("ntt_key_switch", "key_switch_inner_product") for c in calls),
        "transforms": sum(c.startswith(("ntt_", "dgt_")) for c in calls),
        "launches": sum(c not in ("buffer", "moduli", "concurrent_begin", "concurrent_end",
                                  "stream") for c in calls),
    }


def check(app: App, program: rf.Program, keys: rf.KeySet, arguments: dict[str, Any],
          values: Values) -> list[int]:
    """Runs the program, compares with numpy; returns the outputs' noise budgets."""
    result = program(**arguments)
    outputs = result if isinstance(result, tuple) else (result,)
    n = program.params.poly_modulus_degree
    for output, want in zip(outputs, app.expected(values, n), strict=True):
        got = keys.decrypt(output).astype(object)
        if not (np.mod(got - want, T) == 0).all():
            raise AssertionError(f"{app.name} does not decrypt to numpy's answer")
    return [keys.noise_budget(output) for output in outputs]


def measure(app: App, optimize: bool, program: rf.Program, compile_s: float,
            runs: tuple[int, int]) -> dict[str, Any]:
    keys = program.keygen()
    arguments, values = app.arguments(program, keys, np.random.default_rng(len(app.name)))
    budgets = check(app, program, keys, arguments, values)
    native = program._native
    stats = Stats.of(native.time_runs(program._native_arguments((), arguments), *runs))
    check(app, program, keys, arguments, values)
    params = program.params
    return {
        "app": app.name,
        "optimize": optimize,
        "log_n": params.poly_modulus_degree.bit_length() - 1,
        "q_primes": len(params.coeff_modulus),
        "p_primes": len(params.special_modulus),
        "dnum": params.dnum,
        "variant": program.variant,
        "galois_keys": len(program.galois_elements),
        "galois_key_mib": round(program.galois_key_bytes / 2**20, 1),
        **counts(program),
        "noise_budget_bits": min(budgets),
        "compile_s": round(compile_s, 2),
        "replays_graph": bool(native.replays_graph),
        "checked": "decrypts to numpy's answer mod t, before and after timing",
        **vars(stats),
    }


def run(device: str, quick: bool, only: list[str] | None, out: Path) -> None:
    runs = benchlib.QUICK_RUNS if quick else benchlib.FULL_RUNS
    chosen = [app for app in apps(quick) if not only or app.name in only]
    jobs = [(app, optimize) for app in chosen for optimize in (True, False)
            if optimize or app.unoptimized]
    report = {
        **benchlib.report_header("apps", device),
        "method": benchlib.method(device, runs) + " Compile times are cold (an empty cache "
        "per program), built 8 at a time.",
        "apps": [],
    }
    with tempfile.TemporaryDirectory() as cache_root, ThreadPoolExecutor(8) as pool:
        print(f"building {len(jobs)} programs ...", file=sys.stderr)
        built = pool.map(lambda job: build(*job, device, Path(cache_root)), jobs)
        for (app, optimize), (program, compile_s) in zip(jobs, built):
            record = measure(app, optimize, program, compile_s, runs)
            report["apps"].append(record)
            # Written after each measurement: a run cut short keeps what it measured.
            out.write_text(json.dumps(report, indent=1) + "\n")
            print(f"{app.name:12} optimize={str(optimize):5} {record['median_us']:>12.1f} us  "
                  f"key switches {record['key_switches']:5}  transforms {record['transforms']:6}  "
                  f"budget {record['noise_budget_bits']:3} bits  compile {compile_s:.1f} s",
                  file=sys.stderr, flush=True)
    print(f"wrote {out}", file=sys.stderr)


def plot(path: Path) -> Path:
    """Device time with the optimizations on and off, per application."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(path.read_text())
    names = list(dict.fromkeys(record["app"] for record in report["apps"]))
    time_of = {(r["app"], r["optimize"]): r["median_us"] / 1000 for r in report["apps"]}
    figure, axes = plt.subplots(figsize=(8, 4.5))
    width = 0.38
    for offset, optimize, label in ((-width / 2, False, "optimizations off"),
                                    (width / 2, True, "on (default)")):
        heights = [time_of.get((name, optimize), 0.0) for name in names]
        bars = axes.bar([i + offset for i in range(len(names))], heights, width, label=label)
        if optimize:
            for i, (bar, name) in enumerate(zip(bars, names)):
                off = time_of.get((name, False))
                text = f"{off / heights[i]:.1f}x" if off else "off: n/a"
                axes.annotate(text, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                              ha="center", va="bottom", fontsize=8)
    axes.set_xticks(range(len(names)), names)
    axes.set_yscale("log")
    axes.set_ylabel("device time per run (ms, median)")
    axes.set_title(f"ringfuse applications, {report['device']['name']}, "
                   f"{report['commit'][:7]}")
    axes.legend()
    figure.tight_layout()
    out = path.with_suffix(".png")
    figure.savefig(out, dpi=120)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs")
    parser.add_argument("--only", nargs="+", metavar="APP", help="these applications only")
    parser.add_argument("--out", type=Path, help="the JSON report to write")
    parser.add_argument("--plot", type=Path, metavar="FILE", help="plot FILE and stop")
    args = parser.parse_args()
    if args.plot:
        print(f"wrote {plot(args.plot)}")
        return 0
    if args.out is None:
        parser.error("--out is required (or --plot FILE)")
    run(args.device, args.quick, args.only, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
