"""rf.compile, rf.Program and ringfusec, without the real compiler.

The compiler binaries are stand-ins (shell scripts in a folder that
$RINGFUSE_BIN_DIR points at): `ringfuse-opt` prints a line of "kernel IR" (and
pass dumps when asked), `ringfuse-translate` prints a hand-written program in
the shape the emitter produces (program_abi.h). Everything after them is real:
the cache, the C++ compiler, the runtime that loads and runs the program, the
keys, and the standalone executable. test_e2e.py runs the real compiler.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import stat
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from string import Template

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import _runtime, driver, ringfusec
from runtime_support import SEED, python_environment, toy_params

# `ringfuse.compile` the attribute is the function; the module is in sys.modules.
compile_module = importlib.import_module("ringfuse.compile")

T = 65537
N = 64


@rf.circuit(plaintext_modulus=T)
def mix(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain):
    return x + y + w, x - y


# --------------------------------------------------------------------------
# A hand-written program for `mix` at toy parameters (N = 64)
# --------------------------------------------------------------------------

_PROGRAM = Template(
    """\
// mix(x, y, w) = (x + y + w, x - y), written by hand in the shape that
// ringfuse-translate --emit-cpp prints: a manifest and a host schedule.
#include "ringfuse/runtime/program_abi.h"

namespace {
constexpr size_t kN = $n;
constexpr int kQCount = $q_count;
constexpr size_t kQWords = kQCount * kN;
const uint64_t kQ[] = {$q};
const uint64_t kP[] = {$p};
const uint64_t kT[] = {$t};
const RfBasis kBases[] = {{kQ, kQCount}, {kT, 1}};
const RfScaleUp kScaleUps[] = {{1, 0}}; // w over {t} -> round(Q w / t) over Q
// 0-3: x0 x1 y0 y1, 4: w, 5: w scaled to Q, 6-7: x + y + w, 8-9: x - y
const size_t kBuffers[] = {kQWords, kQWords, kQWords, kQWords, kN,
                           kQWords, kQWords, kQWords, kQWords, kQWords};
const RfValue kInputs[] = {{0, 2, {0, 1, -1}}, {0, 2, {2, 3, -1}}, {1, 1, {4, -1, -1}}};
const RfValue kOutputs[] = {{0, 2, {6, 7, -1}}, {0, 2, {8, 9, -1}}};
$keys_definition

uint64_t addMod(uint64_t a, uint64_t b, uint64_t q) { return a + b >= q ? a + b - q : a + b; }
uint64_t subMod(uint64_t a, uint64_t b, uint64_t q) { return a >= b ? a - b : a + q - b; }
} // namespace

extern "C" const RfManifest *ringfuse_manifest(void) {
  static const RfManifest manifest = [] {
    RfManifest m{};
    m.abi_version = RINGFUSE_PROGRAM_ABI_VERSION;
    m.name = "mix";
    m.degree = kN;
    m.plaintext_modulus = $t;
    m.q = kQ;
    m.q_count = kQCount;
    m.p = kP;
    m.p_count = $p_count;
    m.dnum = $dnum;
    m.bases = kBases;
    m.basis_count = 2;
    m.scale_ups = kScaleUps;
    m.scale_up_count = 1;
    m.buffer_words = kBuffers;
    m.buffer_count = 10;
    m.inputs = kInputs;
    m.input_count = 3;
    m.outputs = kOutputs;
    m.output_count = 2;
    m.keys = $keys_pointer;
    m.key_count = $key_count;
    return m;
  }();
  return &manifest;
}

