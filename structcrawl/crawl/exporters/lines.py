"""JSON-lines feeds of pages, records and entities (``records``, ``pages``, ``entities``,
``entities-delta``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from itemadapter import ItemAdapter

from structcrawl.core.records import SCHEMA_VERSION
from structcrawl.crawl.exporters._base import (
    DELTA_STATUSES,
    FastJsonLinesExporter,
    _change_status,
    _flush,
    _is_current_entity,
    _is_entity,
    _is_page,
)
from structcrawl.crawl.items import TRANSIENT_FIELDS
from structcrawl.visible.facts import LazyVisibleFacts


class RecordsJsonLinesExporter(FastJsonLinesExporter):
    """One line per record of each page item, with the line shape's ``schema_version``;
    other items are not records and are skipped."""

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        line = self._line
        records = ItemAdapter(item).get("records") or []
        self.file.write(
            b"".join(line({"schema_version": SCHEMA_VERSION, **record}) for record in records)
        )
        self.lines += len(records)
        _flush(self.file)


class PagesJsonLinesExporter(FastJsonLinesExporter):
    """One line per page: fetch facts and a summary of its records, without bodies.

    Its ``visible`` facts are those the crawl already read (``STRUCTCRAWL_PAGES_VISIBLE_FACTS
    = "read"``, the default), or every fact (``"all"``: the feed reads the rest from the page,
    a walk of the whole visible page on each page, which on large pages cost more than the
    feed's own work)."""

    all_facts: bool = False

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Any:
        exporter = cls(*args, **kwargs)
        mode = str(crawler.settings.get("STRUCTCRAWL_PAGES_VISIBLE_FACTS") or "read")
        exporter.all_facts = mode.strip().lower() == "all"
        return exporter

    def _value(self, value: Any) -> Any:
        if isinstance(value, LazyVisibleFacts) and not self.all_facts:
            return value.read_so_far()
        return dict(value) if isinstance(value, Mapping) and not isinstance(value, dict) else value

    def export_item(self, item: Any) -> None:
        if not _is_page(item):
            return
        adapter = ItemAdapter(item)
        value = self._value
        row = {
            k: value(v)
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
        self.file.write(self._line(row))
        self.lines += 1
        _flush(self.file)


class EntitiesJsonLinesExporter(FastJsonLinesExporter):
    """One line per entity item."""

    def export_item(self, item: Any) -> None:
        if _is_current_entity(item):
            super().export_item(item)


class EntitiesDeltaJsonLinesExporter(FastJsonLinesExporter):
    """One line per entity that is new, changed or gone since the previous run (entities
    without a ``change``, change detection being off, are written too)."""

    def export_item(self, item: Any) -> None:
        if not _is_entity(item):
            return
        status = _change_status(item)
        if status is None or status in DELTA_STATUSES:
            super().export_item(item)
