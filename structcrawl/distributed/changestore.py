"""Fingerprints between runs in Redis: the :class:`~structcrawl.changes.store.ChangeStore`
protocol for distributed crawls (``STRUCTCRAWL_CHANGE_STORE=redis://host:port/db``).

Per scope, one hash holds the last committed run's fingerprints
(``structcrawl:changes:<scope>``, never expiring) and one hash per run what that run staged
(``structcrawl:changes:<scope>:run:<run>``, expiring after
:data:`~structcrawl.changes.store.STALE_AFTER` seconds, so abandoned runs clean up after
themselves). Values are :meth:`EntityFingerprint.to_dict` as JSON, as in the SQLite store.
:meth:`RedisChangeStore.commit` is one Lua script, so a run becomes "the previous run" at once
or not at all; runs of a scope that overlap stage apart and the last to commit wins.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import redis

from structcrawl.changes.fingerprint import EntityFingerprint
from structcrawl.changes.store import STALE_AFTER, read_fingerprint
from structcrawl.distributed.config import PREFIX

__all__ = ["RedisChangeStore", "connect"]

_BATCH = 500

# KEYS[1] committed, KEYS[2] staged; ARGV[1] "1" = drop unseen
_COMMIT = """
if ARGV[1] == '1' then
  if redis.call('EXISTS', KEYS[2]) == 1 then
    redis.call('RENAME', KEYS[2], KEYS[1])
    redis.call('PERSIST', KEYS[1])
  else
    redis.call('DEL', KEYS[1])
  end
  return 1
end
local cursor = '0'
repeat
  local page = redis.call('HSCAN', KEYS[2], cursor, 'COUNT', 500)
  cursor = page[1]
  if #page[2] > 0 then redis.call('HSET', KEYS[1], unpack(page[2])) end
until cursor == '0'
redis.call('DEL', KEYS[2])
return 1
"""


def connect(url: str) -> redis.Redis:
    """A client for ``url`` with bounded timeouts: a lost server fails loudly, soon."""
    return redis.Redis.from_url(
        url, socket_timeout=15, socket_connect_timeout=10, health_check_interval=30
    )


class RedisChangeStore:
    """See the module documentation; ``run`` is a random id unless given."""

    def __init__(self, client: redis.Redis, scope: str = "default", run: str | None = None):
        self.client = client
        self.scope = scope
        self.run = run or uuid.uuid4().hex
        self.committed = f"{PREFIX}:changes:{scope}"
        self.staged = f"{self.committed}:run:{self.run}"
        self._commit = client.register_script(_COMMIT)

    @classmethod
    def from_url(cls, url: str, scope: str = "default") -> RedisChangeStore:
        return cls(connect(url), scope)

    def begin(self) -> None:
        self.client.delete(self.staged)

    def load(self, keys: Iterable[str]) -> dict[str, EntityFingerprint]:
        wanted = list(dict.fromkeys(keys))
        found: dict[str, EntityFingerprint] = {}
        for i in range(0, len(wanted), _BATCH):
            chunk = wanted[i : i + _BATCH]
            for data in self.client.hmget(self.committed, chunk):
                fp = read_fingerprint(data) if data else None
                if fp is not None:
                    found[fp.key] = fp
        return found

    def save(self, fingerprints: Iterable[EntityFingerprint]) -> None:
        mapping: dict[Any, Any] = {
            fp.key: json.dumps(fp.to_dict(), ensure_ascii=False) for fp in fingerprints
        }
        if not mapping:
            return
        with self.client.pipeline(transaction=True) as pipe:
            pipe.hset(self.staged, mapping=mapping)
            pipe.expire(self.staged, STALE_AFTER)
            pipe.execute()

    def unseen(self) -> Iterator[EntityFingerprint]:
        yielded: set[bytes] = set()  # HSCAN may return a field twice (while Redis rehashes)
        for batch in self._committed_batches():
            keys = [k for k in batch if k not in yielded]
            staged = self.client.hmget(self.staged, keys) if keys else []
            for key, here in zip(keys, staged, strict=True):
                if here is None:
                    yielded.add(key)
                    fp = read_fingerprint(batch[key])
                    if fp is not None:
                        yield fp

    def _committed_batches(self) -> Iterator[dict[bytes, bytes]]:
        cursor = 0
        while True:
            cursor, page = self.client.hscan(self.committed, cursor, count=_BATCH)
            if page:
                yield dict(page)  # type: ignore[arg-type]
            if not cursor:
                return

    def commit(self, *, drop_unseen: bool) -> None:
        self._commit(keys=[self.committed, self.staged], args=["1" if drop_unseen else "0"])

    def __len__(self) -> int:
        return int(self.client.hlen(self.committed))

    def close(self) -> None:
        self.client.close()
