"""Where fingerprints live between runs: the :class:`ChangeStore` protocol and its embedded
SQLite implementation (the default; a Redis one for distributed crawls follows the same
protocol).

A store holds, per *scope* (a site or a job: runs of one scope are compared with each other),
the fingerprints of the last committed run, and stages the current run's beside them::

    store.begin()                      # start this run
    previous = store.load(keys)        # the last committed run's fingerprints of these keys
    store.save(fingerprints)           # stage this run's
    for fp in store.unseen(): ...      # committed entries whose keys this run did not stage
    store.commit(drop_unseen=True)     # this run becomes "the previous run"

Nothing a run stages counts until :meth:`ChangeStore.commit`: a crawl that fails or stops
half-way leaves the previous run as the reference. ``commit(drop_unseen=True)`` deletes the
committed entries this run did not stage (they were reported ``gone``);
``drop_unseen=False`` keeps them for the next run to judge. Each run stages apart: runs of a
scope that overlap do not disturb each other's staging (the last to commit wins).

A Redis implementation maps naturally: one hash per scope for committed fingerprints and one
per run for staged ones, with an expiry (``HMGET`` for :meth:`~ChangeStore.load`, ``HSET`` for
:meth:`~ChangeStore.save`, ``HSCAN`` + ``HEXISTS`` for :meth:`~ChangeStore.unseen`, a
``MULTI`` block or a script for :meth:`~ChangeStore.commit`), values being
:meth:`EntityFingerprint.to_dict` as JSON.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable
from urllib.parse import unquote, urlsplit

from structcrawl.changes.fingerprint import EntityFingerprint
from structcrawl.core import jsontext

__all__ = [
    "STALE_AFTER",
    "ChangeStore",
    "SqliteChangeStore",
    "open_change_store",
    "read_fingerprint",
    "register_change_store",
]

#: Seconds after which what an uncommitted run staged is removed (a week).
STALE_AFTER = 7 * 86400


@runtime_checkable
class ChangeStore(Protocol):
    """Fingerprints of the previous run, and this run's, for one scope."""

    scope: str

    def begin(self) -> None:
        """Start a run (and clear away what long-abandoned runs staged)."""
        ...

    def load(self, keys: Iterable[str]) -> dict[str, EntityFingerprint]:
        """The committed (previous run's) fingerprints of those keys that have one."""
        ...

    def save(self, fingerprints: Iterable[EntityFingerprint]) -> None:
        """Stage this run's fingerprints (a key saved twice keeps the last)."""
        ...

    def unseen(self) -> Iterator[EntityFingerprint]:
        """Committed fingerprints whose keys this run has not staged."""
        ...

    def commit(self, *, drop_unseen: bool) -> None:
        """Make the staged fingerprints the committed ones, in one transaction."""
        ...

    def __len__(self) -> int:
        """How many fingerprints are committed in this scope."""
        ...

    def close(self) -> None: ...


