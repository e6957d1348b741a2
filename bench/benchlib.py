"""The library of the GPU benchmarks: what bench_gpu.py measures, and how.

bench_gpu.py is its command line; depth_budget.py, hmult_steps.py,
kernel_timeline.py, recursive_mult.py and rns_kernel_costs.py import it too.
It holds:

- the parameter sets (60-bit primes, t = 786433), the NTT sizes, Phantom's
  numbers and the run counts;
- the circuits `hmult` (`x * y`) and `add` (`x + y`), `params_of` and the
  kernel program of the batched forward NTT;
- building every program into the cache, in parallel;
- measuring: `Stats` of timed runs, the checks around them, and one JSON
  record per measurement (HMult and Add, encryption and decryption, the NTT);
- where and when: the device, the CPU model, the commit (`report_header`)
  and the text of the method (`method`).

Importing it puts this repository's `frontend/` first on `sys.path`, so the
`ringfuse` it loads is the one beside it, whatever PYTHONPATH says; with
RINGFUSE_INSTALLED=1, the installed one (a wheel's) instead.
"""

from __future__ import annotations

import datetime
import hashlib
import importlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

REPO_ROOT = Path(__file__).resolve().parents[1]
if os.environ.get("RINGFUSE_INSTALLED") != "1":
    sys.path.insert(0, str(REPO_ROOT / "frontend"))

import ringfuse as rf
from ringfuse import driver, resources
from ringfuse._native import runtime

# `ringfuse.compile` the attribute is the function; the module holds the cache
# and the build steps rf.compile uses.
compiler: ModuleType = importlib.import_module("ringfuse.compile")

T = 786433  # 3 * 2^18 + 1: prime, = 1 mod 2N for N <= 2^17 (batching)
PRIME_BITS = 60
# (logN, log Q, log P) of the HMult and Add sets; Q and P of 60-bit primes.
SETS: tuple[tuple[int, int, int], ...] = (
    (13, 120, 60),
    (14, 300, 60),
    (14, 240, 120),
    (15, 660, 60),
    (15, 540, 180),
    (16, 1440, 240),
)
NTT_LOG_N: tuple[int, ...] = (14, 15, 16, 17)
NTT_LIMBS = 21
# Phantom (HPS) on an H200, same method, in microseconds.
PHANTOM_HMULT_US: dict[tuple[int, int, int], float] = dict(
    zip(SETS, (226.0, 325.0, 281.0, 783.0, 517.0, 2283.0))
)
# Phantom's best of its four variants (BEHZ, HPS, CHPS, LHPS) on an H200, as the
# variants issue gives them: HMult's target is a third of these.
PHANTOM_HMULT_BEST_US: dict[tuple[int, int, int], float] = dict(
    zip(SETS, (208.0, 306.0, 260.0, 740.0, 473.0, 2236.0))
)
PHANTOM_NTT_US: dict[int, float] = dict(zip(NTT_LOG_N, (22.0, 29.0, 43.0, 81.0)))
# Phantom's encryption (public key) and decryption over the six sets, as the
# issue gives them: a range only, not per set.
PHANTOM_CLIENT_RANGE_US: dict[str, tuple[float, float]] = {
    "encrypt_public": (185.0, 608.0),
    "decrypt": (40.0, 142.0),
}
COPY_CEILING_TBPS = 4.25  # H200 device-to-device copy, read + write (toolchain.md)
L2_MB = 50  # H100 / H200

FULL_RUNS = (10, 50)  # warm-up, timed iterations
QUICK_RUNS = (3, 10)
QUICK_SETS = 2

