"""Programs of 32-bit words (`rf.compile(..., word_size=32)`): every modulus
the compiler chooses, Q, P and each auxiliary base, is below 2^30, the
program's buffers, transforms and schedule are 32-bit (ringfuse_run32 over
RfKernels32), and every variant decrypts to numpy's result, on the driver the
suite runs (RINGFUSE_TEST_TARGET)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import ringfusec
from runtime_support import rotate_rows

pytestmark = pytest.mark.needs_compiler

TARGET = os.environ.get("RINGFUSE_TEST_TARGET", "cpu")
T = 65537
VARIANTS = ("hps", "lhps", "chps", "behz")


@rf.circuit(plaintext_modulus=T)
def mixed(x: rf.Encrypted, y: rf.Encrypted, z: rf.Encrypted, w: rf.Plain):
    # Depth 2, a rotation, a plaintext product and a sum of products.
    return x * y * z + x.rotate(1) * w + y * z


@rf.circuit(plaintext_modulus=T)
def power16(x: rf.Encrypted):
    # Depth 4: at N = 8192 only digits of one prime fit the security bound.
    for _ in range(4):
        x = x * x
    return x


def moduli_in(dump: Path) -> set[int]:
    """Every modulus of every RNS basis in the IR dumps of one compilation."""
    moduli: set[int] = set()
    for path in dump.glob("*.mlir"):
        for listed in re.findall(r"#rns\.basis<\w+: \[([0-9, ]+)\]", path.read_text()):
            moduli.update(int(value) for value in listed.split(","))
    return moduli


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_modulus_fits_30_bits_and_the_outputs_decrypt(
    variant: str, tmp_path: Path, cache_dir: Path
) -> None:
    program = rf.compile(mixed, TARGET, variant=variant, word_size=32, dump_ir=tmp_path,
                         cache_dir=cache_dir)
    primes = [*program.params.coeff_modulus, *program.params.special_modulus]
    assert max(primes) < 2**30, primes
    moduli = moduli_in(tmp_path)
    # Q, P, the auxiliary bases (B, BEHZ's Bsk, compact HPS's R): more than Q and P.
    assert set(primes) < moduli and max(moduli) < 2**30, sorted(moduli)
    assert program.word_size == 32
    kernel_ir = "".join(path.read_text() for path in tmp_path.glob("*kernel*.mlir"))
    transforms = re.findall(r"#rns\.transform<\w+, word = (\d+)", kernel_ir)
    assert transforms and set(transforms) == {"32"}, set(transforms)
    source = program.source_path.read_text()
    assert "using RfWord = uint32_t;" in source and "void ringfuse_run32(" in source

    keys = program.keygen()
    rng = np.random.default_rng(7)
    n = program.params.slot_count
    x, y, z, w = (rng.integers(0, T, n) for _ in range(4))
    out = program(keys.encrypt(x), keys.encrypt(y), keys.encrypt(z), w=w)
    want = (x * y % T * z + rotate_rows(x, 1) * w + y * z) % T
    np.testing.assert_array_equal(keys.decrypt(out), want)


def test_32_bit_words_take_about_twice_the_primes_of_64_bit_words(cache_dir: Path) -> None:
    wide = rf.compile(mixed, TARGET, cache_dir=cache_dir).params
    narrow = rf.compile(mixed, "cpu", word_size=32, cache_dir=cache_dir).params
    assert narrow.poly_modulus_degree == wide.poly_modulus_degree == 8192
    assert max(wide.coeff_modulus) >= 2**30
    assert len(narrow.coeff_modulus) >= 2 * len(wide.coeff_modulus) - 1
    # Key-switching digits of two primes, about 60 bits as with 64-bit words,
    # and P as wide: two primes too.
    assert len(narrow.special_modulus) == 2 and len(wide.special_modulus) == 1


def test_programs_of_64_bit_words_stay_so(cache_dir: Path) -> None:
    program = rf.compile(mixed, TARGET, cache_dir=cache_dir)
    assert program.word_size == 64
    assert "using RfWord = uint64_t;" in program.source_path.read_text()


@pytest.mark.parametrize("variant", VARIANTS)
def test_digits_of_one_prime_where_two_do_not_fit_the_bound(
    variant: str, cache_dir: Path
) -> None:
    program = rf.compile(power16, TARGET, variant=variant, word_size=32, cache_dir=cache_dir)
    assert program.params.poly_modulus_degree == 8192
    assert len(program.params.special_modulus) == 1
    keys = program.keygen()
    x = np.random.default_rng(8).integers(0, T, program.params.slot_count)
    want = x.copy()
    for _ in range(4):
        want = want * want % T
    np.testing.assert_array_equal(keys.decrypt(program(keys.encrypt(x))), want)


@pytest.mark.parametrize("word_size", [16, 48, 32.0, True, "32", "Auto"])
def test_other_word_sizes_are_refused(word_size: object) -> None:
    with pytest.raises(ValueError, match="word_size must be 32 or 64 \\(bits\\) or 'auto'"):
        rf.compile(mixed, word_size=word_size)  # type: ignore[arg-type]


def test_auto_takes_the_word_size_measured_faster(cache_dir: Path) -> None:
    # The built-in table (bench/word_sizes.py on the H200) has HMult faster
    # with 64-bit words at every set: the default, auto, keeps them; forced,
    # either size is taken.
    assert rf.compile(mixed, TARGET, cache_dir=cache_dir).word_size == 64
    assert rf.compile(mixed, TARGET, word_size="auto", cache_dir=cache_dir).word_size == 64
    assert rf.compile(mixed, TARGET, word_size=64, cache_dir=cache_dir).word_size == 64
    assert rf.compile(mixed, TARGET, word_size=32, cache_dir=cache_dir).word_size == 32


def test_given_moduli_too_wide_for_32_bit_words_are_refused(cache_dir: Path) -> None:
    params = rf.Params(poly_modulus_degree=8192, plaintext_modulus=T,
                       coeff_modulus_bits=[40, 40, 40], special_modulus_bits=[40])
    with pytest.raises(rf.CompilerError, match="with 32-bit words every modulus is below 2"):
        rf.compile(mixed, params=params, word_size=32, cache_dir=cache_dir)


def test_ringfusec_builds_an_executable_over_30_bit_primes(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RINGFUSE_CACHE_DIR", str(cache_dir))
    (tmp_path / "circuit.py").write_text(
        "import ringfuse as rf\n\n"
        f"@rf.circuit(plaintext_modulus={T})\n"
        "def square(x: rf.Encrypted):\n"
        "    return x * x\n"
    )
    assert ringfusec.main([str(tmp_path / "circuit.py"), "-o", str(tmp_path / "square"),
                           "--word-size", "32"]) == 0
    params = rf.Params.load(tmp_path / "square.params")
    assert max([*params.coeff_modulus, *params.special_modulus]) < 2**30


def test_a_batch_of_a_32_bit_program_is_its_single_runs(cache_dir: Path) -> None:
    # On the GPU its instances share each launch (the instance dimension), on
    # the CPU they spread over the cores: word for word the single runs.
    program = rf.compile(mixed, TARGET, word_size=32, cache_dir=cache_dir)
    keys = program.keygen(seed=bytes(range(32)))
    rng = np.random.default_rng(11)
    n = program.params.slot_count
    rows = [rng.integers(0, T, (3, n)) for _ in range(3)]
    w = rng.integers(0, T, n)
    batches = [keys.encrypt(values) for values in rows]
    out = program(*batches, w=w)
    for k in range(3):
        single = program(batches[0][k], batches[1][k], batches[2][k], w=w)
        np.testing.assert_array_equal(out[k].residues(), single.residues())
    x, y, z = rows
    want = (x * y % T * z + np.stack([rotate_rows(r, 1) for r in x]) * w + y * z) % T
    np.testing.assert_array_equal(keys.decrypt(out), want)
