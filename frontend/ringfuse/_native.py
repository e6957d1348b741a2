"""Loads the runtime extension `ringfuse._runtime` with a helpful error.

Tracing needs only the compiler binaries; everything that touches ciphertexts
needs the runtime extension, built by `make build` (or `make build-runtime`).
"""

from __future__ import annotations

from types import ModuleType


def runtime() -> ModuleType:
    """The `ringfuse._runtime` extension module."""
    try:
        from . import _runtime
    except ImportError as error:
        raise ImportError(
            "the ringfuse runtime extension (ringfuse._runtime) is not built; run "
            "`make build-runtime` at the repository root"
        ) from error
    return _runtime
