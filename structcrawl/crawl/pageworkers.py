"""The crawl's page worker processes (``STRUCTCRAWL_PAGE_WORKERS``), shared by the download
handler, which has each HTML page read whole by a worker before the crawl parses it, and the
page work pipeline, which has a worker read what a page parsed here still needs
(:mod:`structcrawl.crawl.pipelines.pagework`).

:class:`WholeReads` is the download handler's page reader (:mod:`structcrawl.render.pagereads`):
each 2xx HTML page the handler judges is sent to a worker (:mod:`structcrawl.pageread.whole`),
whose answer gives the render judgement and a page not parsed here
(:class:`~structcrawl.core.document.LazyDocument`) that the spider and the pipelines read. A
page is judged and parsed in the handler as before while the workers are busy, where they
failed, or where a site rule applies to its URL (its selectors read the crawl's tree).

Stats: ``structcrawl/workers/whole`` (pages read whole by a worker), ``/workers/whole_busy``
(parsed in the handler while the workers were busy),
``/workers/whole_site_rules`` (parsed in the handler: a site rule applies),
``/workers/parsed_anyway`` (read whole, and parsed here all the same for a reader the worker
did not answer).

One :class:`PageWorkers` per crawler (:meth:`PageWorkers.of`). Its pool starts with the first
page and stops with the engine; a worker whose crawl was killed ends with it
(:mod:`structcrawl.workers.pool`). A page whose worker ended without answering (killed, out of
memory: logged, counted, the next page goes to a new worker) or raised is read in process, as
is every page once :data:`GIVE_UP` workers ended so: never a lost page. While each worker
holds :data:`WAITING` pages (asked, not answered), the next page is read in process: the two
cores share the work, and few pages wait in memory.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings

from structcrawl.core.allocator import MMAP_THRESHOLD_ENV
from structcrawl.core.collector import GC_TUNING_ENV
from structcrawl.core.document import LazyDocument
from structcrawl.core.payload import classify
from structcrawl.core.setting import setting_value
from structcrawl.crawl.config import DEFAULTS, RulesConfig
from structcrawl.crawl.malloctune import mmap_threshold
from structcrawl.extract.config import ExtractConfig
from structcrawl.pageread.whole import READ_WHOLE, Reading, reading_document
from structcrawl.render.pagereads import register_reader
from structcrawl.render.routing import ShellVerdict
from structcrawl.rules import load_rules
from structcrawl.workers.pool import WorkerError, WorkerPool

__all__ = ["GIVE_UP", "WAITING", "PageWorkConfig", "PageWorkers", "WholeReads"]

logger = logging.getLogger(__name__)

#: failed workers after which the crawl reads every page in process
GIVE_UP = 3
#: pages a worker holds (asked, not answered) beyond which the next page is read in process
#: (the two cores share the work, and few pages wait in memory: ~3 MB of tree for a 700 KB
#: page). On the large product pages (docs/speed.md), counting the answers that wait for the
#: busy event loop as held: 3 beat 2 in every round, 4 beat 3 in 10 of 12 pairs of two runs,
#: 8 and more gained nothing. Counting only what the worker holds, 5 and 6 beat 4 and the
#: former count in most rounds (a page waiting for a worker keeps one of the host's download
#: slots: 11, more than the issue's 8 a host, lost a sixth)
WAITING = 5


@dataclass(frozen=True, slots=True)
class PageWorkConfig:
    workers: int  # STRUCTCRAWL_PAGE_WORKERS: processes (0 = read in process)
    visible: bool  # STRUCTCRAWL_VISIBLE_PAGE: the visible page is read at all
    main_text: bool  # the resolution reads main texts (STRUCTCRAWL_ARTICLE_BODY, typed items)
    mmap_threshold: int  # STRUCTCRAWL_MMAP_THRESHOLD, for the workers too (0: glibc's own)
    gc_tuning: bool = True  # STRUCTCRAWL_GC_TUNING, for the workers too

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
            gc_tuning=flag("STRUCTCRAWL_GC_TUNING"),
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
        #: pages are offered to be read whole (the download handler judges them): one that a
        #: worker did not read was parsed in the crawl because the workers were busy
        self.reading_whole = False
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)
        register_reader(crawler, WholeReads(crawler, self))  # each page read whole first

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
            if self.config.gc_tuning:
                env[GC_TUNING_ENV] = "1"
            self._pool = WorkerPool(self.config.workers, env=env)
        return self._pool

    def busy(self) -> bool:
        """Whether each worker holds :data:`WAITING` pages (the next is read here)."""
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


class WholeReads:
    """The download handler's page reader: each page read whole by a worker (module doc)."""

    def __init__(self, crawler: Crawler, workers: PageWorkers):
        self.stats = crawler.stats
        self._workers = workers
        config = workers.config
        extract = ExtractConfig.from_settings(crawler.settings)
        self._spec = Reading.spec(extract, config.visible, config.main_text)
        rules = RulesConfig.from_settings(crawler.settings)
        #: the site rules, whose selectors read the crawl's own tree: a page one applies to is
        #: parsed here (read whole, it would be parsed twice)
        self._rules = load_rules(rules.rules_dir) if rules.enabled else None

    async def read(
        self, body: bytes, url: str, content_type: str | None, expect: Sequence[str]
    ) -> tuple[ShellVerdict, LazyDocument | None] | None:
        """The verdict on a 2xx page and the page as a worker read it (None: judged to need
        a browser); None where the handler judges and parses it itself."""
        workers = self._workers
        if workers.given_up or classify(content_type, body) not in ("html", "xhtml"):
            return None
        if self._rules is not None and self._rules.for_url(url) is not None:
            self.stats.inc_value("structcrawl/workers/whole_site_rules")
            return None
        workers.reading_whole = True
        if workers.busy():
            self.stats.inc_value("structcrawl/workers/whole_busy")
            return None
        args = [url, content_type, list(expect), self._spec]
        said = await workers.ask(READ_WHOLE, args, body, url)
        if said is None:  # failed there: judged and parsed here
            return None
        try:
            reading = Reading.from_answer(said)
            doc = None
            if not reading.verdict.js_only:
                doc = reading_document(
                    reading, url, body, content_type, on_parse=self._parsed_anyway
                )
        except Exception:  # a bug: the page is judged and parsed here, as without a worker
            logger.exception("could not take a worker's reading of %s", url)
            self.stats.inc_value("structcrawl/workers/failed")
            return None
        self.stats.inc_value("structcrawl/workers/whole")
        return reading.verdict, doc

    def _parsed_anyway(self) -> None:
        self.stats.inc_value("structcrawl/workers/parsed_anyway")
