"""One log line for a crawl's feeds (:class:`FeedLog`, an extension the add-on enables).

Scrapy's feed exporter logs ``Stored <format> feed (N items) in: <uri>`` for every feed, and
N counts the items the feed was offered: with structcrawl's feeds, each of which writes only
the items it is about, every feed said the same number (``625 items``), the pages and the
entities together. Here the crawl logs one line when every feed is stored, naming each feed
with the lines it wrote (``Stored 4 feeds in /out/: pages.jsonl (pages, 110 lines), ...``);
Scrapy's own per-feed ``Stored`` lines of this crawl are left out. A feed that could not be
stored keeps Scrapy's error line, and the one line says it was not stored. When ``FEEDS`` is
set but Scrapy's feed exporter refused it (``NotConfigured``: no feed at all would be
written), the crawl fails (``structcrawl/failure/feed/disabled``).
"""

from __future__ import annotations

import logging
import os
from typing import Any
from urllib.parse import unquote, urlparse

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.extensions.feedexport import FeedExporter

__all__ = ["FeedLog", "feeds_line"]

logger = logging.getLogger(__name__)
_SCRAPY_FEEDS = logging.getLogger("scrapy.extensions.feedexport")


def _path(uri: str) -> str | None:
    """The local path of a feed URI, None for any other storage."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return unquote(parsed.path)
    return uri if len(parsed.scheme) <= 1 else None  # a plain path (or a drive letter)


def feeds_line(feeds: list[tuple[str, str, int, bool]]) -> str:
    """The one line about ``(uri, format, lines, stored)`` feeds: local files named relative to
    their common folder.

    >>> feeds_line([("/o/pages.jsonl", "pages", 110, True), ("/o/entities.csv", "entities-csv",
    ...     515, True), ("s3://b/records.jsonl", "records", 2048, False)])
    'Stored 2 of 3 feeds: /o/pages.jsonl (pages, 110 lines), /o/entities.csv (entities-csv, 515 lines), s3://b/records.jsonl (records, 2,048 lines: NOT STORED)'
    >>> feeds_line([("/o/pages.jsonl", "pages", 1, True), ("/o/items.jsonl", "items", 0, True)])
    'Stored 2 feeds in /o/: pages.jsonl (pages, 1 line), items.jsonl (items, 0 lines)'
    """  # noqa: E501
    paths = [_path(uri) for uri, *_ in feeds]
    folder = ""
    if feeds and all(paths):
        common = os.path.commonpath([os.path.dirname(p or "") or "." for p in paths])
        folder = "" if common in ("", ".") else common
    parts = []
    for (uri, fmt, lines, stored), path in zip(feeds, paths, strict=True):
        name = os.path.relpath(path, folder) if folder and path else uri
        note = "" if stored else ": NOT STORED"
        parts.append(f"{name} ({fmt}, {lines:,} line{'' if lines == 1 else 's'}{note})")
    done = sum(1 for *_, stored in feeds if stored)
    count = f"{done} feeds" if done == len(feeds) else f"{done} of {len(feeds)} feeds"
    where = f" in {folder.rstrip(os.sep)}{os.sep}" if folder else ""
    return f"Stored {count}{where}: " + ", ".join(parts)


class _StoredFilter(logging.Filter):
    """Leaves out Scrapy's ``Stored ...`` lines of one crawl's spider, noting what was stored."""

    def __init__(self, owner: FeedLog):
        super().__init__()
        self.owner = owner

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != "Stored %s" or record.levelno != logging.INFO:
            return True
        spider = getattr(record, "spider", None)
        if spider is None or spider is not getattr(self.owner.crawler, "spider", None):
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        self.owner.stored.add(str(args[0] if args else "").rpartition(" in: ")[2])
        return False


class FeedLog:
    """Collects each feed as its slot closes, logs one line when the feed exporter is done."""

    def __init__(self, crawler: Crawler):
        self.crawler = crawler
        self.feeds: list[tuple[str, str, int, bool]] = []
        self.stored: set[str] = set()  # URIs of the "Stored" lines left out
        self.filter = _StoredFilter(self)
        _SCRAPY_FEEDS.addFilter(self.filter)
        crawler.signals.connect(self.feed_slot_closed, signal=signals.feed_slot_closed)
        crawler.signals.connect(self.feed_exporter_closed, signal=signals.feed_exporter_closed)
        crawler.signals.connect(self.engine_stopped, signal=signals.engine_stopped)
        crawler.signals.connect(self.spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FeedLog:
        if not crawler.settings.getdict("FEEDS"):
            raise NotConfigured("no FEEDS")
        return cls(crawler)

    def spider_opened(self) -> None:
        """FEEDS set, but Scrapy's feed exporter refused them (a feed option it rejects, such
        as a batch count without ``%(batch_id)d`` in a feed's URI): no feed would be written,
        and the crawl would still look fine. It fails (``structcrawl/failure/feed/disabled``)."""
        extensions = getattr(getattr(self.crawler, "extensions", None), "middlewares", None)
        if extensions is None or any(isinstance(e, FeedExporter) for e in extensions):
            return
        assert self.crawler.stats is not None
        self.crawler.stats.set_value("structcrawl/failure/feed/disabled", 1)
        logger.error(
            "FEEDS is set but Scrapy's feed exporter is not enabled (see its error above): "
            "no feed is written; the crawl fails",
            extra={"spider": self.crawler.spider},
        )

    def feed_slot_closed(self, slot: Any) -> None:
        # Scrapy logs "Stored" just before this signal, and only when the feed was stored
        stored = str(slot.uri) in self.stored
        exporter = getattr(slot, "exporter", None)
        lines = getattr(exporter, "lines", None)
        count = int(lines if isinstance(lines, int) else getattr(slot, "itemcount", 0))
        self.feeds.append((str(slot.uri), str(slot.format), count, stored))

    def feed_exporter_closed(self) -> None:
        if self.feeds:
            logger.info(feeds_line(self.feeds), extra={"spider": self.crawler.spider})
        self.feeds = []
        _SCRAPY_FEEDS.removeFilter(self.filter)

    def engine_stopped(self) -> None:
        _SCRAPY_FEEDS.removeFilter(self.filter)
