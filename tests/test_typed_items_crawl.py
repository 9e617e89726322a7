"""Typed items in the crawl: built by a pipeline while the page is parsed (so the items feed
keeps its visible-page fallbacks when the document is released), fallback values checked
against the visible page, and items merged across pages (``items-merged``)."""

from __future__ import annotations

import io
import json

from scrapy.utils.test import get_crawler

from structcrawl.core.document import parse_html
from structcrawl.crawl.exporters import ItemsJsonLinesExporter, MergedItemsJsonLinesExporter
from structcrawl.crawl.items import EntityItem, PageItem
from structcrawl.crawl.pipelines.typeditems import TypedItemsPipeline
from structcrawl.extract import extract_payload
from structcrawl.typed import page_items
from structcrawl.typed.merged import merged_item
from structcrawl.validate.fallbacks import FLAG_CODE, LazyPage, check_fallbacks

URL = "https://shop.example/p/lamp"
HEAD = '<html><head><title>Desk Lamp</title><meta property="og:type" content="product">'
SHOWN = '<body><h1>Desk Lamp</h1><p class="price">24,99 &euro;</p><button>Add to cart</button>'


def meta_price(amount: str) -> bytes:
    return (
        f'{HEAD}<meta property="product:price:amount" content="{amount}">'
        f'<meta property="product:price:currency" content="EUR"></head>{SHOWN}</body></html>'
    ).encode()


DATA_BLOCK = (
    f'{HEAD}<script type="application/json" id="state">{{"product": {{"name": "Desk Lamp",'
    f' "sku": "DL-9", "price": "31.00", "currency": "EUR"}}}}</script></head>'
    "<body><h1>Desk Lamp</h1><p>A lamp.</p><button>Add to cart</button></body></html>"
).encode()
VISIBLE_ONLY = f"{HEAD}</head>{SHOWN}</body></html>".encode()
JSONLD = (
    b'<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",'
    b' "name": "Mug", "sku": "M1", "offers": {"@type": "Offer", "price": "12.00",'
    b' "priceCurrency": "EUR"}}</script><h1>Mug</h1>'
)


def checked(body: bytes) -> tuple[dict, LazyPage, int]:
    doc = parse_html(body, URL)
    items = page_items(body, URL, "text/html", document=doc)
    page = LazyPage(doc)
    flagged = check_fallbacks(items, page)
    return items[0], page, flagged


def test_a_meta_price_the_page_does_not_show_is_flagged():
    item, page, flagged = checked(meta_price("19.99"))
    assert item["price"] == "19.99" and item["provenance"]["price"]["layer"] == "meta-tags"
    assert flagged == 1 and page.computed
    (flag,) = item["validation"]["flags"]
    assert flag == {
        "field": "price",
        "code": FLAG_CODE,
        "layer": "meta-tags",
        "value": "19.99",
        "visible_value": ["24,99 €"],
    }


def test_a_meta_price_the_page_shows_passes():
    item, _, flagged = checked(meta_price("24.99"))
    assert item["price"] == "24.99" and flagged == 0
    assert item["validation"] == {"visible_checked": ["price", "name"], "flags": []}


def test_data_block_values_not_on_the_page_are_flagged_and_visible_ones_pass_trivially():
    item, _, _ = checked(DATA_BLOCK)
    assert {f["field"] for f in item["validation"]["flags"]} == {"price", "sku"}
    item, _, flagged = checked(VISIBLE_ONLY)
    assert item["provenance"]["price"]["layer"] == "visible-page"
    assert item["price"] == "24.99" and flagged == 0 and item["validation"]["flags"] == []


def test_visible_facts_are_not_computed_without_fallback_values():
    item, page, flagged = checked(JSONLD)
    assert item["price"] == "12.00" and flagged == 0
    assert "validation" not in item and not page.computed


def page_item(body: bytes) -> PageItem:
    doc = parse_html(body, URL)
    records = [r.to_dict() for r in extract_payload(body, URL, "text/html", document=doc).records]
    return PageItem(url=URL, final_url=URL, records=records, document=doc, body=body)


def export(exporter_cls, items, crawler=None) -> list[dict]:
    buffer = io.BytesIO()
    exporter = exporter_cls.from_crawler(crawler, buffer) if crawler else exporter_cls(buffer)
    exporter.start_exporting()
    for item in items:
        exporter.export_item(item)
    exporter.finish_exporting()
    return [json.loads(x) for x in buffer.getvalue().decode().splitlines()]


def test_the_items_feed_keeps_visible_fallbacks_after_the_document_is_released():
    crawler = get_crawler(
        settings_dict={"STRUCTCRAWL_TYPED_ITEMS": True, "STRUCTCRAWL_CHANGES_ENABLED": False}
    )
    pipeline = TypedItemsPipeline.from_crawler(crawler)
    built = pipeline.process_item(page_item(VISIBLE_ONLY))
    built.document = None  # released after the pipelines (e.g. to bound memory)
    built.body = b""
    (line,) = export(ItemsJsonLinesExporter, [built], crawler)
    assert line["price"] == "24.99" and line["availability"] == "InStock"
    assert line["provenance"]["price"]["layer"] == "visible-page"
    assert line["page_url"] == URL and line["schema_version"]
    # without the pipeline, a released document loses the visible-page evidence
    bare = page_item(VISIBLE_ONLY)
    bare.document = None
    assert all("price" not in x for x in export(ItemsJsonLinesExporter, [bare], crawler))
    assert crawler.stats.get_value("structcrawl/items/items") == 1


