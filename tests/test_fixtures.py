"""One parametrized test over the fixture corpus (fixtures/<source>/<case>/)."""

from __future__ import annotations

import json

import pytest

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
