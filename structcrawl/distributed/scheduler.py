"""The scheduler of a distributed crawl: scrapy-redis's, configured against its two traps.

* **Persistent.** scrapy-redis's scheduler flushes the shared queue and the duplicate filter
  when a worker closes unless ``SCHEDULER_PERSIST`` is on: the first worker to finish would
  wipe the others' queue and let them crawl pages again. This one never flushes; the elected
  worker removes the crawl's keys when the whole crawl is done
  (:mod:`structcrawl.distributed.coordination`).
* **Never blocking.** With ``SCHEDULER_IDLE_BEFORE_CLOSE > 0`` scrapy-redis pops with
  ``BRPOP``/``BLPOP``, which freeze the event loop (every download, every callback) for up to
  that long on each empty poll. Here a pop is one non-blocking Lua call
  (:meth:`Coordinator.claim`), and an idle worker waits through ``spider_idle`` and the
  coordinator's heartbeat instead.

Requests are shared as JSON (:mod:`structcrawl.distributed._serial`), not pickled. Requests
that stay on this worker, in a local queue: the entity pipeline's internal ``data:`` request,
retries and redirect hops of a request this worker took (they carry :data:`CLAIM_META`; the
page ledger follows a URL on one worker), and requests JSON cannot carry (a callback that is
not a spider method, an object in ``meta``; counted as ``structcrawl/distributed/kept_local``).
The duplicate filter (scrapy-redis's ``RFPDupeFilter``, a Redis set) is shared by all. A
request taken off the queue is a lease until its page is finished (:mod:`.leases`): when its
worker dies, another puts it back in the queue.

Stats: ``scheduler/enqueued/redis``, ``scheduler/dequeued/redis``, ``scheduler/enqueued/local``,
``structcrawl/distributed/kept_local``, ``structcrawl/distributed/refused`` (the crawl was
already done), ``structcrawl/distributed/stranded`` (Redis failed while sharing them).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Any

import redis
from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.utils.request import request_from_dict
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from structcrawl.crawl.meta import INTERNAL_META
from structcrawl.distributed import _serial
from structcrawl.distributed.bloom import BloomDupeFilter, BloomSize
from structcrawl.distributed.coordination import CLAIM_META, Coordinator, coordinator_for
from structcrawl.distributed.coordination import request_claimed as _claimed_signal
from structcrawl.distributed.politeness import SharedPoliteness

__all__ = ["DistributedScheduler"]

logger = logging.getLogger(__name__)
_SHOWN = 20


class DistributedScheduler(Scheduler):  # type: ignore[misc]
    """See the module documentation (``SCHEDULER`` when ``STRUCTCRAWL_REDIS_URL`` is set)."""

    crawler: Crawler
    coordinator: Coordinator
    spider: Spider
    local: deque[Request]
    stranded: list[str]
    refused: int

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> DistributedScheduler:
        coordinator = coordinator_for(crawler)
        if coordinator is None:
            raise ValueError("DistributedScheduler needs STRUCTCRAWL_REDIS_URL")
        coordinator.client.ping()  # an unreachable server stops the crawl at start
        scheduler = cls(
            server=coordinator.client,
            persist=True,
            flush_on_start=False,
            queue_key=coordinator.keys.queue,
            dupefilter_key=coordinator.keys.dupefilter,
            idle_before_close=0,
            serializer=_serial,
        )
        scheduler.crawler = crawler
        scheduler.stats = crawler.stats
        scheduler.coordinator = coordinator
        scheduler.local = deque()
        scheduler.stranded = []
        scheduler.refused = 0
        return scheduler

    def open(self, spider: Spider) -> None:
        self.spider = spider
        self.df = self._dupefilter()
        self.polite = SharedPoliteness(self.crawler, self.coordinator)
        self.coordinator.register()
        self.coordinator.start_heartbeat()
        queued = self.coordinator.queue_size()
        if queued and not self.coordinator.finished_before_start:
            logger.info(
                "distributed crawl %s: %d requests queued by other workers",
                self.coordinator.crawl_id,
                queued,
            )

    def _dupefilter(self) -> Any:
        config, keys = self.coordinator.config, self.coordinator.keys
        if config.dupefilter == "set":
            debug = self.crawler.settings.getbool("DUPEFILTER_DEBUG")
            return RFPDupeFilter(self.server, key=keys.dupefilter, debug=debug)
        fingerprinter = self.crawler.request_fingerprinter  # type: ignore[attr-defined]
        bloom = BloomDupeFilter(
            self.server,
            keys.base,
            BloomSize.of(config.expected_urls, config.error_rate),
            sample=config.bloom_sample,
            fingerprint=fingerprinter.fingerprint,
            stats=self.stats,
        )
        self.coordinator.renewed.extend(bloom.keys)
        return bloom

    def close(self, reason: str) -> None:
        """Never flushes (see the module documentation); reports what could not be shared."""
        if self.coordinator.failed:  # what this worker held, in the outage file
            for url in self.stranded:
                self.coordinator.keep({"kind": "request", "url": url, "why": "not shared"})
            for request in self.local:
                self.coordinator.keep({"kind": "request", "url": request.url, "why": "held"})
        if self.stranded:
            logger.error(
                "%d requests were not crawled: Redis failed while they were shared: %s%s",
                len(self.stranded),
                ", ".join(self.stranded[:_SHOWN]),
                " ..." if len(self.stranded) > _SHOWN else "",
            )
        if self.refused:
            logger.info("%d requests refused: the crawl was already done", self.refused)

    def __len__(self) -> int:
        return len(self.local) + self.coordinator.queue_size()

    def has_pending_requests(self) -> bool:
        if self.local:
            return True
        if self.coordinator.failed:
            return False
        try:
            return self.coordinator.queue_size() > 0
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "looking at the shared queue")
            return False

    def enqueue_request(self, request: Request) -> bool:
        if self.coordinator.finished_before_start:
            self.refused += 1
            self.stats.inc_value("structcrawl/distributed/refused")
            return False
        meta = request.meta
        try:
            if not request.dont_filter and self.df.request_seen(request):
                self.df.log(request, self.spider)
                return False
            if meta.get(INTERNAL_META) or CLAIM_META in meta:
                return self._keep(request)
            try:
                shared = self.coordinator.share_request(request.to_dict(spider=self.spider))
            except (TypeError, ValueError) as exc:
                logger.debug("keeping %s on this worker: %s", request, exc)
                self.stats.inc_value("structcrawl/distributed/kept_local")
                return self._keep(request)
            if not shared:
                self.refused += 1
                self.stats.inc_value("structcrawl/distributed/refused")
                return False
        except redis.RedisError as exc:
            self.stranded.append(request.url)
            self.stats.inc_value("structcrawl/distributed/stranded")
            self.coordinator.redis_failed(exc, f"scheduling {request.url}")
            return True  # not dropped silently: listed at close, and the crawl fails
        self.stats.inc_value("scheduler/enqueued/redis")
        return True

    def _next_local(self) -> Request | None:
        if self.coordinator.failed:
            return self.local.popleft()  # no slots to take: the crawl is stopping anyway
        try:
            return self.polite.next_kept(self.local)
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "taking a host's slot")
            return None

    def _next_shared(self) -> Request | None:
        if self.coordinator.failed:
            return None
        try:
            claimed = self.coordinator.claim()
        except redis.RedisError as exc:
            self.coordinator.redis_failed(exc, "taking a request off the shared queue")
            return None
        if claimed is None:
            return None
        claim, stored, origin = claimed
        try:
            data = self.coordinator.frontier.decode(stored, origin)
            request = request_from_dict(data, spider=self.spider)
        except Exception as exc:  # another program's data, or another version's
            logger.error("unreadable request in the shared queue (%s): %r", exc, claim[:200])
            self.stats.inc_value("structcrawl/failure/distributed/unreadable_request")
            return None
        self.stats.inc_value("scheduler/dequeued/redis")
        self.coordinator.leases.take(request.meta, claim)
        self.polite.claimed(request, claim)
        return request

    def _keep(self, request: Request) -> bool:
        self.local.append(request)
        self.stats.inc_value("scheduler/enqueued/local")
        return True

    def next_request(self) -> Request | None:
        request = self._next_local() if self.local else None
        if request is None:
            request = self._next_shared()
        if request is None:
            return None
        meta = request.meta
        if CLAIM_META not in meta and not meta.get(INTERNAL_META):
            meta[CLAIM_META] = self.coordinator.worker_id
            self.crawler.signals.send_catch_log(_claimed_signal, request=request)
        return request
