"""The fast engine (jsonschema-rs) and the reference (jsonschema) agree on validity.

The validator asks jsonschema-rs first and walks jsonschema's error tree only for values it
rejects; that is only right while both engines agree, which this test checks on every
record (raw and normalized, nested ones included) of the fixture corpus and the demo site.
"""

from __future__ import annotations

import copy
from pathlib import Path

from structcrawl.extract import extract_payload
from structcrawl.normalize import NormalizeContext, normalize_record
from structcrawl.validate import Validator
from tests._fixtures import cases

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"


def _records():
    for case in cases():
        meta = case.meta
        yield (
            meta["url"],
            [
                r.to_dict()
                for r in extract_payload(
                    case.page.read_bytes(), meta["url"], meta.get("content_type")
                ).records
            ],
        )
    for page in sorted(SITE.rglob("*.html")):
        url = f"https://northwind.example/{page.relative_to(SITE)}"
        yield (
            url,
            [r.to_dict() for r in extract_payload(page.read_bytes(), url, "text/html").records],
        )


def _nodes(record):
    yield record
    for value in (record.get("properties") or {}).values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and "properties" in item and "type" in item:
                yield from _nodes(item)


def _checked_nodes():
    """(url, type name, its check, properties) of every node of the corpus that has a check,
    each record read raw and normalized."""
    checks = Validator.default().checks
    for url, records in _records():
        ctx = NormalizeContext(page_url=url)
        for raw in records:
            for record in (raw, normalize_record(copy.deepcopy(raw), ctx)):
                for node in _nodes(record):
                    props = node.get("properties")
                    for name in node.get("type") or []:
                        check = checks.get(name)
                        if check is not None and isinstance(props, dict):
                            yield url, name, check, props


def test_fast_and_reference_engines_agree():
    compared = disagreements = 0
    for url, name, check, props in _checked_nodes():
        pairs = [(check.errors_ok, check.errors)]
        if check.warnings is not None:
            pairs.append((check.warnings_ok, check.warnings))
        for fast, reference in pairs:
            assert fast is not None, f"{name}: no fast engine"
            compared += 1
            if fast(props) != (not any(True for _ in reference(props))):
                disagreements += 1
                print("disagree:", url, name, props)
    assert compared > 500
    assert disagreements == 0


def test_split_tiers_find_what_the_whole_walk_finds():
    """When jsonschema-rs rejects a value, the validator walks (with jsonschema) only the
    properties whose subschema fails, and builds the missing-property issues itself, provided
    the rest of the schema holds. Those findings must be the very issues the whole walk
    gives (same order, same repeats), on every node of the corpus, raw and normalized."""
    from structcrawl.validate._schemas import _issues, _prune, _tier_issues

    split = compared = 0
    for url, name, check, props in _checked_nodes():
        tiers = [(check.errors, check.errors_split, False)]
        if check.warnings is not None:
            tiers.append((check.warnings, check.warnings_split, True))
        for reference, tier, warning in tiers:
            if tier is None:
                continue
            compared += 1
            split += tier.errors(props) is not None
            expected = [
                i for e in _prune(reference(props)) for i in _issues(e, props, "x[0]", warning)
            ]
            got = _tier_issues(reference, None, tier, props, "x[0]", warning)
            assert got == expected, (url, name, warning)
    assert compared > 1000 and split > 500
