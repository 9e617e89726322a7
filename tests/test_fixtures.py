"""One parametrized test over the fixture corpus (fixtures/<source>/<case>/): the output equals
``expected.json`` and satisfies the case's own executable ``checks`` (tests/_checks.py)."""

from __future__ import annotations

import json

import pytest

from tests._checks import case_failures, checked_by_failures
from tests._fixtures import cases

CASES = cases()


def test_corpus_is_large_enough():
    assert len(CASES) >= 40, f"only {len(CASES)} fixture cases"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture(case):
    assert case.expected_path.exists(), f"{case.name}: run `make fixtures-regen` and review"
    expected = json.loads(case.expected_path.read_text(encoding="utf-8"))
    actual = case.extract()
    assert len(actual) == len(expected), (
        f"{case.name}: {len(actual)} records, expected {len(expected)}: "
        f"{[(r['kind'], r['format'], r['type']) for r in actual]}"
    )
    for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
        assert got == want, f"{case.name}: record {i} ({want['format']} {want['type']}) differs"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_fixture_checks(case):
    """Every check of the case is executable (a description with facts) and every fact holds
    for the extractor's output (not for expected.json, which is only what it produced once)."""
    checks = case.meta.get("checks")
    assert checks, f"{case.name}: meta.json has no checks"
    failures = case_failures(case.extract(), checks) + checked_by_failures(case.meta)
    assert not failures, f"{case.name}:\n" + "\n".join(failures)


def _case(root, name, page, checks):
    folder = root / "fixtures" / "t" / name
    folder.mkdir(parents=True)
    (folder / "page.html").write_text(page, encoding="utf-8")
    meta = {"url": "https://t.example/", "content_type": "text/html", "checks": checks}
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_regen_refuses_output_that_fails_its_checks_and_diffs_the_rest(tmp_path, capsys):
    from tests.fixtures_regen import main

    page = '<script type="application/ld+json">{"@type": "Thing", "name": "A"}</script>'
    wrong = [
        {"description": "name B", "facts": [{"path": "records[0].properties.name", "equals": "B"}]}
    ]
    right = [
        {"description": "name A", "facts": [{"path": "records[0].properties.name", "equals": "A"}]}
    ]
    refused = _case(tmp_path, "refused", page, wrong)
    (refused / "expected.json").write_text("[]\n", encoding="utf-8")
    written = _case(tmp_path, "written", page, right)
    assert main(tmp_path / "fixtures") == 1
    out = capsys.readouterr().out
    assert "REFUSED t/refused" in out and "A, expected B" in out
    assert (refused / "expected.json").read_text(encoding="utf-8") == "[]\n"  # left alone
    assert "+++ b/fixtures/t/written/expected.json" in out and '+      "name": "A"' in out
    assert json.loads((written / "expected.json").read_text())[0]["properties"] == {"name": "A"}
    assert "1 of 2 expectations rewritten" in out and "1 refused" in out
