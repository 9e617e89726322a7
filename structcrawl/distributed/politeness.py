"""Politeness held by all the workers of a distributed crawl together (host frontier only).

Every fetch takes one of its host's slots in Redis (:mod:`.frontier`): a request claimed off
the shared queue takes it in the same atomic step, a request this worker keeps (a retry, a
redirect hop, one JSON cannot carry) takes it here before it goes out, and waits in the
scheduler while the host's delay runs or its slots are all taken. The slot is given back
when the request leaves the downloader (``request_left_downloader``: a response or an
error), and at the latest when its page is finished or the worker goes idle; a dead worker's
slots are given back when its claims are requeued.

* ``DOWNLOAD_DELAY``: the least time between two fetches of a host, counted from the end of
  the previous one, across all workers; ``CONCURRENT_REQUESTS_PER_DOMAIN``: fetches of a host
  under way at once, across all workers, each live worker holding at most its share of them
  (rounded up), so one worker cannot keep them all.
* A robots.txt ``Crawl-delay`` (read by :class:`~structcrawl.crawl.polite.
  CrawlDelayRobotsTxtMiddleware` on any worker) becomes the host's delay for every worker.
* A 429 or 503 with ``Retry-After`` pauses the host for every worker (up to
  ``STRUCTCRAWL_RETRY_AFTER_MAX``).

Each worker's own download slots (AutoThrottle, its local delay) still apply on top: they
can only slow a host further. Stats: ``structcrawl/distributed/polite/paused``,
``/polite/crawl_delay``, ``/polite/waits`` (a kept request waited for its host).
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from typing import Any

import redis
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.utils.httpobj import urlparse_cached

from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.meta import INTERNAL_META
from structcrawl.crawl.polite import crawl_delay_read
from structcrawl.crawl.retry import retry_after_seconds
from structcrawl.distributed.coordination import Coordinator

__all__ = ["SLOT_META", "SharedPoliteness"]

logger = logging.getLogger(__name__)

#: Request meta key: the claim field of the host slot the request holds while downloading.
SLOT_META = "structcrawl_slot"
_PAUSING = frozenset({429, 503})


class SharedPoliteness:
    """See the module documentation (made by the scheduler; inert with the priority queue)."""

    def __init__(self, crawler: Crawler, coordinator: Coordinator):
        self.crawler = crawler
        self.coordinator = coordinator
        self.frontier = coordinator.frontier
        self.stats = crawler.stats
        name = "STRUCTCRAWL_RETRY_AFTER_MAX"
        self.pause_max = float(crawler.settings.get(name, DEFAULTS[name].default))
        self._tokens = itertools.count(1)
        if self.frontier.slots:
            connect = crawler.signals.connect
            connect(self.left_downloader, signal=signals.request_left_downloader)
            connect(self.downloaded, signal=signals.response_downloaded)
            connect(self.crawl_delay, signal=crawl_delay_read)

    def next_kept(self, local: deque[Request]) -> Request | None:
        """The first request of ``local`` that may go out now (taking its host's slot)."""
        wait = -1.0
        for _ in range(len(local)):
            request = local.popleft()
            host = urlparse_cached(request).hostname
            if not self.frontier.slots or request.meta.get(INTERNAL_META) or not host:
                return request
            token = f"{next(self._tokens)}"
            got = self.frontier.take_slot(
                self.coordinator.leases.key, host, token, self.coordinator.config.expire * 1000
            )
            if got == 0:
                request.meta[SLOT_META] = f"!{host} {token}".encode()
                return request
            local.append(request)
            if got > 0:
                wait = got if wait < 0 else min(wait, got)
        if local:
            self.stats.inc_value("structcrawl/distributed/polite/waits")
            if wait > 0:
                self.coordinator.wake_in(wait)
        return None

    def claimed(self, request: Request, claim: bytes) -> None:
        """A request claimed off the shared queue holds one of its host's slots."""
        if self.frontier.slots:
            request.meta[SLOT_META] = claim

    def left_downloader(self, request: Request, spider: Any = None) -> None:
        claim = request.meta.pop(SLOT_META, None)
        if claim is None or self.coordinator.failed:
            return
        try:
            self.frontier.release_slot(self.coordinator.leases.key, claim)
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "giving a host's slot back")

    def downloaded(self, response: Any, request: Request, spider: Any = None) -> None:
        if response.status not in _PAUSING or self.coordinator.failed:
            return
        after = retry_after_seconds(response.headers.get(b"Retry-After"))
        host = urlparse_cached(request).hostname
        if not after or not host:
            return
        try:
            self.frontier.pause(host, min(after, self.pause_max))
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "pausing a host")
            return
        self.stats.inc_value("structcrawl/distributed/polite/paused")
        logger.info("%s asked to wait %.0f s (Retry-After): every worker waits", host, after)

    def crawl_delay(self, request: Request, delay: float) -> None:
        host = urlparse_cached(request).hostname
        if not host or self.coordinator.failed:
            return
        try:
            self.frontier.set_delay(host, delay)
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "sharing a Crawl-delay")
            return
        self.stats.inc_value("structcrawl/distributed/polite/crawl_delay")
