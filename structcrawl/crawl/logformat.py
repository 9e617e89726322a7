"""Items in the log as one short line (``LOG_FORMATTER``, set by :class:`structcrawl.Addon`).

Scrapy's own formatter writes every scraped item whole at DEBUG, Scrapy's default level: a
page item carries its records and the parsed page, so 110 pages logged 9.5 MB (lines up to
850 KB). Here a page item is its URL, status and record and item counts, an entity item its
type and key, any other item its class and field names, for ``scraped``, ``dropped`` and
``item_error`` alike.

>>> item_summary({"url": "https://s.example/p", "status": 200, "records": [{}, {}], "typed_items": [{}]})
'page https://s.example/p status 200, 2 records, 1 items'
>>> item_summary({"key": "k1", "type": ["Product"], "properties": {}, "conflicts": []})
'entity Product k1'
"""  # noqa: E501

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
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


class ShortItemLogFormatter(LogFormatter):
    """Scrapy's :class:`~scrapy.logformatter.LogFormatter` with items summarized."""

    def scraped(self, item: Any, response: Any, spider: Any) -> LogFormatterResult:
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
