"""A live progress line on long crawls (extension, enabled by :class:`structcrawl.Addon`).

Every ``STRUCTCRAWL_PROGRESS_INTERVAL`` seconds (0 = off) it logs one line::

    progress: 1,204 pages done, 3,310 queued, 6.1 pages/s, 8,922 records, 17 errors,
    42 in the browser, ETA 0:09:02

pages done are page items (not entities: Scrapy's LogStats counts both as "items"); queued is
the scheduler's backlog; records are entity records, errors error records; the ETA appears
when the sitemaps named how many pages there are (stat ``structcrawl/site/sitemap_urls``). The
same figures go to the stats as ``structcrawl/progress/*`` at the end.
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta
from typing import Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.asyncio import create_looping_call

from structcrawl.crawl.config import DEFAULTS

__all__ = ["Progress", "progress_line"]

logger = logging.getLogger(__name__)


def progress_line(
    done: int,
    queued: int | None,
    elapsed: float,
    records: int,
    errors: int,
    browser: int,
    total: int | None = None,
) -> str:
    """The progress line.

    >>> progress_line(1204, 3310, 200.0, 8922, 17, 42, total=4600)
    'progress: 1,204 pages done, 3,310 queued, 6.0 pages/s, 8,922 records, 17 errors, 42 in the browser, ETA 0:09:24'
    >>> progress_line(0, None, 0.0, 0, 0, 0)
    'progress: 0 pages done, 0.0 pages/s, 0 records, 0 errors, 0 in the browser'
    """  # noqa: E501
    rate = done / elapsed if elapsed > 0 else 0.0
    parts = [f"{done:,} pages done"]
    if queued is not None:
        parts.append(f"{queued:,} queued")
    parts += [
        f"{rate:.1f} pages/s",
        f"{records:,} records",
        f"{errors:,} errors",
        f"{browser:,} in the browser",
    ]
    if total and rate > 0 and total > done:
        parts.append(f"ETA {timedelta(seconds=round((total - done) / rate))}")
    return "progress: " + ", ".join(parts)


class Progress:
    """See the module documentation."""

    def __init__(self, crawler: Crawler, interval: float):
        self.crawler = crawler
        self.interval = interval
        self.started = time.monotonic()
        self.done = self.records = self.errors = self.browser = 0
        self.task: Any = None
        crawler.signals.connect(self.item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(self.spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Progress:
        name = "STRUCTCRAWL_PROGRESS_INTERVAL"
        interval = float(crawler.settings.get(name, DEFAULTS[name].default) or 0)
        if interval <= 0:
            raise NotConfigured(f"{name} is 0")
        return cls(crawler, interval)

    def item_scraped(self, item: Any) -> None:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names():
            return  # an entity item
        self.done += 1
        if adapter.get("fetched_with") == "browser":
            self.browser += 1
        for record in adapter.get("records") or []:
            kind = record.get("kind") if isinstance(record, dict) else None
            if kind == "entity":
                self.records += 1
            elif kind == "error":
                self.errors += 1

    def _queued(self) -> int | None:
        """Requests not done yet: the scheduler's backlog and those in the downloader (waiting
        in a site's slot for its delay, or downloading)."""
        try:
            engine = self.crawler.engine
        except RuntimeError:  # the crawl has not started
            return None
        scheduler = getattr(engine, "scheduler", None)  # Scrapy >= 2.19
        downloader = getattr(engine, "downloader", None)
        try:
            backlog = len(scheduler) if scheduler is not None else None  # type: ignore[arg-type]
        except TypeError:  # a scheduler without a length
            return None
        if backlog is None:
            return None
        return backlog + len(getattr(downloader, "active", ()))

    def line(self) -> str:
        stats = self.crawler.stats
        total = stats.get_value("structcrawl/site/sitemap_urls") if stats else None
        return progress_line(
            self.done,
            self._queued(),
            time.monotonic() - self.started,
            self.records,
            self.errors,
            self.browser,
            total=int(total) if total else None,
        )

    def log(self) -> None:
        logger.info(self.line())

    def spider_opened(self, spider: Any) -> None:
        self.started = time.monotonic()
        self.task = create_looping_call(self.log)
        self.task.start(self.interval, now=False)

    def spider_closed(self, spider: Any, reason: str) -> None:
        if self.task is not None and self.task.running:
            self.task.stop()
        stats = self.crawler.stats
        if stats is not None:
            for name in ("done", "records", "errors", "browser"):
                stats.set_value(f"structcrawl/progress/{name}", getattr(self, name))