extern "C" void ringfuse_run(RfRuntime *rt, const RfKernels *k) {
  uint64_t *b[10];
  for (int i = 0; i < 10; ++i) b[i] = k->buffer(rt, i);
  k->scale_up(rt, 0, b[4], b[5]);
  const RfModulus *moduli = k->moduli(rt, 0);
  for (int i = 0; i < kQCount; ++i)
    for (size_t j = 0; j < kN; ++j) {
      const size_t at = i * kN + j;
      const uint64_t q = moduli[i].value;
      b[6][at] = addMod(addMod(b[0][at], b[2][at], q), b[5][at], q);
      b[7][at] = addMod(b[1][at], b[3][at], q);
      b[8][at] = subMod(b[0][at], b[2][at], q);
      b[9][at] = subMod(b[1][at], b[3][at], q);
    }
}
"""
)


def mix_program(params: rf.Params, keys: Sequence[int] = ()) -> str:
    """The C++ source of `mix` under `params`; `keys` lists the key-switching
    keys its manifest asks for (0: relinearization, else a Galois element)."""
    listed = ", ".join(map(str, keys))
    return _PROGRAM.substitute(
        n=params.poly_modulus_degree,
        t=params.plaintext_modulus,
        q=", ".join(map(str, params.coeff_modulus)),
        q_count=len(params.coeff_modulus),
        p=", ".join(map(str, params.special_modulus)),
        p_count=len(params.special_modulus),
        dnum=params.dnum,
        keys_definition=f"const uint64_t kKeys[] = {{{listed}}};" if keys else "",
        keys_pointer="kKeys" if keys else "nullptr",
        key_count=len(keys),
    )


def expected_mix(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return (x + y + w) % T, (x - y) % T


# --------------------------------------------------------------------------
# Stand-in compiler binaries
# --------------------------------------------------------------------------

_OPT_SCRIPT = """\
#!/bin/sh
case " $$* " in
  *" --list-variants "*) printf 'hps\\nlhps\\nchps\\nbehz\\n'; exit 0 ;;
  *" --list-transforms "*) printf 'ntt\\ndgt\\n'; exit 0 ;;
esac
echo "ringfuse-opt $$*" >> "$log"
cat > /dev/null
case " $$* " in
  *" --mlir-print-ir-after-all "*)
    cat "$dumps" >&2 ;;
esac
if [ -f "$fail" ]; then
  echo "<stdin>:3:5: error: 'bfv.mul' op cannot lower this" >&2
  exit 1
fi
echo "// kernel IR"
"""

_TRANSLATE_SCRIPT = """\
#!/bin/sh
echo "ringfuse-translate $$*" >> "$log"
cat > /dev/null
cat "$source"
"""

DUMPS = """\
// -----// IR Dump After BFVSelectParameters (bfv-select-parameters) //----- //
#params = #bfv.params<t = 65537, N = 64>
module {
}

// -----// IR Dump After CSE (cse) ('func.func' operation: @mix) //----- //
func.func @mix() {
}

