"""Article main texts read in a worker process, beside the crawl's event loop
(``STRUCTCRAWL_ARTICLE_BODY_WORKERS``).

A crawl that builds typed items reads the primary article's body from the page's main text
(trafilatura, :func:`structcrawl.articles.body.main_text`) when its markup carries no whole
``articleBody``: ~20 ms a news page, as much as all the rest of its work, and all of it on the
thread that runs Scrapy. This pipeline, placed before the stages that resolve the page, sends
the HTML of each page whose resolution may read it
(:func:`structcrawl.articles.complete.may_read_main_text`) to a worker process and keeps the
text on the parsed page (its memo, where the resolution finds it); meanwhile the event loop
goes on with other pages, and the text is read on another core.

The text is the one the resolution would read itself: the same function
(:func:`structcrawl.workers.maintext.html_main_text`, run by :mod:`structcrawl.workers.serve`)
on the same HTML
(:func:`structcrawl.articles.body.page_html`). A page the prediction misses (a byline shown
without markup) reads it in process when resolved, as does a page whose worker ended without
answering (killed, out of memory: logged, counted, the next page goes to a new worker) and
every page once :data:`GIVE_UP` workers have; never a lost page. The pool
starts with the first page that needs it (a crawl of shops may never start it) and stops with
the engine; a worker whose crawl was killed ends with it (its input ends:
:mod:`structcrawl.workers.pool`); a worker process holds ~55 MB (it imports trafilatura and
lxml, nothing of Scrapy).

Stats: ``structcrawl/maintext/worker/pages`` (texts read by a worker),
``/worker/failed`` (pages whose worker failed, read in process instead).
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

from structcrawl.articles.body import MAIN_TEXT_MEMO, page_html
from structcrawl.articles.complete import may_read_main_text
from structcrawl.core.document import Document
from structcrawl.core.setting import setting_value
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.pipelines.typeditems import items_wanted
from structcrawl.workers.pool import WorkerPool

__all__ = ["MainTextConfig", "MainTextPipeline"]

logger = logging.getLogger(__name__)

#: failed workers after which the crawl reads every main text in process
GIVE_UP = 3


@dataclass(frozen=True, slots=True)
class MainTextConfig:
    workers: int  # STRUCTCRAWL_ARTICLE_BODY_WORKERS: processes (0 = read in process)
    article_body: bool  # STRUCTCRAWL_ARTICLE_BODY: the resolution reads main texts at all

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> MainTextConfig:
        return cls(
            workers=max(
                int(setting_value(settings, DEFAULTS, "STRUCTCRAWL_ARTICLE_BODY_WORKERS")), 0
            ),
            article_body=settings.getbool(
                "STRUCTCRAWL_ARTICLE_BODY", DEFAULTS["STRUCTCRAWL_ARTICLE_BODY"].default
            ),
        )


class MainTextPipeline:
    def __init__(self, crawler: Crawler, config: MainTextConfig):
        self.stats = crawler.stats
        self.config = config
        self._pool: WorkerPool | None = None
        self._failures = 0  # workers lost so far, as last said in the log (GIVE_UP: given up)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MainTextPipeline:
        config = MainTextConfig.from_settings(crawler.settings)
        if not config.workers:
            raise NotConfigured("STRUCTCRAWL_ARTICLE_BODY_WORKERS is 0: main texts in process")
        if not config.article_body:
            raise NotConfigured("STRUCTCRAWL_ARTICLE_BODY is off: no main text is read")
        if not items_wanted(crawler):
            raise NotConfigured("no typed items are built: no main text is read")
        return cls(crawler, config)

    def _workers(self) -> WorkerPool:
        if self._pool is None:
            self._pool = WorkerPool(self.config.workers)
        return self._pool

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names() or self._failures >= GIVE_UP:
            return item
        document = adapter.get("document")
        if not isinstance(document, Document) or MAIN_TEXT_MEMO in document.memo:
            return item
        if not may_read_main_text(list(adapter.get("records") or []), document):
            return item
        html = page_html(document)
        if html is None:  # too large: the resolution reads no main text either
            return item
        try:
            text = await self._workers().ask([html, document.url])
        except Exception as exc:  # a worker ended (killed, out of memory): read in process
            self._fail(exc)
            return item
        document.memo[MAIN_TEXT_MEMO] = text if isinstance(text, str) else None
        self.stats.inc_value("structcrawl/maintext/worker/pages")
        return item

    def _fail(self, exc: BaseException) -> None:
        """A worker ended without answering: its pages read their text in process, the next
        pages go to a new worker, until :data:`GIVE_UP` workers have ended so."""
        self.stats.inc_value("structcrawl/maintext/worker/failed")
        pool = self._pool
        lost = pool.lost if pool is not None else GIVE_UP
        if lost > self._failures:  # the first of this worker's pages to fail: said once
            self._failures = lost
            logger.warning(
                "a main-text worker failed (%s: %s); its pages' main texts are read in process%s",
                type(exc).__name__,
                exc,
                ", as are all the others from now on" if lost >= GIVE_UP else "",
            )
        if lost >= GIVE_UP:  # every main text read in process from now on
            self._shutdown()

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()

    def engine_stopped(self) -> None:
        self._shutdown()
