"""apply_rules: fill what the semantic layers left empty, override, create, with provenance."""

from __future__ import annotations

import copy
from pathlib import Path

from structcrawl import __version__
from structcrawl.core.document import Document, parse_html
from structcrawl.extract import extract_document
from structcrawl.rules import apply_rules, load_rules, run_rules
from structcrawl.rules.loader import SiteRules, parse_site

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
URL = "https://shop.example/p/1"

PAGE = """<html><head><title>Boot</title>
<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product",
 "name": "Boot", "description": "", "offers": {"@type": "Offer", "price": "99.00"}}</script>
</head><body><main>
<article class="product">
  <h1> Boot  One </h1>
  <img class="photo" src="../img/boot.png">
  <p class="desc">A  sturdy boot.</p>
  <table><tr><th>SKU</th><td class="sku">SKU: B-1</td></tr></table>
  <p class="price" data-currency="EUR">1.299,00&nbsp;€</p>
  <span class="tag">leather</span><span class="tag">hiking</span>
</article>
</main></body></html>"""


def rules(**entity) -> SiteRules:
    base = {
        "type": "Product",
        "scope": "article.product",
        "nested_types": {"offers": "Offer"},
        "fields": {
            "name": "h1",
            "description": "p.desc",
            "sku": {"css": ".sku::text", "processors": ["regex:SKU:\\s*(\\S+)"]},
            "image": {"css": "img.photo::attr(src)", "processors": ["absolute_url"]},
            "tags": {"css": ".tag::text", "many": True},
            "offers.price": ".price",
            "offers.priceCurrency": ".price::attr(data-currency)",
        },
    }
    base.update(entity)
    return parse_site({"name": "shop", "hosts": ["shop.example"], "entity": [base]}, "shop.toml")


def page(html: str = PAGE, url: str = URL) -> tuple[Document, list[dict]]:
    doc = parse_html(html.encode(), url)
    return doc, [r.to_dict() for r in extract_document(doc)]


def sighting(path: str, raw, kind: str = "css") -> list[dict]:
    return [{"path": path, "raw": raw, "selector": f"{kind}:{path}", "rule": "shop"}]


def test_rules_fill_only_the_fields_the_semantic_layers_left_empty():
    doc, records = page()
    before = copy.deepcopy(records)
    out = apply_rules(rules(), doc, records)
    assert records == before  # pure: the input is not modified
    (product,) = [r for r in out if r["format"] == "json-ld"]
    props, fields = product["properties"], product["provenance"]["fields"]
    assert props["name"] == "Boot"  # found by JSON-LD: kept
    assert fields["name"] == [{"path": "/html/head/script#$.name", "raw": "Boot"}]
    assert props["description"] == "A sturdy boot."  # empty in JSON-LD: filled
    assert fields["description"] == sighting("p.desc", "A  sturdy boot.")
    assert props["sku"] == "B-1" and fields["sku"] == sighting(".sku::text", "SKU: B-1")
    assert props["image"] == "https://shop.example/img/boot.png"
    assert fields["image"] == sighting("img.photo::attr(src)", "../img/boot.png")
    assert props["tags"] == ["leather", "hiking"]
    assert fields["tags"] == sighting(".tag::text", ["leather", "hiking"])
    offer = props["offers"]
    assert offer["format"] == "json-ld" and offer["properties"]["price"] == "99.00"
    assert offer["properties"]["priceCurrency"] == "EUR"
    assert offer["provenance"]["fields"]["priceCurrency"] == sighting(
        ".price::attr(data-currency)", "EUR"
    )
    assert "rule" not in str(offer["provenance"]["fields"]["price"])


def test_run_rules_reports_what_it_filled():
    doc, records = page()
    outcome = run_rules(rules(), doc, records)
    assert outcome.created == ()
    assert sorted(outcome.filled) == [
        ("Product", "description"),
        ("Product", "image"),
        ("Product", "offers.priceCurrency"),
        ("Product", "sku"),
        ("Product", "tags"),
    ]


