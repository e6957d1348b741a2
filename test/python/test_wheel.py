"""The wheel (`make wheel`), installed and used away from the source tree.

scripts/build_wheel.sh builds it; it is installed into a fresh virtual
environment (numpy and tqdm reach that environment from this one's
site-packages, so no network is needed; ringfuse only from the wheel), and a
script run there, from a directory outside the repository, with no
RINGFUSE_* or PYTHONPATH variable set, compiles and runs a circuit on the
CPU, and builds an executable with the installed `ringfusec` command and runs
it on files: both decrypt to numpy's result. With RINGFUSE_RUNTIME=cuda, the
same script first builds the wheel's CUDA runtime (once; the next process
loads it) and then runs on it.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_compiler

REPO_ROOT = Path(__file__).resolve().parents[2]

CIRCUIT = """\
import ringfuse as rf

@rf.circuit(plaintext_modulus=65537)
def product_plus(x: rf.Encrypted, y: rf.Encrypted):
    return x * y + x
"""

# Run inside the fresh environment, in a directory of its own.
CLIENT = """\
import json, subprocess, sys
from pathlib import Path

import numpy as np
import ringfuse as rf
from ringfuse import resources

here = Path.cwd()
assert resources.installed(), resources.BUNDLE_DIR
assert "site-packages" in rf.__file__, rf.__file__

from circuit import product_plus

program = rf.compile(product_plus)
keys = program.keygen()
rng = np.random.default_rng(1)
n, t = program.params.poly_modulus_degree, program.params.plaintext_modulus
a, b = rng.integers(0, t, n), rng.integers(0, t, n)
want = (a * b + a) % t
np.testing.assert_array_equal(keys.decrypt(program(keys.encrypt(a), keys.encrypt(b))), want)

built = subprocess.run([sys.argv[1], "circuit.py", "-o", "served/circuit"],
                       capture_output=True, text=True)
assert built.returncode == 0, built.stderr
params = rf.Params.load("served/circuit.params")
needs = json.loads(Path("served/circuit.json").read_text())
client = params.keygen(galois_elements=needs["galois_elements"])
client.save_evaluation_keys("eval.rfkeys")
client.encrypt(a).save("a.rfct")
client.encrypt(b).save("b.rfct")
served = subprocess.run(["served/circuit", "--keys", "eval.rfkeys", "--in", "a.rfct", "b.rfct",
                         "--out", "out.rfct"], capture_output=True, text=True, timeout=120)
assert served.returncode == 0, served.stderr
out = client.decrypt(rf.Ciphertext.load("out.rfct", params))
np.testing.assert_array_equal(out, (a * b + a) % params.plaintext_modulus)
print("installed wheel: compiled, ran, built and served")
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel installed; its python."""
    built = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build_wheel.sh"), sys.executable],
        capture_output=True, text=True, check=False, cwd=REPO_ROOT,
    )
    assert built.returncode == 0, built.stderr
    wheel = REPO_ROOT / built.stdout.strip().splitlines()[-1]
    assert wheel.is_file(), built.stdout

    venv = tmp_path_factory.mktemp("wheel") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    # The dependencies from this environment, as a plain path (its .pth files,
    # which point at the source tree's package, are not read).
    venv_site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True).stdout.strip())
    (venv_site / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    # It knows the commit it was built from (benchmarks run from it record it).
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True, cwd=REPO_ROOT).stdout.strip()
    stamp = subprocess.run([str(python), "-c", "from ringfuse import resources; "
                            "print(resources.built_from())"], capture_output=True, text=True,
                           check=True, cwd=venv.parent).stdout.strip()
    assert stamp in (head, f"{head}-dirty"), (stamp, head)
    return python


def run_outside(python: Path, directory: Path, script: str, *args: str,
                **variables: str) -> subprocess.CompletedProcess[str]:
    """`script` run by the installed python in `directory`, with no RINGFUSE_*
    or PYTHONPATH variable but `variables`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "circuit.py").write_text(CIRCUIT)
    (directory / "script.py").write_text(script)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("RINGFUSE_") and key != "PYTHONPATH"}
    environment.update(variables)
    return subprocess.run([str(python), "script.py", *args], capture_output=True, text=True,
                          check=False, cwd=directory, env=environment, timeout=1200)


