"""Item-level change tracking across runs: which fields of a page's typed items changed, and
the price and availability history of each item over scheduled crawls.

Items (:mod:`structcrawl.typed`) are compared like entities, through the same fingerprints,
comparison and change store (:mod:`.fingerprint`, :mod:`.compare`, :mod:`.store`) under their
own scope (``items:<scope>``), keyed by :func:`item_key`. Every observation of a price or an
availability is appended to an ``item_history`` table in the same SQLite file, so a product's
price over a month of nightly crawls is one query (:meth:`ItemTracker.history`).

>>> item = {"kind": "item", "type": "Product", "sku": "A-1", "price": "9.99",
...         "availability": "InStock", "provenance": {}, "conflicts": {}}
>>> item_key(item, "https://shop.example/p/a")
'Product|sku:shop.example:a-1'
>>> sorted(item_entity(item, "2026-01-01T00:00:00Z")["properties"])
['availability', 'price', 'sku']
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from structcrawl.changes.store import SqliteChangeStore
from structcrawl.changes.tracker import ChangeTracker

__all__ = ["HISTORY_FIELDS", "ItemTracker", "item_entity", "item_key", "page_item_key"]

#: Fields of an item that describe where it came from, not the thing: never compared.
_META = frozenset(
    {
        "kind", "type", "role", "provenance", "conflicts", "sources", "schemaTypes", "page_url",
        "change", "history", "validation", "entityKey", "flags",
    }
)  # fmt: skip
#: The fields whose every observation is kept in the history.
HISTORY_FIELDS = ("price", "currency", "availability")
#: How many observations of one item the history keeps (the oldest are dropped at commit).
HISTORY_KEEP = 100


def _site(url: str) -> str:
    host = (urlsplit(url).hostname or "").lower()
    return host.removeprefix("www.")


def item_key(item: Mapping[str, Any], page_url: str = "") -> str:
    """A stable key for an item: its type with its SKU (within the site), else its first GTIN,
    else its own URL, else the page it is on (with its name)."""
    kind = str(item.get("type") or "Thing")
    page = str(item.get("page_url") or page_url or "")
    sku = item.get("sku")
    if isinstance(sku, str) and sku.strip():
        return f"{kind}|sku:{_site(page)}:{sku.strip().casefold()}"
    gtins = item.get("gtin") or []
    if gtins and isinstance(gtins[0], Mapping) and gtins[0].get("value"):
        return f"{kind}|gtin:{str(gtins[0]['value']).zfill(14)}"
    url = item.get("url") or item.get("canonicalUrl")
    if isinstance(url, str) and url:
        return f"{kind}|url:{url}"
    return f"{kind}|page:{page}#{item.get('name') or item.get('headline') or ''}"


def page_item_key(item: Mapping[str, Any], page_url: str = "") -> str:
    """The key of an item of one page's items: its entity (``entityKey``, the key of its line
    in the entities feed; :func:`item_key` for an item without one) on the page it was seen
    on (``<key> @<page>``), so one thing shown on two pages (one GTIN, two URLs, two prices)
    is two series instead of one that flips between them with the page order.

    >>> page_item_key({"type": "Product", "entityKey": "id:https://shop.example/p/a#p"},
    ...               "https://shop.example/p/a")
    'id:https://shop.example/p/a#p @https://shop.example/p/a'
    >>> page_item_key({"type": "Product", "sku": "A-1"}, "https://shop.example/p/a")
    'Product|sku:shop.example:a-1 @https://shop.example/p/a'
    """
    page = str(item.get("page_url") or page_url or "")
    entity = item.get("entityKey")
    return f"{entity if isinstance(entity, str) and entity else item_key(item, page)} @{page}"


def item_entity(
    item: Mapping[str, Any], seen: str | None, page_url: str = "", *, per_page: bool = False
) -> dict[str, Any]:
    """The item in the shape the change fingerprints read (``key``, ``type``, ``properties``,
    ``last_seen``, ``sources``); keyed by :func:`page_item_key` when ``per_page``."""
    page = str(item.get("page_url") or page_url or "")
    return {
        "key": page_item_key(item, page) if per_page else item_key(item, page),
        "type": [str(item.get("type") or "Thing")],
        "properties": {k: v for k, v in item.items() if k not in _META and v is not None},
        "conflicts": [],
        "last_seen": seen,
        "sources": [{"url": page}] if page else [],
    }


class ItemTracker:
    """One run's item change tracking over a SQLite file that outlives runs.

    :meth:`observe` each page's items (returns each item's ``change``: ``status`` new, changed
    or unchanged and the changed ``fields``), :meth:`finish` at the end of a finished run
    (returns the previous run's items not seen, as ``gone``, and makes this run the previous
    one). The run's price and availability observations are written with the commit (a run
    that never finishes leaves no history), the latest ``keep`` per item kept."""

    def __init__(
        self,
        path: str | Path,
        scope: str = "default",
        keep: int = HISTORY_KEEP,
        *,
        per_page: bool = False,
    ):
        self.path = str(path)
        self.per_page = per_page
        self.scope = scope
        self.keep = max(1, int(keep))
        self.pending: list[tuple[Any, ...]] = []
        #: this run's observations by item key (:meth:`history` reads them without a scan of
        #: every pending row: that made a crawl's items quadratic in its pages)
        self._pending_by_key: dict[str, list[tuple[Any, ...]]] = {}
        self.tracker = ChangeTracker(SqliteChangeStore(self.path, scope=f"items:{scope}"))
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.execute(
            "CREATE TABLE IF NOT EXISTS item_history (scope TEXT NOT NULL, key TEXT NOT NULL,"
            " seen TEXT, page TEXT, price TEXT, currency TEXT, availability TEXT)"
        )
        self.db.execute(
            "CREATE INDEX IF NOT EXISTS item_history_key ON item_history (scope, key, seen)"
        )

    def observe(
        self, items: Sequence[Mapping[str, Any]], *, seen: str | None, page_url: str = ""
    ) -> list[dict[str, Any]]:
        entities = [item_entity(i, seen, page_url, per_page=self.per_page) for i in items]
        changes = self.tracker.observe(entities)
        rows = [
            (self.scope, e["key"], seen, page_url or str(i.get("page_url") or ""),
             *(_text(i.get(f)) for f in HISTORY_FIELDS))
            for i, e in zip(items, entities, strict=True)
            if any(i.get(f) is not None for f in HISTORY_FIELDS)
        ]  # fmt: skip
        self.pending.extend(rows)
        for row in rows:
            self._pending_by_key.setdefault(row[1], []).append(row)
        return [{"key": e["key"], **c.to_dict()} for e, c in zip(entities, changes, strict=True)]

    def finish(self) -> list[dict[str, Any]]:
        """The items of the previous run not seen in this one (``gone``); commits the run."""
        gone = [
            {"key": fp.key, **change.to_dict()} for fp, change in self.tracker.gone(report=True)
        ]
        self.tracker.commit()
        keys = sorted({row[1] for row in self.pending})
        with self.db:
            self.db.executemany(
                "INSERT INTO item_history VALUES (?, ?, ?, ?, ?, ?, ?)", self.pending
            )
            self.db.executemany(
                "DELETE FROM item_history WHERE scope = ? AND key = ? AND rowid NOT IN"
                " (SELECT rowid FROM item_history WHERE scope = ? AND key = ?"
                " ORDER BY seen DESC, rowid DESC LIMIT ?)",
                [(self.scope, k, self.scope, k, self.keep) for k in keys],
            )
        self.pending = []
        self._pending_by_key = {}
        return gone

    def history(self, key: str, limit: int | None = None) -> list[dict[str, Any]]:
        """The observations of an item's price, currency and availability, oldest first:
        the committed ones, then this run's (not yet committed); the last ``limit`` only."""
        rows = list(
            self.db.execute(
                "SELECT seen, page, price, currency, availability FROM item_history"
                " WHERE scope = ? AND key = ? ORDER BY seen, rowid",
                (self.scope, key),
            )
        )
        rows += [row[2:] for row in self._pending_by_key.get(key, ())]
        if limit is not None:
            rows = rows[-limit:] if limit > 0 else []
        names = ("seen", "page", *HISTORY_FIELDS)
        return [dict(zip(names, row, strict=True)) for row in rows]

    def close(self) -> None:
        self.tracker.close()
        self.db.close()


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
