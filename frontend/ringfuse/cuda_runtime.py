"""The CUDA runtime of an installed wheel, built once on the machine that uses it.

A wheel carries a CPU-only runtime extension (it must import anywhere) and the
runtime's sources (`_bundle/source`). Where a CUDA compiler and a GPU are
present, or RINGFUSE_RUNTIME=cuda asks for it, the first use of the runtime
builds those sources with their CUDA driver (CMake, nvcc, pybind11) into the
cache (`$RINGFUSE_CACHE_DIR`, else `~/.cache/ringfuse`), once per wheel and
Python, with a message and a progress bar while it builds; later processes load
it from there. RINGFUSE_RUNTIME=cpu keeps the bundled CPU runtime.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import warnings
from pathlib import Path

from . import resources
from .driver import find_nvcc as _nvcc  # a name of its own: tests replace it

RUNTIME_VARIABLE = "RINGFUSE_RUNTIME"
# Build steps ninja and make print: "[12/87]".
_STEP = re.compile(rb"^\[(\d+)/(\d+)\]")


# Why an automatic build failed in this process (then it uses the CPU runtime).
_FAILED: str | None = None


def _choice() -> str:
    choice = os.environ.get(RUNTIME_VARIABLE, "auto")
    if choice not in ("auto", "cpu", "cuda"):
        raise ValueError(f"{RUNTIME_VARIABLE} must be auto, cpu or cuda, got {choice!r}")
    return choice


def wanted() -> bool:
    """Whether this process should use the CUDA runtime (installed wheels only):
    as RINGFUSE_RUNTIME says, else where a CUDA compiler and a GPU are and no
    build of it failed."""
    if not resources.installed():
        return False
    choice = _choice()
    if choice != "auto":
        return choice == "cuda"
    return _FAILED is None and _nvcc() is not None and _gpu_present()


def usable_extension() -> Path | None:
    """extension() where wanted; if it was chosen for this machine (not asked
    for) and cannot be built, a warning and None: the CPU runtime serves."""
    global _FAILED
    if not wanted():
        return None
    try:
        return extension()
    except RuntimeError as error:
        if _choice() == "cuda":
            raise
        _FAILED = str(error)
        warnings.warn(f"{error}; using the CPU runtime (set {RUNTIME_VARIABLE}=cpu to skip "
                      "the attempt)", RuntimeWarning, stacklevel=3)
        return None


def extension() -> Path:
    """The CUDA runtime's extension module, built first if it is not yet."""
    nvcc = _nvcc()
    if nvcc is None:
        raise RuntimeError(
            "ringfuse: the CUDA runtime is built from source where it runs, and no CUDA "
            f"compiler (nvcc) is on PATH or in /usr/local/cuda/bin; install the CUDA toolkit, "
            f"or set {RUNTIME_VARIABLE}=cpu"
        )
    home = _home()
    home.mkdir(parents=True, exist_ok=True)
    with open(home / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one build, whichever process comes first
        built = _built(home)
        if built is None:
            _build(home, nvcc)
            built = _built(home)
            if built is None:
                raise RuntimeError(f"ringfuse: the CUDA runtime build in {home} made no extension")
    return built


def link_file() -> Path:
    """The CUDA runtime's link list (for ringfusec's executables)."""
    return _home() / "build" / "ringfuse_runtime_link.txt"


def _home() -> Path:
    """Where this wheel's CUDA runtime is built, for this Python."""
    cache = os.environ.get("RINGFUSE_CACHE_DIR") or Path.home() / ".cache" / "ringfuse"
    tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
    return Path(cache) / f"cuda-runtime-{tag}-{_sources_digest(resources.BUNDLE_DIR)}"


@functools.lru_cache(maxsize=None)
def _sources_digest(bundle: Path) -> str:
    """The bundled runtime sources' digest (read once: they do not change)."""
    return resources.files_digest(bundle / "source")[:16]


def _built(home: Path) -> Path | None:
    found = sorted((home / "extension").glob("_runtime*.so"))
    return found[0] if found and link_file().exists() else None


def _gpu_present() -> bool:
    """An NVIDIA driver with a device (its control node), without loading CUDA."""
    return Path("/dev/nvidiactl").exists()


def _build(home: Path, nvcc: str) -> None:
    source = resources.BUNDLE_DIR / "source" / "runtime"
    build = home / "build"
    print(f"ringfuse: building the CUDA runtime for this machine, once, into {home} "
          "(a few minutes)", file=sys.stderr, flush=True)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    _run(["cmake", "-S", str(source), "-B", str(build), *generator,
          "-DCMAKE_BUILD_TYPE=Release", "-DRINGFUSE_BUILD_TESTS=OFF",
          "-DRINGFUSE_BUILD_BENCH=OFF", f"-DCMAKE_CUDA_COMPILER={nvcc}",
          f"-DPython_EXECUTABLE={sys.executable}",
          f"-DRINGFUSE_EXTENSION_DIR={home / 'extension'}"], build, "configuring")
    _run(["cmake", "--build", str(build), "--parallel", str(os.cpu_count() or 1)], build,
         "compiling")


def _run(command: list[str], build: Path, what: str) -> None:
    """Runs a build step, its progress as a bar; its output kept for an error."""
    from tqdm import tqdm

    build.mkdir(parents=True, exist_ok=True)
    output = bytearray()
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as error:
        raise RuntimeError(f"ringfuse: {what} the CUDA runtime needs {command[0]}: {error}") \
            from error
    bar = tqdm(desc=f"ringfuse: {what} the CUDA runtime", unit="step", file=sys.stderr,
               leave=False)
    with process, bar:
        assert process.stdout is not None
        for line in process.stdout:
            output += line
            step = _STEP.match(line)
            if step:
                bar.total = int(step.group(2))
                bar.n = int(step.group(1))
                bar.refresh()
    if process.returncode != 0:
        log = build / f"{what}.log"
        log.write_bytes(bytes(output))
        raise RuntimeError(f"ringfuse: {what} the CUDA runtime failed (exit status "
                           f"{process.returncode}); its output is in {log}")