def test_override_replaces_what_the_semantic_layers_found():
    doc, records = page()
    out = apply_rules(rules(override=True), doc, records)
    (product,) = [r for r in out if r["format"] == "json-ld"]
    assert product["properties"]["name"] == "Boot One"
    assert product["provenance"]["fields"]["name"] == sighting("h1", " Boot  One ")
    offer = product["properties"]["offers"]
    assert offer["properties"]["price"] == "1.299,00 €"
    assert offer["provenance"]["fields"]["price"] == sighting(".price", "1.299,00\u00a0€")


def test_a_rule_creates_a_selector_record_when_no_layer_found_the_type():
    html = PAGE.replace('"@type": "Product"', '"@type": "Thing"')
    doc, records = page(html)
    outcome = run_rules(rules(), doc, records)
    assert outcome.created == ("Product",) and outcome.filled == ()
    (created,) = [r for r in outcome.records if r["format"] == "selector"]
    assert created["kind"] == "entity" and created["type"] == ["Product"]
    assert created["source_url"] == URL and created["id"] is None
    assert created["source_element"] == "/html/body/main/article"
    assert created["provenance"]["parser"] == "structcrawl.rules"
    assert created["provenance"]["parser_version"] == __version__
    assert created["error"] is None and created["repairs"] == []
    props = created["properties"]
    assert props["name"] == "Boot One" and props["sku"] == "B-1"
    assert (
        created["raw"]["sku"] == "SKU: B-1" and created["raw"]["offers.price"] == "1.299,00\u00a0€"
    )
    assert created["provenance"]["fields"]["name"] == sighting("h1", " Boot  One ")
    offer = props["offers"]
    assert offer["format"] == "selector" and offer["type"] == ["Offer"]
    assert offer["properties"] == {"price": "1.299,00 €", "priceCurrency": "EUR"}
    assert offer["provenance"]["fields"]["price"] == sighting(".price", "1.299,00\u00a0€")
    assert created["provenance"]["fields"]["offers"][0]["raw"] is None
    assert len([r for r in outcome.records if r["format"] == "json-ld"]) == 1  # the Thing stays


def test_a_created_record_replaces_the_no_records_skip():
    html = '<html><body><article class="product"><h1>Tent</h1></article></body></html>'
    doc = parse_html(html.encode(), URL)
    skip = {"kind": "skip", "format": "page", "error": {"code": "no-records", "message": "m"}}
    out = apply_rules(rules(), doc, [skip])
    assert [(r["format"], r["properties"]) for r in out] == [("selector", {"name": "Tent"})]
    # nothing found: nothing created, the skip record stays
    empty = parse_html(b"<html><body><p>nothing</p></body></html>", URL)
    assert apply_rules(rules(), empty, [skip]) == [skip]


def test_without_a_site_or_outside_the_url_pattern_nothing_changes():
    doc, records = page()
    assert apply_rules(None, doc, records) == records
    assert apply_rules(rules(url_pattern="/q/"), doc, records) == records


def test_xpath_fields_the_whole_page_scope_and_the_id_field():
    site = parse_site(
        {
            "name": "shop",
            "hosts": ["shop.example"],
            "entity": [
                {
                    "type": "Product",
                    "fields": {
                        "@id": {
                            "css": "link[rel=canonical]::attr(href)",
                            "processors": ["absolute_url"],
                        },
                        "sku": "xpath://td[@class='sku']/text()",
                        "name": "xpath:normalize-space(//h1)",
                    },
                }
            ],
        }
    )
    html = PAGE.replace("<title>", '<link rel="canonical" href="/p/boot"><title>').replace(
        '"@type": "Product"', '"@type": "Thing"'
    )
    doc, records = page(html)
    (created,) = [r for r in apply_rules(site, doc, records) if r["format"] == "selector"]
    assert created["source_element"] == "/html"
    assert created["id"] == "https://shop.example/p/boot"
    assert created["provenance"]["fields"]["@id"][0]["raw"] == "/p/boot"
    assert created["properties"] == {"sku": "SKU: B-1", "name": "Boot One"}
    assert created["provenance"]["fields"]["sku"] == sighting(
        "//td[@class='sku']/text()", "SKU: B-1", "xpath"
    )


