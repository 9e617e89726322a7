"""Product cards: a price, stock word or buy button inside a grid's or carousel's card is
another product's, so a category page without markup is no product page and a product page's
related products lend it nothing."""

from __future__ import annotations

from structcrawl.core.document import parse_html
from structcrawl.typed import page_items
from structcrawl.visible.cards import cards, in_card
from structcrawl.visible.evidence import page_evidence

URL = "https://tea.example/green-tea/"


def _card(n: int, price: str, extra: str = "") -> str:
    return (
        f'<li class="product-box product-{n}"><a href="/tea-{n}"><img src="/t{n}.jpg" alt=""></a>'
        f'<a class="name" href="/tea-{n}">Tea {n}</a><span class="price">{price}</span>'
        f"{extra}<button>Add to cart</button></li>"
    )


def _grid(*prices: str, extra: str = "") -> str:
    return "<ul class='grid'>" + "".join(_card(i, p, extra) for i, p in enumerate(prices)) + "</ul>"


def _around(doc):
    h1 = doc.root.find(".//h1")
    return frozenset([h1, *h1.iterancestors()])


def test_a_grid_of_alike_boxes_each_with_a_price_and_its_own_link_is_cards():
    doc = parse_html(f"<h1>Green tea</h1>{_grid('$9.90', '$12.49', '$8.50')}".encode(), URL)
    spans = doc.root.findall(".//span")
    found = cards(spans, _around(doc))
    assert {el.get("class") for el in found} == {f"product-box product-{i}" for i in range(3)}
    assert all(in_card(s, found) for s in spans)
    assert not in_card(doc.root.find(".//h1"), found)


def test_swatches_with_prices_but_no_links_are_no_cards():
    swatches = "".join(
        f'<li class="swatch"><label>Size {s}</label> <span>{p}</span></li>'
        for s, p in (("S", "$10"), ("M", "$12"), ("L", "$14"))
    )
    doc = parse_html(f"<h1>Shirt</h1><ul>{swatches}</ul>".encode(), URL)
    assert cards(doc.root.findall(".//span"), _around(doc)) == frozenset()


def test_boxes_beside_the_headings_own_and_unlike_sections_are_no_cards():
    # the page's sections (the heading's own among them) share a class word: the page itself
    sections = (
        '<div class="widget"><h1>Kettle</h1></div>'
        '<div class="widget"><span>$49.00</span><a href="/size-guide">Size guide</a></div>'
        '<div class="widget"><span>$5.00 delivery</span><a href="/delivery">Delivery</a></div>'
        '<div class="widget"><span>$1.00 a day</span><a href="/credit">Credit</a></div>'
    )
    doc = parse_html(f"<main>{sections}</main>".encode(), URL)
    assert cards(doc.root.findall(".//span"), _around(doc)) == frozenset()
    # alike by class but not by size: a buy box, a review list and a card are not a grid
    big = "<p>text</p>" * 400
    unlike = (
        f'<div class="block"><span>$49.00</span><a href="/a">a</a>{big}</div>'
        '<div class="block"><span>$5.00</span><a href="/b">b</a></div>'
        '<div class="block"><span>$1.00</span><a href="/c">c</a></div>'
    )
    doc = parse_html(f"<h1>Kettle</h1><div>{unlike}</div>".encode(), URL)
    assert cards(doc.root.findall(".//span"), _around(doc)) == frozenset()


def test_a_category_grid_without_markup_is_no_product_page():
    sold_out = '<div class="delivery">Sold out</div>'
    body = (
        "<html lang=en><head><title>Green tea | Leafline</title></head><body><main>"
        "<h1>Green tea</h1><p>Teas from small gardens.</p>"
        + _grid("$9.90", "$12.49", "$8.50", extra=sold_out)
        + "</main></body></html>"
    )
    doc = parse_html(body.encode(), URL)
    ev = page_evidence(doc)
    assert (ev.price, ev.availability) == (None, None)
    assert ev.prices  # the grid's prices are still prices the page shows
    items = page_items(body.encode(), URL, "text/html; charset=utf-8")
    assert not any(i["type"] == "Product" and i.get("role") == "primary" for i in items)


def test_a_product_page_takes_nothing_from_its_related_products_cards():
    # the product's own price is drawn by a script; its related products show theirs
    body = (
        "<html lang=en><head><title>Kettle Steel 1.7 l | Shop</title></head><body><main>"
        '<div class="product"><h1>Kettle Steel 1.7 l</h1><p>SKU: KS-17</p>'
        '<div id="price-root"></div><p class="stock">In stock</p></div>'
        "<section><h2>You may also like</h2>"
        + _grid("$19.00", "$24.00", "$31.00", extra="<span>Sold out</span>")
        + "</section></main></body></html>"
    )
    ev = page_evidence(parse_html(body.encode(), "https://shop.example/kettle"))
    assert ev.price is None
    assert (ev.availability, ev.sku) == ("InStock", "KS-17")


def test_a_category_grid_without_markup_lists_its_cards_products():
    from structcrawl.visible.grid import grid_products

    unit = '<span class="unit">(39,80 €* / 100 g)</span>'
    body = (
        "<html lang=de><head><title>Grüntee</title></head><body><main><h1>Grüntee</h1>"
        + _grid("9,90 €*", "ab 14,90 €", "<s>24,90 €</s> 19,90 €", extra=unit)
        + "</main></body></html>"
    )
    doc = parse_html(body.encode(), URL)
    listed = grid_products(doc, page_evidence(doc).cards)
    assert [(p.name, p.url, p.price) for p in listed] == [
        ("Tea 0", "https://tea.example/tea-0", "9,90 €"),
        ("Tea 1", "https://tea.example/tea-1", "14,90 €"),
        ("Tea 2", "https://tea.example/tea-2", "19,90 €"),
    ]
    items = page_items(body.encode(), URL, "text/html; charset=utf-8")
    products = [i for i in items if i["type"] == "Product"]
    assert [(i["role"], i["price"], i["currency"], i["availability"]) for i in products] == [
        ("listed", "9.90", "EUR", "InStock"),
        ("listed", "14.90", "EUR", "InStock"),
        ("listed", "19.90", "EUR", "InStock"),
    ]
    assert products[0]["provenance"]["price"]["rule"] == "visible-page:card"


def test_two_grids_as_large_give_the_first_in_page_order_every_time():
    from structcrawl.visible.grid import grid_products

    second = _grid("3,90 €", "4,90 €", "5,90 €").replace("Tea ", "Mug ").replace("tea-", "mug-")
    body = (
        "<html lang=de><head><title>Tee</title></head><body><main><h1>Tee</h1>"
        + _grid("9,90 €", "10,90 €", "11,90 €")
        + second
        + "</main></body></html>"
    ).encode()
    names = set()
    for _ in range(30):  # each parse's elements hash anew: the tie must not follow the set
        doc = parse_html(body, URL)
        names.add(tuple(p.name for p in grid_products(doc, page_evidence(doc).cards)))
    assert names == {("Tea 0", "Tea 1", "Tea 2")}
