"""Where merge states live during a crawl: an embedded on-disk store (SQLite) by default.

Memory stays flat however large the crawl or its entities: the states of the entities being
merged are kept in memory as their JSON text (one block each, not a tree of small objects
that would pin the memory freed around it) and written back in batches (one transaction per
batch); the cache holds at most :data:`CACHE_STATES` states and :data:`CACHE_BYTES` bytes of
JSON (a page of 20,000 property names makes states of megabytes: the count alone does not
bound it), and forgets what it holds beyond either; the sources of every sighting go to an
append-only table. A store kept across the runs of a job (``reset=False``, JOBDIR) writes each
page's merge in its own transaction instead, so a crash loses nothing it said was merged. States are
stored as JSON (orjson; the standard library's encoder for what orjson refuses). Other
backends (Redis, for distributed crawls) implement the same :class:`EntityStore` protocol.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from structcrawl.core import jsontext

__all__ = ["CACHE_BYTES", "CACHE_STATES", "EntityStore", "SqliteEntityStore", "SourceRow"]

#: States a write-behind store keeps in memory at most (flushed, then forgotten, beyond).
CACHE_STATES = 5000
#: Bytes of JSON a write-behind store keeps in memory at most (flushed, then forgotten, beyond).
CACHE_BYTES = 8 * 1024 * 1024
#: Changed states (or sightings) after which a write-behind store writes a batch.
_BATCH_STATES = 1000
_BATCH_SOURCES = 5000

#: (entity key, page url, format, source_element, retrieved_at)
SourceRow = tuple[str, str, str, str, str | None]


class EntityStore(Protocol):
    def load(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]: ...

    def save(self, states: dict[str, dict[str, Any]], sources: list[SourceRow]) -> None: ...

    def states(self) -> Iterator[dict[str, Any]]: ...

    def sources(self, key: str) -> list[dict[str, Any]]: ...

    def __len__(self) -> int: ...

    def close(self) -> None: ...


class SqliteEntityStore:
    """``entities(key, state)``, ``sources(key, url, format, element, retrieved_at)`` and
    ``pages(url)``: the pages whose sightings were merged, when :meth:`save` is told (a store
    kept across the runs of a job merges a page fetched again after a crash only once)."""

    def __init__(self, path: str | Path, *, reset: bool = True):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if reset and self.path.exists():
            self.path.unlink()
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS entities (key TEXT PRIMARY KEY, state TEXT)")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS sources (key TEXT, url TEXT, format TEXT,"
            " element TEXT, retrieved_at TEXT)"
        )
        self.db.execute("CREATE INDEX IF NOT EXISTS sources_key ON sources (key)")
        self.db.execute("CREATE TABLE IF NOT EXISTS pages (url TEXT PRIMARY KEY)")
        # write-behind (a store this crawl alone owns): states by key as JSON text, their
        # bytes in all, the changed ones in the order of their last change (the order rows are
        # written in, hence listed in), and the sightings not written yet
        self._write_behind = reset
        self._cache: dict[str, str] = {}
        self._cache_bytes = 0
        self._dirty: dict[str, None] = {}
        self._sources: list[SourceRow] = []
        # while the cache holds every state (a store that started empty and never forgot):
        # every key in the order of its last change, which is the order rows are listed in
        self._complete = reset
        self._order: dict[str, None] = {}

    def load(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The states of ``keys`` found (each a new object: the caller merges into them and
        passes them to :meth:`save`)."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict[str, Any]] = {}
        if self._write_behind:
            missing = []
            for key in wanted:
                text = self._cache.get(key)
                if text is None:
                    missing.append(key)
                else:
                    found[key] = jsontext.loads(text)
            # a cache that holds every state: what it lacks the table lacks too (no query)
            wanted = [] if self._complete else missing
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT key, state FROM entities WHERE key IN ({marks})", chunk)
            for key, text in rows:
                found[key] = jsontext.loads(text)
                if self._write_behind:
                    self._remember(key, text)
        return found

    def _remember(self, key: str, text: str) -> None:
        old = self._cache.get(key)
        self._cache_bytes += len(text) - (len(old) if old is not None else 0)
        self._cache[key] = text

    def save(
        self,
        states: dict[str, dict[str, Any]],
        sources: list[SourceRow],
        pages: Iterable[str] = (),
    ) -> None:
        """Write merged states and their sightings, and mark ``pages`` as merged, in one
        transaction (a write-behind store: in the next batch)."""
        pages = list(pages)
        if self._write_behind and not pages:
            for key, state in states.items():
                self._remember(key, jsontext.dumps(state))
                self._dirty.pop(key, None)
                self._dirty[key] = None
                if self._complete:
                    self._order.pop(key, None)
                    self._order[key] = None
            self._sources.extend(sources)
            if (
                len(self._dirty) >= _BATCH_STATES
                or len(self._sources) >= _BATCH_SOURCES
                or self._cache_bytes > CACHE_BYTES
            ):
                self.flush()
            return
        self.flush()
        if self._write_behind:  # written past the cache, which no longer holds every state
            self._forget()
        self._write(states.items(), sources, pages)

    def flush(self) -> None:
        """Write the batch kept in memory (and forget the states beyond :data:`CACHE_STATES` or
        :data:`CACHE_BYTES`)."""
        if self._dirty or self._sources:
            rows = [(key, self._cache[key]) for key in self._dirty]
            self._write_rows(rows, self._sources, [])
            self._dirty.clear()
            self._sources = []
        if len(self._cache) > CACHE_STATES or self._cache_bytes > CACHE_BYTES:
            self._forget()

    def _forget(self) -> None:
        """Empty the write-behind cache (its batch written): states are read from the table."""
        self._cache.clear()
        self._cache_bytes = 0
        self._complete = False
        self._order.clear()

    def cached(self) -> tuple[int, int]:
        """(states, bytes of JSON) the write-behind cache holds now."""
        return len(self._cache), self._cache_bytes

    def _write(
        self,
        states: Iterable[tuple[str, dict[str, Any]]],
        sources: list[SourceRow],
        pages: list[str],
    ) -> None:
        self._write_rows([(k, jsontext.dumps(v)) for k, v in states], sources, pages)

    def _write_rows(
        self, rows: list[tuple[str, str]], sources: list[SourceRow], pages: list[str]
    ) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany("INSERT OR REPLACE INTO entities (key, state) VALUES (?, ?)", rows)
            self.db.executemany("INSERT INTO sources VALUES (?, ?, ?, ?, ?)", sources)
            self.db.executemany("INSERT OR IGNORE INTO pages VALUES (?)", [(p,) for p in pages])

    def has_page(self, url: str) -> bool:
        """Whether a :meth:`save` marked this page as merged."""
        row = self.db.execute("SELECT 1 FROM pages WHERE url = ?", (url,)).fetchone()
        return row is not None

    def states(self) -> Iterator[dict[str, Any]]:
        """Every state, in the order of its last change (from the write-behind cache while it
        still holds them all)."""
        self.flush()
        if self._complete:
            texts = [self._cache[key] for key in self._order]  # whatever the caller does next
            yield from (jsontext.loads(text) for text in texts)
            return
        cursor = self.db.cursor()
        cursor.execute("SELECT state FROM entities ORDER BY rowid")
        while batch := cursor.fetchmany(500):
            for (state,) in batch:
                yield jsontext.loads(state)

    def sources(self, key: str) -> list[dict[str, Any]]:
        self.flush()
        rows = self.db.execute(
            "SELECT url, format, element, retrieved_at FROM sources WHERE key = ? ORDER BY rowid",
            (key,),
        )
        return [
            {"url": u, "format": f, "source_element": e, "retrieved_at": r} for u, f, e, r in rows
        ]

    def __len__(self) -> int:
        self.flush()
        return int(self.db.execute("SELECT COUNT(*) FROM entities").fetchone()[0])

    def close(self) -> None:
        self.flush()
        self.db.close()
