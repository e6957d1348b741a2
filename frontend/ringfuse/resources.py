"""Where the package's compiler binaries and runtime files are.

Installed from a wheel (`make wheel`), the package carries them in
`ringfuse/_bundle/`: `bin/` (the static compiler binaries), `include/` (the
runtime headers compiled programs include), `tools/circuit_main.cpp` and
`lib/` (the runtime's archives and `link.txt`, what ringfusec links an
executable with). Run from the source tree, they are the repository's own:
`build/compiler/bin`, `runtime/include`, `runtime/tools`, `build/runtime`.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
BUNDLE_DIR = PACKAGE_DIR / "_bundle"
# frontend/ringfuse -> the repository root, in the source tree.
REPO_ROOT = PACKAGE_DIR.parents[1]


def installed() -> bool:
    """Whether this package came from a wheel (it carries its bundle)."""
    return BUNDLE_DIR.is_dir()


def compiler_bin_dir() -> Path:
    """The directory of ringfuse-opt and ringfuse-translate."""
    return BUNDLE_DIR / "bin" if installed() else REPO_ROOT / "build" / "compiler" / "bin"


def runtime_include_dir() -> Path:
    """The runtime's public headers (`ringfuse/runtime/*.h`)."""
    return BUNDLE_DIR / "include" if installed() else REPO_ROOT / "runtime" / "include"


def circuit_main() -> Path:
    """The main() of ringfusec's executables."""
    tools = BUNDLE_DIR / "tools" if installed() else REPO_ROOT / "runtime" / "tools"
    return tools / "circuit_main.cpp"


def runtime_link_file() -> Path:
    """The list of what an executable links with the runtime, one item a line:
    archives (relative to the file's directory in a bundle), then system
    libraries (`-l...`). An installed wheel's CUDA runtime has its own."""
    if installed():
        from . import cuda_runtime

        if cuda_runtime.usable_extension() is not None:  # built first, if not yet
            return cuda_runtime.link_file()
        return BUNDLE_DIR / "lib" / "link.txt"
    return REPO_ROOT / "build" / "runtime" / "ringfuse_runtime_link.txt"


def built_from() -> str | None:
    """The commit an installed wheel was built from ("...-dirty" with local
    changes); None in a source tree or where the wheel was built outside git."""
    stamp = BUNDLE_DIR / "commit.txt"
    return stamp.read_text().strip() if stamp.is_file() else None


def files_digest(root: Path, pattern: str = "*") -> str:
    """The SHA-256 of the files under `root` that match `pattern`: their paths
    (relative to `root`) and contents, in sorted order."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob(pattern)):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def how_to_provide() -> str:
    """What to do when one of the files above is missing."""
    if installed():
        return f"the installed package is incomplete ({BUNDLE_DIR}): reinstall the ringfuse wheel"
    return f"run `make build` at the repository root ({REPO_ROOT})"
