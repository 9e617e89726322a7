"""Re-run extraction over every fixture case and rewrite its expected.json, for review.

make fixtures-regen

A case whose new output fails its own ``checks`` (the executable facts in its meta.json, see
fixtures/README.md and tests/_checks.py) is refused: its expected.json is left as it was, the
failing facts are printed, and the command exits with status 1. Every expected.json that is
rewritten is printed as a unified diff, so the change is reviewed before it is committed.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

from tests._checks import case_failures
from tests._fixtures import ROOT, cases, dump


def main(root: Path = ROOT) -> int:
    changed = refused = 0
    all_cases = cases(root)
    for case in all_cases:
        records = case.extract()
        new = dump(records)
        path = case.expected_path
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if new == old:
            continue
        failures = case_failures(records, case.meta.get("checks", []))
        if failures:
            refused += 1
            print(f"REFUSED {case.name}: the new output fails the case's own checks")
            for failure in failures:
                print(f"    {failure}")
            continue
        changed += 1
        rel = path.relative_to(root.parent).as_posix()
        sys.stdout.writelines(
            difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                fromfile=f"a/{rel}",
                tofile=f"b/{rel}",
            )
        )
        path.write_text(new, encoding="utf-8")
    print(
        f"{changed} of {len(all_cases)} expectations rewritten (diffs above: review them);"
        f" {refused} refused because the new output fails the case's checks"
    )
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
