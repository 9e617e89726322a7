"""Coordination between the workers of one distributed crawl (an extension, one per crawler).

* **Who is working.** A worker registers when its scheduler opens (status ``busy``) and keeps
  a status key that expires unless its heartbeat (every ``STRUCTCRAWL_REDIS_HEARTBEAT``
  seconds) renews it within ``STRUCTCRAWL_REDIS_WORKER_TIMEOUT``. It becomes ``idle`` only
  when its engine is idle (``spider_idle``), and ``busy`` again only in the same atomic step
  that takes a request off the shared queue (:meth:`Coordinator.claim`), so "queue empty and
  every worker idle" can never be seen while a request is between the queue and a worker.
* **When the crawl is done.** At ``spider_idle`` one Lua script looks at the queue and every
  worker's status at once: while the queue has requests or another worker is busy the worker
  stays open (``DontCloseSpider``) and polls at each heartbeat; a worker whose status expired
  (crashed, killed, stuck) is dropped from the set, so it never blocks the others, and the
  requests it had claimed are put back in the queue (:mod:`.leases`; each heartbeat sweeps
  for dead workers too). When everything is idle, the same script elects the caller (``SET`` of the
  ``emitter`` key, which also marks the crawl done): exactly one worker emits the entities,
  the others close. A worker that starts after that finds the marker and does nothing.
* **Failures.** Each worker publishes its own failures
  (:func:`structcrawl.crawl.health.crawl_failures`) when it goes idle, or its finish reason when
  it closes early. The elected worker counts the
  others' failures as ``structcrawl/failure/distributed/workers``: its exit status speaks for
  the crawl, and change detection then withholds ``gone`` as after any failed run. Losing the
  Redis server is a failure too (``structcrawl/failure/redis``, the spider closes with reason
  ``redis-unavailable``, ``scrapy crawl`` exits 1): a worker never goes on alone.
* **Clean-up.** When the elected worker finishes, it removes the crawl's keys and keeps only
  the done marker (for ``STRUCTCRAWL_REDIS_EXPIRE`` seconds).

Stats: ``structcrawl/distributed/elected``, ``/waits``, ``/claimed``, ``/removed_keys``;
``structcrawl/failure/redis``, ``structcrawl/failure/distributed/workers``,
``structcrawl/failure/distributed/presumed_dead``; ``structcrawl/distributed/requeued`` and
``/dead_workers`` (:mod:`.leases`).
"""

from __future__ import annotations

import logging
import weakref
from time import monotonic
from typing import Any

import redis
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.utils.asyncio import call_later
from twisted.internet.task import LoopingCall

from structcrawl.crawl.feedstorage import add_page_keeper, keep_failed_page
from structcrawl.crawl.health import crawl_failures
from structcrawl.distributed._failures import Failures, as_text, engine_of
from structcrawl.distributed._scripts import CHECK_BODY, REGISTER
from structcrawl.distributed.changestore import connect
from structcrawl.distributed.config import CrawlKeys, DistributedConfig, new_worker_id
from structcrawl.distributed.frontier import frontier_for
from structcrawl.distributed.leases import Leases

__all__ = ["CLAIM_META", "Coordinator", "coordinator_for", "request_claimed"]

logger = logging.getLogger(__name__)

#: Request meta key: the worker that took the request (or the one it derives from) off the
#: shared queue. Retries and redirect hops carry it and stay on that worker.
CLAIM_META = "structcrawl_claimed"
#: Signal sent (``request=``) when this worker takes a new request to fetch.
request_claimed = object()

_COORDINATORS: weakref.WeakKeyDictionary[Crawler, Coordinator] = weakref.WeakKeyDictionary()


def coordinator_for(crawler: Crawler) -> Coordinator | None:
    """The crawler's coordinator (one per crawler, shared by the scheduler, the extension,
    the page ledger and the entity pipeline); None when ``STRUCTCRAWL_REDIS_URL`` is unset."""
    found = _COORDINATORS.get(crawler)
    if found is None:
        config = DistributedConfig.from_settings(crawler.settings)
        if not config.url:
            return None
        found = _COORDINATORS[crawler] = Coordinator(crawler, config)
    return found


