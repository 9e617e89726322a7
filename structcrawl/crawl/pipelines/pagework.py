"""A page's pure work read in a worker process, beside the crawl's event loop
(``STRUCTCRAWL_PAGE_WORKERS``).

Two readings of a page cost as much as all the rest of its work, and all of it on the thread
that runs Scrapy: the visible page on a product page (its stock wording, the prices it shows,
the product's evidence: 20-30 ms a large page) and, where typed items are built, the primary
article's main text on a news page (trafilatura, ~20 ms). Both are pure functions of the
parsed page. This pipeline, placed before the record checks and the resolution that read
them, sends each page's bytes to a worker process (:mod:`structcrawl.workers.page`), which
parses them as the crawl did and reads them; the answers are put on the crawl's parsed page
(its memo, where each reader finds its reading: :func:`structcrawl.visible.wire.adopt`,
:data:`structcrawl.articles.body.MAIN_TEXT_MEMO`); meanwhile the event loop goes on with other
pages, and the page is read on another core.

What is sent: the visible page's readings while ``STRUCTCRAWL_VISIBLE_PAGE`` is on, on the
pages whose checks or resolution may read them (:func:`structcrawl.typed.shown.may_read_visible`:
all but those whose records make an article, an event or the like and nothing with a price),
the stock, prices and old prices only where a record is a product or an offer or has a price
(:func:`structcrawl.typed.shown.product_records`; else the grid's products: a category page);
the main text where typed items are built and the resolution may read it
(:func:`structcrawl.articles.complete.may_read_main_text`).

The readings are those the crawl would make: the same functions on the same tree (a page whose
worker's tree has another number of elements keeps nothing of its answer:
``structcrawl/workers/unmatched``). A reading not sent, or a page whose worker ended without
answering (killed, out of memory: logged, counted, the next page goes to a new worker) or
raised, is read in process when asked for, as is every page once :data:`GIVE_UP` workers
ended so; never a lost page. The pool starts with the first page and stops with the engine; a
worker whose crawl was killed ends with it (:mod:`structcrawl.workers.pool`); a worker process
holds 50-75 MB at its peak on large pages (lxml, one page's tree, the visible readers,
trafilatura once a main text is asked for).

While :data:`WAITING` pages wait for each worker, the next page that needs no main text is
read in process: the two cores share the work (the worker's reading costs more than the
crawl's share of it: the worker parses the page again and makes every reading, the crawl only
those its page needs), and few parsed pages wait in memory. A main text (trafilatura, the
costlier reading by far) always goes to the worker.

Stats: ``structcrawl/workers/pages`` (pages a worker read), ``/workers/busy`` (pages read in
process while the workers were busy), ``/workers/failed`` (pages whose worker failed, read in
process instead), ``/workers/unmatched``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from itemadapter import ItemAdapter
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from structcrawl.articles.body import MAIN_TEXT_MEMO
from structcrawl.articles.complete import may_read_main_text
from structcrawl.core.allocator import MMAP_THRESHOLD_ENV
from structcrawl.core.document import Document
from structcrawl.core.setting import setting_value
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.malloctune import mmap_threshold
from structcrawl.crawl.pipelines.typeditems import items_wanted
from structcrawl.typed.shown import may_read_visible, product_records
from structcrawl.visible.wire import adopt
from structcrawl.workers.page import READ_PAGE
from structcrawl.workers.pool import WorkerError, WorkerPool

__all__ = ["GIVE_UP", "WAITING", "PageWorkConfig", "PageWorkPipeline"]

logger = logging.getLogger(__name__)

#: failed workers after which the crawl reads every page in process
GIVE_UP = 3
#: pages waiting for each worker beyond which the next page is read in process (the two
#: cores share the work, and few parsed pages wait in memory: ~3 MB of tree for a 700 KB page).
#: The crawl's thread is the busier one: a page the worker reads costs the crawl nothing more,
#: though the worker's reading costs more (it parses again), so the worker is kept fed. On the
#: large product pages (docs/speed.md) 3 beat 2 in every round; 4 gained a little more, but
#: `structcrawl crawl`'s tree then passed 300 MB, until the records stopped holding their
#: pages' trees (plain strings from microdata): 4 then beat 3 in 10 of 12 pairs of two runs,
#: one tied (pages/s +4 to +12% `scrapy crawl site`, +1 to +7% `structcrawl crawl`), the trees
#: 3-5 MB larger (`structcrawl crawl` at 283-284 MB); 8 and more gained nothing
WAITING = 4


@dataclass(frozen=True, slots=True)
class PageWorkConfig:
    workers: int  # STRUCTCRAWL_PAGE_WORKERS: processes (0 = read in process)
    visible: bool  # STRUCTCRAWL_VISIBLE_PAGE: the visible page is read at all
    main_text: bool  # the resolution reads main texts (STRUCTCRAWL_ARTICLE_BODY, typed items)
    mmap_threshold: int  # STRUCTCRAWL_MMAP_THRESHOLD, for the workers too (0: glibc's own)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageWorkConfig:
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


class PageWorkPipeline:
    def __init__(self, crawler: Crawler, config: PageWorkConfig):
        self.stats = crawler.stats
        self.config = config
        self._pool: WorkerPool | None = None
        self._failures = 0  # workers lost so far, as last said in the log (GIVE_UP: given up)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageWorkPipeline:
        config = PageWorkConfig.from_crawler(crawler)
        if not config.workers:
            raise NotConfigured("STRUCTCRAWL_PAGE_WORKERS is 0: every page read in process")
        if not (config.visible or config.main_text):
            raise NotConfigured("neither the visible page nor main texts are read")
        return cls(crawler, config)

    def _workers(self) -> WorkerPool:
        if self._pool is None:
            threshold = self.config.mmap_threshold
            env = {MMAP_THRESHOLD_ENV: str(threshold)} if threshold else {}
            self._pool = WorkerPool(self.config.workers, env=env)
        return self._pool

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names() or self._failures >= GIVE_UP:
            return item
        document = adapter.get("document")
        body = adapter.get("body")
        if not isinstance(document, Document) or not isinstance(body, bytes):
            return item
        records = list(adapter.get("records") or [])
        product = product_records(records)  # else no stock or prices are read, maybe a grid
        visible = self.config.visible and (product or may_read_visible(records))
        main_text = (
            self.config.main_text
            and MAIN_TEXT_MEMO not in document.memo
            and may_read_main_text(records, document)
        )
        if not (visible or main_text):
            return item
        pool = self._workers()
        if not main_text and pool.waiting() >= WAITING * self.config.workers:
            self.stats.inc_value("structcrawl/workers/busy")  # the page is read here, meanwhile
            return item
        args = [document.url, _content_type(adapter.get("headers")), visible, main_text, product]
        try:
            said = await pool.ask(READ_PAGE, args, body)
        except WorkerError as exc:  # the page's reading raised there: read in process
            self.stats.inc_value("structcrawl/workers/failed")
            logger.warning("a worker could not read %s (%s); read in process", document.url, exc)
            return item
        except Exception as exc:  # a worker ended (killed, out of memory): read in process
            self._fail(exc)
            return item
        if "visible" in said and not adopt(document, said["visible"]):
            self.stats.inc_value("structcrawl/workers/unmatched")
            return item
        if "main_text" in said:
            text = said["main_text"]
            document.memo[MAIN_TEXT_MEMO] = text if isinstance(text, str) else None
        self.stats.inc_value("structcrawl/workers/pages")
        return item

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
            self._shutdown()

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def engine_stopped(self) -> None:
        self._shutdown()


def _content_type(headers: Any) -> str | None:
    """The response's ``Content-Type`` as the page was parsed with (the last one sent)."""
    for name, values in (headers or {}).items():
        if name.lower() == "content-type" and values:
            return str(values[-1])
    return None
