"""A stand-in compiler and a hand-written program for the tests of rf.compile,
rf.Program and ringfusec (test_compile.py, test_ringfusec.py).

The compiler binaries are stand-ins (shell scripts in a folder that
$RINGFUSE_BIN_DIR points at): `ringfuse-opt` prints a line of "kernel IR" (and
pass dumps when asked), `ringfuse-translate` prints a hand-written program in
the shape the emitter produces (program_abi.h). Everything after them is real:
the cache, the C++ compiler, the runtime that loads and runs the program, the
keys, and the standalone executable.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path
from string import Template

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import driver
from runtime_support import SEED, toy_params

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
