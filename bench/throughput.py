"""Throughput against the batch size K: HMult, one rotation, encryption and
decryption, each as K instances in one batched call (`prog(batch, ...)`,
`keys.encrypt(rows)`, `keys.decrypt(batch)`) and as K single calls.

    python bench/throughput.py --device cuda --out bench/results/throughput-h200-COMMIT.json
    python bench/throughput.py --device cpu --quick          # two sets, K up to 8
    python bench/throughput.py --plot bench/results/throughput-h200-COMMIT.json

Every rate is K over the median wall time of `--repeats` whole Python calls
(after one warm-up call). "batch" (batch_per_s) is the batched call with its
inputs in host memory and its outputs back there: for HMult and rotation,
batches streamed from the host (in pinned memory, copied in chunks while
other chunks compute); encryption from rows to a batch, decryption from a
batch to rows (on the CUDA driver, batches in GPU memory, where the GPU key
set's batches live). On the CUDA driver, "resident" is the batched HMult or
rotation with its batches in GPU memory and its outputs left there;
"kernels" K over the median replay of one chunk's graph (Program.time_batch:
CUDA events, 3 warm-up and 20 timed replays; K <= 256, where it fits beside
the resident batches); and "link" the rate
the host link allows: the link's copy rates (pinned memory, measured in the
same run) over an instance's input and output bytes, the two directions
overlapping. HMult is compiled with variant="auto": the variant the
compiler's cost model picks for the set (recorded as "variant"), as a user
after throughput would. Single calls ("singles") are timed on the first
SINGLES_AT_MOST instances. Every batched output is checked word for word
against those single calls' before timing (HMult, rotation) or decrypted
against the values (encryption, decryption).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# benchlib first: it puts the ringfuse to measure on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (  # noqa: E402
    QUICK_SETS, SETS, T, median_seconds, params_of, report_header, resident_per_s,
    write_report,
)
import ringfuse as rf  # noqa: E402

SIZES = (1, 2, 4, 8, 16, 32)
# 1024 and 4096: chunks of 256, the copies of one overlapping the next's
# kernels; sizes stop where a set's batches would pass MOST_BATCH_BYTES.
CUDA_SIZES = (1, 4, 16, 64, 256, 1024, 4096)
MOST_BATCH_BYTES = 24 << 30
# Single calls are timed (and compared with the batch) on at most this many
# instances.
SINGLES_AT_MOST = 256
QUICK_SIZES = (1, 2, 4, 8)
LINK_BYTES = 64 << 20
SEED = bytes(range(32))


@rf.circuit(plaintext_modulus=T)
def hmult(x: rf.Encrypted, y: rf.Encrypted):
    return x * y


@rf.circuit(plaintext_modulus=T)
def rotation(x: rf.Encrypted):
    return x.rotate(1)


def same_words(batch: rf.CiphertextBatch, singles: list[rf.Ciphertext]) -> None:
    """The batch's first instances against the single calls of theirs."""
    for k, single in enumerate(singles):
        if not np.array_equal(batch[k].residues(), single.residues()):
            raise AssertionError(f"instance {k} of the batch differs from its single call")


def host_link() -> dict[str, float]:
    """The host link's copy rates, bytes per second, each way."""
    native = rf._native.runtime()
    return {"to_device": native.host_link_bytes_per_second(LINK_BYTES, True),
            "from_device": native.host_link_bytes_per_second(LINK_BYTES, False)}


def link_per_s(link: dict[str, float], input_words: int, output_words: int) -> float:
    """Instances a second the host link carries: an instance's input words up
    and output words down, at once."""
    return min(link["to_device"] / (input_words * 8), link["from_device"] / (output_words * 8))


