"""ValidationPipeline built with get_crawler(): records annotated, stats counted."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.config import DEFAULTS, ValidateConfig
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.crawl.pipelines.validation import ValidationPipeline
from structcrawl.visible.facts import VisibleFacts

HTML = b"""<html><head><title>Trail Runner X | Northwind</title>
<meta property="og:title" content="Trail Runner X">
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
 "name": "Trail Runner X", "offers": [{"@type": "Offer", "price": "129.99", "priceCurrency": "USD"},
 {"@type": "Offer", "priceCurrency": "USD"}]}</script>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Organization",
 "name": "Northwind", "url": "https://northwind.example/", "logo": "https://northwind.example/l.png"}
</script>
<script type="application/ld+json">{"broken": </script></head><body><h1>Trail Runner X</h1></body></html>"""


def page(**kw: Any) -> PageItem:
    base: dict[str, Any] = dict(
        url="https://x.example/p",
        final_url="https://x.example/p",
        status=200,
        content_type="text/html",
        body=HTML,
    )
    base.update(kw)
    return PageItem(**base)


def run(item: Any, **settings: Any) -> tuple[Any, dict[str, Any]]:
    crawler = get_crawler(settings_dict=settings)
    item = ExtractionPipeline.from_crawler(crawler).process_item(item)
    item = ValidationPipeline.from_crawler(crawler).process_item(item)
    return item, crawler.stats.get_stats()


def by_type(item: PageItem) -> dict[str, dict[str, Any]]:
    return {r["format"] + ":" + "/".join(r["type"]): r for r in item.records}


def test_settings_are_declared_and_read_once() -> None:
    assert DEFAULTS["STRUCTCRAWL_VALIDATE_ENABLED"].default is True
    assert DEFAULTS["STRUCTCRAWL_INVALID_FEED"].default is None
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_INVALID_FEED": "invalid.jsonl"})
    assert ValidateConfig.from_settings(crawler.settings) == ValidateConfig(True, "invalid.jsonl")
    with pytest.raises(NotConfigured):
        ValidationPipeline.from_crawler(
            get_crawler(settings_dict={"STRUCTCRAWL_VALIDATE_ENABLED": False})
        )


def test_every_entity_record_gets_a_validation_and_invalid_ones_stay() -> None:
    item, stats = run(page())
    records = by_type(item)
    product = records["json-ld:Product"]
    assert product["validation"]["valid"] is False
    assert [(e["path"], e["code"]) for e in product["validation"]["errors"]] == [
        ("offers[1].price|priceSpecification", "missing-required")
    ]
    assert records["json-ld:Organization"]["validation"] == {
        "valid": True,
        "errors": [],
        "warnings": [],
    }
    assert records["opengraph:"]["validation"]["skipped"] == "opengraph records are not schema.org"
    error = next(r for r in item.records if r["kind"] == "error")
    assert "validation" not in error and "conflicts" not in error
    assert stats["structcrawl/validate/records/invalid"] == 1
    assert stats["structcrawl/validate/records/valid"] == 1
    assert stats["structcrawl/validate/records/skipped"] == 1  # the Open Graph record
    assert stats["structcrawl/validate/error/Product/offers.price|priceSpecification"] == 1
    assert stats["structcrawl/validate/warning/Product/offers.priceValidUntil"] == 2
    assert stats["structcrawl/validate/warning/Product/image"] == 1


def test_visible_facts_give_conflicts() -> None:
    visible = VisibleFacts(
        title="Trail Runner X | Northwind",
        h1=["Trail Runner X"],
        canonical=None,
        prices=["$139.99"],
        times=[],
    )
    item, stats = run(page(visible=visible))
    product = by_type(item)["json-ld:Product"]
    assert [(c["field"], c["code"]) for c in product["conflicts"]] == [
        ("offers[0].price", "price-vs-visible")
    ]
    assert by_type(item)["json-ld:Organization"]["conflicts"] == []
    assert stats["structcrawl/validate/conflict/price-vs-visible"] == 1


def test_no_visible_facts_no_conflicts_key_and_dict_items_work() -> None:
    item, _ = run(page())
    assert all("conflicts" not in r for r in item.records)
    crawler = get_crawler()
    pipe = ValidationPipeline.from_crawler(crawler)
    record = {"format": "json-ld", "kind": "entity", "type": ["Person"], "properties": {}}
    out = pipe.process_item({"records": [record], "visible": {"title": "About us"}})
    assert out["records"][0]["validation"]["errors"][0]["path"] == "name"
    assert out["records"][0]["conflicts"] == []
    assert pipe.process_item({"url": "x"}) == {"url": "x"}  # not a page item: untouched
