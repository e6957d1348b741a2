"""Adds up JUnit XML reports into the one closing line CI reads."""

import sys
import xml.etree.ElementTree as ET


def count(path: str) -> tuple[int, int, int]:
    """Returns (passed, failed, skipped) over every testsuite in one report."""
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else root.iter("testsuite")
    passed = failed = skipped = 0
    for suite in suites:
        total = int(suite.get("tests", 0))
        bad = int(suite.get("failures", 0)) + int(suite.get("errors", 0))
        skip = int(suite.get("skipped", 0))
        passed += total - bad - skip
        failed += bad
        skipped += skip
    return passed, failed, skipped


def main(paths: list[str]) -> int:
    totals = [sum(column) for column in zip(*(count(p) for p in paths))]
    passed, failed, skipped = totals if totals else (0, 0, 0)
    line = f"total: {passed} passed, {failed} failed"
    print(line + (f", {skipped} skipped" if skipped else ""))
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
