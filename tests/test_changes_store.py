"""The SQLite change store: survives between runs; a run counts only once committed."""

from __future__ import annotations

import sqlite3

import pytest

from structcrawl.changes import ChangeStore, SqliteChangeStore, fingerprint, open_change_store
from structcrawl.changes import store as store_module


def fp(key, value=1):
    return fingerprint({"key": key, "properties": {"v": value}})


def run(path, fingerprints, *, drop_unseen=True, scope="site:a"):
    store = SqliteChangeStore(path, scope)
    store.begin()
    store.save(fingerprints)
    unseen = [f.key for f in store.unseen()]
    store.commit(drop_unseen=drop_unseen)
    store.close()
    return unseen


def test_fingerprints_survive_between_runs(tmp_path):
    path = tmp_path / "state" / "changes.sqlite"
    assert run(path, [fp("a"), fp("b")]) == []
    store = SqliteChangeStore(path, "site:a")
    assert isinstance(store, ChangeStore)  # the protocol other backends follow
    assert len(store) == 2
    assert store.load(["a", "b", "x"]) == {"a": fp("a"), "b": fp("b")}
    store.close()


def test_staged_fingerprints_count_only_after_commit(tmp_path):
    path = tmp_path / "changes.sqlite"
    run(path, [fp("a", 1)])
    store = SqliteChangeStore(path, "site:a")
    store.begin()
    store.save([fp("a", 2), fp("b", 2)])
    assert store.load(["a", "b"]) == {"a": fp("a", 1)}  # still the previous run
    store.close()  # the run never commits (it failed)
    store = SqliteChangeStore(path, "site:a")
    store.begin()  # another run: what the failed run staged is not its business
    assert [f.key for f in store.unseen()] == ["a"]
    store.save([fp("a", 3)])
    store.commit(drop_unseen=True)
    assert store.load(["a", "b"]) == {"a": fp("a", 3)}
    store.close()


def test_unseen_and_drop(tmp_path):
    path = tmp_path / "changes.sqlite"
    run(path, [fp("a"), fp("b"), fp("c")])
    assert run(path, [fp("a")], drop_unseen=False) == ["b", "c"]  # kept: nothing reported gone
    assert run(path, [fp("a"), fp("b")], drop_unseen=True) == ["c"]  # c reported gone: dropped
    assert run(path, [fp("a"), fp("b")]) == []
    assert run(path, [], drop_unseen=True) == ["a", "b"]
    assert len(SqliteChangeStore(path, "site:a")) == 0


def test_scopes_are_separate(tmp_path):
    path = tmp_path / "changes.sqlite"
    run(path, [fp("a")], scope="site:a")
    run(path, [fp("z")], scope="site:z")
    assert run(path, [fp("a")], scope="site:a") == []  # z belongs to another scope
    assert SqliteChangeStore(path, "site:z").load(["z", "a"]) == {"z": fp("z")}


def test_malformed_rows_are_skipped(tmp_path):
    path = tmp_path / "changes.sqlite"
    run(path, [fp("a")])
    db = sqlite3.connect(path)
    db.execute("INSERT INTO fingerprints VALUES ('site:a', 'bad', 'not json')")
    db.execute("INSERT INTO fingerprints VALUES ('site:a', 'worse', '{\"key\": 1}')")
    db.commit()
    db.close()
    store = SqliteChangeStore(path, "site:a")
    store.begin()
    assert store.load(["a", "bad", "worse"]) == {"a": fp("a")}
    assert [f.key for f in store.unseen()] == ["a"]
    store.close()


def test_large_runs_load_in_chunks(tmp_path):
    path = tmp_path / "changes.sqlite"
    many = [fp(f"k{i}", i) for i in range(1200)]
    run(path, many)
    store = SqliteChangeStore(path, "site:a")
    assert len(store.load(f.key for f in many)) == 1200
    store.close()


def test_overlapping_runs_stage_apart_and_abandoned_staging_is_cleared(tmp_path, monkeypatch):
    path = tmp_path / "changes.sqlite"
    run(path, [fp("a"), fp("b")])
    slow = SqliteChangeStore(path, "site:a", run="slow")
    slow.begin()
    slow.save([fp("a", 2), fp("b", 2)])
    assert run(path, [fp("a", 3)]) == ["b"]  # a quick run starts and commits meanwhile
    assert [f.key for f in slow.unseen()] == []  # the slow run's staging is intact
    slow.commit(drop_unseen=True)
    assert slow.load(["a", "b"]) == {"a": fp("a", 2), "b": fp("b", 2)}  # the last commit wins
    abandoned = SqliteChangeStore(path, "site:a", run="abandoned")
    abandoned.begin()
    abandoned.save([fp("x")])
    abandoned.close()
    count = "SELECT COUNT(*) FROM staged WHERE run = 'abandoned'"
    monkeypatch.setattr(store_module, "STALE_AFTER", 3600.0)
    run(path, [fp("a")])
    assert slow.db.execute(count).fetchone()[0] == 1  # young: kept
    monkeypatch.setattr(store_module, "STALE_AFTER", -1.0)
    run(path, [fp("a")])
    assert slow.db.execute(count).fetchone()[0] == 0  # old: cleared
    slow.close()


def test_store_locations(tmp_path):
    store = open_change_store(f"file://{tmp_path}/a%20b/changes.sqlite", "s")
    assert isinstance(store, SqliteChangeStore) and (tmp_path / "a b" / "changes.sqlite").exists()
    store.close()
    open_change_store(str(tmp_path / "plain.sqlite"), "s").close()
    with pytest.raises(ValueError, match="ftp://"):
        open_change_store("ftp://127.0.0.1/changes", "s")
    # redis:// is the distributed store (tests/test_distributed_store.py)
