"""The buy box and the page's own content: a price in a description's running text yields to
the buy box's, a filter form's bounds are no price, and a grid of other products after a
section heading is no listing of a page that shows a price of its own; an old price's label
and a range's pieces say nothing of the current price."""

from __future__ import annotations

import pytest

from structcrawl.core.document import parse_html
from structcrawl.typed import page_items
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.grid import grid_products

URL = "https://deals.example/store/12?pid=77"

MENU = (
    "<p>Choose from our menu: <strong>Margherita <span>$12</span></strong>, "
    "<strong>Pepperoni <span>$14</span></strong>, <strong>Veggie <span>$13</span></strong>. "
    "Every pizza comes with a drink of your choice, and the voucher can be used in any of the "
    "branches listed below, on weekdays and weekends alike, for take-away orders only.</p>"
)


def _deal(button: str = "<a class='button' href='/checkout?pid=77'>Buy now</a>") -> str:
    return (
        "<html lang=en><head><title>Pizza voucher</title></head><body><main>"
        f"<div class='content'><div class='title'><h1>Pizza voucher, any branch</h1></div>{MENU}</div>"
        "<div class='purchase'><div class='offer'><div class='old line-through'>$20</div>"
        f"<div class='current'>$9</div></div>{button}</div>"
        "</main></body></html>"
    )


def test_a_price_in_the_descriptions_running_text_yields_to_the_buy_boxs():
    ev = page_evidence(parse_html(_deal().encode(), URL))
    assert (ev.price, ev.availability) == ("$9", "InStock")
    assert ev.price_path.endswith("div[2]/div/div[2]")


def test_without_a_buy_control_the_price_nearest_the_heading_stays():
    ev = page_evidence(parse_html(_deal(button="").encode(), URL))
    assert ev.price == "$12"


def test_a_short_paragraphs_price_near_the_heading_is_not_running_text():
    body = (
        "<main><div class='product'><h1>Desk lamp</h1><p>Now only <b>$25</b></p></div>"
        "<div class='box'><span>$30</span><button>Add to cart</button></div></main>"
    )
    assert page_evidence(parse_html(body.encode(), URL)).price == "$25"


@pytest.mark.parametrize(
    "words", ["馬上購買", "马上购买", "今すぐ購入", "カートに追加", "放入購物車"]
)
def test_buy_controls_in_chinese_and_japanese(words):
    body = f"<h1>商品</h1><p>NT$ 960</p><a class='btn' href='/buy'>{words}</a>"
    assert page_evidence(parse_html(body.encode(), URL)).availability == "InStock"


def test_a_filter_forms_price_bound_is_no_price():
    body = (
        "<main><h1>Sofas</h1><form class='facets'><details><summary>Price</summary>"
        "<span>The highest price is $950.00</span><input name='price.lte' type='number'>"
        "</details></form><p>Delivery in two weeks</p></main>"
    )
    ev = page_evidence(parse_html(body.encode(), URL))
    assert ev.price is None
    assert "$950.00" in ev.prices  # still a price the page shows


def test_a_cart_forms_price_is_the_price():
    body = (
        "<main><h1>Sofa</h1><form method='post' action='/cart/add'><span>$950.00</span>"
        "<button>Add to cart</button></form></main>"
    )
    assert page_evidence(parse_html(body.encode(), URL)).price == "$950.00"


def _card(n: int, price: str) -> str:
    return (
        f"<li class='deal deal-{n}'><a href='/store/12?pid={n}'><img src='/{n}.jpg' alt=''></a>"
        f"<a class='name' href='/store/12?pid={n}'>Deal {n}</a><span>{price}</span></li>"
    )


def _related(own: str) -> str:
    cards = "".join(_card(n, f"${n + 10}") for n in range(4))
    return (
        f"<html lang=en><body><main><h1>Concert, 3 March</h1>{own}<p>Seats in the stalls.</p>"
        f"<section><h2>More from this organiser</h2><ul class='grid'>{cards}</ul></section>"
        "</main></body></html>"
    )


def test_a_grid_after_a_section_heading_on_a_page_with_its_own_price_is_no_listing():
    body = _related("<div class='price'>$48</div>")
    doc = parse_html(body.encode(), URL)
    ev = page_evidence(doc)
    assert ev.price == "$48" and len(ev.cards) == 4
    assert grid_products(doc, ev.cards, own_price=True) == []
    items = page_items(body.encode(), URL, "text/html")
    assert not any(i.get("role") == "listed" for i in items)


def test_a_category_pages_count_heading_before_its_grid_keeps_the_listing():
    cards = "".join(_card(n, f"${n + 10}") for n in range(4))
    body = (
        "<html lang=en><body><main><h1>Deals</h1>"
        "<form class='facets'><span>The highest price is $95.00</span></form>"
        f"<h2>4 deals</h2><ul class='grid'>{cards}</ul></main></body></html>"
    )
    doc = parse_html(body.encode(), URL)
    ev = page_evidence(doc)
    assert ev.price is None  # the filter's bound is not the page's own price
    listed = [i for i in page_items(body.encode(), URL, "text/html") if i.get("role") == "listed"]
    assert [i["name"] for i in listed] == ["Deal 0", "Deal 1", "Deal 2", "Deal 3"]


def test_an_old_prices_label_is_not_the_current_prices():
    # "Statt:" labels the struck 59,99 €, not the 49,99 € after it
    body = (
        "<main><h1>Teekanne</h1><div class='price-box'><span>Statt: <del>59,99 €</del></span> "
        "<span class='price'>49,99 €</span></div></main>"
    )
    assert page_evidence(parse_html(body.encode(), URL)).price == "49,99 €"


def test_a_ranges_dash_and_end_and_a_count_are_no_amount():
    body = (
        "<main><h1>Pillows, pair</h1><div class='estimate'><span>Estimate</span> "
        "<span>$300</span><span>-</span><span>$500</span><span>3</span></div></main>"
    )
    assert page_evidence(parse_html(body.encode(), URL)).price is None
