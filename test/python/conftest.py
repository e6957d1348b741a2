"""pytest setup for the Python frontend.

- Puts `frontend/` on sys.path, so the tests run against the source tree;
  with RINGFUSE_INSTALLED=1 they run against the installed package (the
  wheel) instead, and fail to start if `ringfuse` still comes from this tree.
- `cache_dir`: one compiled-program cache per test module ($RINGFUSE_CACHE_DIR
  when set, to reuse programs across runs).
- Registers the `needs_compiler` marker. A test so marked runs the real
  `ringfuse-opt`: it *fails* (not skips) when the binary cannot be found, so a
  broken build cannot pass silently. `RINGFUSE_NO_COMPILER=1` deselects these
  tests instead, for working on the frontend without building the compiler.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
FRONTEND_DIR = REPO_ROOT / "frontend"
INSTALLED = os.environ.get("RINGFUSE_INSTALLED") == "1"
if not INSTALLED and str(FRONTEND_DIR) not in sys.path:
    sys.path.insert(0, str(FRONTEND_DIR))

import ringfuse  # noqa: E402 (importable only after the sys.path entry above)
from ringfuse import driver  # noqa: E402

if INSTALLED and Path(ringfuse.__file__).resolve().is_relative_to(FRONTEND_DIR):
    raise RuntimeError(f"RINGFUSE_INSTALLED=1, but ringfuse comes from the source tree "
                       f"({ringfuse.__file__}): unset PYTHONPATH")

NO_COMPILER_VARIABLE = "RINGFUSE_NO_COMPILER"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs_compiler: runs the real ringfuse-opt; fails if it is missing, "
        f"deselected when {NO_COMPILER_VARIABLE}=1",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(NO_COMPILER_VARIABLE) != "1":
        return
    deselected = [item for item in items if item.get_closest_marker("needs_compiler")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("needs_compiler")]


@pytest.fixture(scope="session")
def ringfuse_opt() -> Path:
    """The `ringfuse-opt` binary the driver will run; a test failure if there is none."""
    try:
        return driver.find_tool("ringfuse-opt")
    except driver.CompilerError as error:
        missing = str(error)
    # Outside the `except`, so the report shows the message once, not a chained copy.
    pytest.fail(
        f"{missing}\n(set {NO_COMPILER_VARIABLE}=1 to deselect the tests that need the compiler)",
        pytrace=False,
    )


@pytest.fixture(autouse=True)
def _require_compiler_for_marked_tests(request: pytest.FixtureRequest) -> None:
    # The marker alone is enough: a marked test cannot forget to ask for the binary.
    if request.node.get_closest_marker("needs_compiler"):
        request.getfixturevalue("ringfuse_opt")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    configured = os.environ.get("RINGFUSE_CACHE_DIR")
    return Path(configured) if configured else tmp_path_factory.mktemp("ringfuse-cache")
