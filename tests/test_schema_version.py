"""Every line of the records and items feeds says which version of its shape it has."""

from __future__ import annotations

import io
import json

from structcrawl.core.records import SCHEMA_VERSION
from structcrawl.crawl.exporters import ItemsJsonLinesExporter, RecordsJsonLinesExporter
from structcrawl.crawl.items import PageItem
from structcrawl.extract import extract_payload

PAGE = b"""<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
"name": "Lamp", "sku": "L1", "offers": {"@type": "Offer", "price": "9.00", "priceCurrency": "EUR"}}
</script>"""


def _lines(exporter_class: type) -> list[dict]:
    records = [
        r.to_dict() for r in extract_payload(PAGE, "https://s.example/p", "text/html").records
    ]
    page = PageItem(url="https://s.example/p", final_url="https://s.example/p", records=records)
    buf = io.BytesIO()
    exporter = exporter_class(buf)
    exporter.start_exporting()
    exporter.export_item(page)
    exporter.finish_exporting()
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def test_records_and_items_lines_carry_the_schema_version():
    assert SCHEMA_VERSION.count(".") == 1
    records = _lines(RecordsJsonLinesExporter)
    items = _lines(ItemsJsonLinesExporter)
    assert records and all(r["schema_version"] == SCHEMA_VERSION for r in records)
    assert items and all(i["schema_version"] == SCHEMA_VERSION for i in items)
    assert items[0]["type"] == "Product" and records[0]["format"] == "json-ld"
