#!/usr/bin/env bash
# Runs every test suite against the current build and ends with one line:
# "total: N passed, M failed". Exits non-zero if anything failed or nothing ran.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
reports="$(mktemp -d)"
trap 'rm -rf "$reports"' EXIT

status=0
echo "== lit: IR tests (test/lit)"
.venv/bin/lit -sv build/compiler/test/lit --xunit-xml-output "$reports/lit.xml" || status=1
echo "== ctest: runtime unit tests (test/cpp)"
ctest --test-dir build/runtime -j2 --output-on-failure --output-junit "$reports/ctest.xml" \
  | tail -n 3 || status=1
echo "== pytest: Python tests (test/python)"
.venv/bin/python -m pytest -q test/python --junitxml "$reports/pytest.xml" || status=1
echo "== fuzz: every fuzz target briefly (test/fuzz)"
scripts/fuzz.sh 20 "$reports/fuzz.xml" || status=1

.venv/bin/python scripts/summarize_tests.py "$reports"/*.xml || status=1
exit $status
