"""Typed items: hand-labelled pages (fixtures/items/<case>/page.html + items.json), entity
resolution, the primary entity and the generic fallbacks with their provenance."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

import pytest

from structcrawl.commandline import main
from structcrawl.entities.identity import resolve
from structcrawl.typed import build_items, page_items

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "items"
CASES = sorted(p.parent for p in ROOT.glob("*/items.json"))
FIELDS = ("price", "currency", "availability", "sku")
# Truths the generic rules do not reach yet (kept visible, never special-cased).
KNOWN_MISSES: dict[str, str] = {}


def _items(folder: Path) -> tuple[dict, list[dict]]:
    meta = json.loads((folder / "items.json").read_text(encoding="utf-8"))
    return meta, page_items(
        (folder / "page.html").read_bytes(), meta["url"], meta.get("content_type")
    )


def _same(field: str, got, want) -> bool:
    if field == "price" and got is not None and want is not None:
        return Decimal(got) == Decimal(want)
    return got == want


@pytest.mark.parametrize("folder", CASES, ids=[c.name for c in CASES])
def test_items_fixture(folder: Path):
    if folder.name in KNOWN_MISSES:
        pytest.xfail(KNOWN_MISSES[folder.name])
    meta, items = _items(folder)
    assert items, f"{folder.name}: no items"
    first = items[0]
    assert meta["primary_type"] in (first["type"], *first.get("schemaTypes", []), "ItemList"), (
        first["type"]
    )
    predicted = (
        [i for i in items if i["type"] == "Product"]
        if meta["primary_type"] == "ItemList"
        else items
    )
    for want, got in zip(meta["items"], predicted, strict=False):
        for field in FIELDS:
            if field in want:
                assert _same(field, got.get(field), want[field]), (
                    folder.name,
                    field,
                    got.get(field),
                    want[field],
                )


def test_fixture_set_is_present():
    assert len(CASES) >= 25


PRODUCT_LD = b"""<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product",
"@id":"https://s.example/p#product","name":"Lock","gtin13":"8712345678906","sku":"L1",
"offers":{"@type":"Offer","price":"99.00","priceCurrency":"EUR"}}</script>"""
PRODUCT_MD = b"""<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Lock</h1>
<meta itemprop="gtin" content="08712345678906"><div itemprop="offers" itemscope
itemtype="https://schema.org/Offer"><span class="price" itemprop="price" content="89.00">89,00 EUR</span>
<meta itemprop="priceCurrency" content="EUR"></div></div>"""


def test_partial_ids_across_layers_become_one_product_with_a_conflict():
    items = page_items(PRODUCT_LD + PRODUCT_MD, "https://s.example/p", "text/html")
    products = [i for i in items if i["type"] == "Product"]
    assert len(products) == 1
    product = products[0]
    assert {s["layer"] for s in product["sources"]} == {"json-ld", "microdata"}
    # the page shows 89,00: the visible page decides between the disagreeing layers
    assert product["price"] == "89.00"
    assert product["provenance"]["price"]["layer"] == "microdata"
    assert [c["value"] for c in product["conflicts"]["price"]] == ["99.00"]


def test_resolution_does_not_depend_on_order():
    members = {
        f"m{i}": keys
        for i, keys in enumerate(
            [["id:a"], ["gtin:1", "id:a"], ["gtin:1"], ["sku:x"], [], ["sku:x", "url:u"], ["url:u"]]
        )
    }
    expected = resolve(members)
    for seed in range(20):
        order = list(members.items())
        random.Random(seed).shuffle(order)
        assert resolve(dict(order)) == expected
    assert expected[:2] == [["m0", "m1", "m2"], ["m3", "m5", "m6"]]


def test_resolution_of_page_records_does_not_depend_on_record_order():
    from structcrawl.extract import extract_payload

    body = PRODUCT_LD + PRODUCT_MD
    records = [
        r.to_dict() for r in extract_payload(body, "https://s.example/p", "text/html").records
    ]
    first = build_items(records, "https://s.example/p")
    for seed in range(5):
        shuffled = list(records)
        random.Random(seed).shuffle(shuffled)
        again = build_items(shuffled, "https://s.example/p")
        assert [(i["type"], i.get("sku"), i.get("price")) for i in again] == [
            (i["type"], i.get("sku"), i.get("price")) for i in first
        ]


def test_primary_entity_of_an_article_page_and_supporting_entities():
    body = b"""<script type="application/ld+json">{"@context":"https://schema.org","@graph":[
    {"@type":"Organization","@id":"https://n.example/#org","name":"News"},
    {"@type":"BreadcrumbList","itemListElement":[{"@type":"ListItem","position":1,"name":"Home","item":"https://n.example/"}]},
    {"@type":"NewsArticle","headline":"Rain","mainEntityOfPage":"https://n.example/a/1","author":{"@type":"Person","name":"Ana"},
     "datePublished":"2026-01-02"}]}</script><h1>Rain</h1>"""
    items = page_items(body, "https://n.example/a/1", "text/html")
    assert items[0]["type"] == "Article" and items[0]["role"] == "primary"
    assert items[0]["headline"] == "Rain" and items[0]["authors"] == [{"name": "Ana"}]
    assert {i["type"] for i in items[1:]} >= {"Organization", "BreadcrumbList"}
    assert all(i["role"] == "supporting" for i in items[1:])


def test_listing_page_gives_one_item_per_product():
    cards = b"".join(
        b'<div itemscope itemtype="https://schema.org/Product"><a itemprop="url" href="/p/%d">'
        b'<span itemprop="name">Thing %d</span></a><div itemprop="offers" itemscope '
        b'itemtype="https://schema.org/Offer"><meta itemprop="price" content="%d.00">'
        b'<meta itemprop="priceCurrency" content="EUR"></div></div>' % (i, i, 10 + i)
        for i in range(3)
    )
    items = page_items(b"<h1>All things</h1>" + cards, "https://s.example/c", "text/html")
    listed = [i for i in items if i.get("role") == "listed"]
    assert [i["price"] for i in listed] == ["10.00", "11.00", "12.00"]


@pytest.mark.parametrize(
    ("body", "rule", "field", "value"),
    [
        (
            b'<meta property="og:type" content="product"><meta property="product:price:amount" content="64.00">'
            b'<meta property="product:price:currency" content="GBP"><h1>Bag</h1>',
            "meta-tags",
            "price",
            "64.00",
        ),
        (
            b'<h1>Bag</h1><span itemprop="sku">BG-1</span><span itemprop="price" content="5.50">5,50</span>',
            "itemprop-loose",
            "sku",
            "BG-1",
        ),
        (
            b'<h1>Bag</h1><script type="application/json" id="p">{"product":{"title":"Bag","handle":"bag",'
            b'"compare_at_price":null,"variants":[{"id":1,"sku":"B-1","price":4990,"available":true}]}}</script>',
            "data-block-product",
            "price",
            "49.90",
        ),
        (
            b"<h1>Werkzeugkoffer</h1><p>Unser Preis: <b>49,90 EUR</b> <del>59,90 EUR</del></p>"
            b"<p>Art.-Nr.: 123456</p><p>Auf Lager</p><button>In den Warenkorb</button>",
            "visible-page",
            "price",
            "49.90",
        ),
    ],
)
def test_each_fallback_is_marked_with_its_evidence(body, rule, field, value):
    items = page_items(body, "https://s.example/p", "text/html")
    product = items[0]
    assert product["type"] == "Product"
    assert product[field] == value
    prov = product["provenance"][field]
    assert prov["fallback"] is True and prov["rule"].startswith(rule) and prov["evidence"]


def test_structured_layers_win_over_fallbacks():
    body = PRODUCT_LD + b'<meta property="product:price:amount" content="1.00"><h1>Lock</h1>'
    product = page_items(body, "https://s.example/p", "text/html")[0]
    assert product["price"] == "99.00" and product["provenance"]["price"]["layer"] == "json-ld"
    assert any(c.get("fallback") for c in product["conflicts"]["price"])


def test_values_in_the_new_value_model_read_the_same():
    records = [
        {
            "kind": "entity",
            "format": "rdfa",
            "type": ["Product"],
            "id": None,
            "source_element": "/html/body/div",
            "properties": {
                "name": {"@value": "Cup", "@language": "en"},
                "sku": {"@value": "C1"},
                "offers": {
                    "type": ["Offer"],
                    "id": None,
                    "properties": {
                        "price": {
                            "@value": "3.5",
                            "@type": "http://www.w3.org/2001/XMLSchema#decimal",
                        },
                        "priceCurrency": "EUR",
                        "availability": {"@id": "http://schema.org/InStock"},
                    },
                },
            },
        }
    ]
    product = build_items(records, "https://s.example/cup")[0]
    assert (product["name"], product["sku"], product["price"], product["availability"]) == (
        "Cup",
        "C1",
        "3.50",
        "InStock",
    )


def test_cli_view_items(tmp_path, capsys):
    page = tmp_path / "p.html"
    page.write_bytes(PRODUCT_LD)
    assert main(["extract", str(page), "--base-url", "https://s.example/p", "--view", "items"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert (
        items[0]["kind"] == "item"
        and items[0]["type"] == "Product"
        and items[0]["price"] == "99.00"
    )


def test_items_feeds_write_one_line_per_item_per_page():
    import csv
    import io

    from structcrawl.core.document import parse_html
    from structcrawl.crawl.exporters import (
        ITEM_CSV_COLUMNS,
        ItemsCsvExporter,
        ItemsJsonLinesExporter,
    )
    from structcrawl.crawl.items import PageItem
    from structcrawl.extract import extract_payload

    body = PRODUCT_LD + PRODUCT_MD
    doc = parse_html(body, "https://s.example/p")
    records = [
        r.to_dict()
        for r in extract_payload(body, "https://s.example/p", "text/html", document=doc).records
    ]
    page = PageItem(
        url="https://s.example/p", final_url="https://s.example/p", records=records, document=doc
    )
    jl, cs = io.BytesIO(), io.BytesIO()
    for cls, buf in ((ItemsJsonLinesExporter, jl), (ItemsCsvExporter, cs)):
        exporter = cls(buf)
        exporter.start_exporting()
        exporter.export_item(page)
        exporter.finish_exporting()
    (line,) = [json.loads(x) for x in jl.getvalue().splitlines()]
    assert (
        line["page_url"] == "https://s.example/p"
        and line["type"] == "Product"
        and line["price"] == "89.00"
    )
    header, row = list(csv.reader(io.StringIO(cs.getvalue().decode("utf-8"))))
    assert header == list(ITEM_CSV_COLUMNS)
    assert dict(zip(header, row, strict=True))["sku"] == "L1"


def test_every_fixture_item_matches_its_published_schema():
    from structcrawl.typed.schema import check_item, item_schemas

    assert {"Product", "Article", "Event", "Recipe", "JobPosting", "LocalBusiness"} <= set(
        item_schemas()
    )
    for folder in CASES:
        for item in _items(folder)[1]:
            ok, errors = check_item(item)
            assert ok, (folder.name, item["type"], errors)
    assert not check_item({"kind": "item", "type": "Product", "availability": "in stock"})[0]


def test_items_feed_follows_the_precedence_setting():
    import io

    from scrapy.utils.misc import build_from_crawler
    from scrapy.utils.test import get_crawler

    from structcrawl.crawl.exporters import ItemsJsonLinesExporter
    from structcrawl.crawl.items import PageItem
    from structcrawl.extract import extract_payload

    body = PRODUCT_LD + PRODUCT_MD  # the page item carries no parsed tree: no visible price
    records = [
        r.to_dict() for r in extract_payload(body, "https://s.example/p", "text/html").records
    ]
    page = PageItem(url="https://s.example/p", final_url="https://s.example/p", records=records)
    prices = []
    for order in (["json-ld", "microdata"], ["microdata", "json-ld"]):
        crawler = get_crawler(settings_dict={"STRUCTCRAWL_FORMAT_PRECEDENCE": order})
        buf = io.BytesIO()
        exporter = build_from_crawler(ItemsJsonLinesExporter, crawler, buf)
        exporter.start_exporting()
        exporter.export_item(page)
        exporter.finish_exporting()
        prices.append(json.loads(buf.getvalue().splitlines()[0])["price"])
    assert prices == ["99.00", "89.00"]


def test_a_product_page_with_a_list_of_related_products_is_not_a_listing():
    related = b"""<script type="application/ld+json">{"@context":"https://schema.org","@type":"ItemList",
    "itemListElement":[{"@type":"ListItem","position":1,"item":{"@type":"Product","name":"Cup","sku":"C-1",
    "offers":{"@type":"Offer","price":"9.00","priceCurrency":"EUR"}}},{"@type":"ListItem","position":2,
    "item":{"@type":"Product","name":"Jug","sku":"J-1","offers":{"@type":"Offer","price":"19.00",
    "priceCurrency":"EUR"}}}]}</script>"""
    items = page_items(PRODUCT_LD + related + b"<h1>Lock</h1>", "https://s.example/p", "text/html")
    assert items[0]["role"] == "primary" and items[0]["sku"] == "L1"
    assert not [i for i in items if i.get("role") == "listed"]


def test_among_fallbacks_the_one_the_page_shows_wins_and_the_named_data_block_product():
    body = (
        b'<meta property="og:type" content="product"><meta property="product:price:amount" content="10.00">'
        b'<meta property="product:price:currency" content="EUR"><h1>Desk Lamp</h1>'
        b'<p class="price">12,00 \xe2\x82\xac</p>'
        b'<script type="application/json" id="state">{"recent":[{"title":"Chair","sku":"CH-1","price":{"amount":99}}],'
        b'"product":{"title":"Desk Lamp","sku":"DL-1","price":{"amount":12,"currencyCode":"EUR"}}}</script>'
    )
    product = page_items(body, "https://s.example/lamp", "text/html")[0]
    assert product["price"] == "12.00" and product["sku"] == "DL-1"
    assert product["provenance"]["price"]["rule"] == "data-block-product"
    assert [c["value"] for c in product["conflicts"]["price"]] == ["10.00"]


@pytest.mark.parametrize(
    "options, stock, want",
    [
        # a sold-out colour in the swatches says nothing of the selected one
        (
            '<ul class="colors"><li>Black</li><li class="soldout">Green <span>Sold out</span></li></ul>',
            '<p class="stock-status">In stock</p>',
            "InStock",
        ),
        # an "unavailable" option class is still one option among several
        (
            '<ul><li class="swatchSelect">Black</li><li class="swatchUnavailable">Currently unavailable</li></ul>',
            '<div id="availability"><span>In stock</span></div>',
            "InStock",
        ),
        # a list of product facts is no list of options: its stock line counts as written
        (
            "<ul><li>Brand: Nambu</li><li>Capacity: 0.6 l</li><li>Availability: in stock</li></ul>",
            '<div class="related"><p>Kettle, black</p><p>Sold out</p></div>',
            "InStock",
        ),
        # the stock element itself wins over wording elsewhere, and says out of stock
        (
            "<p>Only a few sizes left, in stock soon</p>",
            '<div class="product-availability">Ausverkauft</div>',
            "OutOfStock",
        ),
    ],
)
def test_visible_availability_reads_the_stock_element_not_one_option(options, stock, want):
    body = f"<h1>Teapot</h1><p>€ 49,00</p>{options}{stock}<button>Add to cart</button>".encode()
    product = page_items(body, "https://s.example/p", "text/html")[0]
    assert product["availability"] == want
    assert product["provenance"]["availability"]["fallback"] is True


def test_visible_price_reads_layout_lists_and_inline_strike_through():
    """A layout class such as Bootstrap's ``list-unstyled`` is no "list price"; an inline
    ``text-decoration: line-through`` strikes the old price; local currency words count."""
    body = (
        '<h1>Rower miejski Lido</h1><ul class="list-unstyled">'
        '<li><span style="text-decoration: line-through;">1 499,00 zł</span></li>'
        "<li><h2>1 299,00 zł</h2></li><li>Cena netto: 1 056,10 zł</li></ul>"
        "<p>Darmowa dostawa od 299 zł</p><button>Dodaj do koszyka</button>"
    ).encode()
    product = page_items(body, "https://s.example/p", "text/html")[0]
    assert (product["price"], product["currency"]) == ("1299.00", "PLN")
    assert product["provenance"]["price"]["raw"] == "1 299,00 zł"


def test_every_product_type_maps_to_the_product_item():
    from structcrawl.typed.other import ITEM_TYPES
    from structcrawl.typed.product import PRODUCT_TYPES

    assert ITEM_TYPES["Product"] == PRODUCT_TYPES  # one list: a Motorcycle is a Product item


def test_loose_itemprops_are_those_the_path_selects() -> None:
    from structcrawl.core.document import parse_html
    from structcrawl.typed.fallbacks import _loose_itemprops

    page = (
        b"<html><head><meta itemprop='name' content='head'></head><body>"
        b"<span itemprop='price'>1</span><div itemscope><b itemprop='sku'>in scope</b></div>"
        b"<p itemscope itemprop='offers'>scoped itself</p><div><i itemprop='sku'>A-1</i>"
        b"<div><em itemprop='gtin13'>4006381333931</em></div></div></body></html>"
    )
    doc = parse_html(page, "https://shop.example/p")
    path = "//body//*[@itemprop][not(ancestor-or-self::*[@itemscope])]"
    assert _loose_itemprops(doc) == doc.root.xpath(path)
    assert [el.tag for el in _loose_itemprops(doc)] == ["span", "i", "em"]


def test_the_url_id_is_searched_only_where_a_product_is_built_from_fallbacks():
    from structcrawl.core.document import parse_html
    from structcrawl.extract import extract_payload

    def items_and_memo(body: bytes, url: str) -> tuple[list[dict], dict]:
        doc = parse_html(body, url)
        records = [
            r.to_dict() for r in extract_payload(body, url, "text/html", document=doc).records
        ]
        return build_items(records, url, doc), doc.memo

    # a news page whose URL names an id the page repeats: no product, the page not searched
    article = {"@type": "NewsArticle", "headline": "Pier", "identifier": "4711042"}
    body = _ld(article) + b"<h1>Pier</h1><p>Story 4711042: the pier reopens.</p>"
    items, memo = items_and_memo(body, "https://news.example/story/4711042")
    assert items[0]["type"] == "Article" and "url-id-candidates" not in memo
    # a product page whose markup names no SKU: the URL's id, repeated on the page, is its SKU
    offer = {"@type": "Offer", "price": "9.90", "priceCurrency": "EUR"}
    product = {"@type": "Product", "name": "Kettle", "offers": offer}
    body = _ld(product) + b'<h1>Kettle</h1><p data-id="4711042">Item 4711042</p>'
    items, memo = items_and_memo(body, "https://shop.example/p/4711042")
    assert items[0]["sku"] == "4711042" and items[0]["provenance"]["sku"]["rule"] == "url-id"
    assert "url-id-candidates" in memo


def _ld(data: dict) -> bytes:
    script = json.dumps({"@context": "https://schema.org", **data})
    return f'<script type="application/ld+json">{script}</script>'.encode()


def test_said_count_counts_what_the_xpath_it_replaced_counts():
    import re

    from lxml import etree

    from structcrawl.core.document import parse_html
    from structcrawl.typed.urlid import said_count

    xpath = etree.XPath(
        "count(//text()[contains(., $id)]) + count(//@*[not(name()='href' or name()='src'"
        " or name()='srcset' or name()='content' or name()='action')][contains(., $id)])"
    )
    pages = [folder / "page.html" for folder in CASES]
    rng = random.Random(7)
    compared = repeated = 0
    for page in pages:
        body = page.read_bytes()
        root = parse_html(body, "https://shop.example/p").root
        words = sorted(set(re.findall(rb"[A-Za-z0-9][A-Za-z0-9_-]{2,20}", body)))
        for word in rng.sample(words, min(12, len(words))):
            said = said_count(root, word.decode())
            assert said == int(xpath(root, id=word.decode())), (page.parent.name, word)
            compared += 1
            repeated += said >= 2
    assert compared > 100 and repeated > 10