class SqliteChangeStore:
    """One SQLite file that outlives runs: ``fingerprints(scope, key, data)`` (committed),
    ``staged(scope, run, key, data)`` and ``runs(scope, run, started)``, ``data`` being
    :meth:`EntityFingerprint.to_dict` as JSON.

    Each store object is one run (``run``, a random id by default) and stages under its own
    id, so two runs of a scope that overlap (a nightly crawl outlasting the night) do not
    erase each other's staging; the last to commit wins. What a run that never committed left
    behind is removed by a later run's :meth:`begin` after :data:`STALE_AFTER` seconds.

    Staging is written with ``synchronous=NORMAL`` (what a run stages survives the process
    dying, and only counts once committed anyway); the commit that makes a run the previous
    one is synced to disk (``synchronous=FULL``). A commit per page with ``FULL`` waited for
    an fsync each time (0.8-2.4 ms a page of a crawl, issue 24).
    """

    def __init__(self, path: str | Path, scope: str = "default", run: str | None = None):
        self.path = Path(path)
        self.scope = scope
        self.run = run or uuid.uuid4().hex
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS fingerprints (scope TEXT NOT NULL, key TEXT NOT NULL,"
            " data TEXT NOT NULL, PRIMARY KEY (scope, key))"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS staged (scope TEXT NOT NULL, run TEXT NOT NULL,"
            " key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (scope, run, key))"
        )
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS runs (scope TEXT NOT NULL, run TEXT NOT NULL,"
            " started REAL NOT NULL, PRIMARY KEY (scope, run))"
        )

    def begin(self) -> None:
        now = time.time()
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            stale = (self.scope, now - STALE_AFTER)
            self.db.execute(
                "DELETE FROM staged WHERE scope = ? AND run IN"
                " (SELECT run FROM runs WHERE scope = ? AND started < ?)",
                (self.scope, *stale),
            )
            self.db.execute("DELETE FROM runs WHERE scope = ? AND started < ?", stale)
            self.db.execute("DELETE FROM staged WHERE scope = ? AND run = ?", self._run)
            self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?)", (*self._run, now))

    @property
    def _run(self) -> tuple[str, str]:
        return (self.scope, self.run)

    def load(self, keys: Iterable[str]) -> dict[str, EntityFingerprint]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, EntityFingerprint] = {}
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT data FROM fingerprints WHERE scope = ? AND key IN ({marks})",
                [self.scope, *chunk],
            )
            for (data,) in rows:
                fp = read_fingerprint(data)
                if fp is not None:
                    found[fp.key] = fp
        return found

    def save(self, fingerprints: Iterable[EntityFingerprint]) -> None:
        rows = [(*self._run, fp.key, jsontext.dumps(fp.to_dict())) for fp in fingerprints]
        if not rows:
            return
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO staged VALUES (?, ?, ?, ?)", rows)

    def unseen(self) -> Iterator[EntityFingerprint]:
        cursor = self.db.cursor()
        cursor.execute(
            "SELECT data FROM fingerprints f WHERE f.scope = ? AND NOT EXISTS"
            " (SELECT 1 FROM staged s WHERE s.scope = f.scope AND s.run = ? AND s.key = f.key)"
            " ORDER BY f.rowid",
            self._run,
        )
        while batch := cursor.fetchmany(500):
            for (data,) in batch:
                fp = read_fingerprint(data)
                if fp is not None:
                    yield fp

    def commit(self, *, drop_unseen: bool) -> None:
        self.db.execute("PRAGMA synchronous=FULL")  # the run that becomes the reference
        try:
            self._commit(drop_unseen)
        finally:
            self.db.execute("PRAGMA synchronous=NORMAL")

    def _commit(self, drop_unseen: bool) -> None:
        with self.db:
            self.db.execute("BEGIN IMMEDIATE")
            if drop_unseen:
                self.db.execute(
                    "DELETE FROM fingerprints WHERE scope = ? AND key NOT IN"
                    " (SELECT key FROM staged WHERE scope = ? AND run = ?)",
                    (self.scope, *self._run),
                )
            self.db.execute(
                "INSERT OR REPLACE INTO fingerprints SELECT scope, key, data FROM staged"
                " WHERE scope = ? AND run = ?",
                self._run,
            )
            self.db.execute("DELETE FROM staged WHERE scope = ? AND run = ?", self._run)
            self.db.execute("DELETE FROM runs WHERE scope = ? AND run = ?", self._run)

    def __len__(self) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM fingerprints WHERE scope = ?", (self.scope,))
        return int(row.fetchone()[0])

    def close(self) -> None:
        self.db.close()


#: URI scheme -> opener ``(location, scope) -> ChangeStore``, for stores that live in packages
#: above this one (:mod:`structcrawl.distributed` registers ``redis``, ``rediss`` and ``unix``).
_OPENERS: dict[str, Callable[[str, str], ChangeStore]] = {}


def register_change_store(
    schemes: Iterable[str], opener: Callable[[str, str], ChangeStore]
) -> None:
    """Let :func:`open_change_store` open ``<scheme>://`` locations with ``opener``."""
    for scheme in schemes:
        _OPENERS[scheme.lower()] = opener


def open_change_store(location: str, scope: str) -> ChangeStore:
    """The store a ``STRUCTCRAWL_CHANGE_STORE`` value names: a file path or ``file://`` URI
    (SQLite), or a URI of a registered scheme (:func:`register_change_store`: ``redis://``,
    ``rediss://`` and ``unix://`` for distributed crawls, registered by
    :mod:`structcrawl.distributed`, which every crawl loads as an add-on). Another scheme is a
    configuration mistake (``ValueError``).

    >>> open_change_store("ftp://host/x", "s")
    Traceback (most recent call last):
    ...
    ValueError: STRUCTCRAWL_CHANGE_STORE: no change store for 'ftp://' URIs
    """
    scheme, sep, rest = str(location).partition("://")
    if not sep:
        return SqliteChangeStore(location, scope)
    if scheme.lower() == "file":
        return SqliteChangeStore(unquote(urlsplit(location).path), scope)
    opener = _OPENERS.get(scheme.lower())
    if opener is not None:
        return opener(str(location), scope)
    raise ValueError(f"STRUCTCRAWL_CHANGE_STORE: no change store for {scheme + '://'!r} URIs")


def read_fingerprint(data: str | bytes) -> EntityFingerprint | None:
    """A stored fingerprint (JSON of :meth:`EntityFingerprint.to_dict`, as every store writes
    it); anything malformed gives ``None``.

    >>> read_fingerprint('{"key": "k", "digest": "d"}').key, read_fingerprint(b"[") is None
    ('k', True)
    """
    try:
        return EntityFingerprint.from_dict(jsontext.loads(data))
    except (ValueError, TypeError):
        return None
