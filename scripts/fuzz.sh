#!/usr/bin/env bash
# Builds the fuzz targets (test/fuzz: libFuzzer, ASan and UBSan, clang) into
# build/fuzz and runs each for SECONDS (default 20) from its seed corpus
# (test/fuzz/corpus/TARGET, copied: the repository's corpus stays as it is).
# Exits non-zero on any crash, leak, timeout or sanitizer report; the input
# that caused it is left in build/fuzz/findings/TARGET. With a second argument,
# a JUnit report of one test per target goes there (run-tests.sh counts it).
#   scripts/fuzz.sh [SECONDS [REPORT.xml]]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
seconds="${1:-20}"
report="${2:-}"
cases=""
failures=0

if [[ ! -f build/fuzz/build.ninja ]]; then
  CC=clang CXX=clang++ cmake -G Ninja -S test/fuzz -B build/fuzz >/dev/null
fi
cmake --build build/fuzz >/dev/null

status=0
for corpus in test/fuzz/corpus/*/; do
  target="$(basename "$corpus")"
  work="$(mktemp -d)"
  findings="build/fuzz/findings/$target"
  mkdir -p "$findings"
  cp "$corpus"/* "$work/"
  # -timeout: an input that takes over 10 s is a hang; -rss_limit_mb: an
  # allocation the input's size does not justify shows up as running out.
  if build/fuzz/"${target}_fuzzer" "$work" -max_total_time="$seconds" -timeout=10 \
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
done
if [[ -n "$report" ]]; then
  count=$(ls -d test/fuzz/corpus/*/ | wc -l)
  echo "<testsuite name=\"fuzz\" tests=\"$count\" failures=\"$failures\">$cases</testsuite>" > "$report"
fi
exit $status
