"""rf.compile and rf.Program, without the real compiler: the stand-in
binaries and hand-written program of stand_in_compiler.py (ringfusec and its
executables: test_ringfusec.py). test_e2e.py runs the real compiler.
"""

from __future__ import annotations

import importlib
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

import ringfuse as rf
from ringfuse import _runtime
from runtime_support import SEED, toy_params
from stand_in_compiler import (  # noqa: F401 (fixtures: params, fake, cache, program_and_keys)
    DUMPS,
    FakeCompiler,
    N,
    T,
    cache,
    expected_mix,
    fake,
    mix,
    mix_program,
    params,
    program_and_keys,
    random_slots,
)

# `ringfuse.compile` the attribute is the function; the module is in sys.modules.
compile_module = importlib.import_module("ringfuse.compile")


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
