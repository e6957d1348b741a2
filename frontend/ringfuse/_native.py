"""Loads the runtime extension `ringfuse._runtime` with a helpful error.

Tracing needs only the compiler binaries; everything that touches ciphertexts
needs the runtime extension, built by `make build` (or `make build-runtime`),
or carried by an installed wheel (which may build its CUDA runtime on first
use: cuda_runtime.py).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from types import ModuleType

_LOADED: ModuleType | None = None


def runtime() -> ModuleType:
    """The `ringfuse._runtime` extension module: the bundled one, or an
    installed wheel's CUDA runtime, built on first use (cuda_runtime.py)."""
    global _LOADED
    if _LOADED is None:
        _LOADED = _load()
    return _LOADED


def _load() -> ModuleType:
    from . import cuda_runtime

    path = cuda_runtime.usable_extension()
    if path is not None:
        spec = importlib.util.spec_from_file_location("ringfuse._runtime", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["ringfuse._runtime"] = module
        spec.loader.exec_module(module)
        setattr(sys.modules["ringfuse"], "_runtime", module)
        return module
    try:
        # The submodule itself: `from . import _runtime` would ask the package's
        # __getattr__, which asks this function.
        return importlib.import_module("ringfuse._runtime")
    except ImportError as error:
        raise ImportError(
            "the ringfuse runtime extension (ringfuse._runtime) is not built; run "
            "`make build-runtime` at the repository root"
        ) from error
