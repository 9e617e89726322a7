"""structcrawl against extruct over every fixture page (fixtures/*/*/): where the two disagree
on the typed entities of a page, the disagreement is listed with its reason in
tests/extruct_differences.json. A new disagreement, or a listed one that no longer happens,
fails the test (so the list stays the truth; docs/dependencies.md summarizes it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests._fixtures import cases

pytest.importorskip("extruct")

from tests._extruct_diff import difference  # noqa: E402

LISTED = json.loads((Path(__file__).with_name("extruct_differences.json")).read_text())
CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_every_disagreement_with_extruct_is_listed_with_its_reason(case):
    found = difference(case)
    listed = LISTED.get(case.name)
    if found is None:
        assert listed is None, f"{case.name}: listed as a disagreement, but both tools now agree"
        return
    assert listed is not None, f"{case.name}: a new disagreement with extruct: {found}"
    assert len(listed["reason"]) > 40
    assert {k: v for k, v in listed.items() if k != "reason"} == found


def test_the_two_tools_agree_on_most_fixture_pages():
    assert len(CASES) >= 150
    assert len(LISTED) <= len(CASES) // 4
    assert set(LISTED) <= {c.name for c in CASES}