LISTING = """<html><body><ul>
<li class="card" itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">A</h2><p class="price">$1.00</p></li>
<li class="card" itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">B</h2><p class="price">$2.00</p></li>
<li class="card"><h2>C</h2><p class="price">$3.00</p></li>
</ul></body></html>"""


def test_on_a_listing_each_record_is_filled_from_the_scope_element_holding_it():
    site = rules(scope="li.card", fields={"name": "h2", "offers.price": ".price"})
    doc, records = page(LISTING)
    outcome = run_rules(site, doc, records)
    products = [r for r in outcome.records if r["format"] == "microdata"]
    prices = [p["properties"]["offers"]["properties"]["price"] for p in products]
    assert prices == ["$1.00", "$2.00"]
    assert [p["properties"]["offers"]["source_element"] for p in products] == [
        "/html/body/ul/li[1]",
        "/html/body/ul/li[2]",
    ]
    # records of the type exist on the page: the third card creates nothing
    assert outcome.created == () and len(outcome.records) == len(records)


def test_nested_values_that_are_not_records_are_never_replaced():
    html = PAGE.replace(
        '"offers": {"@type": "Offer", "price": "99.00"}', '"offers": {"@id": "#offer"}'
    )
    doc, records = page(html)
    out = apply_rules(rules(override=True), doc, records)
    (product,) = [r for r in out if r["format"] == "json-ld"]
    assert product["properties"]["offers"] == {"@id": "https://shop.example/p/1#offer"}


def test_a_list_of_nested_records_fills_the_first():
    html = PAGE.replace(
        '"offers": {"@type": "Offer", "price": "99.00"}',
        '"offers": [{"@type": "Offer", "price": "1"}, {"@type": "Offer", "price": "2"}]',
    )
    doc, records = page(html)
    (product,) = [r for r in apply_rules(rules(), doc, records) if r["format"] == "json-ld"]
    first, second = product["properties"]["offers"]
    assert first["properties"]["priceCurrency"] == "EUR"
    assert "priceCurrency" not in second["properties"]


def northwind(path: str) -> tuple[list[dict], list[dict]]:
    url = f"http://127.0.0.1:8765/{path}"
    doc = parse_html((SITE / path).read_bytes(), url)
    records = [r.to_dict() for r in extract_document(doc)]
    site = load_rules(SITE / "rules").for_url(url)  # the demo's rules, passed explicitly
    return records, apply_rules(site, doc, records)


def test_the_northwind_rule_makes_the_only_record_of_the_rule_only_page():
    before, after = northwind("products/canyon-rain-shell.html")
    assert before == []
    (product,) = after
    assert product["format"] == "selector" and product["type"] == ["Product"]
    props = product["properties"]
    assert props["name"] == "Canyon Rain Shell" and props["sku"] == "NW-CRS-300"
    assert props["gtin13"] == "0614141103003"
    assert props["image"] == "http://127.0.0.1:8765/static/img/products/canyon-rain-shell.svg"
    assert props["brand"]["type"] == ["Brand"]
    assert props["brand"]["properties"] == {"name": "Northwind Outfitters"}
    offer = props["offers"]
    assert offer["type"] == ["Offer"]
    assert offer["properties"] == {"price": "1,049.00", "priceCurrency": "USD"}
    assert offer["provenance"]["fields"]["price"] == [
        {"path": ".price", "raw": "$1,049.00", "selector": "css:.price", "rule": "northwind"}
    ]
    assert product["provenance"]["fields"]["gtin13"][0]["selector"] == (
        "xpath:.//li[@class='pdp-gtin']/text()"
    )


def test_the_northwind_rule_leaves_pages_of_other_templates_alone():
    for path in ("products/trail-runner-x.html", "products/index.html", "search.html"):
        before, after = northwind(path)
        assert after == before, path
