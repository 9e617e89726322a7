"""The ``entities-csv`` feed: a documented flat column set plus the whole entity as JSON."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from itemadapter import ItemAdapter
from scrapy.exporters import BaseItemExporter

from structcrawl.crawl.exporters._base import (
    _is_current_entity,
)

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


#: The longest cell the CSV feeds write: Python's ``csv`` module (and other readers) refuse
#: fields of 131,072 characters and more by default.
CSV_CELL_LIMIT = 131_071


def cap_cell(text: str, limit: int = CSV_CELL_LIMIT) -> str:
    """``text``, or its start and a marker saying how long it was, within ``limit``
    characters (the whole value is in the JSON lines feeds).

    >>> cap_cell("x" * 10, limit=60)
    'xxxxxxxxxx'
    >>> cut = cap_cell("x" * 100, limit=60); len(cut) <= 60, cut[-47:]
    (True, '…[cut: 100 characters; whole in the JSONL feed]')
    """
    if len(text) <= limit:
        return text
    marker = f"…[cut: {len(text)} characters; whole in the JSONL feed]"
    return text[: max(0, limit - len(marker))] + marker


class _CappedWriter:
    """A ``csv.writer`` whose cells stay within :data:`CSV_CELL_LIMIT`."""

    def __init__(self, stream: Any):
        self.writer = csv.writer(stream)

    def writerow(self, row: list[str]) -> None:
        self.writer.writerow([cap_cell(str(cell)) for cell in row])


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
    """One CSV row per entity item (header row first); other items are skipped. ``lines``:
    the rows written after the header."""

    lines: int = 0

    def __init__(self, file: Any, **kwargs: Any):
        super().__init__(dont_fail=True, **kwargs)
        self.stream = io.TextIOWrapper(file, encoding="utf-8", newline="", write_through=True)
        self.writer = _CappedWriter(self.stream)

    def start_exporting(self) -> None:
        self.writer.writerow([name for name, _ in CSV_COLUMNS])

    def export_item(self, item: Any) -> None:
        if _is_current_entity(item):
            self.writer.writerow(csv_row(ItemAdapter(item).asdict()))
            self.lines += 1

    def finish_exporting(self) -> None:
        self.stream.flush()
        self.stream.detach()
