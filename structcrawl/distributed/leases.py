"""A worker's claimed requests as leases in Redis (docs/distributed.md, "When a worker dies").

When a worker takes a request off the shared queue (:data:`~._scripts.CLAIM`), the serialized
request stays in the worker's claims hash until the page it leads to is finished: its item
exported (the release waits for the end of the ``item_scraped`` signal, so the feeds have
written and flushed the line), or the worker's engine is idle (nothing in flight: every claim
is finished). The claims live as long as the worker's heartbeat renews its status. When a
worker misses ``STRUCTCRAWL_REDIS_WORKER_TIMEOUT``, the next live worker to beat or go idle
puts its claims back in the queue, atomically and once (:data:`~.REAP`): they go
straight to the queue, so the duplicate filter does not refuse them, and they carry the URL
the page ledger follows. A worker closing early hands its claims back the same way.

Pages the dead worker finished but had not yet released are fetched again (at most the pages
between one export and the release right after it); none is lost.

Stats: ``structcrawl/distributed/requeued`` and ``structcrawl/distributed/dead_workers`` (on
the worker that requeued, and the crawl's totals on the elected worker),
``structcrawl/distributed/handed_back``.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

import redis
from scrapy.utils.reactor import CallLaterOnce

from structcrawl.distributed._scripts import HAND_BACK_BODY, REAP_BODY
from structcrawl.distributed.config import CrawlKeys

__all__ = ["LEASE_META", "Leases"]

logger = logging.getLogger(__name__)

#: Request meta key: this worker's token for the lease of the claimed request it derives from.
LEASE_META = "structcrawl_lease"


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


class Leases:
    """The claims of one worker, and the sweep that requeues those of dead workers."""

    def __init__(
        self, client: redis.Redis, keys: CrawlKeys, worker_id: str, stats: Any, crawl_id: str
    ):
        self.client = client
        self.keys = keys
        self.worker_id = worker_id
        self.stats = stats
        self.crawl_id = crawl_id
        self.held: dict[int, bytes] = {}
        self._tokens = itertools.count(1)
        self._finished: list[bytes] = []
        self._release_soon = CallLaterOnce(self.release)
        self.frontier: Any = None

    def use(self, frontier: Any) -> None:
        """The frontier whose queue the claims go back to (:mod:`.frontier`)."""
        self.frontier = frontier
        self._reap = frontier.script(REAP_BODY)
        self._hand_back = frontier.script(HAND_BACK_BODY)

    @property
    def key(self) -> str:
        return self.keys.claims(self.worker_id)

    # -- this worker's leases --------------------------------------------------------------

    def take(self, meta: dict[str, Any], data: bytes) -> None:
        """Remember the claim ``data`` (the request's serialized form) in the request's meta."""
        token = next(self._tokens)
        self.held[token] = data
        meta[LEASE_META] = token

    def finished(self, response: Any) -> None:
        """The page of ``response`` (a response, or a failure carrying its request) produced
        its item: release its lease once every handler of the signal has run."""
        request = getattr(response, "request", None)
        token = getattr(request, "meta", {}).get(LEASE_META)
        data = self.held.pop(token, None) if isinstance(token, int) else None
        if data is None:
            return
        self._finished.append(data)
        self._release_soon.schedule()

    def release(self) -> None:
        finished, self._finished = self._finished, []
        if not finished:
            return
        try:
            self.frontier.finish(self.key, finished)
        except redis.RedisError as exc:  # the lease expires with the worker; pages refetched
            logger.warning("distributed crawl %s: could not release leases: %s", self.crawl_id, exc)

    def forget(self) -> None:
        """The engine is idle: every claim is finished (the idle check deleted them)."""
        self.held.clear()
        self._finished.clear()

    def hand_back(self) -> int:
        """Closing early: put this worker's unfinished claims back in the queue."""
        count = int(
            self._hand_back(
                keys=[self.frontier.queue_key, self.key, self.keys.emitter],
                args=self.frontier.tail,
            )
        )
        self.held.clear()
        if count:
            self.stats.inc_value("structcrawl/distributed/handed_back", count)
            logger.info(
                "distributed crawl %s: handed %d unfinished requests back to the queue",
                self.crawl_id,
                count,
            )
        return count

    # -- dead workers ----------------------------------------------------------------------

    def reap(self, expire_ms: int) -> None:
        """Requeue the claims of workers whose status expired (each heartbeat)."""
        keys = self.keys
        reaped = self._reap(
            keys=[self.frontier.queue_key, keys.workers, keys.emitter, keys.dead_workers],
            args=[keys.worker_prefix, keys.claims_prefix, expire_ms, *self.frontier.tail],
        )
        self.report(list(reaped))

    def report(self, reaped: list[Any]) -> None:
        """Log and count the workers a sweep found dead (``[id, requeued, id, requeued, ...]``)."""
        for worker, count in zip(reaped[::2], reaped[1::2], strict=True):
            logger.warning(
                "distributed crawl %s: worker %s stopped sending heartbeats (crashed, killed or "
                "stuck); %d requests it had claimed were requeued",
                self.crawl_id,
                _text(worker),
                int(count),
            )
            self.stats.inc_value("structcrawl/distributed/dead_workers")
            self.stats.inc_value("structcrawl/distributed/requeued", int(count))

    def totals(self) -> None:
        """On the elected worker: the crawl's dead workers and requeued requests, in stats."""
        dead = {_text(k): int(v) for k, v in self.client.hgetall(self.keys.dead_workers).items()}
        if not dead:
            return
        self.stats.set_value("structcrawl/distributed/dead_workers", len(dead))
        self.stats.set_value("structcrawl/distributed/requeued", sum(dead.values()))
        logger.info(
            "distributed crawl %s: %d worker(s) died (%s); %d requests requeued for the others",
            self.crawl_id,
            len(dead),
            ", ".join(sorted(dead)),
            sum(dead.values()),
        )