"""


class FakeCompiler:
    """`ringfuse-opt` and `ringfuse-translate` stand-ins that log their calls."""

    def __init__(self, directory: Path) -> None:
        self.bin_dir = directory / "bin"
        self.bin_dir.mkdir(parents=True)
        self.log = directory / "calls.log"
        self.source = directory / "program.cpp"
        self.dumps = directory / "dumps.txt"
        self.fail_flag = directory / "fail"
        self.dumps.write_text(DUMPS)
        names = {"log": self.log, "source": self.source, "dumps": self.dumps, "fail": self.fail_flag}
        self.opt = self._script("ringfuse-opt", _OPT_SCRIPT, names)
        self._script("ringfuse-translate", _TRANSLATE_SCRIPT, names)

    def _script(self, name: str, text: str, names: dict[str, Path]) -> Path:
        path = self.bin_dir / name
        path.write_text(Template(text).substitute({k: str(v) for k, v in names.items()}))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def emit(self, source: str) -> None:
        """What `ringfuse-translate` prints from now on."""
        self.source.write_text(source)


@pytest.fixture(scope="module")
def params() -> rf.Params:
    return toy_params(n=N)


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: rf.Params) -> FakeCompiler:
    compiler = FakeCompiler(tmp_path / "fake")
    compiler.emit(mix_program(params, keys=[0, 3]))
    monkeypatch.setenv(driver.BIN_DIR_VARIABLE, str(compiler.bin_dir))
    return compiler


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture(scope="module")
def program_and_keys(
    tmp_path_factory: pytest.TempPathFactory, params: rf.Params
) -> tuple[rf.Program, rf.KeySet]:
    """One compiled `mix` (relinearization and Galois element 3) and its keys."""
    directory = tmp_path_factory.mktemp("compiled")
    compiler = FakeCompiler(directory / "fake")
    compiler.emit(mix_program(params, keys=[0, 3]))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(driver.BIN_DIR_VARIABLE, str(compiler.bin_dir))
        program = rf.compile(mix, params=params, cache_dir=directory / "cache")
    return program, program.keygen(seed=SEED)


def random_slots(seed: int, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, T, n)


# --------------------------------------------------------------------------
# Targets, variants, parameters
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, message",
    [
        ("tpu", r"unknown target 'tpu'; supported targets: 'cpu', 'cuda', 'auto'"),
        (None, r"unknown target None; supported targets: 'cpu', 'cuda', 'auto'"),
    ],
)
def test_unsupported_targets_are_clear_errors(target: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rf.compile(mix, target)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "variant, message",
    [
        ("fast", r"unknown variant 'fast'; supported variants: 'hps', 'lhps', 'chps', 'behz', 'auto'"),
        (None, r"unknown variant None; supported variants: 'hps', 'lhps', 'chps', 'behz', 'auto'"),
    ],
)
def test_unsupported_variants_are_clear_errors(variant: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rf.compile(mix, variant=variant)


@pytest.mark.parametrize("reserve_depth", [-1, 1001, 2.0, True, "2", None])
def test_reserve_depths_that_are_no_count_of_products_are_clear_errors(
    reserve_depth: object,
) -> None:
    with pytest.raises(
        ValueError,
        match=rf"reserve_depth must be a whole number of products from 0 to 1000, not {re.escape(repr(reserve_depth))}",
    ):
        rf.compile(mix, reserve_depth=reserve_depth)  # type: ignore[arg-type]


def test_pipeline_arguments_name_every_option_that_is_not_the_default() -> None:
    options = compile_module.PipelineOptions
    assert options().arguments() == ("--ringfuse-pipeline",)
    assert options("lhps").arguments() == ("--ringfuse-pipeline=variant=lhps",)
    assert options("hps", 3).arguments() == ("--ringfuse-pipeline=reserve-depth=3",)
    assert options("lhps", 2).arguments() == (
        "--ringfuse-pipeline=variant=lhps reserve-depth=2",
    )
    assert options("hps", 0, ("ntt", "dgt")).arguments() == (
        "--ringfuse-pipeline=transforms=ntt,dgt",
    )
    assert options(optimize=False, max_galois_keys=12, max_galois_key_bytes=10**9).arguments() == (
        "--ringfuse-pipeline=optimize=false max-galois-keys=12 max-galois-key-bytes=1000000000",
    )


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("optimize", 1, "optimize must be True or False, not 1"),
        ("max_galois_keys", -1, r"max_galois_keys must be a whole number below 2\^32 \(0: no limit\), not -1"),
        ("max_galois_keys", 2**32, r"max_galois_keys must be a whole number below 2\^32"),
        ("max_galois_key_bytes", 1.5, r"max_galois_key_bytes must be a whole number below 2\^64 \(0: no limit\), not 1.5"),
    ],
)
def test_the_optimization_options_are_checked(option: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rf.compile(mix, **{option: value})


def test_the_transform_kinds_are_the_compiler_s() -> None:
    assert compile_module.supported_transforms() == ("ntt", "dgt")


@pytest.mark.parametrize(
    "transforms", ["dgt", (), ("fft",), ("ntt", "ntt"), None, ["ntt", 3], [["ntt"]]]
)
def test_transforms_that_are_no_list_of_kinds_are_clear_errors(transforms: object) -> None:
    with pytest.raises(
        ValueError,
        match=r"transforms must be a non-empty sequence of distinct transform kinds from "
        rf"'ntt', 'dgt', not {re.escape(repr(transforms))}",
    ):
        rf.compile(mix, transforms=transforms)  # type: ignore[arg-type]


def test_params_of_another_plaintext_modulus_or_degree_are_refused(params: rf.Params) -> None:
    with pytest.raises(ValueError, match=r"plaintext modulus t = 257, but mix computes mod t = 65537"):
        rf.compile(mix, params=toy_params(n=N, t=257))

    @rf.circuit(plaintext_modulus=T, poly_modulus_degree=128)
    def fixed(x: rf.Encrypted):
        return x + x

    with pytest.raises(ValueError, match=r"fixed fixes N = 128 \(poly_modulus_degree\), but params have N = 64"):
        rf.compile(fixed, params=params)
    with pytest.raises(TypeError, match=r"params must be an rf.Params or None, got dict"):
        rf.trace(mix, params={"N": 64})  # type: ignore[arg-type]


def test_traced_ir_carries_the_given_params(params: rf.Params) -> None:
    q = ", ".join(map(str, params.coeff_modulus))
    p = ", ".join(map(str, params.special_modulus))
    traced = rf.trace(mix, params=params)
    assert traced.mlir.splitlines()[0] == (
        f"#params = #bfv.params<t = 65537, N = 64, Q = [{q}], P = [{p}], dnum = {params.dnum}>"
    )
    assert traced.poly_modulus_degree == N
    assert rf.trace(mix).mlir.splitlines()[0] == "#params = #bfv.params<t = 65537>"


def test_given_params_bound_rotations_and_constants_while_tracing(params: rf.Params) -> None:
    def rotate_far(x: rf.Encrypted):
        return x.rotate(N // 2)

    with pytest.raises(ValueError, match=r"with N = 64 each row has 32 slots"):
        rf.trace(rotate_far, params=params)


# --------------------------------------------------------------------------
# Compiling, caching, running
# --------------------------------------------------------------------------


def test_compile_builds_a_program_that_computes_the_circuit(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    program = rf.compile(mix, params=params, cache_dir=cache)
    assert fake.calls() == ["ringfuse-opt --ringfuse-pipeline -", "ringfuse-translate --emit-cpp -"]
    assert program.params == params
    assert program.name == "mix"
    assert program.inputs == (("x", "encrypted"), ("y", "encrypted"), ("w", "plain"))
    assert program.galois_elements == (3,)
    assert program.source_path.read_text() == fake.source.read_text()
    assert program.source_path.parent == cache / "sources"
    assert program.library_path.parent == cache / "programs"
    assert "mix(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain) -> 2 outputs" in repr(program)

    keys = program.keygen(seed=SEED)
    x, y, w = random_slots(1), random_slots(2), random_slots(3)
    total, difference = program(keys.encrypt(x), keys.encrypt(y), w)
    expected_total, expected_difference = expected_mix(x, y, w)
    np.testing.assert_array_equal(keys.decrypt(total), expected_total)
    np.testing.assert_array_equal(keys.decrypt(difference), expected_difference)


def test_plain_inputs_take_plaintexts_arrays_and_ints(
    program_and_keys: tuple[rf.Program, rf.KeySet],
) -> None:
    program, keys = program_and_keys
    x, y = random_slots(4), random_slots(5)
    cx, cy = keys.encrypt(x), keys.encrypt(y)
    short = np.array([1, 2, 3], dtype=np.uint16)  # pads with zeros, as KeySet.encode
    for w, as_array in [
        (keys.encode(random_slots(6)), random_slots(6)),
        (random_slots(7), random_slots(7)),
        (short, np.pad(short.astype(np.int64), (0, N - 3))),
        (12345, np.full(N, 12345)),
    ]:
        total, _ = program(cx, cy, w=w)
        np.testing.assert_array_equal(keys.decrypt(total), (x + y + as_array) % T)


def test_arguments_bind_by_position_or_by_name(
    program_and_keys: tuple[rf.Program, rf.KeySet],
) -> None:
    program, keys = program_and_keys
    x, y = random_slots(8), random_slots(9)
    cx, cy = keys.encrypt(x), keys.encrypt(y)
    _, difference = program(y=cy, w=0, x=cx)
    np.testing.assert_array_equal(keys.decrypt(difference), (x - y) % T)


def test_second_compile_is_a_cache_hit_and_instant(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    first = rf.compile(mix, params=params, cache_dir=cache)
    calls = fake.calls()
    library = first.library_path.stat()
    start = time.perf_counter()
    second = rf.compile(mix, params=params, cache_dir=cache)
    elapsed = time.perf_counter() - start
    assert fake.calls() == calls, "the compiler binaries ran again"
    assert second.library_path == first.library_path
    assert second.library_path.stat().st_ino == library.st_ino, "the library was rewritten"
    assert second.library_path.stat().st_mtime_ns == library.st_mtime_ns
    assert elapsed < 0.5, f"a cache hit took {elapsed:.2f} s"
    # Each cache entry is one file; nothing temporary is left behind.
    assert sorted(p.name for p in (cache / "programs").iterdir()) == [first.library_path.name]
    assert sorted(p.name for p in (cache / "sources").iterdir()) == [first.source_path.name]


def test_a_rebuilt_compiler_emits_again_and_reuses_the_same_library(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    first = rf.compile(mix, params=params, cache_dir=cache)
    stat_before = fake.opt.stat()
    os.utime(fake.opt, ns=(stat_before.st_atime_ns, stat_before.st_mtime_ns + 10**9))
    second = rf.compile(mix, params=params, cache_dir=cache)
    assert len(fake.calls()) == 4  # opt and translate, twice
    assert second.source_path != first.source_path
    assert second.library_path == first.library_path  # the same source: no C++ build


def test_cache_dir_defaults_to_the_environment_variable(
    fake: FakeCompiler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: rf.Params
) -> None:
    monkeypatch.setenv(compile_module.CACHE_DIR_VARIABLE, str(tmp_path / "from-env"))
    program = rf.compile(mix, params=params)
    assert program.library_path.parent == tmp_path / "from-env" / "programs"
    monkeypatch.delenv(compile_module.CACHE_DIR_VARIABLE)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compile_module.Cache.at().root == tmp_path / "home" / ".cache" / "ringfuse"


def test_compile_errors_carry_the_cxx_compiler_output(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    fake.emit(mix_program(params).replace("kQWords, kQWords, kQWords, kQWords, kN,", "undeclared_thing,"))
    with pytest.raises(rf.CompilerError, match=r"the C\+\+ compiler failed") as caught:
        rf.compile(mix, params=params, cache_dir=cache)
    assert "undeclared_thing" in str(caught.value)
    assert "error" in caught.value.stderr and "undeclared_thing" in caught.value.stderr
    assert str(cache / "sources") in str(caught.value)  # where to look at the source
    assert not (cache / "programs").exists() or not any((cache / "programs").iterdir())


def test_a_missing_cxx_compiler_is_a_clear_error(
    fake: FakeCompiler, cache: Path, monkeypatch: pytest.MonkeyPatch, params: rf.Params
) -> None:
    monkeypatch.setenv("CXX", "/nonexistent/g++ -O3")
    with pytest.raises(rf.CompilerError, match=r"cannot find the C\+\+ compiler `/nonexistent/g\+\+` \(from \$CXX\)"):
        rf.compile(mix, params=params, cache_dir=cache)


def test_a_compiler_binary_failure_is_a_compiler_error(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    fake.fail_flag.touch()
    with pytest.raises(rf.CompilerError, match=r"(?s)ringfuse-opt failed .*cannot lower this"):
        rf.compile(mix, params=params, cache_dir=cache)


def test_a_program_that_does_not_match_its_circuit_is_a_compiler_error(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    @rf.circuit(plaintext_modulus=T)
    def other(x: rf.Encrypted, w: rf.Plain):
        return x + w

    with pytest.raises(rf.CompilerError, match=r"takes inputs \['ciphertext', 'ciphertext', 'plaintext'\] and has 2 outputs, but the circuit takes \['ciphertext', 'plaintext'\] and has 1"):
        rf.compile(other, params=params, cache_dir=cache)


def test_dump_ir_writes_the_traced_ir_and_the_ir_after_every_pass(
    fake: FakeCompiler, cache: Path, tmp_path: Path, params: rf.Params
) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    (dump / "07-stale.mlir").write_text("from an earlier compilation")
    (dump / "notes.txt").write_text("the user's own file")
    rf.compile(mix, params=params, cache_dir=cache, dump_ir=dump)
    assert "ringfuse-opt --ringfuse-pipeline --mlir-print-ir-after-all -" in fake.calls()
    assert sorted(p.name for p in dump.iterdir()) == [
        "00-traced.mlir",
        "01-bfv-select-parameters.mlir",
        "02-cse.mlir",
        "03-emit-cpp.cpp",
        "notes.txt",
    ]
    assert (dump / "00-traced.mlir").read_text() == rf.trace(mix, params=params).mlir
    assert (dump / "01-bfv-select-parameters.mlir").read_text() == (
        "#params = #bfv.params<t = 65537, N = 64>\nmodule {\n}\n"
    )
    assert (dump / "02-cse.mlir").read_text() == "func.func @mix() {\n}\n"
    assert (dump / "03-emit-cpp.cpp").read_text() == fake.source.read_text()

    # A cached source does not skip the dump: the tools run again.
    calls = len(fake.calls())
    rf.compile(mix, params=params, cache_dir=cache, dump_ir=dump)
    assert len(fake.calls()) == calls + 2


def test_dump_ir_keeps_the_dumps_of_a_failing_pipeline(
    fake: FakeCompiler, cache: Path, tmp_path: Path, params: rf.Params
) -> None:
    fake.fail_flag.touch()
    fake.dumps.write_text(
        DUMPS.split("// -----// IR Dump After CSE")[0]
        + "<stdin>:4:7: error: 'bfv.rotate' op needs batching\n"
        + "// -----// IR Dump After BFVToPoly Failed (bfv-to-poly) //----- //\nmodule {\n}\n"
    )
    with pytest.raises(rf.CompilerError) as caught:
        rf.compile(mix, params=params, cache_dir=cache, dump_ir=tmp_path / "dump")
    message = str(caught.value)
    assert "'bfv.rotate' op needs batching" in message and "cannot lower this" in message
    assert "IR Dump" not in message  # the dumps are in files, not in the message
    assert f"the IR after each pass that ran is in {tmp_path / 'dump'}" in message
    assert sorted(p.name for p in (tmp_path / "dump").iterdir()) == [
        "00-traced.mlir",
        "01-bfv-select-parameters.mlir",
        "02-bfv-to-poly-failed.mlir",
    ]


# --------------------------------------------------------------------------
# Calling a program: argument and key errors
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((1, 2), {}, r"mix\(x: rf.Encrypted, y: rf.Encrypted, w: rf.Plain\) is missing an argument for parameter 'w'"),
        ((), {"w": 0}, r"is missing an argument for parameters 'x', 'y'"),
        ((1, 2, 3, 4), {}, r"takes 3 arguments, got 4 positional"),
        ((1, 2, 3), {"x": 1}, r"got two values for parameter 'x' \(by position and by name\)"),
        ((1, 2, 3), {"z": 1}, r"got an unexpected argument 'z'; its parameters are x, y, w"),
    ],
)
def test_missing_extra_and_duplicate_arguments_are_type_errors_naming_the_parameter(
    program_and_keys: tuple[rf.Program, rf.KeySet],
    args: tuple[object, ...],
    kwargs: dict[str, object],
    message: str,
) -> None:
    program, _ = program_and_keys
    with pytest.raises(TypeError, match=message):
        program(*args, **kwargs)


def test_arguments_of_the_wrong_kind_or_parameters_are_clear_errors(
    program_and_keys: tuple[rf.Program, rf.KeySet],
) -> None:
    program, keys = program_and_keys
    ct = keys.encrypt(random_slots(10))
    with pytest.raises(TypeError, match=r"argument 'x' of mix \(rf.Encrypted\) must be an rf.Ciphertext \(keys.encrypt\(values\)\), got a ndarray"):
        program(random_slots(1), ct, 0)
    with pytest.raises(TypeError, match=r"argument 'y' .* got an rf.Plaintext \(a plaintext cannot stand for an encrypted input\)"):
        program(ct, keys.encode(1), 0)
    with pytest.raises(TypeError, match=r"argument 'w' of mix \(rf.Plain\) is a plaintext input: pass an rf.Plaintext, an int or a 1-D integer array, not an rf.Ciphertext"):
        program(ct, ct, ct)
    with pytest.raises(ValueError, match=r"argument 'w' of mix \(rf.Plain\): slot values must be in \[0, 65537\)"):
        program(ct, ct, np.full(N, T))
    with pytest.raises(ValueError, match=r"argument 'w' .*: 65 slot values do not fit: there are 64"):
        program(ct, ct, np.zeros(N + 1, dtype=np.int64))
    with pytest.raises(TypeError, match=r"argument 'w' .*: slot values must be integers"):
        program(ct, ct, np.zeros(N))

    other = toy_params(n=N, t=257).keygen(seed=SEED)
    with pytest.raises(ValueError, match=r"argument 'y' of mix \(rf.Encrypted\) belongs to <rf.Params .*t=257.*but program mix runs under"):
        program(ct, other.encrypt(1), 0)
    with pytest.raises(ValueError, match=r"argument 'w' .* belongs to"):
        program(ct, ct, other.encode(1))


def test_a_three_component_ciphertext_is_refused(
    program_and_keys: tuple[rf.Program, rf.KeySet], params: rf.Params
) -> None:
    program, keys = program_and_keys
    ct = keys.encrypt(random_slots(11))
    residues = np.concatenate([ct.residues(), ct.residues()[:1]])
    three = rf.Ciphertext.from_residues(params, residues)
    with pytest.raises(ValueError, match=r"argument 'x' of mix \(rf.Encrypted\) has 3 components; the program takes 2-component"):
        program(three, ct, 0)


def test_calling_before_keys_are_bound_is_a_clear_error(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    program = rf.compile(mix, params=params, cache_dir=cache)
    keys = params.keygen(seed=SEED)
    ct = keys.encrypt(1)
    with pytest.raises(RuntimeError, match=r"program mix switches keys .* but has no evaluation keys: call prog.keygen\(\) first"):
        program(ct, ct, 0)


def test_a_program_without_key_switching_runs_without_keys(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    fake.emit(mix_program(params, keys=[]))
    program = rf.compile(mix, params=params, cache_dir=cache)
    assert program.galois_elements == () and not program.needs_relin_key
    keys = params.keygen(seed=SEED)
    total, _ = program(keys.encrypt(1), keys.encrypt(2), 3)
    np.testing.assert_array_equal(keys.decrypt(total), np.full(N, 6))


def test_keygen_makes_exactly_the_galois_keys_the_program_needs(
    fake: FakeCompiler, cache: Path, params: rf.Params
) -> None:
    swap = 2 * N - 1
    fake.emit(mix_program(params, keys=[0, swap, 3, 9]))
    program = rf.compile(mix, params=params, cache_dir=cache)
    assert program.galois_elements == (3, 9, swap) and program.needs_relin_key
    keys = program.keygen(seed=SEED)
    assert keys.relin_key is not None and keys.galois_keys is not None
    assert keys.galois_keys.elements == (3, 9, swap)
    # Element 9 = 3^2 is the rotation by 2: the same keys as rotations=[1, 2].
    by_rotation = rf.KeySet.generate(params, rotations=[1, 2], swap_rows=True, seed=SEED)
    assert by_rotation.galois_keys is not None
    assert by_rotation.galois_keys.elements == keys.galois_keys.elements


def test_galois_elements_must_be_odd_and_below_2n(params: rf.Params) -> None:
    for element in (0, 1, 2, 2 * N + 1, -3, True, 2**70):
        with pytest.raises(ValueError, match=r"Galois elements must be odd ints in \(1, 2N\) = \(1, 128\)"):
            params.keygen(galois_elements=[element])


def test_set_evaluation_keys_checks_what_the_program_needs(
    program_and_keys: tuple[rf.Program, rf.KeySet], params: rf.Params
) -> None:
    program, keys = program_and_keys
    with pytest.raises(ValueError, match=r"program mix multiplies ciphertexts, so it needs a relinearization key; got None"):
        program.set_evaluation_keys(None, keys.galois_keys)
    with pytest.raises(ValueError, match=r"needs Galois keys for elements \[3\]; missing \[3\]"):
        program.set_evaluation_keys(keys.relin_key, None)
    swap_only = params.keygen(swap_rows=True, seed=SEED)
    with pytest.raises(ValueError, match=r"missing \[3\]"):
        program.set_evaluation_keys(swap_only.relin_key, swap_only.galois_keys)
    with pytest.raises(TypeError, match=r"relin_key must be an rf.RelinKey or None, got GaloisKeys"):
        program.set_evaluation_keys(keys.galois_keys, keys.galois_keys)  # type: ignore[arg-type]
    other = toy_params(n=N, t=257).keygen(rotations=[1], seed=SEED)
    with pytest.raises(ValueError, match=r"relin_key belongs to <rf.Params .*t=257"):
        program.set_evaluation_keys(other.relin_key, keys.galois_keys)
    program.set_evaluation_keys(keys.relin_key, keys.galois_keys)  # still usable


def test_evaluation_keys_round_trip_through_one_file_and_serve_a_program(
    program_and_keys: tuple[rf.Program, rf.KeySet], tmp_path: Path, params: rf.Params
) -> None:
    program, keys = program_and_keys
    path = tmp_path / "eval.rfkeys"
    keys.save_evaluation_keys(path)
    relin, galois = rf.load_evaluation_keys(path, program.params)
    assert isinstance(relin, rf.RelinKey) and isinstance(galois, rf.GaloisKeys)
    assert galois.elements == (3,)
    assert relin._native.serialize() == keys.relin_key._native.serialize()  # type: ignore[union-attr]
    program.set_evaluation_keys(relin, galois)
    x, y = random_slots(12), random_slots(13)
    _, difference = program(keys.encrypt(x), keys.encrypt(y), 0)
    np.testing.assert_array_equal(keys.decrypt(difference), (x - y) % T)

    # Keys without Galois keys, and without any key at all.
    bare = rf.KeySet(params, keys.secret_key, relin_key=keys.relin_key)
    bare.save_evaluation_keys(path)
    assert rf.load_evaluation_keys(path, params)[1] is None
    rf.KeySet(params, keys.secret_key).save_evaluation_keys(path)
    assert rf.load_evaluation_keys(path, params) == (None, None)


def test_loading_evaluation_keys_of_other_parameters_or_kind_fails(
    program_and_keys: tuple[rf.Program, rf.KeySet], tmp_path: Path
) -> None:
    _, keys = program_and_keys
    path = tmp_path / "eval.rfkeys"
    keys.save_evaluation_keys(path)
    with pytest.raises(ValueError, match=r"the evaluation keys were made for other parameters"):
        rf.load_evaluation_keys(path, toy_params(n=N, t=257))
    keys.relin_key.save(path)  # type: ignore[union-attr]
    with pytest.raises(ValueError, match=r"the data holds a relinearization key, not evaluation keys"):
        rf.load_evaluation_keys(path, keys.params)
    with pytest.raises(TypeError, match=r"params must be an rf.Params"):
        rf.load_evaluation_keys(path, "params")  # type: ignore[arg-type]


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


def test_gpu_memory_needs_a_gpu_program_and_a_device(
    program_and_keys: tuple[rf.Program, rf.KeySet],
) -> None:
    program, keys = program_and_keys
    x = keys.encrypt(1)
    with pytest.raises(RuntimeError, match="runs on the CPU; only a program compiled for target='cuda'"):
        program.run_on_gpu(x, x, 3)
    if _runtime.cuda_available():
        on_gpu = x.to_gpu()
        assert isinstance(on_gpu, rf.GpuCiphertext) and on_gpu.size == 2
        np.testing.assert_array_equal(on_gpu.to_host().residues(), x.residues())
        with pytest.raises(TypeError, match="is in GPU memory, but program .* runs on the CPU"):
            program(on_gpu, x, 3)
    else:
        with pytest.raises(ValueError, match="no usable CUDA device"):
            x.to_gpu()