def measure_set(log_n: int, log_q: int, log_p: int, device: str, sizes: tuple[int, ...],
                repeats: int, link: dict[str, float] | None) -> list[dict[str, Any]]:
    params = params_of(log_n, log_q, log_p)
    cache = tempfile.mkdtemp(prefix="ringfuse-throughput-")
    programs = {
        "hmult": rf.compile(hmult, device, params=params, cache_dir=cache, variant="auto"),
        "rotation": rf.compile(rotation, device, params=params, cache_dir=cache),
    }
    # On the GPU's driver, the keys (and so encryption and decryption) are
    # the GPU client's: its batches run chunks of rows a launch.
    keys = rf.KeySet.generate(params, galois_elements=programs["rotation"].galois_elements,
                              seed=SEED, device=device)
    for program in programs.values():
        program.set_evaluation_keys(keys.relin_key, keys.galois_keys)
    rng = np.random.default_rng(log_n)
    records = []
    # A fresh ciphertext's words: 2 components over Q.
    words = 2 * len(params.coeff_modulus) * params.poly_modulus_degree
    for size in sizes:
        if size > 1 and size * 3 * words * 8 > MOST_BATCH_BYTES:
            break
        rows = rng.integers(0, T, (size, params.poly_modulus_degree))
        # On the GPU, keys.encrypt makes batches in device memory: "resident".
        bx, by = keys.encrypt(rows), keys.encrypt(rows[::-1].copy())
        hx, hy = bx.to_host(), by.to_host()
        # Single calls on the first few instances (their rate does not grow
        # with K).
        few = min(size, SINGLES_AT_MOST)
        sx, sy = list(hx[:few]), list(hy[:few])
        calls: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
            "hmult": (lambda: programs["hmult"](hx, hy),
                      lambda: [programs["hmult"](x, y) for x, y in zip(sx, sy)]),
            "rotation": (lambda: programs["rotation"](hx),
                         lambda: [programs["rotation"](x) for x in sx]),
            "encryption": (lambda: keys.encrypt(rows),
                           lambda: [keys.encrypt(row) for row in rows[:few]]),
            "decryption": (lambda: keys.decrypt(bx),
                           lambda: [keys.decrypt(x) for x in sx]),
        }
        resident = {"hmult": lambda: programs["hmult"](bx, by),
                    "rotation": lambda: programs["rotation"](bx)}
        same_words(calls["hmult"][0](), calls["hmult"][1]())
        same_words(calls["rotation"][0](), calls["rotation"][1]())
        if device == "cuda":
            same_words(resident["hmult"]().to_host(), calls["hmult"][1]())
        if not np.array_equal(keys.decrypt(calls["encryption"][0]()), rows):
            raise AssertionError("the batch's encryption does not decrypt to its rows")
        for operation, (batched, singles) in calls.items():
            batch_s = median_seconds(batched, repeats)
            single_s = median_seconds(singles, repeats)
            record = {
                "operation": operation, "log_n": log_n, "log_q": log_q, "log_p": log_p,
                "k": size, "batch_s": round(batch_s, 6), "singles_s": round(single_s, 6),
                "batch_per_s": round(size / batch_s, 1),
                "singles_per_s": round(few / single_s, 1),
            }
            extra = ""
            if operation in programs:
                record["variant"] = programs[operation].variant
            if link is not None and operation in programs:
                inputs = [bx[0], by[0]] if operation == "hmult" else [bx[0]]
                resident_s = median_seconds(resident[operation], repeats)
                record["resident_per_s"] = round(size / resident_s, 1)
                if size <= 256:  # a chunk is at most 256 instances a launch
                    try:
                        record["kernels_per_s"] = round(
                            resident_per_s(programs[operation], inputs, size), 1)
                    except rf.OutOfDeviceMemory:
                        pass  # a timed chunk of K beside the resident batches does not fit
                # An instance's words each way (a leveled product's output is
                # over fewer primes than its inputs).
                host_inputs = [hx[0], hy[0]] if operation == "hmult" else [hx[0]]
                output = programs[operation](*host_inputs)
                record["link_per_s"] = round(link_per_s(
                    link, sum(x.residues().size for x in host_inputs), output.residues().size), 1)
                bound = min(record["resident_per_s"], record["link_per_s"])
                record["streamed_share"] = round(record["batch_per_s"] / bound, 3)
                extra = (f"  resident {record['resident_per_s']:10.1f}/s  link "
                         f"{record['link_per_s']:10.1f}/s  streamed/bound "
                         f"{record['streamed_share']:.2f}")
            records.append(record)
            label = f"{operation} {record.get('variant', '')}"
            print(f"({log_n}, {log_q}, {log_p}) {label:15s} K={size:4d}  batch "
                  f"{record['batch_per_s']:10.1f}/s  singles {record['singles_per_s']:10.1f}/s  "
                  f"({record['batch_per_s'] / record['singles_per_s']:4.2f}x){extra}",
                  flush=True)
    return records


