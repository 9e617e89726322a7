"""Feed exporters, one per kind of line, each writing only the items it is about:

* ``records``: one JSON line per record (entities, errors, skips) of each page item;
* ``pages``: one JSON line per page item (fetch facts and a summary of its records);
* ``entities``: one JSON line per deduplicated entity;
* ``entities-csv``: one CSV row per entity: a documented flat column set plus a ``json``
  column holding the whole entity;
* ``entities-delta``: one JSON line per entity that is ``new``, ``changed`` or ``gone``
  compared with the previous run (:mod:`structcrawl.changes`); ``unchanged`` ones are left
  out. ``entities`` and ``entities-csv`` describe what this run saw and leave ``gone``
  entities out.
* ``items`` / ``items-csv``: one JSON line / CSV row per typed item (:mod:`structcrawl.typed`)
  of each page, primary first;
* ``items-merged``: one JSON line per typed item merged across pages: the typed item of each
  entity the crawl saw (:func:`structcrawl.typed.merged.merged_item`), written when the
  entities are emitted at the end of the crawl;
* ``graph``: the RDF dataset of each page as N-Quads (:mod:`structcrawl.extract.graph`, the
  same export as ``structcrawl extract --format nquads``), blank nodes labelled per page.

Registered by :class:`structcrawl.Addon` (``FEED_EXPORTERS``); use them in ``FEEDS``
(``{"output/entities.jsonl": {"format": "entities"}}``) or ``-O path:format``. The same
formats work with any feed storage (local files, S3). The ``records`` and ``pages`` exporters
flush each line as they write it (no fsync): when a worker is killed, the pages it finished
are in its local feed files, at worst followed by one torn line (docs/distributed.md).
"""

from __future__ import annotations

import csv
import io
import json
import logging
from collections.abc import Sequence
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exporters import BaseItemExporter, JsonLinesItemExporter

from structcrawl.core.document import Document
from structcrawl.core.records import SCHEMA_VERSION
from structcrawl.crawl.items import TRANSIENT_FIELDS
from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.extract.graph import page_graph, payload_graph, to_nquads
from structcrawl.extract.options import ExtractOptions
from structcrawl.typed import build_items
from structcrawl.typed.merged import merged_item

logger = logging.getLogger(__name__)

__all__ = [
    "CSV_COLUMNS",
    "DELTA_STATUSES",
    "EntitiesCsvExporter",
    "EntitiesDeltaJsonLinesExporter",
    "EntitiesJsonLinesExporter",
    "ITEM_CSV_COLUMNS",
    "ItemsCsvExporter",
    "GraphNQuadsExporter",
    "ItemsJsonLinesExporter",
    "MergedItemsJsonLinesExporter",
    "PagesJsonLinesExporter",
    "RecordsJsonLinesExporter",
    "csv_row",
]


def _is_page(item: Any) -> bool:
    return "records" in ItemAdapter(item).field_names()


def _is_entity(item: Any) -> bool:
    return "conflicts" in ItemAdapter(item).field_names()


#: Change statuses the ``entities-delta`` feed writes.
DELTA_STATUSES = frozenset({"new", "changed", "gone"})


def _change_status(item: Any) -> str | None:
    change = ItemAdapter(item).get("change")
    return change.get("status") if isinstance(change, dict) else None


def _is_current_entity(item: Any) -> bool:
    """An entity this run saw (not one reported ``gone``)."""
    return _is_entity(item) and _change_status(item) != "gone"


def _flush(stream: Any) -> None:
    """Hand the lines written so far to the operating system (a killed process keeps them)."""
    flush = getattr(stream, "flush", None)
    if flush is not None:
        flush()


class RecordsJsonLinesExporter(JsonLinesItemExporter):
    """One line per record of each page item, with the line shape's ``schema_version``;
    other items are not records and are skipped."""

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        for record in ItemAdapter(item).get("records") or []:
            line = {"schema_version": SCHEMA_VERSION, **record}
            self.file.write(self.encoder.encode(line).encode("utf-8") + b"\n")
        _flush(self.file)


