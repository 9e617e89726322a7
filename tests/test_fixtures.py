"""One parametrized test over the fixture corpus (fixtures/<source>/<case>/): the output equals
``expected.json`` and satisfies the case's own executable ``checks`` (tests/_checks.py)."""

from __future__ import annotations

import json

import pytest

from tests._checks import case_failures
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
    failures = case_failures(case.extract(), checks)
    assert not failures, f"{case.name}:\n" + "\n".join(failures)
