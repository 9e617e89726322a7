"""The readers items and identities use (structcrawl.core.readers): text as a reader reads it."""

from __future__ import annotations

from structcrawl.core.readers import text
from structcrawl.typed import page_items


def test_text_is_whitespace_normalized_and_numbers_are_plain():
    assert text(["", "  Kettle \n 1.7 l "]) == "Kettle 1.7 l"
    assert text(12.50) == "12.5"
    assert text({"@id": "https://shop.example/#p"}) == "https://shop.example/#p"


def test_an_icon_fonts_glyphs_are_no_text():
    # "\uf004" (private use) is drawn by an icon font as a heart: nothing a reader reads
    assert text("\uf004 Log in to save") == "Log in to save"
    assert text(["\ue001", "Kettle"]) == "Kettle"
    assert text("\U000f0001") is None


def test_an_items_name_and_heading_leave_out_icon_glyphs():
    body = (
        "<html><head><title>Skate board</title></head><body><main>"
        '<h1 itemscope itemtype="https://schema.org/Product"><span itemprop="name">'
        "<span class='icon'>\uf004</span> Skate board</span></h1><p>$60</p>"
        "<button>Add to cart</button></main></body></html>"
    )
    items = page_items(body.encode(), "https://shop.example/p/1", "text/html; charset=utf-8")
    product = next(i for i in items if i["type"] == "Product")
    assert product["name"] == "Skate board"