def test_the_installed_wheel_compiles_runs_and_builds_executables(
    installed: Path, tmp_path: Path
) -> None:
    completed = run_outside(installed, tmp_path / "work", CLIENT,
                            str(installed.parent / "ringfusec"),
                            RINGFUSE_CACHE_DIR=str(tmp_path / "cache"), RINGFUSE_RUNTIME="cpu")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "installed wheel: compiled, ran, built and served" in completed.stdout


CUDA_BUILD = """from ringfuse import _native, _runtime

# One runtime a process, whichever way it is asked for first: the package's
# `_runtime` is the CUDA build, not the bundled CPU extension of the same name.
runtime = _native.runtime()
assert _runtime is runtime, (_runtime.__file__, runtime.__file__)
print("runtime at", runtime.__file__)
print("cuda usable here:", runtime.cuda_available())
exec(open("client.py").read())
"""


def test_the_installed_wheel_builds_its_cuda_runtime_on_first_use(
    installed: Path, tmp_path: Path
) -> None:
    # This machine has the CUDA toolkit (CI's does too) but maybe no GPU:
    # RINGFUSE_RUNTIME=cuda builds the CUDA runtime all the same; it loads, and
    # runs programs on the CPU where no GPU is.
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                     if Path("/usr/local/cuda/bin/nvcc").exists() else None)
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    (work / "client.py").write_text(CLIENT)
    completed = run_outside(installed, work, CUDA_BUILD, str(installed.parent / "ringfusec"),
                            RINGFUSE_CACHE_DIR=str(cache), RINGFUSE_RUNTIME="cuda")
    if nvcc is None:
        assert completed.returncode != 0
        assert "no CUDA compiler (nvcc)" in completed.stderr
        return
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "building the CUDA runtime for this machine, once" in completed.stderr
    assert "installed wheel: compiled, ran, built and served" in completed.stdout
    built = [line for line in completed.stdout.splitlines() if line.startswith("runtime at")]
    assert built and str(cache) in built[0], completed.stdout
    # Once: the next process loads it without building.
    again = run_outside(installed, work, CUDA_BUILD, str(installed.parent / "ringfusec"),
                        RINGFUSE_CACHE_DIR=str(cache), RINGFUSE_RUNTIME="cuda")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "building the CUDA runtime" not in again.stderr


def test_a_cuda_runtime_that_cannot_be_built_falls_back_only_when_not_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A bundle whose sources do not configure, on a machine that seems to have
    # nvcc and a GPU: chosen automatically, a warning and the CPU runtime; asked
    # for (RINGFUSE_RUNTIME=cuda), the error.
    from ringfuse import cuda_runtime, resources

    bundle = tmp_path / "_bundle"
    (bundle / "source" / "runtime").mkdir(parents=True)
    (bundle / "source" / "runtime" / "CMakeLists.txt").write_text("message(FATAL_ERROR broken)\n")
    monkeypatch.setattr(resources, "BUNDLE_DIR", bundle)
    monkeypatch.setattr(cuda_runtime, "_nvcc", lambda: "/usr/bin/false")
    monkeypatch.setattr(cuda_runtime, "_gpu_present", lambda: True)
    monkeypatch.setattr(cuda_runtime, "_FAILED", None)
    monkeypatch.setenv("RINGFUSE_CACHE_DIR", str(tmp_path / "cache"))

    monkeypatch.setenv("RINGFUSE_RUNTIME", "cuda")
    with pytest.raises(RuntimeError, match="configuring the CUDA runtime failed"):
        cuda_runtime.usable_extension()

    monkeypatch.setenv("RINGFUSE_RUNTIME", "auto")
    assert cuda_runtime.wanted()
    with pytest.warns(RuntimeWarning, match="using the CPU runtime"):
        assert cuda_runtime.usable_extension() is None
    assert not cuda_runtime.wanted()  # not tried again in this process
    assert resources.runtime_link_file() == bundle / "lib" / "link.txt"

    monkeypatch.setenv("RINGFUSE_RUNTIME", "gpu")
    with pytest.raises(ValueError, match="must be auto, cpu or cuda"):
        cuda_runtime.wanted()