METHOD_CUDA = (
    "Program.time_runs on the CUDA driver: the inputs (fresh public-key encryptions of "
    "uniformly random slots; for the NTT, uniformly random residues) are copied to the "
    "device once, outside any timed region; the schedule is captured into a CUDA graph "
    "(one eager run, one capture), replayed {warmup} times as warm-up, then {iterations} "
    "times, each timed with CUDA events recorded on the program's stream just before and "
    "after one graph replay. All replays are queued back to back and waited for once, so "
    "the events bracket the replays, not the host's launch latency. Reported: median, "
    "min, max, p10 and p90 over the timed replays, in microseconds. One input set per "
    "measurement, not rotated (time_runs binds one set): each replay finds in the "
    "{l2} MB L2 whatever the previous replay left there. For HMult the relinearization "
    "key alone is 0.75 MiB at logN 13 and 168 MiB at logN 16 (key_mib), so the smaller "
    "sets run largely from L2 and the larger ones mostly from HBM; the NTT at logN 14 "
    "(2.6 MiB of residues, 5.3 MiB of twiddles) runs from L2, at logN 17 (21 + 42 MiB) "
    "only partly. The schedule reuses its buffers in place, so later replays compute on "
    "earlier replays' words: the same work on other values (modular arithmetic whose "
    "time does not depend on them). Each program is checked before and after timing "
    "(see each measurement's 'checked'). Encryption (public key) and decryption: "
    "gpu_time_encrypt_public / gpu_time_decrypt upload the key and the plaintext or "
    "ciphertext once and allocate every working buffer before timing; each of the "
    "{warmup} + {iterations} runs is captured into a CUDA graph of its own (an "
    "encryption takes three fresh sampling domains per run), the graphs are replayed back "
    "to back and each of the last {iterations} is timed with CUDA events on the stream. "
    "Encryption: sampling u, e_0, e_1 on the device, the products with the key, inverse "
    "NTTs, division by P, adding round(Q m / t). Decryption: forward NTT of c_1, product "
    "with s, inverse NTT, adding c_0, HPS scaling to the plaintext polynomial (no slot "
    "decoding); c_1 is restored by a device-to-device copy before each run, outside the "
    "events. The last timed run of each is compared word for word with the CPU "
    "reference. Phantom's encryption and decryption are given only as ranges over the "
    "six sets (the issue's numbers)."
)
METHOD_CPU = (
    "Program.time_runs on the CPU driver (single-threaded reference kernels, no GPU): "
    "the inputs (fresh public-key encryptions of uniformly random slots; for the NTT, "
    "uniformly random residues) are bound to the program's host buffers once, the "
    "schedule runs {warmup} times as warm-up, then {iterations} times, each timed with "
    "steady_clock. Reported: median, min, max, p10 and p90, in microseconds. A dry run "
    "of the GPU benchmark's code path, not a CPU baseline worth comparing. Encryption "
    "(public key) and decryption (to the plaintext polynomial): one call each of the CPU "
    "reference functions, timed with time.perf_counter (iterations = 1)."
)


# --------------------------------------------------------------------------
# What is measured
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class CircuitBench:
    """A compiled circuit (HMult or Add) at one parameter set."""

    name: str  # "hmult" | "add"
    log_n: int
    log_q: int
    log_p: int
    variant: str = "hps"  # the BFV multiplication (rf.compile's variant)

    @property
    def label(self) -> str:
        return f"logN={self.log_n} logQ={self.log_q} logP={self.log_p}"


@dataclass(frozen=True)
class NttBench:
    """The forward NTT of NTT_LIMBS limbs at one ring degree."""

    log_n: int

    @property
    def label(self) -> str:
        return f"logN={self.log_n} {NTT_LIMBS} limbs"


@dataclass
class Stats:
    median_us: float
    min_us: float
    max_us: float
    p10_us: float
    p90_us: float
    iterations: int

    @classmethod
    def of(cls, microseconds: Sequence[float]) -> Stats:
        values = np.asarray(microseconds, dtype=np.float64)
        if values.size == 0:
            raise ValueError("no timed runs")
        return cls(
            median_us=round(float(np.median(values)), 3),
            min_us=round(float(values.min()), 3),
            max_us=round(float(values.max()), 3),
            p10_us=round(float(np.percentile(values, 10)), 3),
            p90_us=round(float(np.percentile(values, 90)), 3),
            iterations=int(values.size),
        )


@rf.circuit(plaintext_modulus=T)
def hmult(x: rf.Encrypted, y: rf.Encrypted) -> rf.Encrypted:
    return x * y


