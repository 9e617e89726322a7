"""The shared request queue of a distributed crawl: one queue per host, or one by priority.

``STRUCTCRAWL_REDIS_QUEUE = "hosts"`` (:class:`HostFrontier`, the default): a Redis list per
host, each request stored compactly (:func:`pack`: its path when the host's origin is the
usual one, and only the fields of ``Request.to_dict()`` that differ from their defaults, under
one-letter names: ``/p/12.html {"c":"parse","m":{"depth":2}}``), and the next host chosen by
when it may be fetched again (a sorted set of hosts by time), so one large site cannot starve
the others. Each host's delay (``DOWNLOAD_DELAY``, a robots.txt ``Crawl-delay``, a
``Retry-After`` pause) and concurrency (``CONCURRENT_REQUESTS_PER_DOMAIN``) hold for all the
workers together: every fetch takes one of the host's slots in Redis and gives it back when
its download ends, and no worker holds more than its share of a host's slots (the
concurrency over the live workers, rounded up; :mod:`._frontier_lua`). Requests of one host
come out in order, those of priority above 0 first.

``"priority"`` (:class:`PriorityFrontier`): the former queue, one sorted set of serialized
requests by priority across all hosts; no politeness shared.

>>> entry = pack({"url": "https://a.example/p?q=1", "callback": "parse", "errback": None,
...     "headers": {}, "method": "GET", "body": b"", "cookies": {}, "meta": {"depth": 1},
...     "encoding": "utf-8", "priority": 0, "dont_filter": False, "flags": [],
...     "cb_kwargs": {}})
>>> entry.host, entry.origin, entry.relative
('a.example', 'https://a.example', b'/p?q=1 {"c":"parse","m":{"depth":1}}')
>>> unpack(entry.relative, entry.origin)["url"]
'https://a.example/p?q=1'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis

import structcrawl.distributed._frontier_lua as lua
import structcrawl.distributed._serial as _serial
from structcrawl.distributed.config import CrawlKeys

__all__ = ["Entry", "HostFrontier", "PriorityFrontier", "frontier_for", "host_of", "pack", "unpack"]

#: Request.to_dict() field -> (short name, default)
_FIELDS: dict[str, tuple[str, Any]] = {
    "callback": ("c", None),
    "errback": ("e", None),
    "headers": ("h", {}),
    "method": ("M", "GET"),
    "body": ("b", b""),
    "cookies": ("k", {}),
    "meta": ("m", {}),
    "encoding": ("E", "utf-8"),
    "priority": ("p", 0),
    "dont_filter": ("d", False),
    "flags": ("f", []),
    "cb_kwargs": ("a", {}),
    "_class": ("C", None),
}
_LONG = {short: (name, default) for name, (short, default) in _FIELDS.items()}


@dataclass(frozen=True, slots=True)
class Entry:
    """A request packed for its host's queue: ``relative`` (path form, empty when the URL has
    no path) and ``full`` (whole URL), the one to store chosen by the host's origin."""

    host: str
    origin: str
    relative: bytes
    full: bytes
    front: bool


def host_of(url: str) -> tuple[str, str]:
    """``(host, origin)``: the host name politeness is kept by (Scrapy's download slot key)
    and ``scheme://netloc``.

    >>> host_of("https://A.example:8443/x"), host_of("http://u@[::1]:80/")
    (('a.example', 'https://A.example:8443'), ('::1', 'http://u@[::1]:80'))
    """
    start = url.find("://") + 3
    end = url.find("/", start)
    if start > 2 and end > start:  # the common case, without urlsplit's cost
        netloc = url[start:end]
        if "@" not in netloc and "[" not in netloc and "?" not in netloc and "#" not in netloc:
            return netloc.partition(":")[0].lower(), url[:end]
    parts = urlsplit(url)
    return (parts.hostname or ""), (f"{parts.scheme}://{parts.netloc}" if parts.netloc else "")


def pack(request: dict[str, Any]) -> Entry:
    """The compact entry of a request dict (``TypeError`` for what JSON cannot carry)."""
    url = request["url"]
    rest: dict[str, Any] = {}
    for name, value in request.items():
        if name == "url":
            continue
        short, default = _FIELDS.get(name, (name, None))
        if value != default:
            rest[short] = value
    tail = b" " + _serial.dumps(rest) if rest else b""
    host, origin = host_of(url)
    path = url[len(origin) :] if origin and url.startswith(origin) else ""
    relative = path.encode("utf-8") + tail if path.startswith("/") else b""
    full = url.encode("utf-8") + tail
    return Entry(host, origin, relative, full, request.get("priority", 0) > 0)


def unpack(entry: bytes | str, origin: bytes | str) -> dict[str, Any]:
    """The request dict of a stored entry (``origin``: the host's, for a path)."""
    if isinstance(entry, bytes):
        entry = entry.decode("utf-8")
    if isinstance(origin, bytes):
        origin = origin.decode("utf-8")
    where, _, tail = entry.partition(" ")
    out: dict[str, Any] = {name: default for name, (_, default) in _FIELDS.items()}
    del out["_class"]
    out["url"] = origin + where if where.startswith("/") else where
    for key, value in (_serial.loads(tail) if tail else {}).items():
        name, _ = _LONG.get(key, (key, None))
        out[name] = value
    return out


