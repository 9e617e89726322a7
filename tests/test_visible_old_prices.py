"""Old prices: a markup price the page shows struck through beside its current price yields
to the current one (the conflict kept); class words of old or unrelated prices on the
element that holds the main heading strike nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from structcrawl.core.document import parse_html
from structcrawl.typed import page_items
from structcrawl.visible.oldprices import old_amounts, old_amounts_near

URL = "https://shop.example/p/drill"


def _markup(price: str, currency: str = "EUR") -> str:
    return (
        '<script type="application/ld+json">{"@context": "https://schema.org", "@type": '
        f'"Product", "name": "Drill BS 18", "sku": "BS18", "offers": {{"@type": "Offer", '
        f'"price": "{price}", "priceCurrency": "{currency}", '
        '"availability": "https://schema.org/InStock"}}</script>'
    )


def _product(body: str) -> dict:
    items = page_items(body.encode(), URL, "text/html; charset=utf-8")
    return next(i for i in items if i["type"] == "Product")


@pytest.mark.parametrize(
    "box",
    [
        '<div class="buybox"><div class="price">49,99 €</div><div class="price-note"><small>'
        "Statt: <del>59,99 €</del></small></div></div>",
        '<p class="price"><s>59,99 €</s> <b>49,99 €</b></p>',
        '<div><span class="price price--old">59,99 €</span> <span class="price">49,99 €</span>'
        "</div>",
    ],
)
def test_a_stale_markup_price_shown_as_the_old_one_yields_to_the_current(box):
    body = f'<html lang="de">{_markup("59.99")}<h1>Drill BS 18</h1>{box}<button>Kaufen</button>'
    item = _product(body)
    assert Decimal(item["price"]) == Decimal("49.99")
    assert item["provenance"]["price"]["rule"] == "visible-page:current-price"
    assert [Decimal(c["value"]) for c in item["conflicts"]["price"]] == [Decimal("59.99")]


def test_a_markup_price_that_is_the_current_one_stays():
    # on sale, and the markup knows it: the struck amount is another one
    body = (
        f'<html lang="de">{_markup("49.99")}<h1>Drill BS 18</h1><p class="price">'
        "<del>59,99 €</del> 49,99 €</p><button>In den Warenkorb</button>"
    )
    item = _product(body)
    assert Decimal(item["price"]) == Decimal("49.99")
    assert item["provenance"]["price"]["layer"] == "json-ld"
    assert "price" not in (item.get("conflicts") or {})


def test_an_old_price_elsewhere_on_the_page_overrules_nothing():
    # the markup's amount struck in a related product's card, far from the product's price
    body = (
        f'<html lang="de">{_markup("59.99")}<body><main><h1>Drill BS 18</h1>'
        '<div class="buybox"><div class="price">59,99 €</div></div></main>'
        '<section class="recs"><ul><li><a href="/x">Drill BS 14</a> <del>59,99 €</del> '
        "<b>44,99 €</b></li></ul></section><button>In den Warenkorb</button></body>"
    )
    item = _product(body)
    assert Decimal(item["price"]) == Decimal("59.99")
    assert item["provenance"]["price"]["layer"] == "json-ld"


def test_old_amounts_are_shown_struck_or_named_old_and_read_near_the_price():
    doc = parse_html(
        '<h1>Drill</h1><div class="buy"><span class="now">49,99 €</span>'
        '<span class="was-price">59,99 €</span></div><p hidden><del>9,99 €</del></p>'
        '<div class="with-list-price">12,00 €</div><footer><s>70,00 €</s></footer>'.encode(),
        URL,
        content_type="text/html; charset=utf-8",
    )
    assert old_amounts(doc) == {Decimal("59.99"), Decimal("70.00")}
    now = doc.root.xpath("//span[@class='now']")[0]
    assert old_amounts_near(doc, now) == {Decimal("59.99")}


@pytest.mark.parametrize(
    "container",
    [
        "product type-product instock sale shipping-taxable purchasable",  # WooCommerce
        "single single-product no-sidebar",  # WordPress themes' body classes
        "elementor-widget-wrap",  # Elementor's columns
    ],
)
def test_a_class_word_on_the_element_holding_the_heading_strikes_nothing(container):
    body = (
        f'<html lang="en-US"><body><div class="{container}"><h1>Alder Daypack</h1>'
        '<p class="price">$99.00</p><button>Add to cart</button>'
        "<p>SKU: AD-22</p></div></body></html>"
    )
    item = _product(body)
    assert (item["price"], item["currency"], item["sku"]) == ("99.00", "USD", "AD-22")
    assert item["provenance"]["price"]["layer"] == "visible-page"


def test_a_modifier_naming_a_list_price_beside_the_price_is_no_old_price():
    body = (
        f'<html lang="de">{_markup("12.49")}<h1>Matcha Latte 500 g</h1>'
        '<div class="product-detail-price-container"><p class="product-detail-price '
        'with-list-price">12,49 €*</p><span class="list-price-price">14,99 €*</span>'
        '<span class="price-unit">(2,50 €* / 100 Gramm)</span></div>'
        "<button>In den Warenkorb</button>"
    )
    item = _product(body)
    assert Decimal(item["price"]) == Decimal("12.49")


def test_the_class_scan_finds_every_old_class_word_after_any_other_class():
    """Every word of the old-price class pattern has a needle, and a class whose folding
    changes its length ("ß" -> "ss", "İ") before it does not shift the scan off its element."""
    from structcrawl.visible.oldprices import _NEEDLES, _WAS

    pattern = _WAS.pattern
    words = pattern[pattern.index(")(?:old") + 4 : pattern.rindex(")(?:$")].split("|")
    for word in words:
        plain = word.replace("-?", "-")
        assert any(n in plain.casefold() for n in _NEEDLES), word
    cards = "".join(f'<span class="{c}">x</span>' for c in ("straße-ßß", "İİİİ-label", "grid-item"))
    doc = parse_html(
        f'<h1>Drill</h1>{cards}<span class="price-was">59,99 €</span>'.encode(),
        URL,
        content_type="text/html; charset=utf-8",
    )
    assert old_amounts(doc) == {Decimal("59.99")}
