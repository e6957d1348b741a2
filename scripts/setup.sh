#!/usr/bin/env bash
# Installs what ringfuse needs on a fresh Debian bookworm machine and creates
# the project's Python environment (.venv). Idempotent: a second run only
# checks and returns in about a second.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

apt_packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools  # MLIR 22 (static libs too)
  libzstd-dev zlib1g-dev                                   # static link of the compiler
  cmake ninja-build g++ python3-venv python3-dev       # python3-dev: the extension
  libgtest-dev                                          # runtime unit tests
  clang libclang-rt-14-dev                              # fuzz targets (libFuzzer)
)

missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The venv is rebuilt only when what it was made from changes.
stamp=.venv/.ringfuse-setup
want="$(cat scripts/setup.sh scripts/requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)"
if [[ ! -f $stamp || "$(cat "$stamp")" != "$want" ]]; then
  echo "setup: creating the Python environment in .venv"
  python3 -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r scripts/requirements.txt
  .venv/bin/python -m pip install -q --no-build-isolation -e .
  # Only the noise-budget comparison with SEAL uses it; that test skips if
  # the package cannot be installed here.
  .venv/bin/python -m pip install -q seal-python ||
    echo "setup: seal-python is not installable here; the SEAL comparison will skip"
  echo "$want" >"$stamp"
fi
