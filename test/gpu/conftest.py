"""test/gpu imports test/python's end-to-end circuits, whose tests carry the
`needs_compiler` marker; registered here too, since this folder has its own
pytest root."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_compiler: runs the real compiler binaries (always present here)"
    )