@rf.circuit(plaintext_modulus=T)
def add(x: rf.Encrypted, y: rf.Encrypted) -> rf.Encrypted:
    return x + y


CIRCUITS: dict[str, rf.Circuit] = {"hmult": hmult, "add": add}
EXPECTED: dict[str, Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], Any]] = {
    "hmult": lambda x, y: (x * y) % T,
    "add": lambda x, y: (x + y) % T,
}


def params_of(log_n: int, log_q: int, log_p: int, allow_insecure: bool = False) -> rf.Params:
    """60-bit primes: Q = [60] * (logQ / 60), P = [60] * (logP / 60), default dnum."""
    return rf.Params(
        poly_modulus_degree=1 << log_n,
        plaintext_modulus=T,
        coeff_modulus_bits=[PRIME_BITS] * (log_q // PRIME_BITS),
        special_modulus_bits=[PRIME_BITS] * (log_p // PRIME_BITS),
        allow_insecure=allow_insecure,
    )


def ntt_params(log_n: int) -> rf.Params:
    """NTT_LIMBS primes of Q (and one of P, which the program never touches).
    Insecure at logN 14 and 15: the program holds no secrets, only residues."""
    return params_of(log_n, NTT_LIMBS * PRIME_BITS, PRIME_BITS, allow_insecure=True)


# --------------------------------------------------------------------------
# Building (all programs first, in parallel: nvcc is the slow step)
# --------------------------------------------------------------------------


def ntt_kernel_ir(params: rf.Params) -> str:
    """A kernel program: one ciphertext input (2 components over Q, 21 limbs),
    transformed in place; component 0 goes through `ntt_forward`, both come
    back as the output. (Inputs and outputs are ciphertexts to the runtime,
    so the buffer to transform is a ciphertext component.)"""
    n = params.poly_modulus_degree
    q = ", ".join(map(str, params.coeff_modulus))
    p = ", ".join(map(str, params.special_modulus))
    buffer = f"!kernel.buffer<{n}, #Q>"
    return (
        f"#Q = #rns.basis<Q: [{q}]>\n"
        f"#params = #bfv.params<t = {T}, N = {n}, Q = [{q}], P = [{p}], dnum = {params.dnum}>\n"
        "module {\n"
        f"  func.func @ntt_forward_{NTT_LIMBS}_limbs(%c0: {buffer}, %c1: {buffer}) -> "
        f"({buffer}, {buffer})\n"
        "      attributes {kernel.slots = 0, ringfuse.inputs = array<i64: 2>, "
        "ringfuse.outputs = array<i64: 2>, ringfuse.params = #params} {\n"
        f'    kernel.launch "ntt_forward" outs(%c0 : {buffer})\n'
        f"    return %c0, %c1 : {buffer}, {buffer}\n"
        "  }\n"
        "}\n"
    )


def emit_kernel_program(kernel_ir: str, cache: Any, target: str) -> Path:
    """The emitted source of hand-written kernel IR, cached as rf.compile caches its own."""
    flag = compiler.EMIT_ARGS[target]
    tool = driver.find_tool(compiler.TRANSLATE)
    key = hashlib.sha256(
        json.dumps(
            ["bench-kernel-ir", kernel_ir, flag, str(tool), tool.stat().st_mtime_ns]
        ).encode()
    ).hexdigest()
    path: Path = cache.entry("sources", key, compiler.SOURCE_SUFFIX[target])
    if not path.exists():
        compiler.write_atomically(
            path, driver.run_tool(compiler.TRANSLATE, kernel_ir, *flag).encode()
        )
    return path


def build_circuit(bench: CircuitBench, params: rf.Params, cache: Any, target: str) -> None:
    traced = rf.trace(CIRCUITS[bench.name], params=params)
    source = compiler.emit_source(
        traced, cache, target=target, options=compiler.PipelineOptions(bench.variant))
    compiler.build_library(source, cache, target=target)


def build_ntt(kernel_ir: str, cache: Any, target: str) -> Path:
    library: Path = compiler.build_library(
        emit_kernel_program(kernel_ir, cache, target), cache, target=target
    )
    return library


def build_all(
    circuits: Sequence[CircuitBench],
    params: dict[tuple[int, int, int], rf.Params],
    ntt_ir: dict[int, str],
    cache: Any,
    device: str,
) -> dict[tuple[int, str], Path]:
    """Every program into the cache, in parallel; the NTT libraries by (logN, target).
    On the GPU the NTT is also built for the CPU driver, its reference."""
    ntt_targets = [device] if device == "cpu" else [device, "cpu"]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        circuit_jobs = [
            pool.submit(
                build_circuit, bench, params[(bench.log_n, bench.log_q, bench.log_p)], cache, device
            )
            for bench in circuits
        ]
        ntt_jobs = {
            (log_n, target): pool.submit(build_ntt, ir, cache, target)
            for log_n, ir in ntt_ir.items()
            for target in ntt_targets
        }
        for job in circuit_jobs:
            job.result()
        libraries = {key: job.result() for key, job in ntt_jobs.items()}
    print(
        f"built {len(circuit_jobs) + len(ntt_jobs)} programs in "
        f"{time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    return libraries


# --------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------


def random_slots(rng: np.random.Generator, n: int) -> npt.NDArray[np.int64]:
    return rng.integers(0, T, n, dtype=np.int64)


def check_circuit(
    name: str,
    program: rf.Program,
    keys: rf.KeySet,
    x: rf.Ciphertext,
    y: rf.Ciphertext,
    xs: npt.NDArray[np.int64],
    ys: npt.NDArray[np.int64],
) -> None:
    out = program(x, y)
    assert isinstance(out, rf.Ciphertext)
    if not np.array_equal(keys.decrypt(out), EXPECTED[name](xs, ys)):
        raise AssertionError(f"{name} at {program.params!r} does not decrypt to the expected slots")


def measure_circuit(
    bench: CircuitBench,
    params: rf.Params,
    keys: rf.KeySet,
    cache: Any,
    device: str,
    runs: tuple[int, int],
    seed: int,
) -> dict[str, Any]:
    program = rf.compile(
        CIRCUITS[bench.name], target=device, params=params, variant=bench.variant,
        cache_dir=cache.root,
    )
    if program.needs_relin_key:
        program.set_evaluation_keys(keys.relin_key)
    rng = np.random.default_rng(seed)
    xs, ys = (
        random_slots(rng, params.poly_modulus_degree),
        random_slots(rng, params.poly_modulus_degree),
    )
    x, y = keys.encrypt(xs), keys.encrypt(ys)
    # The check's run also binds the keys to the native program for time_runs.
    check_circuit(bench.name, program, keys, x, y, xs, ys)
    native = program._native  # the loaded runtime Program (rf.Program wraps it)
    warmup, iterations = runs
    stats = Stats.of(native.time_runs([x._native, y._native], warmup, iterations))
    check_circuit(bench.name, program, keys, x, y, xs, ys)  # now a graph replay on the GPU
    return circuit_record(bench, params, stats, bool(native.replays_graph), warmup)


def mib(words: int) -> float:
    return round(words * 8 / 2**20, 2)


def parameter_fields(name: str, bench: CircuitBench, params: rf.Params) -> dict[str, Any]:
    """The fields every record at one of the six parameter sets starts with."""
    n, q = params.poly_modulus_degree, len(params.coeff_modulus)
    return {
        "name": name,
        "log_n": bench.log_n,
        "log_q": bench.log_q,
        "log_p": bench.log_p,
        "q_primes": q,
        "p_primes": len(params.special_modulus),
        "dnum": params.dnum,
        "plaintext_modulus": T,
        "ciphertext_mib": mib(2 * q * n),
    }


def circuit_record(
    bench: CircuitBench, params: rf.Params, stats: Stats, replays_graph: bool, warmup: int
) -> dict[str, Any]:
    n, q, p = params.poly_modulus_degree, len(params.coeff_modulus), len(params.special_modulus)
    phantom = (
        PHANTOM_HMULT_US.get((bench.log_n, bench.log_q, bench.log_p))
        if bench.name == "hmult"
        else None
    )
    record: dict[str, Any] = {
        **parameter_fields(bench.name, bench, params),
        "variant": bench.variant,
        "key_mib": mib(2 * params.dnum * (q + p) * n) if bench.name == "hmult" else 0.0,
        "warmup": warmup,
        "replays_graph": replays_graph,
        "checked": f"decrypts to {'x * y' if bench.name == 'hmult' else 'x + y'} mod t, "
        "before and after timing",
        **vars(stats),
    }
    if phantom is not None:
        record["phantom_us"] = phantom
        record["ratio_to_phantom"] = round(stats.median_us / phantom, 3)
        best = PHANTOM_HMULT_BEST_US[(bench.log_n, bench.log_q, bench.log_p)]
        record["phantom_best_us"] = best
        record["ratio_to_phantom_best"] = round(stats.median_us / best, 3)
    return record


def measure_client(
    bench: CircuitBench,
    params: rf.Params,
    keys: rf.KeySet,
    device: str,
    runs: tuple[int, int],
    seed: int,
) -> list[dict[str, Any]]:
    """Public-key encryption and decryption at one parameter set: two records."""
    rt = runtime()
    rng = np.random.default_rng(seed)
    xs = random_slots(rng, params.poly_modulus_degree)
    plaintext = keys.encode(xs)._native
    ciphertext = keys.encrypt(xs)._native
    public_key, secret_key = keys.public_key._native, keys.secret_key._native
    prng = rt.Prng.from_seed(hashlib.sha256(f"bench-client-{seed}".encode()).digest())
    reference = np.asarray(rt.decrypt(secret_key, ciphertext).coefficients, dtype=np.uint64)
    if not np.array_equal(keys.decrypt(rf.Ciphertext(params, ciphertext)), xs):
        raise AssertionError(f"encryption at {params!r} does not decrypt to its slots")
    warmup, iterations = runs
    if device == "cuda":
        # Untimed: the GPU operations give the CPU's plaintext and a decryptable ciphertext.
        gpu_plain = np.asarray(rt.gpu_decrypt(secret_key, ciphertext).coefficients, dtype=np.uint64)
        if not np.array_equal(gpu_plain, reference):
            raise AssertionError(f"gpu_decrypt at {params!r} differs from the CPU's decrypt")
        fresh = rt.gpu_encrypt_public(public_key, plaintext, prng)
        if not np.array_equal(keys.decrypt(rf.Ciphertext(params, fresh)), xs):
            raise AssertionError(f"gpu_encrypt_public at {params!r} does not decrypt to its slots")
        # Timed; each also compares its last timed run with the CPU reference.
        encrypt = Stats.of(rt.gpu_time_encrypt_public(public_key, plaintext, prng, warmup, iterations))
        decrypt = Stats.of(rt.gpu_time_decrypt(secret_key, ciphertext, warmup, iterations))
        checked = (
            "before timing: gpu_decrypt equals the CPU's decrypt, gpu_encrypt_public "
            "decrypts to the slots; after timing: the last timed run equals the CPU "
            "reference word for word (encryption: same sampling domains)"
        )
        timed_warmup = warmup
    else:
        started = time.perf_counter()
        fresh = rt.encrypt_public(public_key, plaintext, prng)
        encrypt_us = (time.perf_counter() - started) * 1e6
        started = time.perf_counter()
        plain = rt.decrypt(secret_key, ciphertext)
        decrypt_us = (time.perf_counter() - started) * 1e6
        if not np.array_equal(keys.decrypt(rf.Ciphertext(params, fresh)), xs):
            raise AssertionError(f"encrypt_public at {params!r} does not decrypt to its slots")
        if not np.array_equal(keys.decode(rf.Plaintext(params, plain)), xs):
            raise AssertionError(f"decrypt at {params!r} does not give the slots")
        encrypt, decrypt = Stats.of([encrypt_us]), Stats.of([decrypt_us])
        checked = "the timed encryption decrypts to the slots; the timed decryption decodes to them"
        timed_warmup = 0
    return [
        client_record("encrypt_public", bench, params, encrypt, timed_warmup, checked),
        client_record("decrypt", bench, params, decrypt, timed_warmup, checked),
    ]


def client_record(
    name: str, bench: CircuitBench, params: rf.Params, stats: Stats, warmup: int, checked: str
) -> dict[str, Any]:
    low, high = PHANTOM_CLIENT_RANGE_US[name]
    return {
        **parameter_fields(name, bench, params),
        "warmup": warmup,
        "checked": checked,
        **vars(stats),
        "phantom_range_us": [low, high],
    }


def random_residues(
    rng: np.random.Generator, moduli: Sequence[int], n: int
) -> npt.NDArray[np.uint64]:
    return np.concatenate([rng.integers(0, q, n, dtype=np.uint64) for q in moduli])


def limb_sums_mod(words: npt.NDArray[np.uint64], moduli: Sequence[int], n: int) -> list[int]:
    """Sum of each limb's N words mod its prime (exact: 30-bit halves in uint64)."""
    sums = []
    for limb, q in enumerate(moduli):
        row = words[limb * n : (limb + 1) * n]
        low = int((row & np.uint64((1 << 30) - 1)).sum())
        high = int((row >> np.uint64(30)).sum())
        sums.append(((high << 30) + low) % q)
    return sums


def check_ntt(
    output: Any, data: npt.NDArray[np.uint64], moduli: Sequence[int], n: int, reference: Any | None
) -> None:
    """The negacyclic NTT evaluates at the N odd powers of a 2N-th root of unity,
    whose k-th powers sum to 0 for 0 < k < N: the evaluations sum to N * a_0.
    On the GPU the output must also be the CPU driver's, word for word."""
    words = np.asarray(output.data, dtype=np.uint64)
    transformed = words[: len(moduli) * n]
    expected = [(n * int(data[limb * n])) % q for limb, q in enumerate(moduli)]
    if limb_sums_mod(transformed, moduli, n) != expected:
        raise AssertionError(f"the NTT at N = {n} does not sum to N * a_0 in every limb")
    if not np.array_equal(words[len(moduli) * n :], data[len(moduli) * n :]):
        raise AssertionError(f"the NTT program at N = {n} changed the untransformed component")
    if reference is not None and not np.array_equal(
        words, np.asarray(reference.data, dtype=np.uint64)
    ):
        raise AssertionError(f"the NTT at N = {n} differs from the CPU driver's")


def measure_ntt(
    bench: NttBench,
    libraries: dict[tuple[int, str], Path],
    device: str,
    runs: tuple[int, int],
    seed: int,
) -> dict[str, Any]:
    rt = runtime()
    native = rt.Program.load(str(libraries[(bench.log_n, device)]), device)
    context = native.context
    moduli, n = list(context.coeff_modulus), int(context.degree)
    data = random_residues(np.random.default_rng(seed), moduli, n)
    data = np.concatenate([data, random_residues(np.random.default_rng(seed + 1), moduli, n)])
    ciphertext = rt.ciphertext_from_data(context, 2, data)
    reference = None
    if device != "cpu":
        cpu = rt.Program.load(str(libraries[(bench.log_n, "cpu")]), "cpu")
        reference = cpu.run([ciphertext])[0]
    check_ntt(native.run([ciphertext])[0], data, moduli, n, reference)
    warmup, iterations = runs
    stats = Stats.of(native.time_runs([ciphertext], warmup, iterations))
    check_ntt(native.run([ciphertext])[0], data, moduli, n, reference)
    return ntt_record(bench, n, stats, bool(native.replays_graph), warmup, reference is not None)


def ntt_record(
    bench: NttBench, n: int, stats: Stats, replays_graph: bool, warmup: int, compared: bool
) -> dict[str, Any]:
    data_bytes = 2 * NTT_LIMBS * n * 8  # each residue read once and written once
    twiddle_bytes = NTT_LIMBS * n * 16  # one Shoup pair (value, quotient) per root
    seconds = stats.median_us * 1e-6
    phantom = PHANTOM_NTT_US[bench.log_n]
    return {
        "name": "ntt_forward",
        "log_n": bench.log_n,
        "limbs": NTT_LIMBS,
        "prime_bits": PRIME_BITS,
        "warmup": warmup,
        "replays_graph": replays_graph,
        "checked": "limb sums are N * a_0 mod q"
        + (", equal to the CPU driver" if compared else "")
        + ", before and after timing",
        **vars(stats),
        "bytes_read_written": data_bytes,
        "twiddle_bytes": twiddle_bytes,
        "bandwidth_tbps": round(data_bytes / seconds / 1e12, 3),
        "bandwidth_with_twiddles_tbps": round((data_bytes + twiddle_bytes) / seconds / 1e12, 3),
        "fraction_of_copy_ceiling": round(data_bytes / seconds / 1e12 / COPY_CEILING_TBPS, 3),
        "phantom_us": phantom,
        "ratio_to_phantom": round(stats.median_us / phantom, 3),
    }


# --------------------------------------------------------------------------
# Where and when
# --------------------------------------------------------------------------


def run_text(command: Sequence[str]) -> str | None:
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def device_name(device: str) -> str:
    if device == "cuda":
        found = run_text(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"])
        if not found:
            return "unknown CUDA device"
        name, _, version = found.splitlines()[0].partition(",")
        return f"{name.strip()} (driver {version.strip()})"
    return f"{cpu_model()}, {os.cpu_count()} logical cores"


def resident_per_s(program: rf.Program, inputs: list[rf.Ciphertext], size: int,
                   warmup: int = 3, iterations: int = 20) -> float:
    """Instances a second of `size` instances a launch with the inputs in device
    memory: `size` over the median replay of the chunk's graph (CUDA events,
    Program.time_batch) after `warmup` replays."""
    times = program._native.time_batch([x._native for x in inputs], size, warmup, iterations)
    return size / (statistics.median(times) * 1e-6)


def write_report(path: Path | None, report: dict[str, Any]) -> None:
    """`report` as JSON at `path`, where one was given."""
    if path:
        path.write_text(json.dumps(report, indent=1))
        print(f"wrote {path}")


def median_seconds(call: Callable[[], Any], repeats: int, warmup: int = 1) -> float:
    """The median wall time of `repeats` calls after `warmup` untimed ones
    (which make what later calls reuse: replicas, graphs, caches)."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def report_header(benchmark: str, device: str) -> dict[str, Any]:
    """The fields every benchmark's JSON starts with: what ran, where, when, at which commit."""
    return {
        "schema": 1,
        "benchmark": benchmark,
        "device": {"kind": device, "name": device_name(device)},
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        **commit(),
    }


def cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown CPU"


def commit() -> dict[str, Any]:
    # The lent GPU gets a copy of the working tree whose .git may not be the
    # one it was copied from, so a commit named by the caller wins.
    named = os.environ.get("RINGFUSE_COMMIT")
    if named:
        return {"commit": named, "source": "$RINGFUSE_COMMIT"}
    # An installed wheel (RINGFUSE_INSTALLED=1) is measured, not this tree.
    if resources.installed():
        stamp = resources.built_from() or "unknown"
        return {"commit": stamp.removesuffix("-dirty"), "source": "wheel",
                "dirty": stamp.endswith("-dirty")}
    head = run_text(["git", "-C", str(REPO_ROOT), "rev-parse", "HEAD"])
    if head is None:
        return {"commit": "unknown", "source": "none"}
    status = run_text(
        ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--untracked-files=no"]
    )
    return {"commit": head, "source": "git", "dirty": bool(status)}


def method(device: str, runs: tuple[int, int]) -> str:
    """The report's text of the method, with its run counts (warm-up, timed)."""
    text = METHOD_CUDA if device == "cuda" else METHOD_CPU
    return text.format(warmup=runs[0], iterations=runs[1], l2=L2_MB)
