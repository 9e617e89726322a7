"""What a worker of a distributed crawl tells the others besides its requests: its failures
and those of its peers, the pages that failed (change detection), and Redis outages (the
first one closes the spider: a worker never goes on alone). A part of
:class:`~structcrawl.distributed.coordination.Coordinator`."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import redis
from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.utils.defer import deferred_from_coro

from structcrawl.changes.tracker import page_failed
from structcrawl.crawl.feedstorage import rescue_path
from structcrawl.distributed.config import CrawlKeys

__all__ = ["Failures", "as_text", "engine_of"]

logger = logging.getLogger("structcrawl.distributed.coordination")
_TRANSIENT = frozenset({"body", "server_body", "document", "network", "resolution"})


def as_text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def engine_of(crawler: Crawler) -> Any:
    """The crawler's engine, or None before the crawl starts."""
    try:
        return crawler.engine
    except (AttributeError, RuntimeError):
        return None


class Failures:
    """Failures shared through Redis (mixed into the coordinator)."""

    crawler: Crawler
    client: redis.Redis
    keys: CrawlKeys
    stats: Any
    crawl_id: str
    worker_id: str
    failed: bool
    #: the local file of what this worker could not finish once Redis failed (None before)
    outage_file: Path | None = None

    @property
    def _expire_ms(self) -> int:
        raise NotImplementedError

    def _count_peer_failures(self) -> None:
        failures = {
            as_text(k): as_text(v)
            for k, v in self.client.hgetall(self.keys.failed_workers).items()
            if as_text(k) != self.worker_id
        }
        if failures:
            for worker, reason in sorted(failures.items()):
                logger.warning(
                    "distributed crawl %s: worker %s failed: %s", self.crawl_id, worker, reason
                )
            self.stats.set_value("structcrawl/failure/distributed/workers", len(failures))

    # -- failed pages (change detection) ---------------------------------------------------

    def see_page(self, item: Any) -> None:
        """Share the URLs of a page item that failed (its entities may not be gone)."""
        adapter = ItemAdapter(item)
        if not page_failed(adapter):
            return
        urls = {str(u) for u in (adapter.get("url"), adapter.get("final_url")) if u}
        if urls:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.sadd(self.keys.failed_pages, *urls)
                pipe.pexpire(self.keys.failed_pages, self._expire_ms)
                pipe.execute()

    def failed_pages(self) -> Iterable[str]:
        return [as_text(u) for u in self.client.sscan_iter(self.keys.failed_pages, count=1000)]

    # -- Redis outages -------------------------------------------------------------------------

    def redis_failed(self, exc: BaseException, doing: str) -> None:
        """Count the failure; the first one logs and closes the spider (never goes on alone)."""
        self.stats.inc_value("structcrawl/failure/redis")
        if self.failed:
            return
        self.failed = True
        try:
            self.outage_file = rescue_path(self.crawler.settings, "redis-outage.jsonl", "outage")
        except OSError as file_exc:
            logger.error("no local file for what Redis did not take: %s", file_exc)
        logger.error(
            "distributed crawl %s: Redis failed while %s (%s: %s); worker %s stops; the pages "
            "it fetched that could not be finished and the requests it held go to %s, the "
            "URLs it requested without an outcome are in its ledger as "
            "unfinished:redis-unavailable",
            self.crawl_id,
            doing,
            type(exc).__name__,
            exc,
            self.worker_id,
            self.outage_file,
        )
        engine = engine_of(self.crawler)
        if engine is not None and getattr(engine, "spider", None) is not None:
            deferred_from_coro(engine.close_spider_async(reason="redis-unavailable"))

    def keep(self, line: dict[str, Any]) -> bool:
        """One line (``{"kind": "page" | "request", ...}``) of the outage file; when the file
        cannot be written, the line is logged instead (nothing goes unseen). Whether the file
        holds it."""
        text = json.dumps(line, ensure_ascii=False, default=str)
        try:
            assert self.outage_file is not None
            with self.outage_file.open("a", encoding="utf-8") as fh:
                fh.write(text + "\n")
            self.stats.inc_value(f"structcrawl/distributed/outage/{line['kind']}s")
            return True
        except (AssertionError, OSError) as exc:
            logger.error("not kept (%s): %s", exc, text[:2000])
            return False

    def keep_page(self, item: Any, failure: Any) -> bool:
        """A fetched page whose processing failed on Redis: its page item, records included."""
        adapter = ItemAdapter(item)
        page = {k: v for k, v in adapter.items() if k not in _TRANSIENT}
        why = f"{getattr(failure, 'type', Exception).__name__}: {getattr(failure, 'value', '')}"
        return self.keep({"kind": "page", "url": adapter.get("url"), "why": why, "page": page})

    def keep_failed(self, item: Any, failure: Any) -> str | None:
        """The page keeper (:func:`structcrawl.crawl.feedstorage.keep_failed_page`): a page
        item whose processing failed on Redis goes to the outage file; where it is."""
        if not failure.check(redis.RedisError):
            return None
        if "records" not in ItemAdapter(item).field_names():
            return None
        self.redis_failed(failure.value, "processing an item")
        if not self.keep_page(item, failure):
            return None
        return f"Redis failed: the page is kept in {self.outage_file}"

    def spider_error(self, failure: Any) -> None:
        if failure.check(redis.RedisError):
            self.redis_failed(failure.value, "in a callback")