class PriorityFrontier:
    """One sorted set of serialized requests by priority (see the module documentation)."""

    kind = "priority"
    slots = False

    def __init__(self, client: redis.Redis, keys: CrawlKeys):
        self.client = client
        self.keys = keys
        self.queue_key = keys.queue
        self.tail: list[Any] = []
        self._claim = client.register_script(lua.PRIORITY_CLAIM)
        self._share = client.register_script(lua.PRIORITY_SHARE)

    def script(self, body: str) -> Any:
        """A coordination script (:mod:`._scripts`) with this frontier's preamble."""
        return self.client.register_script(lua.PRIORITY_PREAMBLE + body)

    def claim(self, keys: list[str], args: list[Any]) -> tuple[bytes, bytes, bytes] | float:
        """The next request: ``(its claim, its stored form, its host's origin)`` (read with
        :meth:`decode`), or seconds until a host may be fetched (-1: none waits its turn)."""
        data = self._claim(keys=[self.queue_key, *keys], args=args)
        if data is None:
            return -1.0
        return bytes(data), bytes(data), b""

    def decode(self, stored: bytes, origin: bytes) -> dict[str, Any]:
        """The request dict of what :meth:`claim` returned (``ValueError`` when unreadable)."""
        return dict(_serial.loads(stored))

    def share(self, request: dict[str, Any]) -> bool:
        data = _serial.dumps(request)
        return bool(
            self._share(keys=[self.queue_key, self.keys.emitter], args=[-request["priority"], data])
        )

    def share_data(self, data: bytes, score: float) -> bool:
        return bool(self._share(keys=[self.queue_key, self.keys.emitter], args=[score, data]))

    def queue_size(self) -> int:
        return int(self.client.zcard(self.queue_key))

    def take_slot(self, claims: str, host: str, token: str, expire_ms: int) -> float:
        return 0.0

    def release_slot(self, claims: str, field: bytes) -> None:
        pass

    def finish(self, claims: str, fields: list[bytes]) -> None:
        """These claims' pages are finished: their leases end."""
        self.client.hdel(claims, *fields)

    def pause(self, host: str, seconds: float) -> None:
        pass

    def set_delay(self, host: str, seconds: float) -> None:
        pass


class HostFrontier(PriorityFrontier):
    """A queue per host, with politeness shared by every worker (see the module documentation)."""

    kind = "hosts"
    slots = True

    def __init__(
        self, client: redis.Redis, keys: CrawlKeys, delay: float, concurrency: int, expire: int
    ):
        self.client = client
        self.keys = keys
        self.queue_key = keys.queued
        self.tail = [keys.base, expire * 1000, int(delay * 1000), max(1, concurrency)]
        self._claim = self.script(lua.HOST_CLAIM)
        self._share = self.script(lua.HOST_SHARE)
        self._share_many = self.script(lua.HOST_SHARE_MANY)
        self._release = self.script(lua.HOST_RELEASE)
        self._take = self.script(lua.HOST_TAKE)
        self._pause = self.script(lua.HOST_PAUSE)
        self._finish = self.script(lua.HOST_FINISH)

    def script(self, body: str) -> Any:
        return self.client.register_script(lua.HOST_PREAMBLE + body)

    def claim(self, keys: list[str], args: list[Any]) -> tuple[bytes, bytes, bytes] | float:
        host, origin, entry = self._claim(keys=[self.queue_key, *keys], args=[*args, *self.tail])
        if not host:
            wait = float(entry)
            return wait / 1000 if wait >= 0 else -1.0
        return bytes(host) + b" " + bytes(entry), bytes(entry), bytes(origin)

    def decode(self, stored: bytes, origin: bytes) -> dict[str, Any]:
        return unpack(stored, origin)

    def share(self, request: dict[str, Any]) -> bool:
        keys, args = self.share_args(request)
        return bool(self._share(keys=keys, args=args))

    def share_args(self, request: dict[str, Any]) -> tuple[list[str], list[Any]]:
        """The keys and arguments of the share script for ``request``."""
        entry = pack(request)
        front = "1" if entry.front else "0"
        args = [entry.host, entry.origin, entry.relative, entry.full, front, *self.tail]
        return [self.queue_key, self.keys.emitter], args

    def share_many(self, requests: list[dict[str, Any]]) -> bool:
        """Queue many requests in one call (seeding a crawl; False: the crawl is done)."""
        args: list[Any] = []
        for request in requests:
            entry = pack(request)
            front = "1" if entry.front else "0"
            args += [entry.host, entry.origin, entry.relative, entry.full, front]
        keys = [self.queue_key, self.keys.emitter]
        return bool(self._share_many(keys=keys, args=[*args, *self.tail]))

    def queue_size(self) -> int:
        return int(self.client.get(self.queue_key) or 0)

    def take_slot(self, claims: str, host: str, token: str, expire_ms: int) -> float:
        """Take a slot of ``host`` for a request this worker keeps: 0 taken, else seconds to
        wait (-1: every slot of the host is taken)."""
        wait = int(self._take(keys=[claims], args=[host, token, expire_ms, *self.tail]))
        return wait / 1000 if wait > 0 else float(wait)

    def release_slot(self, claims: str, field: bytes) -> None:
        self._release(keys=[claims], args=[field, *self.tail])

    def finish(self, claims: str, fields: list[bytes]) -> None:
        """Their leases end, and the slots some still hold (a request that never reached the
        downloader) are given back."""
        self._finish(keys=[claims], args=[*fields, *self.tail])

    def pause(self, host: str, seconds: float) -> None:
        self._pause(keys=[], args=[host, int(seconds * 1000), *self.tail])

    def set_delay(self, host: str, seconds: float) -> None:
        """A host's own delay (robots.txt ``Crawl-delay``) when longer than the default."""
        if seconds * 1000 > self.tail[2]:
            self.client.hset(self.keys.base + "delays", host, int(seconds * 1000))


def frontier_for(client: redis.Redis, keys: CrawlKeys, config: Any) -> PriorityFrontier:
    """The frontier ``config`` (a :class:`~.config.DistributedConfig`) asks for."""
    if config.queue == "priority":
        return PriorityFrontier(client, keys)
    return HostFrontier(client, keys, config.delay, config.concurrency, config.expire)
