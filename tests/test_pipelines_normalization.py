"""NormalizationPipeline: context from the page item, flags counted in stats."""

from __future__ import annotations

from pathlib import Path

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.core.document import parse_html
from structcrawl.crawl.config import NormalizeConfig
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.extraction import ExtractionPipeline
from structcrawl.crawl.pipelines.normalization import NormalizationPipeline

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"

HTML = b"""<html lang="de"><head><base href="/shop/">
<script type="application/ld+json">{"@type": "Event", "name": "Tausch",
 "startDate": "2026-03-21T10:00", "url": "tausch.html", "endDate": "21.03.2026",
 "offers": {"@type": "Offer", "price": "1.234", "priceCurrency": "$"}}</script>
<script type="application/ld+json">{"broken": </script></head><body></body></html>"""


def crawler(**settings):
    return get_crawler(settings_dict=settings)


def page(body: bytes = HTML, url: str = "https://www.northwind.example/events/x.html") -> PageItem:
    return PageItem(
        url=url,
        final_url=url,
        status=200,
        content_type="text/html",
        body=body,
        document=parse_html(body, url),
        retrieved_at="2026-01-01T00:00:00.000Z",
    )


def run(c, item):
    item = ExtractionPipeline.from_crawler(c).process_item(item)
    return NormalizationPipeline.from_crawler(c).process_item(item)


def test_disabled_raises_not_configured():
    with pytest.raises(NotConfigured):
        NormalizationPipeline.from_crawler(crawler(STRUCTCRAWL_NORMALIZE_ENABLED=False))


@pytest.mark.parametrize(
    "settings",
    [
        {"STRUCTCRAWL_SITE_TIMEZONES": {"northwind.example": "Europe/Munich"}},
        {"STRUCTCRAWL_DEFAULT_TIMEZONE": "CET+1"},
    ],
)
def test_unknown_zone_names_stop_the_crawl_at_start(settings):
    with pytest.raises(ValueError, match="IANA time zone"):
        NormalizationPipeline.from_crawler(crawler(**settings))


def test_context_from_the_item_and_the_site_zone():
    c = crawler(STRUCTCRAWL_SITE_TIMEZONES={"northwind.example": "Europe/Berlin"})
    item = run(c, page())
    event, error = item.records
    props = event["properties"]
    assert props["startDate"] == "2026-03-21T10:00:00+01:00"  # the site zone
    assert props["endDate"] == "2026-03-21"  # German numeric date, from <html lang="de">
    assert props["url"] == "https://www.northwind.example/shop/tausch.html"  # <base href>
    offer = props["offers"]
    assert offer["properties"]["price"] == "1234"  # "1.234" read the German way
    assert [f["code"] for f in offer["flags"]] == ["currency-ambiguous"]
    assert event["key"] and offer["key"]
    assert error["kind"] == "error" and error["flags"] == []
    stats = c.stats.get_stats()
    assert stats["structcrawl/normalize/flag/currency-ambiguous"] == 1
    assert stats["structcrawl/normalize/records"] == 1
    assert stats["structcrawl/normalize/pages"] == 1


def test_without_a_zone_local_times_are_flagged_and_counted():
    c = crawler()
    item = run(c, page(url="https://www.unknown-site.example/events/x.html"))
    event = item.records[0]
    assert event["properties"]["startDate"] == "2026-03-21T10:00:00"
    assert [f["code"] for f in event["flags"]] == ["date-no-timezone"]
    assert c.stats.get_value("structcrawl/normalize/flag/date-no-timezone") == 1


def test_site_rules_give_the_zone_when_no_setting_does():
    # the demo's rules (fixtures/site/rules/northwind.toml) say timezone = "Europe/Berlin"
    rules = str(SITE / "rules")
    item = run(crawler(STRUCTCRAWL_RULES_DIR=rules), page())
    assert item.records[0]["properties"]["startDate"] == "2026-03-21T10:00:00+01:00"
    assert item.records[0]["flags"] == []
    # the setting wins over the rules file; rules off: no zone, flagged
    item = run(
        crawler(
            STRUCTCRAWL_RULES_DIR=rules, STRUCTCRAWL_SITE_TIMEZONES='{"northwind.example": "UTC"}'
        ),
        page(),
    )
    assert item.records[0]["properties"]["startDate"] == "2026-03-21T10:00:00+00:00"
    item = run(crawler(STRUCTCRAWL_RULES_DIR=rules, STRUCTCRAWL_RULES_ENABLED=False), page())
    assert [f["code"] for f in item.records[0]["flags"]] == ["date-no-timezone"]
    item = run(crawler(), page())  # no rules given: the packaged ones do not know the site
    assert [f["code"] for f in item.records[0]["flags"]] == ["date-no-timezone"]


def test_default_zone_and_suffix_matching():
    config = NormalizeConfig.from_settings(
        crawler(
            STRUCTCRAWL_SITE_TIMEZONES='{"example": "UTC", ".Northwind.Example": "Europe/Berlin"}',
            STRUCTCRAWL_DEFAULT_TIMEZONE="America/Denver",
        ).settings
    )
    assert config.timezone_for("northwind.example") == "Europe/Berlin"
    assert config.timezone_for("www.northwind.example") == "Europe/Berlin"
    assert config.timezone_for("shop.example") == "UTC"
    assert config.timezone_for("northwind.example.org") == "America/Denver"
    assert config.timezone_for("notnorthwind.example") == "UTC"
    assert config.timezone_for(None) == "America/Denver"


def test_items_without_a_document_or_records():
    c = crawler()
    pipe = NormalizationPipeline.from_crawler(c)
    item = PageItem(
        url="https://x.example/a.json",
        final_url="https://x.example/a.json",
        records=[
            {
                "kind": "entity",
                "format": "json",
                "type": ["Product"],
                "id": None,
                "source_url": "https://x.example/a.json",
                "properties": {"url": "/p", "gtin13": "0614141100018"},
                "provenance": {"fields": {}},
            }
        ],
    )
    out = pipe.process_item(item)
    rec = out.records[0]
    assert rec["properties"]["url"] == "https://x.example/p"  # the page URL is the base
    assert [f["code"] for f in rec["flags"]] == ["gtin-check-digit"]
    assert pipe.process_item({"url": "x"}) == {"url": "x"}  # not a page item


def test_the_demo_product_page():
    url = "https://northwind.example/products/trail-runner-x.html"
    c = crawler(STRUCTCRAWL_SITE_TIMEZONES={"northwind.example": "America/Los_Angeles"})
    item = run(c, page((SITE / "products/trail-runner-x.html").read_bytes(), url))
    products = [r for r in item.records if r["type"] == ["Product"]]
    assert {r["key"] for r in products} == {
        "id:https://northwind.example/products/trail-runner-x#product"
    }
    assert all(r["flags"] == [] for r in item.records)
    assert not any(k.startswith("structcrawl/normalize/flag/") for k in c.stats.get_stats())
    assert c.stats.get_value("structcrawl/normalize/records") == len(item.records)
