"""The crawl's page worker processes (``STRUCTCRAWL_PAGE_WORKERS``), which the page work
pipeline has read what a page needs beside the crawl's event loop
(:mod:`structcrawl.crawl.pipelines.pagework`).

One :class:`PageWorkers` per crawler (:meth:`PageWorkers.of`). Its pool starts with the first
page and stops with the engine; a worker whose crawl was killed ends with it
(:mod:`structcrawl.workers.pool`). A page whose worker ended without answering (killed, out of
memory: logged, counted, the next page goes to a new worker) or raised is read in process, as
is every page once :data:`GIVE_UP` workers ended so: never a lost page. While :data:`WAITING`
pages wait for each worker, the next page is read in process: the two cores share the work,
and few pages wait in memory.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings

from structcrawl.core.allocator import MMAP_THRESHOLD_ENV
from structcrawl.core.setting import setting_value
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.malloctune import mmap_threshold
from structcrawl.workers.pool import WorkerError, WorkerPool

__all__ = ["GIVE_UP", "WAITING", "PageWorkConfig", "PageWorkers"]

logger = logging.getLogger(__name__)

#: failed workers after which the crawl reads every page in process
GIVE_UP = 3
#: pages waiting for each worker beyond which the next page is read in process (the two
#: cores share the work, and few pages wait in memory: ~3 MB of tree for a 700 KB page).
#: On the large product pages (docs/speed.md) 3 beat 2 in every round, 4 beat 3 in 10 of 12
#: pairs of two runs; 8 and more gained nothing
WAITING = 4


@dataclass(frozen=True, slots=True)
class PageWorkConfig:
    workers: int  # STRUCTCRAWL_PAGE_WORKERS: processes (0 = read in process)
    visible: bool  # STRUCTCRAWL_VISIBLE_PAGE: the visible page is read at all
    main_text: bool  # the resolution reads main texts (STRUCTCRAWL_ARTICLE_BODY, typed items)
    mmap_threshold: int  # STRUCTCRAWL_MMAP_THRESHOLD, for the workers too (0: glibc's own)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageWorkConfig:
        from structcrawl.crawl.pipelines.typeditems import items_wanted

        settings: BaseSettings = crawler.settings
        former = settings.get("STRUCTCRAWL_ARTICLE_BODY_WORKERS")  # the setting's former name
        workers = (
            former
            if former is not None
            else setting_value(settings, DEFAULTS, "STRUCTCRAWL_PAGE_WORKERS")
        )

        def flag(name: str) -> bool:
            return settings.getbool(name, DEFAULTS[name].default)

        return cls(
            workers=max(int(workers), 0),
            visible=flag("STRUCTCRAWL_VISIBLE_PAGE"),
            main_text=flag("STRUCTCRAWL_ARTICLE_BODY") and items_wanted(crawler),
            mmap_threshold=mmap_threshold(settings),
        )


class PageWorkers:
    """A crawl's worker processes (see the module doc)."""

    _of: ClassVar[weakref.WeakKeyDictionary[Crawler, PageWorkers | None]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, crawler: Crawler, config: PageWorkConfig):
        self.stats = crawler.stats
        self.config = config
        self._pool: WorkerPool | None = None
        self._failures = 0  # workers lost so far, as last said in the log (GIVE_UP: given up)
        self.given_up = False  # every page read in process from now on
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def of(cls, crawler: Crawler) -> PageWorkers | None:
        """The crawl's workers; None where ``STRUCTCRAWL_PAGE_WORKERS`` is 0."""
        if crawler not in cls._of:
            config = PageWorkConfig.from_crawler(crawler)
            cls._of[crawler] = cls(crawler, config) if config.workers else None
        return cls._of[crawler]

    def _workers(self) -> WorkerPool:
        if self._pool is None:
            threshold = self.config.mmap_threshold
            env = {MMAP_THRESHOLD_ENV: str(threshold)} if threshold else {}
            self._pool = WorkerPool(self.config.workers, env=env)
        return self._pool

    def busy(self) -> bool:
        """Whether :data:`WAITING` pages wait for each worker (the next is read here)."""
        return self._pool is not None and self._pool.waiting() >= WAITING * self.config.workers

    async def ask(self, call: str, args: list[Any], body: bytes, url: str) -> Any:
        """What a worker's ``call`` returns for ``body`` and ``args``; None (logged, counted)
        where it raised there or the worker ended without answering, or the workers were
        given up: the page is then read in process."""
        if self.given_up:
            return None
        try:
            return await self._workers().ask(call, args, body)
        except WorkerError as exc:  # the page's reading raised there
            self.stats.inc_value("structcrawl/workers/failed")
            logger.warning("a worker could not read %s (%s); read in process", url, exc)
        except Exception as exc:  # a worker ended (killed, out of memory)
            self._fail(exc)
        return None

    def _fail(self, exc: BaseException) -> None:
        """A worker ended without answering: its pages are read in process, the next pages go
        to a new worker, until :data:`GIVE_UP` workers have ended so."""
        self.stats.inc_value("structcrawl/workers/failed")
        pool = self._pool
        lost = pool.lost if pool is not None else GIVE_UP
        if lost > self._failures:  # the first of this worker's pages to fail: said once
            self._failures = lost
            logger.warning(
                "a page worker failed (%s: %s); its pages are read in process%s",
                type(exc).__name__,
                exc,
                ", as are all the others from now on" if lost >= GIVE_UP else "",
            )
        if lost >= GIVE_UP:  # every page read in process from now on
            self.given_up = True
            self._shutdown()

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def engine_stopped(self) -> None:
        self.given_up = True
        self._shutdown()
