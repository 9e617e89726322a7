"""Typed-item feeds: ``items`` / ``items-csv`` (one line per item per page) and
``items-merged`` (one per item merged across pages)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exporters import JsonLinesItemExporter

from structcrawl.core.records import SCHEMA_VERSION
from structcrawl.crawl.exporters._base import (
    FastJsonLinesExporter,
    _is_current_entity,
    _is_page,
    logger,
)
from structcrawl.crawl.exporters.tables import EntitiesCsvExporter, _scalar
from structcrawl.crawl.pipelines._resolution import item_url, resolve_item
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.typed.classes import item_dict
from structcrawl.typed.merged import merged_item

# --- typed items feeds (``items``, ``items-csv``): one line per item per page -------------

#: The flat CSV columns of the ``items-csv`` feed; everything is also in ``json``.
ITEM_CSV_COLUMNS: tuple[str, ...] = (
    "page_url", "type", "role", "name", "price", "currency", "availability", "sku", "gtin",
    "mpn", "brand", "url", "json",
)  # fmt: skip


def page_typed_items(
    item: Any, precedence: Sequence[str] = DEFAULT_PRECEDENCE, *, visible: bool = True
) -> list[dict[str, Any]]:
    """The typed items (:mod:`structcrawl.typed`) of one page item, each with its page URL:
    the ones the crawl built while the page was parsed (``typed_items``, see
    :mod:`structcrawl.crawl.pipelines.typeditems`), else built now; ``[]`` for anything that
    is not a page item."""
    if not _is_page(item):
        return []
    built = ItemAdapter(item).get("typed_items")
    if isinstance(built, list):
        return [item_dict(typed) for typed in built]
    return build_page_items(item, precedence, visible=visible)


def build_page_items(
    item: Any,
    precedence: Sequence[str] = DEFAULT_PRECEDENCE,
    *,
    article_body: bool = True,
    visible: bool = True,
) -> list[dict[str, Any]]:
    """Build the typed items of one page item from its records (and its parsed page when it
    still holds it), each with its page URL; ``article_body``: the primary article's body from
    the page's main text (``STRUCTCRAWL_ARTICLE_BODY``); ``visible``: the visible page's
    fallbacks and overrules (``STRUCTCRAWL_VISIBLE_PAGE``)."""
    adapter = ItemAdapter(item)
    url = item_url(adapter)
    try:
        items = resolve_item(
            adapter, url, precedence, article_body=article_body, visible=visible
        ).items
    except Exception:  # a bug must not lose the feed: the page's records stay in `records`
        logger.exception("typed items of %s could not be built", url)
        return []
    return [{"page_url": url, **typed} for typed in items]


class _Precedence:
    """Built by the feed with the crawler: reads ``STRUCTCRAWL_FORMAT_PRECEDENCE`` once."""

    precedence: tuple[str, ...] = DEFAULT_PRECEDENCE
    lines: int = 0  # lines (or rows) written

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
        exporter = cls(*args, **kwargs)
        order = crawler.settings.getlist("STRUCTCRAWL_FORMAT_PRECEDENCE", list(DEFAULT_PRECEDENCE))
        exporter.precedence = tuple(order)
        return exporter


class ItemsJsonLinesExporter(_Precedence, FastJsonLinesExporter):
    """``items``: one JSON line per typed item of each page (primary first), with the line
    shape's ``schema_version``; written with orjson, as the records and entities feeds are."""

    def export_item(self, item: Any) -> None:
        for typed in page_typed_items(item, self.precedence):
            self.file.write(self._line({"schema_version": SCHEMA_VERSION, **typed}))
            self.lines += 1


class MergedItemsJsonLinesExporter(_Precedence, JsonLinesItemExporter):
    """``items-merged``: one JSON line per typed item of an entity merged across pages (entity
    items of this run; ``gone`` ones and entities of no item type are left out)."""

    def export_item(self, item: Any) -> None:
        if not _is_current_entity(item):
            return
        try:
            typed = merged_item(ItemAdapter(item).asdict(), self.precedence)
        except Exception:  # a bug must not lose the feed: the entity stays in `entities`
            logger.exception("merged item of %s could not be built", ItemAdapter(item).get("key"))
            return
        if typed is not None:
            line = {"schema_version": SCHEMA_VERSION, **typed}
            self.file.write(self.encoder.encode(line).encode("utf-8") + b"\n")
            self.lines += 1


def item_csv_row(typed: dict[str, Any]) -> list[str]:
    values = dict(typed)
    gtins = typed.get("gtin") or []
    values["gtin"] = gtins[0].get("value") if gtins and isinstance(gtins[0], dict) else ""
    brand = typed.get("brand")
    values["brand"] = brand.get("name") if isinstance(brand, dict) else brand
    values["name"] = typed.get("name") or typed.get("headline")
    values["json"] = json.dumps(typed, ensure_ascii=False, sort_keys=True)
    return [_scalar(values.get(name)) for name in ITEM_CSV_COLUMNS]


class ItemsCsvExporter(_Precedence, EntitiesCsvExporter):
    """``items-csv``: one CSV row per typed item of each page (header row first)."""

    def start_exporting(self) -> None:
        self.writer.writerow(list(ITEM_CSV_COLUMNS))

    def export_item(self, item: Any) -> None:
        for typed in page_typed_items(item, self.precedence):
            self.writer.writerow(item_csv_row(typed))
            self.lines += 1
