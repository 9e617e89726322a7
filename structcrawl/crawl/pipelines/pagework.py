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

A page a worker read whole before the crawl parsed it (:mod:`structcrawl.pageread.whole`) has
its readings already, made for the records the worker extracted; it is sent again only where
its final records need a main text the worker did not read. Where pages are read whole, one
the crawl parsed itself came while the workers were busy: its visible page is read in process
(sent, it would be parsed a second time, on the busier side: 3 rounds of large pages taking
turns, 40.1 -> 41.3 pages/s, 48.8 -> 46.7 CPU ms a page, 3 pairs of 3).

The readings are those the crawl would make: the same functions on the same tree (a page whose
worker's tree has another number of elements keeps nothing of its answer:
``structcrawl/workers/unmatched``). A reading not sent, or a page whose worker failed
(:class:`structcrawl.crawl.pageworkers.PageWorkers`), is read in process when asked for; never
a lost page. A worker process holds 50-75 MB at its peak on large pages (lxml, one page's
tree, the visible readers, trafilatura once a main text is asked for).

While each worker holds :data:`~structcrawl.crawl.pageworkers.WAITING` pages (asked, not
answered), the next page that needs no main text is read in process: the two cores share the
work, and few parsed pages wait in memory. A main text (trafilatura, the costlier reading by
far) always goes to the worker.

Stats: ``structcrawl/workers/pages`` (pages a worker read), ``/workers/busy`` (pages read in
process while the workers were busy), ``/workers/failed`` (pages whose worker failed, read in
process instead), ``/workers/unmatched``.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.articles.body import MAIN_TEXT_MEMO
from structcrawl.articles.complete import may_read_main_text
from structcrawl.core.document import Document
from structcrawl.crawl.pageworkers import PageWorkers
from structcrawl.typed.shown import may_read_visible, product_records
from structcrawl.visible.wire import adopt
from structcrawl.workers.page import READ_PAGE

__all__ = ["PageWorkPipeline"]


class PageWorkPipeline:
    def __init__(self, crawler: Crawler, workers: PageWorkers):
        self.stats = crawler.stats
        self.workers = workers
        self.config = workers.config

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageWorkPipeline:
        workers = PageWorkers.of(crawler)
        if workers is None:
            raise NotConfigured("STRUCTCRAWL_PAGE_WORKERS is 0: every page read in process")
        if not (workers.config.visible or workers.config.main_text):
            raise NotConfigured("neither the visible page nor main texts are read")
        return cls(crawler, workers)

    async def process_item(self, item: Any) -> Any:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names() or self.workers.given_up:
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
        reading = getattr(document, "reading", None)
        if reading is not None and reading.visible is not None and (reading.product or not product):
            visible = False  # read by the worker that read the page whole
        if not (visible or main_text):
            return item
        if not main_text and (self.workers.reading_whole or self.workers.busy()):
            # read here: the workers are busy, or were when the page came and it was parsed
            # here (a worker would parse it a second time, on the busier side)
            self.stats.inc_value("structcrawl/workers/busy")
            return item
        args = [document.url, _content_type(adapter.get("headers")), visible, main_text, product]
        said = await self.workers.ask(READ_PAGE, args, body, document.url)
        if said is None:  # failed: read in process
            return item
        if "visible" in said and not adopt(document, said["visible"]):
            self.stats.inc_value("structcrawl/workers/unmatched")
            return item
        if "main_text" in said:
            text = said["main_text"]
            document.memo[MAIN_TEXT_MEMO] = text if isinstance(text, str) else None
        self.stats.inc_value("structcrawl/workers/pages")
        return item


def _content_type(headers: Any) -> str | None:
    """The response's ``Content-Type`` as the page was parsed with (the last one sent)."""
    for name, values in (headers or {}).items():
        if name.lower() == "content-type" and values:
            return str(values[-1])
    return None
