"""The delta feed, the entity feeds without gone entities, and change counts in the report."""

from __future__ import annotations

import io
import json

from structcrawl.crawl.exporters import (
    EntitiesCsvExporter,
    EntitiesDeltaJsonLinesExporter,
    EntitiesJsonLinesExporter,
)
from structcrawl.crawl.items import EntityItem, PageItem
from structcrawl.report import QualityAggregator, render_html


def entity(key, status, fields=(), etype="Product"):
    change = None if status is None else {"status": status, "fields": list(fields)}
    return EntityItem(key=key, type=[etype], properties={"name": key}, change=change)


ITEMS = [
    entity("a", "new"),
    entity("b", "changed", ["offers.price"]),
    entity("c", "unchanged"),
    entity("d", "gone"),
    entity("e", None),
    PageItem(url="u", final_url="u"),
]


def export(cls):
    buffer = io.BytesIO()
    exporter = cls(buffer)
    exporter.start_exporting()
    for item in ITEMS:
        exporter.export_item(item)
    exporter.finish_exporting()
    return buffer.getvalue().decode()


def test_delta_feed_writes_new_changed_and_gone_entities():
    lines = [json.loads(x) for x in export(EntitiesDeltaJsonLinesExporter).splitlines()]
    assert [(e["key"], (e["change"] or {}).get("status")) for e in lines] == [
        ("a", "new"),
        ("b", "changed"),
        ("d", "gone"),
        ("e", None),  # e: detection off
    ]


def test_entity_feeds_hold_what_the_run_saw():
    keys = [json.loads(x)["key"] for x in export(EntitiesJsonLinesExporter).splitlines()]
    assert keys == ["a", "b", "c", "e"]
    rows = export(EntitiesCsvExporter).splitlines()
    assert [r.split(",", 1)[0] for r in rows[1:]] == ["a", "b", "c", "e"]


def test_report_counts_changes_and_keeps_gone_entities_out_of_the_rest():
    agg = QualityAggregator()
    for item in ITEMS[:5]:
        agg.add_entity({k: getattr(item, k) for k in ("key", "type", "properties", "change")})
    agg.add_page({"records": [], "http_cache": "revalidated"})
    agg.add_page({"records": [], "http_cache": "miss"})
    agg.add_page({"records": []})
    report = agg.report({})
    assert report["changes"] == {
        "new": 1,
        "changed": 1,
        "unchanged": 1,
        "gone": 1,
        "top_changed_fields": {"Product.offers.price": 1},
    }
    assert report["entities"]["total"] == 4  # the gone one is not in this crawl
    assert report["pages"]["by_http_cache"] == {"revalidated": 1, "miss": 1}
    html = render_html(report)
    assert "Changes since the previous run" in html and "1 new / 1 changed / 1 gone" in html
    assert "Pages by HTTP cache" in html


def test_report_without_changes_has_no_change_section():
    report = QualityAggregator().report({})
    assert report["changes"]["new"] == 0
    assert "Changes since the previous run" not in render_html(report)
