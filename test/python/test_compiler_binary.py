"""The compiler binaries run where LLVM is not installed."""

from __future__ import annotations

import subprocess

import pytest

from ringfuse import driver

pytestmark = pytest.mark.needs_compiler


def test_ringfuse_opt_links_no_llvm_or_mlir_shared_library() -> None:
    tool = driver.find_tool("ringfuse-opt")
    libraries = subprocess.run(["ldd", str(tool)], capture_output=True, text=True, check=True).stdout
    for forbidden in ("libLLVM", "libMLIR", "libz3", "libstdc++", "libzstd"):
        assert forbidden not in libraries, libraries
