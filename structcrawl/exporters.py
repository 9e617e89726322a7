"""Feed exporters: ``records`` writes one JSON line per record, ``pages`` one per page.

Register them through ``FEED_EXPORTERS`` (done in ``structcrawl/settings.py``) and use them
in ``FEEDS``: ``{"output/records.jsonl": {"format": "records"}}``.
"""

from __future__ import annotations

from typing import Any

from itemadapter import ItemAdapter
from scrapy.exporters import JsonLinesItemExporter

from structcrawl.items import TRANSIENT_FIELDS

__all__ = ["PagesJsonLinesExporter", "RecordsJsonLinesExporter"]


class RecordsJsonLinesExporter(JsonLinesItemExporter):
    """One line per record of each page item; other items are written as they are."""

    def export_item(self, item: Any) -> None:
        adapter = ItemAdapter(item)
        if "records" not in adapter.field_names():
            super().export_item(item)
            return
        for record in adapter.get("records") or []:
            self.file.write(self.encoder.encode(record).encode("utf-8") + b"\n")


class PagesJsonLinesExporter(JsonLinesItemExporter):
    """One line per page: fetch facts and a summary of its records, without bodies."""

    def export_item(self, item: Any) -> None:
        adapter = ItemAdapter(item)
        row = {k: v for k, v in adapter.items() if k not in TRANSIENT_FIELDS and k != "records"}
        records = adapter.get("records") or []
        row["record_count"] = sum(1 for r in records if r.get("kind") == "entity")
        row["outcomes"] = sorted(
            {
                f"{r['kind']}:{r['format']}" + (f":{r['error']['code']}" if r.get("error") else "")
                for r in records
            }
        )
        self.file.write(self.encoder.encode(row).encode("utf-8") + b"\n")
