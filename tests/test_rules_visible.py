"""visible_facts: title, h1, canonical, prices and times, on the demo site and edge cases."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from structcrawl.core.document import parse_html
from structcrawl.visible.facts import VisibleFacts, visible_facts
from structcrawl.visible.prices import find_prices

SITE = Path(__file__).resolve().parents[1] / "fixtures" / "site"
BASE = "http://127.0.0.1:8765/"


def facts(path: str) -> VisibleFacts:
    return visible_facts(parse_html((SITE / path).read_bytes(), BASE + path))


def test_a_product_page():
    got = facts("products/trail-runner-x.html")
    assert got.title == "Trail Runner X – Trail Running Shoe | Northwind Outfitters"
    assert got.h1 == ["Trail Runner X"]
    assert got.canonical == BASE + "products/trail-runner-x.html"
    # the Microdata block's price; the RDFa box shows 119.99 without a price container
    assert got.prices == ["$129.99"]
    assert got.times == []


def test_the_rule_only_page_and_the_german_prices_and_local_times():
    canyon = facts("products/canyon-rain-shell.html")
    assert canyon.h1 == ["Canyon Rain Shell"] and canyon.prices == ["$1,049.00"]
    touring = facts("products/gipfelstuermer-touring-set.html")
    assert touring.prices == ["1.299,00 €"]
    assert touring.times == ["2026-03-14T10:00"]


def test_a_listing_collects_each_card_price_once():
    got = facts("products/index.html")
    assert got.h1 == ["Shop all gear"]
    assert got.canonical == BASE + "products/"
    assert got.prices == ["$129.99", "$289.00", "$349.00", "$179.00", "$49.95", "$149.00"]


def test_a_page_base_counts_for_the_canonical():
    got = facts("deals/index.html")  # <base href="/products/">, canonical root-relative
    assert got.canonical is not None and got.canonical.startswith(BASE)


def test_event_times_come_from_datetime_attributes():
    got = facts("events/gear-swap-munich.html")
    assert got.times[:2] == ["2026-03-21T10:00:00+01:00", "2026-03-21T16:00:00+01:00"]


def test_a_page_without_anything():
    got = visible_facts(parse_html(b"", "https://x.example/"))
    assert got == VisibleFacts(title=None, h1=[], canonical=None, prices=[], times=[])


def test_hidden_and_non_rendered_content_is_left_out():
    html = b"""<html><head><title>
      Two   words </title><link rel="alternate canonical" href="https://x.example/c"></head><body>
    <svg><title>icon</title></svg>
    <h1 hidden>Hidden</h1><h1>  Shown <span>here</span> </h1><h1>   </h1>
    <div style="display: none"><p class="price">$5.00</p><time datetime="2020-01-01">x</time></div>
    <div aria-hidden="true"><span class="price">$6.00</span></div>
    <template><span class="price">$7.00</span></template>
    <p class="product-price">Now <b>EUR 12,50</b> <span hidden>$99.00</span> instead of 15 EUR</p>
    <p class="price-box"><span class="price">$1.00</span></p>
    <p class="sale_price">US$ 3</p><p data-price="9">9.00 CHF</p><p data-testid="price">CA$4</p>
    <p class="priceless">$8.00</p><p>$10.00 outside any price container</p>
    <span itemprop="price" content="11.00">11.00</span>
    <span property="schema:price">12.00 USD</span>
    <time>14.03.2026</time><time datetime=" 2026-03-14T10:00 ">Sat</time><time datetime="">  </time>
    </body></html>"""
    got = visible_facts(parse_html(html, "https://x.example/p"))
    assert got.title == "Two words"
    assert got.h1 == ["Shown here"]
    assert got.canonical == "https://x.example/c"
    # aria-hidden hides from screen readers, not from the screen
    assert got.prices == [
        "$6.00", "EUR 12,50", "15 EUR", "$1.00", "US$ 3", "9.00 CHF", "CA$4", "12.00 USD"
    ]  # fmt: skip
    assert got.times == ["14.03.2026", "2026-03-14T10:00"]


def test_find_prices_is_conservative():
    assert find_prices("$1,049.00 and 1.299,00 € and 1 299,00 € and 129.99 USD") == [
        "$1,049.00",
        "1.299,00 €",
        "1 299,00 €",
        "129.99 USD",
    ]
    assert find_prices("Size 42, 3 pieces, 2026-03-14, v1.2, USDA 12") == []
    assert find_prices("€ 5") == ["€ 5"]


def test_lazy_facts_equal_the_eager_ones_and_are_read_only_when_checked():
    from structcrawl.validate import check_visible
    from structcrawl.visible.facts import LazyVisibleFacts

    for path in ("products/trail-runner-x.html", "products/gipfelstuermer-touring-set.html"):
        doc = parse_html((SITE / path).read_bytes(), BASE + path)
        assert dict(LazyVisibleFacts(doc)) == dataclasses.asdict(visible_facts(doc))
    doc = parse_html((SITE / "products/trail-runner-x.html").read_bytes(), BASE + "x.html")
    lazy = LazyVisibleFacts(doc)
    article = {"kind": "entity", "type": ["Article"], "properties": {"headline": "Other"}}
    conflicts = check_visible(article, lazy)
    assert [c["code"] for c in conflicts] == ["headline-vs-title"]
    assert sorted(lazy._values) == ["h1", "title"]  # no price, date or canonical was searched
    offer = {"kind": "entity", "type": ["Offer"], "properties": {"price": "1.00"}}
    assert [c["code"] for c in check_visible(offer, lazy)] == ["price-vs-visible"]
    assert "prices" in lazy._values


def test_price_candidates_are_what_the_xpath_selects():
    """The price containers are found by a Python pass that lets libxml2 decide the XPath
    predicate on the elements that could satisfy it: the same elements, in the same order, as
    the XPath over the whole body, on the demo site and on markup made to tell them apart (a
    body in a body, namespaced attributes)."""
    from lxml import etree

    from structcrawl.core.document import Document
    from structcrawl.visible.facts import _PRICE_PREDICATE, _price_candidates

    xpath = etree.XPath(f"//body//*[{_PRICE_PREDICATE}]")
    tricky = [
        b'<body class="price"><div class="PrIcE">1</div><p data-PRICE="x">2</p>'
        b'<span data-foo="the Price">3</span><i itemprop="offers"></i><b property="x"></b>'
        b'<em class="priced">4</em><u href="/price">5</u><q id="xprICEy">6</q></body>',
        b"<head><meta itemprop=price content=1><title class=price>t</title></head>"
        b"<body><div><body><span class=price>$1</span></body></div></body>",
        b'<html xmlns:p="urn:p" xmlns:data-x="urn:d"><body><div p:data-price="1">$1</div>'
        b'<div data-x:a="1" xml:lang="en">$2</div><div data-x:price="1">$3</div></body></html>',
    ]
    docs = [parse_html(html, BASE) for html in tricky]
    docs += [parse_html(p.read_bytes(), BASE + p.name) for p in sorted(SITE.rglob("*.html"))]
    for xml in tricky[2:]:  # namespaced attributes, as an XML parser keeps them
        root = etree.fromstring(xml)
        assert list(_price_candidates(Document(BASE, BASE, root))) == xpath(root)
    found = 0
    for doc in docs:
        expected = xpath(doc.root)
        assert list(_price_candidates(doc)) == expected
        found += len(expected)
    assert found > 20
