#!/usr/bin/env bash
# The GPU suite, on a machine with a CUDA device (the lent H100/H200): builds
# the runtime and its Python extension there, then runs
#   1. gpu_tests (built here with GoogleTest and carried: the driver's kernels
#      against the CPU driver on hand-written programs),
#   2. the end-to-end suite on the CUDA driver,
#   3. every end-to-end circuit, CUDA against CPU, word for word,
#   4. the GPU client's keys, encodings, encryptions and decryptions against
#      the CPU client's,
#   5. compute-sanitizer memcheck on a subset.
# The static compiler binaries (build/compiler/bin) travel with the sources.
# Usage: test/gpu/run.sh [--sanitize]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
python=${PYTHON:-python3}
export PATH=/usr/local/cuda/bin:$PATH
export RINGFUSE_BIN_DIR=$PWD/build/compiler/bin PYTHONPATH=$PWD/frontend
export RINGFUSE_CACHE_DIR=${RINGFUSE_CACHE_DIR:-$(mktemp -d)}
status=0

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S runtime -B build/runtime -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DPython_EXECUTABLE="$(command -v "$python")" -DRINGFUSE_BUILD_TESTS=OFF >/dev/null || exit 1
cmake --build build/runtime -j "$(nproc)" >/dev/null || exit 1

echo "== gpu_tests"
if [[ -x build/runtime/test/gpu/gpu_tests ]]; then
  build/runtime/test/gpu/gpu_tests 2>&1 | tail -n 3 || status=1
else
  echo "gpu_tests was not carried"; status=1
fi
echo "== end-to-end suite on the CUDA driver"
RINGFUSE_TEST_TARGET=cuda "$python" -m pytest -q -p no:cacheprovider test/python/test_e2e.py 2>&1 | tail -n 3 || status=1
echo "== CUDA against CPU, every circuit"
"$python" -m pytest -q -p no:cacheprovider test/gpu/test_gpu_programs.py 2>&1 | tail -n 3 || status=1
echo "== the GPU client (keys, encoding, encryption, decryption) against the CPU's"
"$python" -m pytest -q -p no:cacheprovider test/gpu/test_gpu_client.py 2>&1 | tail -n 3 || status=1

if [[ ${1:-} == --sanitize ]]; then
  echo "== compute-sanitizer memcheck"
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
    build/runtime/test/gpu/gpu_tests --gtest_filter='-*Errors*' 2>&1 | tail -n 4 || status=1
  compute-sanitizer --tool memcheck --error-exitcode 3 "$python" -m pytest -q -p no:cacheprovider \
    test/gpu/test_gpu_programs.py -k "quickstart or rotations or matrix or chain4 or (fused_tensor and hps) or (whole and hps and opt1)" 2>&1 | tail -n 4 || status=1
fi
exit $status
