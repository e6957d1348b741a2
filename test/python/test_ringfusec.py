"""ringfusec and the standalone executables it builds, without the real
compiler: the stand-in binaries and hand-written program of
stand_in_compiler.py. Everything after them is real (the C++ compiler, the
runtime, the keys and the executable's files).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import driver, ringfusec
from runtime_support import SEED, python_environment, toy_params
from stand_in_compiler import (  # noqa: F401 (params is a fixture)
    N,
    FakeCompiler,
    expected_mix,
    mix_program,
    params,
    random_slots,
)

# --------------------------------------------------------------------------
# ringfusec and the standalone executable
# --------------------------------------------------------------------------

CIRCUIT_FILE = """\
import ringfuse as rf

@rf.circuit(plaintext_modulus=65537, poly_modulus_degree=64)
def mix(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x + y + w, x - y
"""


@pytest.fixture(scope="module")
def executable(tmp_path_factory: pytest.TempPathFactory, params: rf.Params) -> ringfusec.Executable:
    """`ringfusec` (the function main calls) on a file with `mix`, built once."""
    directory = tmp_path_factory.mktemp("ringfusec")
    compiler = FakeCompiler(directory / "fake")
    compiler.emit(mix_program(params, keys=[0, 3]))
    (directory / "circuit.py").write_text(CIRCUIT_FILE)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(driver.BIN_DIR_VARIABLE, str(compiler.bin_dir))
        return ringfusec.build(
            directory / "circuit.py", directory / "out" / "circuit", cache_dir=directory / "cache"
        )


def run_executable(path: Path, *args: object) -> subprocess.CompletedProcess[str]:
    # A bounded wait: an executable that reads without end fails the test.
    return subprocess.run(
        [str(path), *map(str, args)], capture_output=True, text=True, check=False, timeout=120
    )


def test_ringfusec_writes_the_executable_and_the_client_files(
    executable: ringfusec.Executable, params: rf.Params
) -> None:
    assert os.access(executable.path, os.X_OK)
    assert rf.Params.load(executable.params_path) == params
    description = json.loads(executable.description_path.read_text())
    assert description == executable.description
    assert description["name"] == "mix"
    assert description["inputs"] == [
        {"name": "x", "kind": "ciphertext"},
        {"name": "y", "kind": "ciphertext"},
        {"name": "w", "kind": "plaintext"},
    ]
    assert description["outputs"] == 2
    assert description["relinearization_key"] is True
    assert description["galois_elements"] == [3]
    # Nothing temporary is left next to it.
    assert sorted(p.name for p in executable.path.parent.iterdir()) == [
        "circuit", "circuit.json", "circuit.params",
    ]


def test_the_executable_runs_the_circuit_on_files(
    executable: ringfusec.Executable, tmp_path: Path
) -> None:
    # The client: parameters and needed keys from the files ringfusec wrote.
    params = rf.Params.load(executable.params_path)
    needs = json.loads(executable.description_path.read_text())
    keys = params.keygen(galois_elements=needs["galois_elements"], seed=SEED)
    keys.save_evaluation_keys(tmp_path / "eval.rfkeys")
    x, y, w = random_slots(20), random_slots(21), random_slots(22)
    keys.encrypt(x).save(tmp_path / "x.rfct")
    keys.encrypt(y).save(tmp_path / "y.rfct")
    keys.encode(w).save(tmp_path / "w.rfpt")

    completed = run_executable(
        executable.path, "--keys", tmp_path / "eval.rfkeys",
        "--in", tmp_path / "x.rfct", tmp_path / "y.rfct", tmp_path / "w.rfpt",
        "--out", tmp_path / "sum.rfct", "--out", tmp_path / "difference.rfct",
    )
    assert completed.returncode == 0, completed.stderr
    expected_total, expected_difference = expected_mix(x, y, w)
    total = rf.Ciphertext.load(tmp_path / "sum.rfct", params)
    difference = rf.Ciphertext.load(tmp_path / "difference.rfct", params)
    np.testing.assert_array_equal(keys.decrypt(total), expected_total)
    np.testing.assert_array_equal(keys.decrypt(difference), expected_difference)


def test_the_executable_refuses_keys_of_other_parameters(
    executable: ringfusec.Executable, tmp_path: Path
) -> None:
    params = rf.Params.load(executable.params_path)
    keys = params.keygen(rotations=[1], seed=SEED)
    keys.encrypt(1).save(tmp_path / "x.rfct")
    keys.encode(1).save(tmp_path / "w.rfpt")
    other = toy_params(n=N, t=257).keygen(rotations=[1], seed=SEED)
    other.save_evaluation_keys(tmp_path / "other.rfkeys")
    completed = run_executable(
        executable.path, "--keys", tmp_path / "other.rfkeys",
        "--in", tmp_path / "x.rfct", tmp_path / "x.rfct", tmp_path / "w.rfpt",
        "--out", tmp_path / "a.rfct", tmp_path / "b.rfct",
    )
    assert completed.returncode == 1
    assert f"{tmp_path / 'other.rfkeys'}: the evaluation keys were made for other parameters" in completed.stderr
    assert not (tmp_path / "a.rfct").exists()


def client_files(executable: ringfusec.Executable, directory: Path) -> tuple[Path, Path, Path]:
    """Evaluation keys, a ciphertext and a plaintext for the executable's circuit."""
    params = rf.Params.load(executable.params_path)
    keys = params.keygen(rotations=[1], seed=SEED)
    keys.save_evaluation_keys(directory / "eval.rfkeys")
    keys.encrypt(1).save(directory / "x.rfct")
    keys.encode(1).save(directory / "w.rfpt")
    return directory / "eval.rfkeys", directory / "x.rfct", directory / "w.rfpt"


def test_the_executable_reports_bad_inputs_and_usage(
    executable: ringfusec.Executable, tmp_path: Path
) -> None:
    eval_keys, x, w = client_files(executable, tmp_path)
    data = x.read_bytes()
    corrupt = bytearray(data)
    corrupt[100] ^= 1
    bad = tmp_path / "corrupt.rfct"
    bad.write_bytes(bytes(corrupt))
    huge = tmp_path / "huge.rfct"
    huge.write_bytes(data[:24] + (2**40).to_bytes(8, "little") + data[32:])
    keys_args = ["--keys", eval_keys]
    out_args = ["--out", tmp_path / "a.rfct", tmp_path / "b.rfct"]
    cases = [
        ([*keys_args, "--in", x, x, x, *out_args], 1,
         f"{x}: input 3 of the circuit is a plaintext, but the file holds a ciphertext"),
        ([*keys_args, "--in", x, bad, w, *out_args], 1, f"{bad}: checksum mismatch"),
        ([*keys_args, "--in", x, x, *out_args], 2,
         "the circuit takes 3 inputs (ciphertext, ciphertext, plaintext), got 2 --in paths"),
        ([*keys_args, "--in", x, x, w, "--out", tmp_path / "a.rfct"], 2,
         "the circuit has 2 outputs, got 1 --out paths"),
        (["--in", x, x, w, *out_args], 2,
         "the circuit needs evaluation keys (relinearization key; Galois keys for elements 3): pass --keys"),
        ([*keys_args, "--in", x, x, w, *out_args, "--fast"], 2, "unknown argument '--fast'"),
        (["--keys"], 2, "--keys needs a path after it"),
        ([], 2, "nothing to do"),
        ([*keys_args, "--in", x, x, tmp_path / "missing.rfpt", *out_args], 1,
         f"cannot open {tmp_path / 'missing.rfpt'} for reading"),
        # Files are read no further than their headers allow.
        ([*keys_args, "--in", "/dev/urandom", x, w, *out_args], 1,
         "/dev/urandom: not a ringfuse file"),
        (["--keys", "/dev/zero", "--in", x, x, w, *out_args], 1, "/dev/zero: not a ringfuse file"),
        ([*keys_args, "--in", x, huge, w, *out_args], 1,
         "announces a 1099511627776-byte payload, more than a ciphertext can hold"),
        ([*keys_args, *keys_args, "--in", x, x, w, *out_args], 2, "--keys is given twice"),
    ]
    for args, status, message in cases:
        completed = run_executable(executable.path, *args)
        assert completed.returncode == status, (args, completed.stderr)
        assert message in completed.stderr, (args, completed.stderr)
        if status == 2:
            assert "--help' for usage" in completed.stderr


def test_the_executable_stops_reading_a_pipe_after_the_announced_payload(
    executable: ringfusec.Executable, tmp_path: Path
) -> None:
    eval_keys, x, w = client_files(executable, tmp_path)
    data = x.read_bytes()
    keys_args = ["--keys", eval_keys]
    out_args = ["--out", tmp_path / "a.rfct", tmp_path / "b.rfct"]
    # A pipe that goes on after a valid ciphertext: the executable reads the
    # announced payload and one byte more, and stops.
    fifo = tmp_path / "endless.rfct"
    os.mkfifo(fifo)

    def feed() -> None:
        try:
            with open(fifo, "wb") as pipe:
                pipe.write(data)
                while True:
                    pipe.write(bytes(1 << 16))
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    completed = run_executable(executable.path, *keys_args, "--in", x, fifo, w, *out_args)
    assert completed.returncode == 1, completed.stderr
    assert f"{fifo}: trailing data after the" in completed.stderr
    writer.join(timeout=60)
    assert not writer.is_alive()


def test_the_executable_describes_itself(executable: ringfusec.Executable) -> None:
    completed = run_executable(executable.path, "--help")
    assert completed.returncode == 0
    assert "--keys EVAL.rfkeys --in INPUT... --out OUTPUT..." in completed.stdout
    assert "inputs:  ciphertext, ciphertext, plaintext" in completed.stdout
    assert "keys:    relinearization key; Galois keys for elements 3" in completed.stdout
    described = json.loads(run_executable(executable.path, "--describe").stdout)
    assert described["galois_elements"] == [3] and described["outputs"] == 2


def write_module(directory: Path, text: str) -> Path:
    path = directory / "circuits.py"
    path.write_text(textwrap.dedent(text))
    return path


def test_ringfusec_finds_exactly_one_circuit_or_the_named_one(tmp_path: Path) -> None:
    path = write_module(tmp_path, """\
        import ringfuse as rf

        @rf.circuit
        def square(x: rf.Encrypted):
            return x * x

        @rf.circuit
        def double(x: rf.Encrypted):
            return x + x

        alias = double
        """)
    module = ringfusec._import_file(path)
    with pytest.raises(ringfusec.RingfusecError, match=r"defines 2 circuits \(square, double\); choose one with --circuit NAME"):
        ringfusec.find_circuit(module, None, path)
    assert ringfusec.find_circuit(module, "double", path).name == "double"
    assert ringfusec.find_circuit(module, "alias", path).name == "double"
    with pytest.raises(ringfusec.RingfusecError, match=r"defines no circuit named 'cube'; its circuits: square, double"):
        ringfusec.find_circuit(module, "cube", path)
    empty = ringfusec._import_file(write_module(tmp_path, "x = 1\n"))
    with pytest.raises(ringfusec.RingfusecError, match=r"defines no rf.Circuit; decorate the circuit's function with @rf.circuit"):
        ringfusec.find_circuit(empty, None, path)


def test_ringfusec_reports_errors_on_stderr_with_a_nonzero_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = write_module(tmp_path, "import ringfuse as rf\nraise KeyError('oops')\n")
    assert ringfusec.main([str(broken), "-o", str(tmp_path / "c")]) == 1
    assert "ringfusec: error: importing" in capsys.readouterr().err
    assert ringfusec.main([str(tmp_path / "absent.py"), "-o", str(tmp_path / "c")]) == 1
    assert "no such circuit file" in capsys.readouterr().err
    assert ringfusec.main([str(broken), "-o", str(tmp_path / "c"), "--target", "tpu"]) == 1
    assert "unknown target 'tpu'" in capsys.readouterr().err
    assert ringfusec.main([str(broken), "-o", str(tmp_path / "c"), "--variant", "bfv"]) == 1
    assert "unknown variant 'bfv'" in capsys.readouterr().err
    assert ringfusec.main([str(broken), "-o", str(tmp_path / "c"), "--reserve-depth", "-2"]) == 1
    assert "reserve_depth must be a whole number of products" in capsys.readouterr().err
    assert ringfusec.main([str(broken), "-o", str(tmp_path / "c"), "--transforms", "ntt,fft"]) == 1
    assert "transforms must be a non-empty sequence" in capsys.readouterr().err


def test_ringfusec_help_documents_the_client_files() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "ringfuse.ringfusec", "--help"],
        capture_output=True, text=True, check=False,
        env=python_environment(),
    )
    assert completed.returncode == 0
    assert "usage: ringfusec [-h] -o OUTPUT" in completed.stdout
    assert "CIRCUIT.params" in completed.stdout and "CIRCUIT.json" in completed.stdout
    assert "keys.save_evaluation_keys" in completed.stdout
