#!/usr/bin/env bash
# Builds the ringfuse wheel into dist/ (`make wheel`, after `make build`): the
# Python package, the static compiler binaries, a CPU runtime extension, and
# in ringfuse/_bundle what compiled programs and ringfusec's executables are
# built with where the wheel is installed (the runtime's headers, archives and
# circuit_main.cpp; frontend/ringfuse/resources.py finds them) and the
# runtime's sources, which build its CUDA driver on first use where a GPU is. The package
# is staged in build/wheel/stage, laid out as the repository is, and built by
# setuptools (pyproject.toml, setup.py) without network or isolation.
#   scripts/build_wheel.sh [PYTHON]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${1:-$root/.venv/bin/python}"
stage="$root/build/wheel/stage"
bundle="$stage/frontend/ringfuse/_bundle"

for tool in ringfuse-opt ringfuse-translate; do
  [[ -x build/compiler/bin/$tool ]] || { echo "build/compiler/bin/$tool is missing: run make build" >&2; exit 1; }
done

# A runtime of the CPU driver only: the wheel must import where no CUDA is.
cmake -G Ninja -S runtime -B build/wheel/runtime -DCMAKE_BUILD_TYPE=Release \
  -DRINGFUSE_CUDA=OFF -DRINGFUSE_BUILD_TESTS=OFF -DPython_EXECUTABLE="$python" \
  -DRINGFUSE_EXTENSION_DIR="$root/build/wheel/extension" >/dev/null
cmake --build build/wheel/runtime >/dev/null

rm -rf "$stage"
mkdir -p "$stage/frontend" "$bundle/bin" "$bundle/lib" "$bundle/tools"
cp pyproject.toml setup.py README.md "$stage/"
cp -r frontend/ringfuse "$stage/frontend/"
find "$stage/frontend/ringfuse" \( -name '__pycache__' -o -name '_runtime*.so' \) -prune -exec rm -rf {} +
cp build/wheel/extension/_runtime*.so "$stage/frontend/ringfuse/"
cp build/compiler/bin/ringfuse-opt build/compiler/bin/ringfuse-translate "$bundle/bin/"
cp -r runtime/include "$bundle/include"
# The runtime's sources, for its CUDA build where the wheel is used
# (frontend/ringfuse/cuda_runtime.py).
mkdir -p "$bundle/source/frontend"
cp -r runtime "$bundle/source/runtime"
cp -r frontend/bindings "$bundle/source/frontend/bindings"
cp runtime/tools/circuit_main.cpp "$bundle/tools/"
# The commit it was built from, for benchmarks run from the installed wheel.
if head=$(git rev-parse HEAD 2>/dev/null); then
  git diff --quiet HEAD -- 2>/dev/null || head="$head-dirty"
  echo "$head" > "$bundle/commit.txt"
fi
# The link list with the archives beside it, named relatively.
while read -r item; do
  [[ -z $item ]] && continue
  if [[ $item == -* ]]; then
    echo "$item"
  else
    cp "$item" "$bundle/lib/"
    basename "$item"
  fi
done < build/wheel/runtime/ringfuse_runtime_link.txt > "$bundle/lib/link.txt"

mkdir -p dist
"$python" -m pip wheel --no-deps --no-build-isolation --quiet -w dist "$stage"
ls -t dist/ringfuse-*.whl | head -n 1
