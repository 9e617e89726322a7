"""Rendered snapshots kept between crawls (pure: ``sqlite3`` and the standard library).

A page the browser rendered is kept as a :class:`Snapshot`: the rendered DOM (body, status,
headers, final URL), what the render captured beside it (JSON responses, app state, refused
requests), its rendering context, and the server's own HTML with its validators (``ETag``,
``Last-Modified``) and SHA-256. A recrawl asks the server about the page first (a conditional
request, or the plain download it makes anyway to judge the page); when the server's page is
the one the snapshot was rendered from (a 304, or the same SHA-256) and nothing else that
decides the render changed (:func:`fingerprint`: the render rule and wait plan, the browser
settings, the structcrawl version), the snapshot is reused instead of rendering the page
again (:func:`unchanged`).

The key is the server's HTML, not the scripts or APIs the page loads: a page whose HTML stays
the same while its data API changes keeps its snapshot until ``max_age`` seconds have passed
(``STRUCTCRAWL_RENDER_CACHE_MAX_AGE``).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "render-cache.sqlite")
>>> store = SnapshotStore(path, max_age=3600)
>>> snap = Snapshot("http://a.example/p/1", "fp", body_sha256(b"<html>"), '"v1"', None,
...     time.time(), 200, "http://a.example/p/1", [("Content-Type", "text/html")], "utf-8",
...     b"<html><body>rendered", b"<html>", "text/html", [{"url": None}], {"reason": "rule"})
>>> store.put(snap)
>>> again = store.get("http://a.example/p/1")
>>> again.body, again.network, again.context
(b'<html><body>rendered', [{'url': None}], {'reason': 'rule'})
>>> unchanged(again, "fp", status=304), unchanged(again, "fp", body=b"<html>")
('not-modified', 'same-body')
>>> unchanged(again, "fp", body=b"<html>changed"), unchanged(again, "other", status=304)
(None, None)
>>> store.close()
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Snapshot", "SnapshotStore", "body_sha256", "fingerprint", "unchanged"]

_SCHEMA = """CREATE TABLE IF NOT EXISTS snapshots (
    url TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, server_sha256 TEXT NOT NULL,
    etag TEXT, last_modified TEXT, rendered_at REAL NOT NULL, facts BLOB NOT NULL,
    body BLOB NOT NULL, server_body BLOB)"""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One rendered page, as kept (see the module)."""

    url: str  # the requested URL: the key
    fingerprint: str  # what else decides the render (:func:`fingerprint`)
    server_sha256: str  # of the server's HTML the page was rendered from
    etag: str | None
    last_modified: str | None
    rendered_at: float  # Unix time
    status: int
    final_url: str
    headers: list[tuple[str, str]]
    encoding: str | None  # of the rendered body
    body: bytes  # the rendered DOM
    server_body: bytes | None
    server_type: str | None
    network: list[dict[str, Any]]  # captured JSON responses, app state, refused requests
    context: dict[str, Any]  # the rendering context (``structcrawl_render``)

    @property
    def validators(self) -> dict[str, str]:
        """The conditional request headers that ask whether the server's page changed."""
        headers = {}
        if self.etag:
            headers["If-None-Match"] = self.etag
        if self.last_modified:
            headers["If-Modified-Since"] = self.last_modified
        return headers


def body_sha256(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def fingerprint(*parts: Any) -> str:
    """A short digest of what decides a render besides the server's HTML (reprs of frozen
    dataclasses, strings, numbers: stable across runs).

    >>> fingerprint("rule", (1280, 800)) == fingerprint("rule", (1280, 800)) != fingerprint("x")
    True
    """
    return hashlib.sha256(repr(parts).encode("utf-8", "replace")).hexdigest()[:32]


def unchanged(
    snapshot: Snapshot, expected: str, *, status: int | None = None, body: bytes | None = None
) -> str | None:
    """How the server said its page is the one ``snapshot`` was rendered from:
    ``not-modified`` (a 304 to the conditional request), ``same-body`` (the same SHA-256), or
    None (it changed, or ``expected``, the current :func:`fingerprint`, differs)."""
    if snapshot.fingerprint != expected:
        return None
    if status == 304 and snapshot.validators:
        return "not-modified"
    if body is not None and body_sha256(body) == snapshot.server_sha256:
        return "same-body"
    return None


class SnapshotStore:
    """The snapshots of earlier crawls, in one SQLite file (one row per URL, the latest
    render). Snapshots older than ``max_age`` seconds are not handed out (0: no limit)."""

    def __init__(self, path: str | Path, max_age: float = 0.0):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self.max_age = max_age
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    def get(self, url: str) -> Snapshot | None:
        row = self._db.execute(
            "SELECT url, fingerprint, server_sha256, etag, last_modified, rendered_at, facts, "
            "body, server_body FROM snapshots WHERE url = ?",
            (url,),
        ).fetchone()
        if row is None:
            return None
        if self.max_age > 0 and time.time() - row[5] > self.max_age:
            return None
        facts = json.loads(gzip.decompress(row[6]))
        return Snapshot(
            url=row[0],
            fingerprint=row[1],
            server_sha256=row[2],
            etag=row[3],
            last_modified=row[4],
            rendered_at=row[5],
            status=int(facts["status"]),
            final_url=str(facts["final_url"]),
            headers=[(str(k), str(v)) for k, v in facts["headers"]],
            encoding=facts.get("encoding"),
            body=gzip.decompress(row[7]),
            server_body=gzip.decompress(row[8]) if row[8] is not None else None,
            server_type=facts.get("server_type"),
            network=list(facts.get("network") or []),
            context=dict(facts.get("context") or {}),
        )

    def put(self, snapshot: Snapshot) -> None:
        facts = {
            "status": snapshot.status,
            "final_url": snapshot.final_url,
            "headers": snapshot.headers,
            "encoding": snapshot.encoding,
            "server_type": snapshot.server_type,
            "network": snapshot.network,
            "context": snapshot.context,
        }
        packed = gzip.compress(json.dumps(facts, default=str).encode(), compresslevel=5)
        server = snapshot.server_body
        self._db.execute(
            "INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                snapshot.url,
                snapshot.fingerprint,
                snapshot.server_sha256,
                snapshot.etag,
                snapshot.last_modified,
                snapshot.rendered_at,
                packed,
                gzip.compress(snapshot.body, compresslevel=5),
                gzip.compress(server, compresslevel=5) if server is not None else None,
            ),
        )

    def close(self) -> None:
        self._db.close()
