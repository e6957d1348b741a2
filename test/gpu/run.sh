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
# With --installed, the Python suites test the ringfuse installed for $PYTHON
# (the wheel: its bundled compiler, and its CUDA runtime built on first use)
# instead of this tree; nothing is built here then but gpu_tests must be carried.
# Usage: test/gpu/run.sh [--installed] [--sanitize]
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
python=${PYTHON:-python3}
installed=0 sanitize=0
for option in "$@"; do
  case $option in
    --installed) installed=1 ;;
    --sanitize) sanitize=1 ;;
    *) echo "usage: test/gpu/run.sh [--installed] [--sanitize]" >&2; exit 2 ;;
  esac
done
export PATH=/usr/local/cuda/bin:$PATH
export RINGFUSE_CACHE_DIR=${RINGFUSE_CACHE_DIR:-$(mktemp -d)}
status=0
# Several test processes share the GPU where pytest-xdist is installed.
parallel=(); "$python" -c 'import xdist' 2>/dev/null && parallel=(-n 6)
# The circuits the sanitizers run (each tool runs the whole of gpu_tests).
SANITIZED_CIRCUITS="quickstart or rotations or matrix or chain4 or (fused_tensor and hps) or (whole and hps and opt1)"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if ((installed)); then
  unset PYTHONPATH RINGFUSE_BIN_DIR
  export RINGFUSE_INSTALLED=1
  "$python" -c 'import ringfuse; from ringfuse import _runtime; print("ringfuse from", ringfuse.__file__, "runtime", _runtime.__file__)' || exit 1
else
  export RINGFUSE_BIN_DIR=$PWD/build/compiler/bin PYTHONPATH=$PWD/frontend
  cmake -S runtime -B build/runtime -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$(command -v "$python")" -DRINGFUSE_BUILD_TESTS=OFF >/dev/null || exit 1
  cmake --build build/runtime -j "$(nproc)" >/dev/null || exit 1
fi

echo "== gpu_tests"
if [[ -x build/runtime/test/gpu/gpu_tests ]]; then
  build/runtime/test/gpu/gpu_tests 2>&1 | tail -n 3 || status=1
else
  echo "gpu_tests was not carried"; status=1
fi
echo "== end-to-end suite on the CUDA driver"
RINGFUSE_TEST_TARGET=cuda "$python" -m pytest -q -p no:cacheprovider "${parallel[@]}" test/python/test_e2e.py 2>&1 | tail -n 3 || status=1
echo "== CUDA against CPU, every circuit"
"$python" -m pytest -q -p no:cacheprovider "${parallel[@]}" test/gpu/test_gpu_programs.py 2>&1 | tail -n 3 || status=1
echo "== the GPU client (keys, encoding, encryption, decryption) against the CPU's"
"$python" -m pytest -q -p no:cacheprovider test/gpu/test_gpu_client.py 2>&1 | tail -n 3 || status=1
echo "== batches, threads and a short soak on the CUDA driver"
RINGFUSE_TEST_TARGET=cuda "$python" -m pytest -q -p no:cacheprovider test/python/test_batches.py \
  test/python/test_threads.py test/python/test_soak.py 2>&1 | tail -n 3 || status=1
echo "== out of GPU memory"
"$python" -m pytest -q -p no:cacheprovider test/gpu/test_gpu_memory.py 2>&1 | tail -n 3 || status=1

if ((sanitize)); then
  # Each gpu_tests test in its own sanitized process, six at a time (racecheck
  # over the whole binary in one process takes longer than ten minutes); the
  # test that fills the GPU runs alone after them (not under racecheck). A
  # test that makes no CUDA call passes (--require-cuda-init no).
  filler=GpuBatchTest.ABatchTenTimesTheFreeDeviceMemoryCompletes
  tests=$(build/runtime/test/gpu/gpu_tests --gtest_list_tests |
    awk '/^[A-Za-z]/ {suite = $1} /^  / {print suite $1}' | grep -v -e Errors -e "$filler")
  export LOGS=$(mktemp -d)
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== compute-sanitizer $tool"
    options=(--tool "$tool" --error-exitcode 3 --require-cuda-init no)
    # Leaks only in gpu_tests: Python frees no objects at exit (programs, GPU
    # ciphertexts, the pool), which memcheck would report as leaks.
    leaks=(); [[ $tool == memcheck ]] && leaks=(--leak-check full)
    export SANITIZE="compute-sanitizer ${options[*]} ${leaks[*]}"
    printf '%s\n' $tests | xargs -P 6 -I{} bash -c '$SANITIZE build/runtime/test/gpu/gpu_tests \
      --gtest_filter={} > $LOGS/{}.log 2>&1 || { echo "FAILED {}"; tail -n 20 $LOGS/{}.log; exit 1; }' ||
      status=1
    # Under racecheck the host's memory follows the device's: the test that
    # fills the GPU would need more host memory than the H200 machine has.
    if [[ $tool != racecheck ]]; then
      $SANITIZE build/runtime/test/gpu/gpu_tests --gtest_filter=$filler > "$LOGS/$filler.log" 2>&1 ||
        { echo "FAILED $filler"; tail -n 20 "$LOGS/$filler.log"; status=1; }
    fi
    cat "$LOGS"/*.log | grep "SUMMARY" | sort | uniq -c
    rm -f "$LOGS"/*.log
    compute-sanitizer "${options[@]}" "$python" -m pytest -q -p no:cacheprovider \
      test/gpu/test_gpu_programs.py -k "$SANITIZED_CIRCUITS" 2>&1 | tail -n 4 || status=1
  done
fi
exit $status
