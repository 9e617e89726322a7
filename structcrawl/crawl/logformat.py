"""Items in the log as one short line (``LOG_FORMATTER``, set by :class:`structcrawl.Addon`).

Scrapy's own formatter writes every scraped item whole at DEBUG, Scrapy's default level: a
page item carries its records and the parsed page, so 110 pages logged 9.5 MB (lines up to
850 KB). Here a page item is its URL, status and record and item counts, an entity item its
type and key, any other item its class and field names, for ``scraped``, ``dropped`` and
``item_error`` alike.

Where ``LOG_LEVEL`` is above DEBUG, the two DEBUG lines of every page (``crawled``,
``scraped``) are not made at all: Scrapy's ``scrapy`` logger is at DEBUG whatever the
setting, so it built each record (its arguments redacted: :mod:`structcrawl.core.logsafety`)
for its handler to drop, ~0.4 ms a large page on the crawl's thread.

>>> item_summary({"url": "https://s.example/p", "status": 200, "records": [{}, {}], "typed_items": [{}]})
'page https://s.example/p status 200, 2 records, 1 items'
>>> item_summary({"key": "k1", "type": ["Product"], "properties": {}, "conflicts": []})
'entity Product k1'
"""  # noqa: E501

from __future__ import annotations

import logging
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.logformatter import LogFormatter, LogFormatterResult

__all__ = ["ShortItemLogFormatter", "item_summary"]

_MAX = 300  # characters of a summary


def item_summary(item: Any) -> str:
    """One short line naming ``item`` (never its contents)."""
    try:
        adapter = ItemAdapter(item)
        fields = adapter.field_names()
    except TypeError:
        return type(item).__name__
    if "records" in fields:
        records = adapter.get("records") or []
        typed = adapter.get("typed_items") or []
        status = adapter.get("status")
        error = adapter.get("fetch_error") or {}
        line = f"page {adapter.get('url')} status {status}, {len(records)} records, "
        line += f"{len(typed)} items"
        if error:
            line += f", error {error.get('code')}"
    elif "conflicts" in fields and "key" in fields:
        types = adapter.get("type") or []
        shown = "/".join(map(str, types)) if isinstance(types, list) else str(types)
        line = f"entity {shown or '(untyped)'} {adapter.get('key')}"
    else:
        line = f"{type(item).__name__} ({', '.join(sorted(map(str, fields))[:8])})"
    return line if len(line) <= _MAX else line[: _MAX - 1] + "…"


def _short(result: LogFormatterResult, item: Any, msg: str | None = None) -> LogFormatterResult:
    """Scrapy's ``result`` with the item in its arguments replaced by its summary."""
    if msg is not None:
        result["msg"] = msg
    result["args"] = {**dict(result["args"]), "item": item_summary(item)}
    return result


def _level(value: Any) -> int:
    """``LOG_LEVEL`` as a number (a name or a number, as Scrapy's handler takes it)."""
    if isinstance(value, str) and not value.isdigit():
        found = logging.getLevelName(value.upper())
        return found if isinstance(found, int) else logging.DEBUG
    return int(value)


class ShortItemLogFormatter(LogFormatter):
    """Scrapy's :class:`~scrapy.logformatter.LogFormatter` with items summarized; ``quiet``:
    no DEBUG line for each page (see the module doc)."""

    def __init__(self, quiet: bool = False) -> None:
        super().__init__()
        self.quiet = quiet

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ShortItemLogFormatter:
        return cls(quiet=_level(crawler.settings.get("LOG_LEVEL", "DEBUG")) > logging.DEBUG)

    # None: no line (Scrapy's engine and scraper log only what a formatter returns)
    def crawled(self, request: Any, response: Any, spider: Any) -> LogFormatterResult | None:  # type: ignore[override]
        return None if self.quiet else super().crawled(request, response, spider)

    def scraped(self, item: Any, response: Any, spider: Any) -> LogFormatterResult | None:  # type: ignore[override]
        if self.quiet:
            return None
        msg = "Scraped from %(src)s: %(item)s"
        return _short(super().scraped(item, response, spider), item, msg)

    def dropped(
        self, item: Any, exception: BaseException, response: Any, spider: Any
    ) -> LogFormatterResult:
        msg = "Dropped: %(exception)s: %(item)s"
        return _short(super().dropped(item, exception, response, spider), item, msg)

    def item_error(
        self, item: Any, exception: BaseException, response: Any, spider: Any
    ) -> LogFormatterResult:
        return _short(super().item_error(item, exception, response, spider), item)