def test_the_pipeline_is_off_without_an_items_feed():
    import pytest
    from scrapy.exceptions import NotConfigured

    with pytest.raises(NotConfigured):
        TypedItemsPipeline.from_crawler(get_crawler(settings_dict={}))
    feeds = {"FEEDS": {"out.jsonl": {"format": "items"}}, "STRUCTCRAWL_CHANGES_ENABLED": False}
    assert TypedItemsPipeline.from_crawler(get_crawler(settings_dict=feeds)).tracker is None


MERGED = {
    "key": "gtin:04006381333931",
    "type": ["Product"],
    "formats": ["json-ld", "microdata"],
    "properties": {
        "name": "Mug",
        "sku": "M1",
        "gtin13": "4006381333931",
        "offers": {"@type": ["Offer"], "price": "12.00", "priceCurrency": "EUR"},
    },
    "provenance": {
        "offers.price": [
            {"url": "https://s.example/a", "format": "json-ld", "path": "/s#$.offers.price",
             "raw": "12.00", "value": "12.00"},
            {"url": "https://s.example/b", "format": "microdata", "path": "/div/span",
             "raw": "13.50", "value": "13.50"},
        ]
    },
    "conflicts": [
        {
            "field": "offers.price",
            "chosen": "12.00",
            "values": [
                {"value": "12.00", "count": 1, "formats": ["json-ld"],
                 "urls": ["https://s.example/a"]},
                {"value": "13.50", "count": 1, "formats": ["microdata"],
                 "urls": ["https://s.example/b"]},
            ],
        }
    ],
    "sources": [
        {"url": "https://s.example/a", "format": "json-ld", "element": "/s"},
        {"url": "https://s.example/b", "format": "microdata", "element": "/div"},
    ],
}  # fmt: skip


def test_a_merged_entity_gives_one_item_with_its_sources_and_conflicts():
    item = merged_item(MERGED)
    assert item is not None
    assert (item["type"], item["name"], item["price"], item["currency"]) == (
        "Product", "Mug", "12.00", "EUR",
    )  # fmt: skip
    assert item["gtin"][0]["value"] == "4006381333931"
    assert [s["url"] for s in item["sources"]] == ["https://s.example/a", "https://s.example/b"]
    assert item["conflicts"]["price"] == [
        {"value": "13.50", "layers": ["microdata"], "urls": ["https://s.example/b"],
         "count": 1, "entity_path": "offers.price"}
    ]  # fmt: skip
    assert item["provenance"]["price"]["url"] == "https://s.example/a"
    assert item["provenance"]["price"]["sightings"] == 2
    assert merged_item({"key": "o", "type": ["Offer"], "properties": {"price": "1"}}) is None


def test_the_merged_items_feed_writes_current_entities_of_item_types():
    entities = [
        EntityItem(**MERGED),
        EntityItem(key="x", type=["Offer"], properties={"price": "1"}),
        EntityItem(
            key="g",
            type=["Product"],
            properties={"name": "Old"},
            change={"status": "gone", "fields": []},
        ),  # fmt: skip
        page_item(JSONLD),
    ]
    lines = export(MergedItemsJsonLinesExporter, entities)
    assert [(x["entityKey"], x["price"]) for x in lines] == [("gtin:04006381333931", "12.00")]


def test_facts_the_record_checks_read_are_not_read_again_and_flag_the_same():
    from structcrawl.typed.classes import item_dict
    from structcrawl.visible.facts import LazyVisibleFacts

    body = meta_price("24.99")  # shown: the price and the name agree with the facts alone
    fresh, fresh_page, fresh_flagged = checked(body)
    doc = parse_html(body, URL)
    read = LazyVisibleFacts(doc)
    read["prices"], read["title"], read["h1"]  # what the validation pipeline read
    items = page_items(body, URL, "text/html", document=doc)
    page = LazyPage(doc, read.read_so_far())
    assert check_fallbacks(items, page) == fresh_flagged == 0
    assert (
        items[0]["validation"]
        == fresh["validation"]
        == {
            "visible_checked": ["price", "name"],
            "flags": [],
        }
    )
    assert not page.computed and fresh_page.computed  # nothing read from the page again
    # the crawl's pipeline hands the page item's facts over, read so far and no more
    crawler = get_crawler(
        settings_dict={"STRUCTCRAWL_TYPED_ITEMS": True, "STRUCTCRAWL_CHANGES_ENABLED": False}
    )
    item = page_item(body)
    item.visible = LazyVisibleFacts(item.document)
    item.visible["prices"]
    built = TypedItemsPipeline.from_crawler(crawler).process_item(item)
    assert item_dict(built.typed_items[0])["validation"] == fresh["validation"]
    assert item.visible.read_so_far().keys() == {"prices"}  # the pages feed writes no more
