#!/usr/bin/env bash
# The GPU suite, on a machine with a CUDA device (the lent H100/H200): builds
# the runtime and its Python extension there, then runs
#   1. gpu_tests (built here with GoogleTest and carried: the driver's kernels
#      against the CPU driver on hand-written programs),
#   2. the end-to-end suite on the CUDA driver,
#   3. every end-to-end circuit, CUDA against CPU, word for word,
#   4. the GPU client's keys, encodings, encryptions and decryptions against
#      the CPU client's,
#   5. running out of GPU memory (alone: it fills the GPU),
#   6. with --sanitize, compute-sanitizer's four tools (memcheck, with leak
#      checking on gpu_tests, racecheck, synccheck, initcheck) over gpu_tests
#      and a subset of the circuits.
# The static compiler binaries (build/compiler/bin) travel with the sources.
# Usage: test/gpu/run.sh [--sanitize]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
python=${PYTHON:-python3}
export PATH=/usr/local/cuda/bin:$PATH
export RINGFUSE_BIN_DIR=$PWD/build/compiler/bin PYTHONPATH=$PWD/frontend
export RINGFUSE_CACHE_DIR=${RINGFUSE_CACHE_DIR:-$(mktemp -d)}
status=0
# The circuits the sanitizers run (each tool runs the whole of gpu_tests).
SANITIZED_CIRCUITS="quickstart or rotations or matrix or chain4 or (fused_tensor and hps) or (whole and hps and opt1)"

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
echo "== batches, threads and a short soak on the CUDA driver"
RINGFUSE_TEST_TARGET=cuda "$python" -m pytest -q -p no:cacheprovider test/python/test_batches.py \
  test/python/test_threads.py test/python/test_soak.py 2>&1 | tail -n 3 || status=1
echo "== out of GPU memory"
"$python" -m pytest -q -p no:cacheprovider test/gpu/test_gpu_memory.py 2>&1 | tail -n 3 || status=1

if [[ ${1:-} == --sanitize ]]; then
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== compute-sanitizer $tool"
    options=(--tool "$tool" --error-exitcode 3)
    # Leaks only in gpu_tests: Python frees no objects at exit (programs, GPU
    # ciphertexts, the pool), which memcheck would report as leaks.
    leaks=(); [[ $tool == memcheck ]] && leaks=(--leak-check full)
    compute-sanitizer "${options[@]}" "${leaks[@]}" build/runtime/test/gpu/gpu_tests \
      --gtest_filter='-*Errors*' 2>&1 | tail -n 4 || status=1
    compute-sanitizer "${options[@]}" "$python" -m pytest -q -p no:cacheprovider \
      test/gpu/test_gpu_programs.py -k "$SANITIZED_CIRCUITS" 2>&1 | tail -n 4 || status=1
  done
fi
exit $status
