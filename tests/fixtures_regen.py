"""Re-run extraction over every fixture case and rewrite its expected.json.

make fixtures-regen        (then review `git diff fixtures/` against each meta.json's checks)
"""

from __future__ import annotations

import sys

from tests._fixtures import cases, dump


def main() -> int:
    changed = 0
    for case in cases():
        new = dump(case.extract())
        old = (
            case.expected_path.read_text(encoding="utf-8") if case.expected_path.exists() else None
        )
        if new != old:
            case.expected_path.write_text(new, encoding="utf-8")
            changed += 1
            print(f"updated {case.name}")
    print(
        f"{changed} of {len(cases())} expectations rewritten; review them with `git diff fixtures/`"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
