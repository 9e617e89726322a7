"""Settings of a distributed crawl, and the names of its Redis keys (pure).

Every key of one crawl starts with ``structcrawl:<crawl id>:``, so a crawl's state can be
listed, expired and removed as one (``SCAN MATCH structcrawl:<crawl id>:*``). A crawl id is
restricted to letters, digits, ``.``, ``_`` and ``-`` (scrapyd's job ids qualify): no ``:`` or
glob characters, so one crawl's pattern never matches another crawl's keys.

>>> keys = CrawlKeys.of("shop-20261201")
>>> keys.queue, keys.worker("h:1")
('structcrawl:shop-20261201:requests', 'structcrawl:shop-20261201:worker:h:1')
>>> keys.pattern
'structcrawl:shop-20261201:*'
>>> valid_crawl_id("shop/1"), valid_crawl_id("night-2026.12.01_a")
(False, True)
"""

from __future__ import annotations

import os
import re
import socket
import uuid
from dataclasses import dataclass
from typing import Any

from structcrawl.crawl.config import DEFAULTS

__all__ = ["PREFIX", "CrawlKeys", "DistributedConfig", "new_worker_id", "valid_crawl_id"]

#: First part of every Redis key structcrawl writes.
PREFIX = "structcrawl"
_CRAWL_ID = re.compile(r"^[A-Za-z0-9._-]{1,200}$")
_QUEUES = ("hosts", "priority")
_FILTERS = ("bloom", "set")


def valid_crawl_id(value: str) -> bool:
    """Whether ``value`` can name a crawl (1-200 of ``A-Za-z0-9._-``)."""
    return bool(_CRAWL_ID.match(value))