class PagesJsonLinesExporter(JsonLinesItemExporter):
    """One line per page: fetch facts and a summary of its records, without bodies."""

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        adapter = ItemAdapter(item)
        row = {
            k: v
            for k, v in adapter.items()
            if k not in TRANSIENT_FIELDS and k not in ("records", "typed_items")
        }
        records = adapter.get("records") or []
        row["record_count"] = sum(1 for r in records if r.get("kind") == "entity")
        row["outcomes"] = sorted(
            {
                f"{r['kind']}:{r['format']}" + (f":{r['error']['code']}" if r.get("error") else "")
                for r in records
            }
        )
        self.file.write(self.encoder.encode(row).encode("utf-8") + b"\n")
        _flush(self.file)


class EntitiesJsonLinesExporter(JsonLinesItemExporter):
    """One line per entity item."""

    def export_item(self, item: Any) -> None:
        if _is_current_entity(item):
            super().export_item(item)


class EntitiesDeltaJsonLinesExporter(JsonLinesItemExporter):
    """One line per entity that is new, changed or gone since the previous run (entities
    without a ``change``, change detection being off, are written too)."""

    def export_item(self, item: Any) -> None:
        if not _is_entity(item):
            return
        status = _change_status(item)
        if status is None or status in DELTA_STATUSES:
            super().export_item(item)


#: The flat CSV columns: (column, where it comes from). Everything is also in ``json``.
CSV_COLUMNS: tuple[tuple[str, str], ...] = (
    ("key", "the entity key"),
    ("id", "the @id"),
    ("type", "types, joined with |"),
    ("name", "properties.name (or headline)"),
    ("url", "properties.url"),
    ("sku", "properties.sku"),
    ("gtin", "the first of properties.gtin13/gtin/gtin12/gtin14/gtin8"),
    ("price", "properties.offers.price (or lowPrice)"),
    ("currency", "properties.offers.priceCurrency"),
    ("availability", "properties.offers.availability"),
    ("date", "datePublished or startDate"),
    ("valid", "validation.valid"),
    ("errors", "number of validation errors"),
    ("warnings", "number of validation warnings"),
    ("conflicts", "fields whose sources disagree, joined with |"),
    ("formats", "layers it was seen in, joined with |"),
    ("sources", "number of sightings"),
    ("first_source", "the first page it was seen on"),
    ("json", "the whole entity as JSON"),
)


def _first(props: dict[str, Any], *names: str) -> Any:
    for name in names:
        value = props.get(name)
        if value not in (None, "", []):
            return value
    return None


