"""Comparing a run with the previous one: new, changed (which fields), unchanged, gone."""

from __future__ import annotations

from structcrawl.changes import (
    STATUSES,
    Change,
    changed_fields,
    compare,
    diff_runs,
    fingerprint,
    gone,
)


def entity(key, seen=None, **properties):
    return fingerprint(
        {"key": key, "type": ["Product"], "properties": properties, "last_seen": seen}
    )


def test_statuses():
    before = entity("a", "2026-01-01T00:00:00Z", name="A", offers={"price": "1.00"})
    assert compare(entity("a", name="A", offers={"price": "1.00"}), None) == Change(
        "new", fingerprint=entity("a", name="A", offers={"price": "1.00"}).digest
    )
    same = compare(entity("a", "2026-02-01T00:00:00Z", name="A", offers={"price": "1.00"}), before)
    assert (same.status, same.fields, same.previous_seen) == (
        "unchanged",
        (),
        "2026-01-01T00:00:00Z",
    )
    changed = compare(entity("a", name="A", offers={"price": "2.00"}), before)
    assert (changed.status, changed.fields) == ("changed", ("offers.price",))
    assert changed.previous_seen == "2026-01-01T00:00:00Z"
    lost = gone(before)
    assert (lost.status, lost.fingerprint, lost.previous_seen) == (
        "gone",
        before.digest,
        before.seen,
    )
    assert STATUSES == ("new", "changed", "unchanged", "gone")


def test_changed_fields_name_added_removed_and_nested_fields():
    before = entity("a", name="A", sku="S", offers={"price": "1.00", "priceCurrency": "EUR"})
    after = entity(
        "a", name="A", gtin13="4006381333931", offers={"price": "1.00", "priceCurrency": "USD"}
    )
    assert compare(after, before).fields == ("gtin13", "offers.priceCurrency", "sku")
    assert changed_fields({"a": "1"}, {"a": "2"}) == ["a"]


def test_type_change_is_a_change():
    before = fingerprint({"key": "a", "type": ["Product"], "properties": {"name": "A"}})
    after = fingerprint({"key": "a", "type": ["Product", "Vehicle"], "properties": {"name": "A"}})
    assert compare(after, before).fields == ("@type",)


def test_fields_ignored_since_the_previous_run_are_no_change():
    before = entity("a", name="A", dateModified="2026-01-01")
    after = fingerprint(
        {"key": "a", "type": ["Product"], "properties": {"name": "A"}}, ignore=["dateModified"]
    )
    assert compare(after, before, ignore=["dateModified"]).status == "unchanged"
    assert compare(after, before).status == "changed"


def test_change_as_item_field():
    change = compare(entity("a", name="B"), entity("a", "t0", name="A")).to_dict()
    assert change == {
        "status": "changed",
        "fields": ["name"],
        "previous_seen": "t0",
        "fingerprint": entity("a", name="B").digest,
    }


def test_diff_runs():
    previous = [entity("a", name="A"), entity("b", name="B"), entity("c", name="C")]
    current = [entity("a", name="A"), entity("b", name="B2"), entity("d", name="D")]
    statuses = {k: c.status for k, c in diff_runs(current, previous).items()}
    assert statuses == {"a": "unchanged", "b": "changed", "d": "new", "c": "gone"}
    assert {k: c.status for k, c in diff_runs([], previous).items()} == dict.fromkeys("abc", "gone")
