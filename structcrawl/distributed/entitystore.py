"""The entity merge state of a distributed crawl, in Redis (the :class:`EntityStore` protocol
plus an atomic :meth:`RedisEntityStore.update`).

Keys (see :class:`~structcrawl.distributed.config.CrawlKeys`): one string per entity
(``...:entity:<key>``, the merge state as JSON), one list per entity of its sightings
(``...:sources:<key>``) and a sorted set of the entity keys by first merge (``...:entities``).
Every key written gets the crawl's expiry again, so the state of a crawl that nobody finishes
goes away by itself.

Several workers merge sightings of the same entity at the same time. :meth:`update` is an
optimistic transaction: ``WATCH`` the page's entity keys, read them, merge in Python, write
in ``MULTI``/``EXEC``; when another worker changed one of them in between, ``EXEC`` fails and
the merge is run again on what that worker wrote. No sighting is lost or counted twice.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import redis

from structcrawl.distributed.config import CrawlKeys
from structcrawl.entities.store import SourceRow

__all__ = ["MergeConflict", "RedisEntityStore"]

T = TypeVar("T")
_BATCH = 500


class MergeConflict(RuntimeError):
    """Concurrent writers kept changing the same entities: the merge was not written."""


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class RedisEntityStore:
    """Entity merge states of one crawl (``keys``) in Redis; ``conflicts`` counts the merges
    that were run again because another worker wrote the same entity first."""

    def __init__(
        self,
        client: redis.Redis,
        keys: CrawlKeys,
        *,
        expire: int = 7 * 86400,
        max_attempts: int = 1000,
    ):
        self.client = client
        self.keys = keys
        self.expire_ms = int(expire * 1000)
        self.max_attempts = max_attempts
        self.conflicts = 0

    # -- the EntityStore protocol --------------------------------------------------------------

    def load(self, keys: Iterable[str]) -> dict[str, dict[str, Any]]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, dict[str, Any]] = {}
        for i in range(0, len(wanted), _BATCH):
            chunk = wanted[i : i + _BATCH]
            raw = self.client.mget([self.keys.entity(k) for k in chunk])
            found.update((k, json.loads(v)) for k, v in zip(chunk, raw, strict=True) if v)
        return found

    def save(self, states: dict[str, dict[str, Any]], sources: list[SourceRow]) -> None:
        """Write states as they are (last writer wins; merges go through :meth:`update`)."""
        with self.client.pipeline(transaction=True) as pipe:
            self._write(pipe, states, set(states), sources)
            pipe.execute()

    def update(
        self,
        keys: Iterable[str],
        merge: Callable[[dict[str, dict[str, Any]]], T],
        sources: list[SourceRow],
    ) -> T:
        """Load the states of ``keys`` (absent ones are missing from the dict), let ``merge``
        change and add to them, write them and append ``sources``, all or nothing. ``merge``
        may run more than once (on fresh states each time); its last result is returned."""
        wanted = list(dict.fromkeys(keys))
        names = [self.keys.entity(k) for k in wanted]
        for _ in range(self.max_attempts):
            with self.client.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(*names)
                    raw = pipe.mget(names)
                    states = {k: json.loads(v) for k, v in zip(wanted, raw, strict=True) if v}
                    existing = set(states)
                    result = merge(states)
                    pipe.multi()
                    self._write(pipe, states, set(states) - existing, sources)
                    pipe.execute()
                    return result
                except redis.WatchError:
                    self.conflicts += 1
        raise MergeConflict(f"{len(wanted)} entities changed {self.max_attempts} times in a row")

    def _write(
        self,
        pipe: Any,
        states: dict[str, dict[str, Any]],
        new: set[str],
        sources: list[SourceRow],
    ) -> None:
        px = self.expire_ms
        for key, state in states.items():
            pipe.set(self.keys.entity(key), _dumps(state), px=px)
        if new:
            now = time.time()
            pipe.zadd(self.keys.entity_index, {k: now for k in new}, nx=True)
        pipe.pexpire(self.keys.entity_index, px)
        touched: set[str] = set()
        for key, url, fmt, element, when in sources:
            pipe.rpush(self.keys.sources(key), _dumps([url, fmt, element, when]))
            touched.add(key)
        for key in touched:
            pipe.pexpire(self.keys.sources(key), px)

    def states(self) -> Iterator[dict[str, Any]]:
        start = 0
        while True:
            chunk = self.client.zrange(self.keys.entity_index, start, start + _BATCH - 1)
            if not chunk:
                return
            keys = [k.decode("utf-8") if isinstance(k, bytes) else str(k) for k in chunk]
            for raw in self.client.mget([self.keys.entity(k) for k in keys]):
                if raw:
                    yield json.loads(raw)
            start += _BATCH

    def sources(self, key: str) -> list[dict[str, Any]]:
        rows = self.client.lrange(self.keys.sources(key), 0, -1)
        out = []
        for row in rows:
            url, fmt, element, when = json.loads(row)
            out.append({"url": url, "format": fmt, "source_element": element, "retrieved_at": when})
        return out

    def __len__(self) -> int:
        return int(self.client.zcard(self.keys.entity_index))

    def close(self) -> None:
        self.client.close()
