"""SelectorPipeline: visible facts on every HTML page item, site rules after extraction."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.core.document import parse_html
from structcrawl.crawl.exporters import PagesJsonLinesExporter
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.crawl.pipelines.selectors import SelectorPipeline
from structcrawl.rules import RulesError

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
BASE = "http://127.0.0.1:8765/"

RULES = """
name = "shop"
hosts = ["shop.example"]

[[entity]]
type = "Product"
scope = "article"

[entity.fields]
name = "h1"
sku = ".sku"
"""


def crawler(**settings):
    return get_crawler(settings_dict=settings)


def page_item(body: bytes, url: str, **kw) -> PageItem:
    item = PageItem(
        url=url,
        final_url=url,
        status=kw.pop("status", 200),
        content_type="text/html",
        body=body,
        retrieved_at="2026-03-15T00:00:00.000Z",
        **kw,
    )
    item.document = parse_html(body, url)
    return item


def run(crawler_, item: PageItem) -> PageItem:
    ExtractionPipeline.from_crawler(crawler_).process_item(item)
    return SelectorPipeline.from_crawler(crawler_).process_item(item)


def test_disabled_pipeline_raises_not_configured():
    with pytest.raises(NotConfigured, match="STRUCTCRAWL_RULES_ENABLED"):
        SelectorPipeline.from_crawler(crawler(STRUCTCRAWL_RULES_ENABLED=False))


def test_a_bad_rules_directory_stops_the_crawl_at_start_up(tmp_path):
    (tmp_path / "bad.toml").write_text('name = "x"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=r"bad\.toml: 'hosts'"):
        SelectorPipeline.from_crawler(crawler(STRUCTCRAWL_RULES_DIR=str(tmp_path)))


def test_the_demo_rules_create_the_rule_only_product_with_fetch_facts():
    c = crawler(STRUCTCRAWL_RULES_DIR=str(SITE / "rules"))
    url = BASE + "products/canyon-rain-shell.html"
    item = run(c, page_item((SITE / "products/canyon-rain-shell.html").read_bytes(), url))
    (record,) = item.records
    assert record["format"] == "selector" and record["properties"]["sku"] == "NW-CRS-300"
    assert record["provenance"]["fetch"]["final_url"] == url
    assert record["provenance"]["fetch"]["status"] == 200
    assert item.visible == {
        "title": "Canyon Rain Shell – Expedition Hardshell | Northwind Outfitters",
        "h1": ["Canyon Rain Shell"],
        "canonical": url,
        "prices": ["$1,049.00"],
        "times": [],
    }
    stats = c.stats.get_stats()
    assert stats["structcrawl/rules/pages"] == 1
    assert stats["structcrawl/rules/created/Product"] == 1
    assert not any(k.startswith("structcrawl/rules/filled/") for k in stats)


def test_rules_from_a_directory_fill_empty_fields_and_count_them(tmp_path):
    (tmp_path / "shop.toml").write_text(RULES, encoding="utf-8")
    c = crawler(STRUCTCRAWL_RULES_DIR=str(tmp_path))
    body = (
        b'<html><body><article itemscope itemtype="https://schema.org/Product">'
        b'<h1 itemprop="name">Boot</h1><p class="sku">B-1</p></article></body></html>'
    )
    item = run(c, page_item(body, "https://shop.example/p/1"))
    (record,) = item.records
    assert record["format"] == "microdata"
    assert record["properties"] == {"name": "Boot", "sku": "B-1"}
    assert record["provenance"]["fields"]["sku"][0]["rule"] == "shop"
    assert c.stats.get_value("structcrawl/rules/filled/Product/sku") == 1
    assert c.stats.get_value("structcrawl/rules/filled/Product/name") is None
    # the packaged rules are not loaded when a directory is given
    other = run(
        c, page_item((SITE / "products/canyon-rain-shell.html").read_bytes(), BASE + "x.html")
    )
    assert [r["kind"] for r in other.records] == ["skip"]


def test_error_pages_get_visible_facts_but_no_rules():
    c = crawler()
    body = (SITE / "products/canyon-rain-shell.html").read_bytes()
    item = run(c, page_item(body, BASE + "products/canyon-rain-shell.html", status=404))
    assert [r["error"]["code"] for r in item.records] == ["http-404"]
    assert item.visible["h1"] == ["Canyon Rain Shell"]
    assert c.stats.get_value("structcrawl/rules/pages") is None


def test_items_without_a_document_pass_through():
    c = crawler()
    item = PageItem(url=BASE + "api/products.json", final_url=BASE + "api/products.json")
    assert SelectorPipeline.from_crawler(c).process_item(item) is item
    assert item.visible is None and item.records == []
    other = {"not": "a page"}
    assert SelectorPipeline.from_crawler(c).process_item(other) == {"not": "a page"}


def _pages_line(item, **settings):
    out = io.BytesIO()
    exporter = PagesJsonLinesExporter.from_crawler(crawler(**settings), out)
    exporter.start_exporting()
    exporter.export_item(item)
    exporter.finish_exporting()
    return json.loads(out.getvalue())


def test_visible_facts_are_exported_in_the_pages_feed():
    c = crawler()
    path = "products/gipfelstuermer-touring-set.html"
    item = run(c, page_item((SITE / path).read_bytes(), BASE + path))
    row = _pages_line(item, STRUCTCRAWL_PAGES_VISIBLE_FACTS="all")
    assert row["visible"]["prices"] == ["1.299,00 €"]
    assert row["visible"]["times"] == ["2026-03-14T10:00"]
    assert "document" not in row and "body" not in row


def test_the_pages_feed_writes_only_the_facts_already_read_by_default():
    c = crawler()
    path = "products/gipfelstuermer-touring-set.html"
    item = run(c, page_item((SITE / path).read_bytes(), BASE + path))
    assert _pages_line(item)["visible"] == {}  # nothing asked for a fact: none read for it
    assert item.visible["h1"]  # a check reads the h1
    row = _pages_line(item)
    assert list(row["visible"]) == ["h1"] and row["visible"]["h1"] == item.visible["h1"]
    assert "prices" not in item.visible._values  # the feed did not read the rest
