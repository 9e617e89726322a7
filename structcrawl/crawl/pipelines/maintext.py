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
(:func:`structcrawl.workers.maintext.html_main_text`) on the same HTML
(:func:`structcrawl.articles.body.page_html`). A page the prediction misses (a byline shown
without markup) reads it in process when resolved, as does every page once the worker pool
fails (a worker killed, out of memory): logged once, counted, never a lost page. The pool
starts with the first page that needs it (a crawl of shops may never start it) and stops with
the engine; a worker whose crawl was killed exits by itself
(:func:`structcrawl.workers.maintext.quiet_worker`); a worker process holds ~65 MB.

Stats: ``structcrawl/maintext/worker/pages`` (texts read by a worker),
``/worker/failed`` (pages whose worker failed, read in process instead).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
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
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.pipelines.typeditems import items_wanted
from structcrawl.workers.maintext import html_main_text, quiet_worker

__all__ = ["MainTextConfig", "MainTextPipeline"]

logger = logging.getLogger(__name__)


def _get(settings: BaseSettings, name: str) -> Any:
    return settings.get(name, DEFAULTS[name].default)


@dataclass(frozen=True, slots=True)
class MainTextConfig:
    workers: int  # STRUCTCRAWL_ARTICLE_BODY_WORKERS: processes (0 = read in process)
    article_body: bool  # STRUCTCRAWL_ARTICLE_BODY: the resolution reads main texts at all

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> MainTextConfig:
        return cls(
            workers=max(int(_get(settings, "STRUCTCRAWL_ARTICLE_BODY_WORKERS")), 0),
            article_body=settings.getbool(
                "STRUCTCRAWL_ARTICLE_BODY", DEFAULTS["STRUCTCRAWL_ARTICLE_BODY"].default
            ),
        )


class MainTextPipeline:
    def __init__(self, crawler: Crawler, config: MainTextConfig):
        self.stats = crawler.stats
        self.config = config
        self._pool: ProcessPoolExecutor | None = None
        self._failed = False
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

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.config.workers,
                mp_context=multiprocessing.get_context("spawn"),  # no copy of the crawl's memory
                initializer=quiet_worker,
            )
        return self._pool

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names() or self._failed:
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
            future = self._executor().submit(html_main_text, html, document.url)
            text = await asyncio.wrap_future(future)
        except Exception as exc:  # the pool broke (a worker killed): read in process
            self._fail(exc)
            return item
        document.memo[MAIN_TEXT_MEMO] = text
        self.stats.inc_value("structcrawl/maintext/worker/pages")
        return item

    def _fail(self, exc: BaseException) -> None:
        self.stats.inc_value("structcrawl/maintext/worker/failed")
        if not self._failed:
            self._failed = True
            logger.warning(
                "the main-text worker failed (%s: %s); article main texts are read in process "
                "from now on",
                type(exc).__name__,
                exc,
            )
            self._shutdown()

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def engine_stopped(self) -> None:
        self._shutdown()
