"""The feeds' fast JSON lines (orjson) say what the standard library's encoder said."""

from __future__ import annotations

import datetime
import io
import json
from decimal import Decimal

from scrapy.utils.serialize import ScrapyJSONEncoder

from structcrawl.core.records import SCHEMA_VERSION
from structcrawl.crawl.exporters import EntitiesJsonLinesExporter, RecordsJsonLinesExporter
from structcrawl.crawl.items import EntityItem, PageItem

RECORD = {
    "kind": "entity",
    "type": ["Product"],
    "properties": {
        "name": "Jacke \u201eAlpin\u201c \u2013 \u00e9t\u00e9 \U0001f600",
        "price": Decimal("19.90"),
        "sizes": ("S", "M"),
        "big": 2**70,  # beyond orjson's 64 bits: this line falls back to the standard encoder
        "when": datetime.datetime(2026, 3, 14, 10, 0),
        "nested": [{"a": None, "b": True, "c": 1.5, 3: "int key"}],
    },
}


def _lines(exporter_cls: type, item: object, **kwargs: object) -> list[bytes]:
    out = io.BytesIO()
    exporter = exporter_cls(out, encoding="utf-8", **kwargs)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return out.getvalue().splitlines()


def test_records_lines_parse_to_what_the_standard_encoder_wrote():
    small = {k: v for k, v in RECORD["properties"].items() if k != "big"}
    records = [RECORD, {**RECORD, "properties": small}]
    lines = _lines(RecordsJsonLinesExporter, PageItem(url="u", final_url="u", records=records))
    reference = ScrapyJSONEncoder(ensure_ascii=False)
    assert len(lines) == 2
    for line, record in zip(lines, records, strict=True):
        expected = {"schema_version": SCHEMA_VERSION, **record}
        assert json.loads(line) == json.loads(reference.encode(expected))
    assert "\u201eAlpin\u201c".encode() in lines[1]  # UTF-8, not \\u escapes


def test_entity_lines_parse_to_what_the_standard_encoder_wrote():
    item = EntityItem(key="k", type=["Product"], properties={"name": "Z\u00fcrich", "n": 2})
    (line,) = _lines(EntitiesJsonLinesExporter, item)
    reference = ScrapyJSONEncoder(ensure_ascii=False).encode(dict(item.__dict__))
    assert json.loads(line) == json.loads(reference)


def test_ascii_feeds_keep_the_standard_encoder():
    item = EntityItem(key="k", properties={"name": "Z\u00fcrich"})
    out = io.BytesIO()
    exporter = EntitiesJsonLinesExporter(out)  # no encoding: ASCII escapes, as Scrapy writes
    exporter.export_item(item)
    assert b"Z\\u00fcrich" in out.getvalue()
