"""test/gpu imports test/python's end-to-end circuits, whose tests carry the
`needs_compiler` marker; registered here too, since this folder has its own
pytest root."""

import os
from pathlib import Path

import pytest

# RINGFUSE_INSTALLED=1 (test/gpu/run.sh --installed): the suite must test the installed
# wheel, not a source tree on PYTHONPATH.
if os.environ.get("RINGFUSE_INSTALLED") == "1":
    import ringfuse

    if Path(ringfuse.__file__).resolve().is_relative_to(
            Path(__file__).resolve().parents[2] / "frontend"):
        raise RuntimeError("RINGFUSE_INSTALLED=1, but ringfuse comes from the source tree "
                           f"({ringfuse.__file__}): unset PYTHONPATH")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_compiler: runs the real compiler binaries (always present here)"
    )