class Coordinator(Failures):
    """See the module documentation. ``outcome`` is None while the crawl goes on, then
    ``"emit"`` (this worker was elected) or ``"done"``."""

    def __init__(self, crawler: Crawler, config: DistributedConfig):
        assert config.url
        self.crawler = crawler
        self.config = config
        self.stats = crawler.stats
        self.crawl_id = config.resolve_crawl_id(getattr(crawler, "spider", None))
        self.keys = CrawlKeys.of(self.crawl_id)
        self.worker_id = new_worker_id()
        self.client = connect(config.url)
        self.frontier = frontier_for(self.client, self.keys, config)
        self._register = self.client.register_script(REGISTER)
        self._check = self.frontier.script(CHECK_BODY)
        self.leases = Leases(self.client, self.keys, self.worker_id, self.stats, self.crawl_id)
        self.leases.use(self.frontier)
        #: further keys each heartbeat renews (the duplicate filter's)
        self.renewed: list[str] = []
        self._wake: Any = None
        self._wake_due = 0.0
        self.status = "busy"
        self.outcome: str | None = None
        self.emitter: str | None = None
        self.finished_before_start = False
        self.waiting = False
        self.registered = False
        self.failed = False
        self._heartbeat: LoopingCall | None = None

    # -- the extension -----------------------------------------------------------------------

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Coordinator:
        coordinator = coordinator_for(crawler)
        if coordinator is None:
            raise NotConfigured("STRUCTCRAWL_REDIS_URL is not set")
        connect_signal = crawler.signals.connect
        connect_signal(coordinator.spider_idle, signal=signals.spider_idle)
        connect_signal(coordinator.spider_closed, signal=signals.spider_closed)
        connect_signal(coordinator.item_error, signal=signals.item_error)
        add_page_keeper(crawler, coordinator.keep_failed)
        connect_signal(coordinator.page_finished, signal=signals.item_scraped)
        connect_signal(coordinator.page_finished, signal=signals.item_dropped)
        connect_signal(coordinator.spider_error, signal=signals.spider_error)
        return coordinator

    @property
    def _ttl_ms(self) -> int:
        return int(self.config.worker_timeout * 1000)

    @property
    def _expire_ms(self) -> int:
        return self.config.expire * 1000

    def register(self) -> None:
        """Join the crawl as ``busy`` (called when the scheduler opens)."""
        emitter = self._register(
            keys=[self.keys.worker(self.worker_id), self.keys.workers, self.keys.emitter],
            args=[self._ttl_ms, self.worker_id, self._expire_ms],
        )
        if emitter:
            self.finished_before_start = True
            self.outcome, self.emitter = "done", as_text(emitter)
            logger.warning(
                "distributed crawl %s has already finished (worker %s emitted its entities): "
                "this worker has nothing to do; a new crawl needs a new STRUCTCRAWL_CRAWL_ID",
                self.crawl_id,
                self.emitter,
            )
            return
        self.registered = True
        logger.info("distributed crawl %s: worker %s joined", self.crawl_id, self.worker_id)

    def start_heartbeat(self) -> None:
        """Beat every ``STRUCTCRAWL_REDIS_HEARTBEAT`` seconds until the spider closes."""
        if self.registered and self._heartbeat is None:
            self._heartbeat = LoopingCall(self.heartbeat)
            self._heartbeat.start(self.config.heartbeat, now=False)

    def heartbeat(self) -> None:
        """Renew this worker's status and the crawl's keys; poll the queue while waiting."""
        if self.failed or not self.registered:
            return
        try:
            with self.client.pipeline(transaction=False) as pipe:
                pipe.set(self.keys.worker(self.worker_id), self.status, px=self._ttl_ms, xx=True)
                for key in (*self.keys.fixed, self.leases.key, *self.renewed):
                    pipe.pexpire(key, self._expire_ms)
                alive = pipe.execute()[0]
            if not alive and self.outcome is None:
                self._presumed_dead()
            if self.outcome is None:
                self.leases.reap(self._expire_ms)
        except redis.RedisError as exc:
            self.redis_failed(exc, "heartbeat")
            return
        if self.waiting:
            self._nudge()

    def _presumed_dead(self) -> None:
        """This worker's status key is gone: it was presumed dead (its claims were requeued),
        unless the crawl just ended and the elected worker removed the crawl's keys."""
        done = self._register(
            keys=[self.keys.worker(self.worker_id), self.keys.workers, self.keys.emitter],
            args=[self._ttl_ms, self.worker_id, self._expire_ms],
        )
        if done:
            return  # the crawl is over; the next idle check says so
        logger.error(
            "distributed crawl %s: worker %s missed its heartbeats for %.0f s and was presumed "
            "dead by the others (a blocked event loop?); its claimed requests were requeued "
            "and pages it merges now may miss the entity feed",
            self.crawl_id,
            self.worker_id,
            self.config.worker_timeout,
        )
        self.stats.inc_value("structcrawl/failure/distributed/presumed_dead")
        self.status = "busy"

    def _nudge(self) -> None:
        """Make an idle engine ask the scheduler again now, rather than at its own 5 s
        heartbeat (Scrapy has no public call for this; without it, polling is just slower)."""
        slot = getattr(engine_of(self.crawler), "_slot", None)
        nextcall = getattr(slot, "nextcall", None)
        if nextcall is not None:
            nextcall.schedule()

    # -- the queue (for the scheduler) ---------------------------------------------------------

    def claim(self) -> tuple[bytes, bytes, bytes] | None:
        """Take the next request off the shared queue, hold it as a lease (the caller keeps
        its claim with :meth:`Leases.take`) and become ``busy``, atomically: ``(claim,
        stored form, origin)`` (``frontier.decode`` reads it), or None when no request may
        be fetched now (the engine is then woken when a host's delay ends)."""
        found = self.frontier.claim(
            [self.keys.worker(self.worker_id), self.keys.workers, self.leases.key],
            [self._ttl_ms, self.worker_id, self._expire_ms],
        )
        if isinstance(found, float):
            if found >= 0:
                self.wake_in(found)
            return None
        self.status, self.waiting = "busy", False
        self.stats.inc_value("structcrawl/distributed/claimed")
        return found

    def share(self, data: bytes, score: float) -> bool:
        """Put a serialized request on the priority queue (False: the crawl is already done)."""
        return self.frontier.share_data(data, score)

    def share_request(self, request: dict[str, Any]) -> bool:
        """Put a request dict on the shared queue (False: the crawl is already done)."""
        return self.frontier.share(request)

    def queue_size(self) -> int:
        return self.frontier.queue_size()

    def wake_in(self, seconds: float) -> None:
        """Ask the engine for requests again in ``seconds`` (when a host's delay ends)."""
        now = monotonic()
        due = now + max(seconds, 0.005)
        if now < self._wake_due <= due:
            return  # an earlier wake-up is set
        if self._wake is not None:
            self._wake.cancel()
        self._wake_due = due
        self._wake = call_later(due - now, self._woken)

    def _woken(self) -> None:
        self._wake_due = 0.0
        self._nudge()

    # -- the end of the crawl ------------------------------------------------------------------

    def decide(self) -> str:
        """``wait`` (other workers or queued requests), ``emit`` (this worker was elected) or
        ``done`` (another was); once decided, the answer stays."""
        if self.outcome is not None:
            return self.outcome
        if self.failed:
            return "wait"  # closing for the failure already; nothing to decide
        mine = "; ".join(crawl_failures(self.stats.get_stats()))
        keys = self.keys
        state, who, *reaped = self._check(
            keys=[
                *(self.frontier.queue_key, keys.workers, keys.emitter, keys.failed_workers),
                *(keys.dead_workers, self.leases.key),
            ],
            args=[
                *(self.worker_id, keys.worker_prefix, self._ttl_ms, self._expire_ms, mine),
                keys.claims_prefix,
                *self.frontier.tail,
            ],
        )
        state, who = as_text(state), as_text(who)
        if state != "done":
            self.leases.forget()  # idle: every claim is finished, and the script freed them
        self.leases.report(reaped)
        if state == "wait":
            if not self.waiting:
                logger.debug("distributed crawl %s: idle, waiting for %s", self.crawl_id, who)
            self.status, self.waiting = "idle", True
            self.stats.inc_value("structcrawl/distributed/waits")
            return "wait"
        self.waiting = False
        self.emitter = who
        if state == "elected":
            self.outcome = "emit"
            self.stats.set_value("structcrawl/distributed/elected", 1)
            logger.info(
                "distributed crawl %s is done: worker %s emits the entities",
                self.crawl_id,
                self.worker_id,
            )
            self._count_peer_failures()
            self.leases.totals()
        else:
            self.outcome = "done"
            logger.info(
                "distributed crawl %s is done: worker %s emits the entities", self.crawl_id, who
            )
        return self.outcome

    def may_emit(self) -> bool:
        """For the entity pipeline at ``spider_idle``: True on the elected worker, False on
        the others; raises ``DontCloseSpider`` while the crawl goes on."""
        try:
            outcome = self.decide()
        except redis.RedisError as exc:
            self.redis_failed(exc, "deciding whether the crawl is done")
            return False
        if outcome == "wait":
            raise DontCloseSpider
        return outcome == "emit"

    def spider_idle(self) -> None:
        if self.failed:
            return
        try:
            outcome = self.decide()
        except redis.RedisError as exc:
            self.redis_failed(exc, "deciding whether the crawl is done")
            return
        if outcome == "wait":
            raise DontCloseSpider

    def spider_closed(self, reason: str) -> None:
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()
        if self._wake is not None:
            self._wake.cancel()
        if not self.registered or self.failed:
            self.client.close()
            return
        try:
            problems = crawl_failures({"finish_reason": reason})
            self.leases.hand_back()
            with self.client.pipeline(transaction=True) as pipe:
                if problems:
                    pipe.hset(self.keys.failed_workers, self.worker_id, f"closed ({reason})")
                    pipe.pexpire(self.keys.failed_workers, self._expire_ms)
                pipe.srem(self.keys.workers, self.worker_id)
                pipe.delete(self.keys.worker(self.worker_id))
                pipe.execute()
            if self.outcome == "emit" and reason == "finished":
                self._remove_crawl_state()
        except redis.RedisError as exc:
            logger.error("distributed crawl %s: could not leave cleanly: %s", self.crawl_id, exc)
            self.stats.inc_value("structcrawl/failure/redis")
        finally:
            self.client.close()

    def _remove_crawl_state(self) -> None:
        removed = 0
        batch: list[bytes] = []
        emitter = self.keys.emitter.encode("utf-8")
        for key in self.client.scan_iter(match=self.keys.pattern, count=1000):
            if key != emitter:
                batch.append(key)
            if len(batch) >= 1000:
                removed += int(self.client.unlink(*batch))
                batch = []
        if batch:
            removed += int(self.client.unlink(*batch))
        self.client.pexpire(self.keys.emitter, self._expire_ms)
        self.stats.set_value("structcrawl/distributed/removed_keys", removed)
        logger.info("distributed crawl %s: removed its %d Redis keys", self.crawl_id, removed)

    def page_finished(self, item: Any, response: Any) -> None:
        """An item was exported or dropped: the lease of the request it came from ends."""
        self.leases.finished(response)

    def item_error(self, item: Any, response: Any, failure: Any) -> None:
        self.leases.finished(response)
        if failure.check(redis.RedisError):
            # a fetched page goes to the outage file, once, whether the page ledger asked first
            keep_failed_page(self.crawler, item, failure)
            self.redis_failed(failure.value, "processing an item")
