"""A run's change detection over the store: gone only when safe, deferral on failed pages."""

from __future__ import annotations

from structcrawl.changes import ChangeTracker, SqliteChangeStore, page_failed
from structcrawl.changes import tracker as tracker_module


def entity(key, value=1, page="https://shop.example/p/" + "x", seen="2026-01-01T00:00:00Z"):
    return {
        "key": key,
        "type": ["Product"],
        "properties": {"v": value},
        "sources": [{"url": page}],
        "first_seen": seen,
        "last_seen": seen,
    }


def finished_run(path, entities, *, failed=(), report=True):
    tracker = ChangeTracker(SqliteChangeStore(path, "s"))
    tracker.page_failed(failed)
    changes = {e["key"]: c.status for e, c in zip(entities, tracker.observe(entities), strict=True)}
    changes.update({fp.key: c.status for fp, c in tracker.gone(report=report)})
    tracker.commit()
    tracker.close()
    return changes, tracker.counts


def test_a_run_of_runs(tmp_path):
    path = tmp_path / "c.sqlite"
    a, b = entity("a", page="https://s/a"), entity("b", page="https://s/b")
    assert finished_run(path, [a, b])[0] == {"a": "new", "b": "new"}
    assert finished_run(path, [a, b])[0] == {"a": "unchanged", "b": "unchanged"}
    assert finished_run(path, [entity("a", 2, page="https://s/a")])[0] == {
        "a": "changed",
        "b": "gone",
    }
    assert finished_run(path, [entity("a", 2, page="https://s/a")])[0] == {"a": "unchanged"}
    assert finished_run(path, [a, b])[0] == {"a": "changed", "b": "new"}  # back again: new


def test_entities_of_failed_pages_are_deferred_not_gone(tmp_path):
    path = tmp_path / "c.sqlite"
    a, b = entity("a", page="https://s/a"), entity("b", page="https://s/b")
    finished_run(path, [a, b])
    changes, counts = finished_run(path, [a], failed=["https://s/b"])
    assert changes == {"a": "unchanged"} and counts["deferred"] == 1
    # its fingerprint was carried over: once the page answers again, it is judged normally
    changes, counts = finished_run(path, [a])
    assert changes == {"a": "unchanged", "b": "gone"} and counts["deferred"] == 0


def test_gone_is_withheld_when_the_run_is_not_known_to_be_complete(tmp_path):
    path = tmp_path / "c.sqlite"
    finished_run(path, [entity("a"), entity("b")])
    changes, counts = finished_run(path, [entity("a")], report=False)
    assert changes == {"a": "unchanged"} and counts["withheld"] == 1
    assert finished_run(path, [entity("a")])[0] == {"a": "unchanged", "b": "gone"}


def test_too_many_failed_pages_withhold_every_gone(tmp_path, monkeypatch):
    monkeypatch.setattr(tracker_module, "MAX_FAILED_PAGES", 2)
    path = tmp_path / "c.sqlite"
    finished_run(path, [entity("a"), entity("b")])
    changes, counts = finished_run(path, [entity("a")], failed=["u1", "u2", "u3"])
    assert changes == {"a": "unchanged"} and counts["withheld"] == 1


def test_an_uncommitted_run_leaves_the_previous_one_as_reference(tmp_path):
    path = tmp_path / "c.sqlite"
    finished_run(path, [entity("a", 1)])
    tracker = ChangeTracker(SqliteChangeStore(path, "s"))
    assert [c.status for c in tracker.observe([entity("a", 2)])] == ["changed"]
    tracker.close()  # interrupted: never committed
    assert finished_run(path, [entity("a", 2)])[0] == {"a": "changed"}  # reported again


def test_first_seen_is_kept_across_runs(tmp_path):
    path = tmp_path / "c.sqlite"
    finished_run(path, [entity("a", seen="2026-01-01T00:00:00Z")])
    finished_run(path, [entity("a", 2, seen="2026-02-01T00:00:00Z")])
    store = SqliteChangeStore(path, "s")
    stored = store.load(["a"])["a"]
    assert (stored.first_seen, stored.seen) == ("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")


def test_page_failed():
    assert page_failed({"status": 500}) and page_failed({"status": 429})
    assert page_failed({"status": 403}) and page_failed(
        {"fetch_error": {"code": "fetch-DNSLookupError"}}
    )
    assert not page_failed({"status": 404}) and not page_failed({"status": 410})
    assert not page_failed({"status": 200, "records": [{"error": {"code": "json-ld-invalid"}}]})
    assert not page_failed({"status": None, "records": ["not a record"]})
