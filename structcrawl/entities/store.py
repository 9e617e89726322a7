"""Where merge states live during a crawl: an embedded on-disk store (SQLite) by default.

Memory stays flat however large the crawl: a page's entities are loaded, merged and written
back in one transaction; the sources of every sighting go to an append-only table. Other
backends (Redis, for distributed crawls) implement the same :class:`EntityStore` protocol.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

__all__ = ["EntityStore", "SqliteEntityStore", "SourceRow"]

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

    def load(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict[str, Any]] = {}
        for i in range(0, len(wanted), 500):
            chunk = wanted[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(f"SELECT key, state FROM entities WHERE key IN ({marks})", chunk)
            found.update((key, json.loads(state)) for key, state in rows)
        return found

    def save(
        self,
        states: dict[str, dict[str, Any]],
        sources: list[SourceRow],
        pages: Iterable[str] = (),
    ) -> None:
        """Write merged states and their sightings, and mark ``pages`` as merged, in one
        transaction."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO entities (key, state) VALUES (?, ?)",
                [(k, json.dumps(v, ensure_ascii=False)) for k, v in states.items()],
            )
            self.db.executemany("INSERT INTO sources VALUES (?, ?, ?, ?, ?)", sources)
            self.db.executemany("INSERT OR IGNORE INTO pages VALUES (?)", [(p,) for p in pages])

    def has_page(self, url: str) -> bool:
        """Whether a :meth:`save` marked this page as merged."""
        row = self.db.execute("SELECT 1 FROM pages WHERE url = ?", (url,)).fetchone()
        return row is not None

    def states(self) -> Iterator[dict[str, Any]]:
        cursor = self.db.cursor()
        cursor.execute("SELECT state FROM entities ORDER BY rowid")
        while batch := cursor.fetchmany(500):
            for (state,) in batch:
                yield json.loads(state)

    def sources(self, key: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT url, format, element, retrieved_at FROM sources WHERE key = ? ORDER BY rowid",
            (key,),
        )
        return [
            {"url": u, "format": f, "source_element": e, "retrieved_at": r} for u, f, e, r in rows
        ]

    def __len__(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM entities").fetchone()[0])

    def close(self) -> None:
        self.db.close()
