"""The wheel (`make wheel`), installed and used away from the source tree.

scripts/build_wheel.sh builds it; it is installed into a fresh virtual
environment (numpy and tqdm reach that environment from this one's
site-packages, so no network is needed; ringfuse only from the wheel), and a
script run there, from a directory outside the repository, with no
RINGFUSE_* or PYTHONPATH variable set, compiles and runs a circuit on the
CPU, and builds an executable with the installed `ringfusec` command and runs
it on files: both decrypt to numpy's result.
"""

from __future__ import annotations

import os
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


def test_the_installed_wheel_compiles_runs_and_builds_executables(tmp_path: Path) -> None:
    built = subprocess.run(
        [str(REPO_ROOT / "scripts" / "build_wheel.sh"), sys.executable],
        capture_output=True, text=True, check=False, cwd=REPO_ROOT,
    )
    assert built.returncode == 0, built.stderr
    wheel = REPO_ROOT / built.stdout.strip().splitlines()[-1]
    assert wheel.is_file(), built.stdout

    venv = tmp_path / "venv"
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

    work = tmp_path / "work"
    work.mkdir()
    (work / "circuit.py").write_text(CIRCUIT)
    (work / "client.py").write_text(CLIENT)
    environment = {key: value for key, value in os.environ.items()
                   if not key.startswith("RINGFUSE_") and key != "PYTHONPATH"}
    environment["RINGFUSE_CACHE_DIR"] = str(tmp_path / "cache")
    completed = subprocess.run(
        [str(python), "client.py", str(venv / "bin" / "ringfusec")],
        capture_output=True, text=True, check=False, cwd=work, env=environment, timeout=900,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "installed wheel: compiled, ran, built and served" in completed.stdout