def plot(report_path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    report = json.loads(report_path.read_text())
    records = report["records"]
    operations = sorted({r["operation"] for r in records})
    figure, axes = plt.subplots(1, len(operations), figsize=(4 * len(operations), 3.6),
                                squeeze=False)
    for axis, operation in zip(axes[0], operations):
        for index, key in enumerate(sorted({(r["log_n"], r["log_q"], r["log_p"])
                                            for r in records})):
            color = f"C{index}"
            mine = [r for r in records if r["operation"] == operation
                    and (r["log_n"], r["log_q"], r["log_p"]) == key]
            ks = [r["k"] for r in mine]
            # HMult and rotation stream host batches; encryption and
            # decryption are the batched call itself.
            batch_label = "streamed" if operation in ("hmult", "rotation") else "batch"
            axis.plot(ks, [r["batch_per_s"] for r in mine], marker="o", color=color,
                      label=f"{key} {batch_label}")
            resident = [r for r in mine if "resident_per_s" in r]
            if resident:
                axis.plot([r["k"] for r in resident], [r["resident_per_s"] for r in resident],
                          marker="^", color=color, linestyle=":", label=f"{key} resident")
            axis.plot(ks, [r["singles_per_s"] for r in mine], color=color,
                      linestyle="--", label=f"{key} singles")
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("K (instances per call)")
        axis.set_title(operation)
    axes[0][0].set_ylabel("operations per second")
    axes[0][-1].legend(fontsize=6)
    figure.suptitle(f"ringfuse throughput, {report['device']['name']}, {report['commit'][:7]}",
                    fontsize=9)
    figure.tight_layout()
    out = report_path.with_suffix(".png")
    figure.savefig(out, dpi=120)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--quick", action="store_true", help="two sets, K up to 8")
    parser.add_argument("--sets", type=int, default=len(SETS),
                        help="the first this many parameter sets (default all)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", help="the batch sizes K to measure")
    parser.add_argument("--out", type=Path, help="the JSON report to write")
    parser.add_argument("--plot", type=Path, metavar="FILE", help="plot FILE and stop")
    args = parser.parse_args()
    if args.plot:
        print(f"wrote {plot(args.plot)}")
        return
    sets = SETS[:QUICK_SETS] if args.quick else SETS[:args.sets]
    sizes = QUICK_SIZES if args.quick else CUDA_SIZES if args.device == "cuda" else SIZES
    sizes = tuple(args.sizes) if args.sizes else sizes
    link = host_link() if args.device == "cuda" else None
    if link:
        print(f"host link: {link['to_device'] / 1e9:.1f} GB/s to the GPU, "
              f"{link['from_device'] / 1e9:.1f} GB/s from it", flush=True)
    records: list[dict[str, Any]] = []
    for log_n, log_q, log_p in sets:
        records += measure_set(log_n, log_q, log_p, args.device, sizes, args.repeats, link)
        save_report(args, link, records)  # after each set: a long run keeps what it measured


def save_report(args: argparse.Namespace, link: dict[str, float] | None,
                records: list[dict[str, Any]]) -> None:
    report = {
        **report_header("throughput", args.device),
        "method": ("K over the median wall time of whole Python calls, "
                   f"median of {args.repeats} calls after one warm-up; batch: HMult/rotation "
                   "inputs and outputs in (pinned) host memory, encryption rows to a batch, "
                   "decryption a batch to rows (CUDA: batches in GPU memory); resident (CUDA): "
                   "HMult/rotation batches in GPU memory; kernels (CUDA): K over the median of "
                   "20 replays of one chunk's graph, CUDA events; link: the host link's "
                   "measured copy rates over an instance's bytes; batched outputs checked "
                   "word for word against single calls"),
        "host_link_bytes_per_s": link,
        "records": records,
    }
    write_report(args.out, report)


if __name__ == "__main__":
    main()
