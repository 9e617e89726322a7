"""The hand-written schema.org-style fidelity cases (``fixtures/fidelity/``, issue 23): every
fact a case states, written from the WHATWG Microdata algorithm or RDFa 1.1 / HTML+RDFa, is
what structcrawl's records say, and the records say nothing more (schema.org facts, read
through the records exactly as ``make bench-fidelity`` reads them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import bench_fidelity as bench
from bench.fidelity_fixtures import compared, fidelity_cases, read_facts

CASES = list(fidelity_cases())


def test_the_cases_cover_both_syntaxes_and_the_schema_org_shapes():
    names = {case.name for case in CASES}
    assert len([n for n in names if n.startswith("microdata-")]) >= 8
    assert len([n for n in names if n.startswith("rdfa-")]) >= 8
    for case in CASES:
        assert case.page.is_file() and case.facts_file.is_file(), case.name


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_records_state_exactly_the_facts_of_the_case(case):
    truth = bench.fixture_facts(case)
    assert len(truth) >= 5, f"{case.name}: a case states its facts"
    got = bench.structcrawl_facts(case.page.read_bytes(), case.syntax)
    assert got == truth, (
        f"missing {sorted(truth - got)}\nextra {sorted(got - truth)}"
    )  # fmt: skip


def test_facts_files_are_read_with_blank_node_keys_kept_and_values_compared(tmp_path: Path):
    facts = tmp_path / "facts.txt"
    facts.write_text(
        "# url: https://shop.example/p/1\n# a comment\n/{schema:Product}\n"
        "  schema:offers /{schema:Product}/offers{schema:Offer}\n"
        "  schema:image img/a.jpg\n  schema:name Red   Kettle\n"
        "https://shop.example/p/1#o\n  schema:url https://q.example/s?q={q}\n",
        encoding="utf-8",
    )
    url, rows = read_facts(facts)
    assert url == "https://shop.example/p/1" and len(rows) == 4
    bench._Base.url = url
    assert compared(rows, bench.literal) == {
        ("/{schema:Product}", "schema:offers", "/{schema:Product}/offers{schema:Offer}"),
        ("/{schema:Product}", "schema:image", "https://shop.example/p/img/a.jpg"),
        ("/{schema:Product}", "schema:name", "RedKettle"),
        ("https://shop.example/p/1#o", "schema:url", "https://q.example/s?q={q}"),
    }


def test_a_fact_without_a_subject_or_a_file_without_its_url_is_refused(tmp_path: Path):
    facts = tmp_path / "facts.txt"
    facts.write_text("# url: https://x.example/\n  schema:name Orphan\n", encoding="utf-8")
    with pytest.raises(ValueError, match="subject"):
        read_facts(facts)
    facts.write_text("/{schema:Thing}\n  schema:name Named\n", encoding="utf-8")
    with pytest.raises(ValueError, match="url"):
        read_facts(facts)
