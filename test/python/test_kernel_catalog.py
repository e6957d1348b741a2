"""The kernel catalog and what implements it agree (docs/adding-a-kernel.md).

The compiler checks most of it where it builds: RfKernels, the driver
interface (pure virtual, one method per entry), the checks' declarations and
kernel.launch's signatures are generated from kernel_catalog.def, so a driver
that lacks an entry does not compile. What no compiler sees is checked here:
every entry has its CPU reference, its CUDA implementation (which only builds
where CUDA does) and an emitter case, and some lit test emits a call of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "runtime" / "include" / "ringfuse" / "runtime" / "kernel_catalog.def"
CPU_DRIVER = ROOT / "runtime" / "driver" / "cpu_driver.cpp"
CUDA_DRIVER = ROOT / "runtime" / "driver" / "cuda"
EMITTER = ROOT / "dialects" / "Kernel" / "Emit" / "EmitCpp.cpp"
LIT_TESTS = ROOT / "test" / "lit"


def catalog_entries() -> list[str]:
    return re.findall(r"^RF_KERNEL\((\w+),", CATALOG.read_text(), flags=re.MULTILINE)


ENTRIES = catalog_entries()


def test_the_catalog_lists_distinct_kernels_each_described() -> None:
    assert len(ENTRIES) >= 10 and len(set(ENTRIES)) == len(ENTRIES)
    text = CATALOG.read_text()
    for name in ENTRIES:
        before = text[: text.index(f"RF_KERNEL({name},")].rstrip()
        assert before.endswith("*/") or before.endswith(")"), (
            f"{name}: the entry is neither described by a comment nor grouped with one above"
        )


@pytest.mark.parametrize("name", ENTRIES)
def test_both_drivers_implement_every_entry(name: str) -> None:
    assert re.search(rf"\bvoid {name}\(const \w+Call &", CPU_DRIVER.read_text()), (
        f"the CPU driver has no reference for {name}"
    )
    cuda = "\n".join(path.read_text() for path in sorted(CUDA_DRIVER.glob("*.cu")))
    assert re.search(rf"\bCudaDriver::{name}\(const \w+Call &", cuda), (
        f"the CUDA driver defines no {name}"
    )


@pytest.mark.parametrize("name", ENTRIES)
def test_the_emitter_prints_every_entry_and_a_lit_test_checks_it(name: str) -> None:
    assert f'"{name}"' in EMITTER.read_text(), f"the emitter has no case for {name}"
    checked = [
        path.name for path in LIT_TESTS.rglob("*.mlir") if f"k->{name}(" in path.read_text()
    ]
    assert checked, f"no lit test checks the emitted call of {name}"
