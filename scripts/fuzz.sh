#!/usr/bin/env bash
# Builds the fuzz targets and runs each for SECONDS (default 20) from its seeds:
#   deserialize, manifest  test/fuzz (the runtime's loaders), into build/fuzz;
#                          seeds test/fuzz/corpus/TARGET
#   opt                    ringfuse-opt's parse, verify, pipeline and emitters
#                          (test/fuzz/opt_fuzzer.cpp), a compiler build of its
#                          own in build/fuzz-opt; seeds: every test/lit file,
#                          split at `// -----`, and test/fuzz/corpus/opt
# All with libFuzzer, ASan and UBSan (clang). Seeds are copied: the
# repository's stay as they are. Exits non-zero on any crash, leak, timeout
# or sanitizer report; the input that caused it is left in
# build/fuzz/findings/TARGET. With a second argument, a JUnit report of one
# test per target goes there (run-tests.sh counts it).
#   scripts/fuzz.sh [SECONDS [REPORT.xml]]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-20}"
report="${2:-}"
mlir_dir="${MLIR_DIR:-/usr/lib/llvm-22/lib/cmake/mlir}"
cases=""
failures=0
count=0

if [[ ! -f build/fuzz/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -G Ninja -S test/fuzz -B build/fuzz >/dev/null
fi
cmake --build build/fuzz >/dev/null
if [[ ! -f build/fuzz-opt/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -G Ninja -S . -B build/fuzz-opt -DRINGFUSE_FUZZ=ON \
    -DCMAKE_BUILD_TYPE= -DMLIR_DIR="$mlir_dir" >/dev/null
fi
echo "building ringfuse-opt's fuzz target (the compiler, instrumented)"
cmake --build build/fuzz-opt --target opt_fuzzer >/dev/null

# The lit tests' IR, one file per `// -----` split.
lit_seeds() {
  local into="$1" file
  for file in $(find test/lit -name '*.mlir' | sort); do
    awk -v prefix="$into/$(echo "$file" | tr / _)" \
      '/^\/\/ -----/ { part++; next } { print > (prefix "." part+0) }' "$file"
  done
}

status=0
run() { # run TARGET BINARY: from a copy of its seeds, for $seconds
  local target="$1" binary="$2" work findings runs
  work="$(mktemp -d)"
  findings="build/fuzz/findings/$target"
  mkdir -p "$findings"
  if [[ -d test/fuzz/corpus/$target ]]; then cp test/fuzz/corpus/"$target"/* "$work/"; fi
  if [[ $target == opt ]]; then lit_seeds "$work"; fi
  count=$((count + 1))
  # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: an
  # allocation the input's size does not justify shows up as running out.
  if "$binary" "$work" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$findings/" -print_final_stats=1 \
      > "build/fuzz/$target.log" 2>&1; then
    runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "build/fuzz/$target.log" | grep -o '[0-9]*$')"
    echo "fuzz $target: $runs inputs in ${seconds} s, no findings"
    cases+="<testcase classname=\"fuzz\" name=\"$target\"/>"
  else
    echo "fuzz $target: FOUND a problem (build/fuzz/$target.log, input in $findings)"
    tail -n 30 "build/fuzz/$target.log"
    cases+="<testcase classname=\"fuzz\" name=\"$target\"><failure message=\"see build/fuzz/$target.log\"/></testcase>"
    failures=$((failures + 1))
    status=1
  fi
  rm -rf "$work"
}
run deserialize build/fuzz/deserialize_fuzzer
run manifest build/fuzz/manifest_fuzzer
run opt build/fuzz-opt/opt_fuzzer
if [[ -n "$report" ]]; then
  echo "<testsuite name=\"fuzz\" tests=\"$count\" failures=\"$failures\">$cases</testsuite>" > "$report"
fi
exit $status
