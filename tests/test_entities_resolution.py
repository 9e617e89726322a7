"""Entity resolution across layers and pages in the entity pipeline: strong identifiers
(GTIN across lengths, @id, canonical URL, SKU within a site) join entities stored under
different keys, independently of page order, the same with the SQLite and the Redis store;
page metadata corroborates the page's primary entity instead of standing apart."""

from __future__ import annotations

import random

import pytest
import redis
from itemadapter import ItemAdapter
from scrapy.utils.test import get_crawler

from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pipelines.entities import EntityConfig, EntityPipeline
from structcrawl.distributed import CrawlKeys, RedisEntityStore
from structcrawl.extract import extract_payload
from tests.test_distributed_store import redis_server

PAGES = {
    # JSON-LD with an @id, GTIN-13, a stale price
    "https://bikes.example/lock": b"""<script type="application/ld+json">{"@context":"https://schema.org",
      "@type":"Product","@id":"https://bikes.example/lock#product","name":"Lock","gtin13":"8712345678906",
      "offers":{"@type":"Offer","price":"99.00","priceCurrency":"EUR"}}</script>
      <meta property="og:type" content="product"><meta property="og:title" content="Lock (best price)">""",
    # Microdata without itemid, the same GTIN written as GTIN-14, the current price
    "https://bikes.example/lock?ref=ad": b"""<div itemscope itemtype="https://schema.org/Product">
      <span itemprop="name">Lock</span><meta itemprop="gtin14" content="08712345678906">
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
      <meta itemprop="price" content="89.00"><meta itemprop="priceCurrency" content="EUR"></div></div>""",
    # a second product of the same site, and only page metadata on a third page
    "https://bikes.example/bell": b"""<div itemscope itemtype="https://schema.org/Product">
      <span itemprop="name">Bell</span><span itemprop="sku">BELL-1</span></div>""",
    "https://bikes.example/about": b"""<meta property="og:type" content="website">
      <meta property="og:title" content="Bikes">""",
}


def page(url: str) -> PageItem:
    records = [r.to_dict() for r in extract_payload(PAGES[url], url, "text/html").records]
    return PageItem(
        url=url, final_url=url, status=200, retrieved_at="2026-03-01T10:00:00Z", records=records
    )


def run(tmp_path, order, store=None):
    crawler = get_crawler(
        settings_dict={
            "STRUCTCRAWL_ENTITY_STORE": str(tmp_path / "entities.sqlite"),
            "STRUCTCRAWL_CHANGES_ENABLED": False,
        }
    )
    if store is None:
        pipe = EntityPipeline.from_crawler(crawler)
    else:
        pipe = EntityPipeline(crawler, EntityConfig.from_settings(crawler.settings), store)
    for url in order:
        pipe.process_item(page(url))
    items = [ItemAdapter(i).asdict() for i in pipe.emit(None)]
    pipe.close_spider()
    return items


def summary(items):
    """What must not depend on page order: the entities, their sources, chosen values where
    the layers rank differently, and the values each conflict lists."""
    out = []
    for e in items:
        conflicts = {
            c["field"]: sorted(str(v["value"]) for v in c["values"]) for c in e["conflicts"]
        }
        out.append(
            (
                e["key"],
                sorted(e["type"]),
                e["properties"].get("name"),
                (e["properties"].get("offers") or {}).get("price"),
                sorted((s["url"], s["format"]) for s in e["sources"]),
                conflicts,
            )
        )
    return sorted(out, key=repr)


def products(items):
    return [e for e in items if "Product" in e["type"]]


def test_one_product_across_layers_and_pages_with_its_conflicts(tmp_path):
    items = run(tmp_path, list(PAGES))
    bell, lock = sorted(products(items), key=lambda e: e["properties"]["name"])
    assert {s["format"] for s in lock["sources"]} == {"json-ld", "microdata", "opengraph"}
    assert lock["properties"]["offers"]["price"] == "99.00"  # json-ld ranks first
    fields = {c["field"]: c for c in lock["conflicts"]}
    assert {v["value"] for v in fields["offers.price"]["values"]} == {"99.00", "89.00"}
    # Open Graph corroborates the product (its title disagrees and says so) ...
    assert {v["value"] for v in fields["name"]["values"]} == {"Lock", "Lock (best price)"}
    assert bell["properties"]["name"] == "Bell"
    # ... and no lower-case `product` / `website` entities stand apart
    assert not [e for e in items if set(e["type"]) & {"product", "website"}]
    assert [e["type"] for e in items if not set(e["type"]) & {"Product", "Offer"}] == [["WebPage"]]


def test_resolution_does_not_depend_on_page_order(tmp_path):
    expected = summary(run(tmp_path / "a", list(PAGES)))
    for seed in range(4):
        order = list(PAGES)
        random.Random(seed).shuffle(order)
        assert summary(run(tmp_path / f"s{seed}", order)) == expected


def test_the_redis_store_resolves_the_same(tmp_path):
    expected = summary(run(tmp_path / "sqlite", list(PAGES)))
    with redis_server(tmp_path / "redis") as url:
        client = redis.Redis.from_url(url)
        try:
            for seed in range(2):
                client.flushdb()
                order = list(PAGES)
                random.Random(seed).shuffle(order)
                store = RedisEntityStore(client, CrawlKeys.of(f"resolve{seed}"), expire=600)
                assert summary(run(tmp_path / f"r{seed}", order, store)) == expected
        finally:
            client.close()


@pytest.mark.parametrize(("a", "b"), [("gtin12", "614141100019"), ("gtin13", "0614141100019")])
def test_gtin_lengths_are_one_identifier(a, b):
    from structcrawl.entities.identity import record_identity

    rec = {"type": ["Product"], "properties": {a: b}}
    assert record_identity(rec, "https://x.example/") == ["Product|gtin:00614141100019"]
