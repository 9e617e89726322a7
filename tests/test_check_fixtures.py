"""The problem fixtures (``fixtures/problems/<case>/``, meta.json ``"problems"``): each page
is named with the problem codes it states, with a path, an element and a fix in words; no
page gets an error it does not state (so the clean pages get none); and every code the checks
emit has a fixture, except the bounds and internal failures listed below."""

from __future__ import annotations

import pytest

from structcrawl.validate.problems import fixes
from tests._fixtures import cases

PROBLEM_CASES = [c for c in cases() if "problems" in c.meta]

#: Codes without a problem fixture, and why: the layers' bounds (pages too large or too
#: complex: fixtures/adversarial holds them), the failures that are structcrawl's own bugs,
#: codes of JSON responses rather than pages, and the codes of the item schemas' generic rules
#: (every fixture shows missing-recommended; out-of-range and bad-value are tested on the
#: schemas in tests/test_validate_schemas.py).
NOT_FIXTURES = frozenset(
    {
        "json-ld-too-large",
        "json-ld-too-deep",
        "json-ld-too-many-blocks",
        "json-ld-too-many-items",
        "microdata-too-many-items",
        "microdata-too-complex",
        "microdata-too-deep",
        "rdfa-too-many-items",
        "rdfa-too-complex",
        "rdfa-too-deep",
        "extractor-failed",
        "validator-failed",
        "malformed-record",
        "json-invalid",
        "json-ld-not-a-node",
        "microdata-orphan-itemprop",
        "missing-recommended",
        "out-of-range",
        "bad-value",
        "superseded-term",
        "property-not-expected-on-type",
    }
)


def test_there_are_problem_fixtures_and_clean_ones():
    clean = [c for c in PROBLEM_CASES if not c.meta["problems"]]
    assert len(PROBLEM_CASES) >= 30 and len(clean) >= 3


@pytest.mark.parametrize("case", PROBLEM_CASES, ids=[c.name for c in PROBLEM_CASES])
def test_problem_fixture_is_named_and_nothing_else_is_an_error(case):
    stated = set(case.meta["problems"])
    problems = case.problems()
    named = {p["code"] for p in problems}
    assert stated <= named, f"{case.name}: {sorted(stated - named)} not named; named {named}"
    errors = {p["code"] for p in problems if p["severity"] == "error"}
    assert errors <= stated, f"{case.name}: errors it does not state: {sorted(errors - stated)}"
    for problem in (p for p in problems if p["code"] in stated):
        assert problem["element"], f"{case.name}: {problem['code']} has no element"
        assert problem["fix"] and "{" not in problem["fix"], f"{case.name}: {problem['code']}"
        assert problem["code"] in fixes(), f"{case.name}: {problem['code']} has no fix in words"
        assert isinstance(problem["path"], str) and problem["message"]


def test_every_code_the_checks_emit_has_a_fixture():
    covered = {code for c in PROBLEM_CASES for code in c.meta["problems"]}
    known = set(fixes())
    assert covered <= known, f"fixtures state codes problems.toml lacks: {covered - known}"
    assert NOT_FIXTURES <= known
    assert known - NOT_FIXTURES - covered == set(), "codes without a problem fixture"
    assert covered & NOT_FIXTURES == set(), "a code with a fixture is still listed as without"