def new_worker_id() -> str:
    """``<host>:<pid>:<random>``: unique among the workers of a crawl, readable in logs."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass(frozen=True, slots=True)
class CrawlKeys:
    """The Redis keys of one distributed crawl."""

    base: str

    @classmethod
    def of(cls, crawl_id: str) -> CrawlKeys:
        return cls(f"{PREFIX}:{crawl_id}:")

    @property
    def pattern(self) -> str:
        return self.base + "*"

    @property
    def queue(self) -> str:
        """Sorted set of serialized requests (scrapy-redis's priority queue)."""
        return self.base + "requests"

    @property
    def queued(self) -> str:
        """Count of the requests in the host frontier's queues (``q:<host>`` lists)."""
        return self.base + "queued"

    @property
    def frontier(self) -> tuple[str, ...]:
        """The host frontier's keys besides its per-host lists (:mod:`.frontier`)."""
        names = ("ready", "next", "inflight", "delays", "origins")
        return tuple(self.base + name for name in names)

    @property
    def dupefilter(self) -> str:
        """Set of request fingerprints (scrapy-redis's duplicate filter)."""
        return self.base + "dupefilter"

    @property
    def workers(self) -> str:
        """Set of the ids of the workers that registered and did not leave."""
        return self.base + "workers"

    @property
    def worker_prefix(self) -> str:
        return self.base + "worker:"

    def worker(self, worker_id: str) -> str:
        """A worker's status (``busy``/``idle``), expiring unless its heartbeat renews it."""
        return self.worker_prefix + worker_id

    @property
    def claims_prefix(self) -> str:
        return self.base + "claims:"

    def claims(self, worker_id: str) -> str:
        """Hash of the requests a worker claimed and has not finished (serialized request ->
        queue score): its leases, requeued by another worker when it dies."""
        return self.claims_prefix + worker_id

    @property
    def dead_workers(self) -> str:
        """Hash of the workers found dead -> how many of their claims were requeued."""
        return self.base + "dead-workers"

    @property
    def emitter(self) -> str:
        """The worker elected to emit the entities; its presence means the crawl is done."""
        return self.base + "emitter"

    @property
    def failed_workers(self) -> str:
        """Set of ``<worker id>: <reason>`` for workers that failed or vanished."""
        return self.base + "failed-workers"

    @property
    def failed_pages(self) -> str:
        """Set of the URLs of pages that failed (change detection defers their entities)."""
        return self.base + "failed-pages"

    @property
    def entity_index(self) -> str:
        """Sorted set of entity keys, scored by when they were first merged."""
        return self.base + "entities"

    def entity(self, key: str) -> str:
        return self.base + "entity:" + key

    def sources(self, key: str) -> str:
        return self.base + "sources:" + key

    @property
    def fixed(self) -> tuple[str, ...]:
        """Keys whose expiry every heartbeat renews (per-entity keys are renewed on write)."""
        return (
            self.queue,
            self.dupefilter,
            self.workers,
            self.failed_workers,
            self.dead_workers,
            self.failed_pages,
            self.entity_index,
            self.queued,
            *self.frontier,
        )


def _rate(value: Any) -> float:
    return min(max(float(value), 1e-9), 0.5)


def _get(settings: Any, name: str) -> Any:
    return settings.get(name, DEFAULTS[name].default)


@dataclass(frozen=True, slots=True)
class DistributedConfig:
    """``STRUCTCRAWL_REDIS_*`` and ``STRUCTCRAWL_CRAWL_ID``; ``url`` None = not distributed.
    ``delay`` and ``concurrency`` (Scrapy's ``DOWNLOAD_DELAY`` and
    ``CONCURRENT_REQUESTS_PER_DOMAIN``) hold per host for all workers together."""

    url: str | None
    crawl_id: str | None
    heartbeat: float
    worker_timeout: float
    expire: int
    queue: str = "hosts"
    dupefilter: str = "bloom"
    expected_urls: int = 10_000_000
    error_rate: float = 0.001
    bloom_sample: int = 1024
    delay: float = 0.0
    concurrency: int = 8

    @classmethod
    def from_settings(cls, settings: Any) -> DistributedConfig:
        url = _get(settings, "STRUCTCRAWL_REDIS_URL")
        crawl_id = _get(settings, "STRUCTCRAWL_CRAWL_ID")
        heartbeat = float(_get(settings, "STRUCTCRAWL_REDIS_HEARTBEAT"))
        timeout = float(_get(settings, "STRUCTCRAWL_REDIS_WORKER_TIMEOUT"))
        if heartbeat <= 0 or timeout < 3 * heartbeat:
            raise ValueError(
                "STRUCTCRAWL_REDIS_HEARTBEAT must be > 0 and STRUCTCRAWL_REDIS_WORKER_TIMEOUT"
                f" at least 3 heartbeats (got {heartbeat} and {timeout})"
            )
        queue = str(_get(settings, "STRUCTCRAWL_REDIS_QUEUE"))
        dupefilter = str(_get(settings, "STRUCTCRAWL_REDIS_DUPEFILTER"))
        for name, value, allowed in (
            ("STRUCTCRAWL_REDIS_QUEUE", queue, _QUEUES),
            ("STRUCTCRAWL_REDIS_DUPEFILTER", dupefilter, _FILTERS),
        ):
            if value not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(allowed)} (got {value!r})")
        return cls(
            url=str(url) if url else None,
            crawl_id=str(crawl_id) if crawl_id else None,
            heartbeat=heartbeat,
            worker_timeout=timeout,
            expire=max(int(_get(settings, "STRUCTCRAWL_REDIS_EXPIRE")), 60),
            queue=queue,
            dupefilter=dupefilter,
            expected_urls=max(int(_get(settings, "STRUCTCRAWL_REDIS_EXPECTED_URLS")), 1000),
            error_rate=_rate(_get(settings, "STRUCTCRAWL_REDIS_BLOOM_ERROR_RATE")),
            bloom_sample=max(int(_get(settings, "STRUCTCRAWL_REDIS_BLOOM_SAMPLE")), 0),
            delay=max(float(settings.get("DOWNLOAD_DELAY", 0) or 0), 0.0),
            concurrency=max(int(settings.get("CONCURRENT_REQUESTS_PER_DOMAIN", 8) or 8), 1),
        )

    def resolve_crawl_id(self, spider: Any) -> str:
        """The crawl id: the setting, else scrapyd's job id (the spider's ``_job`` argument).

        ``ValueError`` when there is none or it has characters outside ``A-Za-z0-9._-``."""
        crawl_id = self.crawl_id or getattr(spider, "_job", None)
        if not crawl_id:
            raise ValueError(
                "STRUCTCRAWL_REDIS_URL is set but no STRUCTCRAWL_CRAWL_ID names the crawl "
                "(give every worker of one crawl the same id, a new one per run)"
            )
        crawl_id = str(crawl_id)
        if not valid_crawl_id(crawl_id):
            raise ValueError(
                f"STRUCTCRAWL_CRAWL_ID {crawl_id!r}: use 1-200 letters, digits, '.', '_', '-'"
            )
        return crawl_id