def _scalar(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("@id") or value.get("url") or json.dumps(value, ensure_ascii=False)
    return str(value)


def csv_row(entity: dict[str, Any]) -> list[str]:
    """The CSV row of one entity (dict of an EntityItem), in :data:`CSV_COLUMNS` order."""
    props = entity.get("properties") or {}
    offers = props.get("offers")
    if isinstance(offers, list):
        offers = offers[0] if offers else None
    offers = offers if isinstance(offers, dict) else {}
    validation = entity.get("validation") or {}
    sources = entity.get("sources") or []
    values = {
        "key": entity.get("key"),
        "id": entity.get("id"),
        "type": "|".join(entity.get("type") or []),
        "name": _first(props, "name", "headline"),
        "url": props.get("url"),
        "sku": props.get("sku"),
        "gtin": _first(props, "gtin13", "gtin", "gtin12", "gtin14", "gtin8"),
        "price": _first(offers, "price", "lowPrice"),
        "currency": offers.get("priceCurrency"),
        "availability": offers.get("availability"),
        "date": _first(props, "datePublished", "startDate"),
        "valid": "" if not validation else str(bool(validation.get("valid"))).lower(),
        "errors": len(validation.get("errors") or []) if validation else "",
        "warnings": len(validation.get("warnings") or []) if validation else "",
        "conflicts": "|".join(c["field"] for c in entity.get("conflicts") or []),
        "formats": "|".join(entity.get("formats") or []),
        "sources": len(sources),
        "first_source": sources[0]["url"] if sources else "",
        "json": json.dumps(entity, ensure_ascii=False, sort_keys=True),
    }
    return [_scalar(values[name]) for name, _ in CSV_COLUMNS]


class EntitiesCsvExporter(BaseItemExporter):
    """One CSV row per entity item (header row first); other items are skipped."""

    def __init__(self, file: Any, **kwargs: Any):
        super().__init__(dont_fail=True, **kwargs)
        self.stream = io.TextIOWrapper(file, encoding="utf-8", newline="", write_through=True)
        self.writer = csv.writer(self.stream)

    def start_exporting(self) -> None:
        self.writer.writerow([name for name, _ in CSV_COLUMNS])

    def export_item(self, item: Any) -> None:
        if _is_current_entity(item):
            self.writer.writerow(csv_row(ItemAdapter(item).asdict()))

    def finish_exporting(self) -> None:
        self.stream.flush()
        self.stream.detach()


# --- typed items feeds (``items``, ``items-csv``): one line per item per page -------------

#: The flat CSV columns of the ``items-csv`` feed; everything is also in ``json``.
ITEM_CSV_COLUMNS: tuple[str, ...] = (
    "page_url", "type", "role", "name", "price", "currency", "availability", "sku", "gtin",
    "mpn", "brand", "url", "json",
)  # fmt: skip


def page_typed_items(
    item: Any, precedence: Sequence[str] = DEFAULT_PRECEDENCE
) -> list[dict[str, Any]]:
    """The typed items (:mod:`structcrawl.typed`) of one page item, each with its page URL:
    the ones the crawl built while the page was parsed (``typed_items``, see
    :mod:`structcrawl.crawl.pipelines.typeditems`), else built now; ``[]`` for anything that
    is not a page item."""
    if not _is_page(item):
        return []
    built = ItemAdapter(item).get("typed_items")
    if isinstance(built, list):
        return built
    return build_page_items(item, precedence)


def build_page_items(
    item: Any, precedence: Sequence[str] = DEFAULT_PRECEDENCE
) -> list[dict[str, Any]]:
    """Build the typed items of one page item from its records (and its parsed page when it
    still holds it), each with its page URL."""
    adapter = ItemAdapter(item)
    url = adapter.get("final_url") or adapter.get("url") or ""
    document = adapter.get("document")
    document = document if isinstance(document, Document) else None
    try:
        records = list(adapter.get("records") or [])
        items = build_items(records, url, document, precedence=precedence)
    except Exception:  # a bug must not lose the feed: the page's records stay in `records`
        logger.exception("typed items of %s could not be built", url)
        return []
    return [{"page_url": url, **typed} for typed in items]


class _Precedence:
    """Built by the feed with the crawler: reads ``STRUCTCRAWL_FORMAT_PRECEDENCE`` once."""

    precedence: tuple[str, ...] = DEFAULT_PRECEDENCE

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
        exporter = cls(*args, **kwargs)
        order = crawler.settings.getlist("STRUCTCRAWL_FORMAT_PRECEDENCE", list(DEFAULT_PRECEDENCE))
        exporter.precedence = tuple(order)
        return exporter


class ItemsJsonLinesExporter(_Precedence, JsonLinesItemExporter):
    """``items``: one JSON line per typed item of each page (primary first), with the line
    shape's ``schema_version``."""

    def export_item(self, item: Any) -> None:
        for typed in page_typed_items(item, self.precedence):
            line = {"schema_version": SCHEMA_VERSION, **typed}
            self.file.write(self.encoder.encode(line).encode("utf-8") + b"\n")


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
class GraphNQuadsExporter(BaseItemExporter):
    """The RDF dataset of each page item as N-Quads (read from the page's parsed tree, or its
    body when the tree is gone); other items are skipped. Blank nodes are ``_:p<n>b<k>``:
    unique in the file, stable within a page. Feed options ``microdata_mode`` and
    ``jsonld_repairs`` choose how the layers are read (default: the product defaults)."""

    def __init__(self, file: Any, **kwargs: Any):
        modes = {k: kwargs.pop(k) for k in ("microdata_mode", "jsonld_repairs") if k in kwargs}
        super().__init__(dont_fail=True, **kwargs)
        self.file = file
        self.options = ExtractOptions(**modes)
        self.pages = 0

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        adapter = ItemAdapter(item)
        document = adapter.get("document")
        if isinstance(document, Document):
            graph = page_graph(document, options=self.options)
        else:
            url = adapter.get("final_url") or adapter.get("url") or ""
            body = adapter.get("body") or b""
            graph = payload_graph(body, url, adapter.get("content_type"), options=self.options)
        text = to_nquads(graph.quads, prefix=f"p{self.pages}b")
        self.pages += 1
        self.file.write(text.encode("utf-8"))
