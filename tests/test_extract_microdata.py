from __future__ import annotations

from structcrawl.core.document import parse_html
from structcrawl.extract import microdata


def extract(body: str, url: str = "https://shop.example/p/1.html"):
    return microdata.extract(parse_html(f"<html><body>{body}</body></html>".encode(), url))


def test_values_come_from_the_right_attribute():
    (rec,) = extract(
        '<div itemscope itemtype="https://schema.org/Product">'
        '<meta itemprop="sku" content="S1"><img itemprop="image" src="a.png">'
        '<a itemprop="url" href="/p/1">x</a><link itemprop="availability" href="https://schema.org/InStock">'
        '<object itemprop="o" data="d.bin"></object><data itemprop="price" value="19.99">$19.99</data>'
        '<meter itemprop="m" value="0.5">half</meter><time itemprop="t" datetime="2025-03-01">March</time>'
        '<time itemprop="t2">2025</time><span itemprop="name">  Trail\n  shoe </span>'
        '<video itemprop="v" src="v.mp4"></video></div>'
    )
    p = rec.properties
    assert p["sku"] == "S1"
    assert p["image"] == "https://shop.example/p/a.png"
    assert p["url"] == "https://shop.example/p/1"
    assert p["availability"] == "https://schema.org/InStock"
    assert p["o"] == "https://shop.example/p/d.bin"
    assert p["price"] == "19.99" and p["m"] == "0.5"
    assert p["t"] == "2025-03-01" and p["t2"] == "2025"
    assert p["name"] == "Trail shoe"
    assert rec.provenance.fields["name"][0].raw == "  Trail\n  shoe "
    assert p["v"] == "https://shop.example/p/v.mp4"
    assert rec.type == ["Product"]


def test_nested_items_itemid_multiple_types_and_repeats():
    (rec,) = extract(
        '<div itemscope itemtype="https://schema.org/Product https://schema.org/IndividualProduct"'
        ' itemid="#p"><span itemprop="name alternateName">N</span><img itemprop="image" src="1.png">'
        '<img itemprop="image" src="2.png"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
        '<span itemprop="price">5</span></div></div>'
    )
    assert rec.type == ["Product", "IndividualProduct"]
    assert rec.id == "https://shop.example/p/1.html#p"
    assert rec.properties["name"] == rec.properties["alternateName"] == "N"
    assert rec.properties["image"] == [
        "https://shop.example/p/1.png",
        "https://shop.example/p/2.png",
    ]
    offer = rec.properties["offers"]
    assert offer.type == ["Offer"] and offer.properties == {"price": "5"}
    assert offer.source_element == "/html/body/div/div"


def test_itemref_in_document_order_without_duplicates():
    (rec,) = extract(
        '<p id="b"><span itemprop="b">2</span></p>'
        '<div itemscope itemref="b c b"><span itemprop="a">1</span></div>'
        '<p id="c" itemprop="c">3</p>'
    )
    assert list(rec.properties) == ["b", "a", "c"]
    assert rec.properties == {"b": "2", "a": "1", "c": "3"}


def test_itemref_into_another_item_does_not_enter_it():
    (top,) = extract(
        '<div itemscope id="a" itemref="b"><span itemprop="x">1</span></div>'
        '<div id="b" itemprop="y" itemscope itemref="a"><span itemprop="z">2</span></div>'
    )
    assert top.properties["x"] == "1"
    # b's itemref points at item a, whose own properties are not b's (a has itemscope)
    assert top.properties["y"].properties == {"z": "2"}


def test_itemref_value_cycles_become_references():
    (top,) = extract(
        '<div itemscope id="t" itemref="a"></div>'
        '<div id="a" itemprop="p" itemscope itemtype="https://schema.org/Thing" itemref="b"></div>'
        '<div id="b" itemprop="q" itemscope itemid="urn:b" itemref="a"></div>'
    )
    a = top.properties["p"]
    b = a.properties["q"]
    assert b.id == "urn:b"
    assert b.properties["p"] == {"@ref": "/html/body/div[2]"}


def test_items_without_properties_get_none_invented():
    (rec,) = extract('<div itemscope itemtype="https://schema.org/Thing">text only</div>')
    assert rec.properties == {}


def test_property_outside_items_is_ignored():
    assert extract('<span itemprop="name">orphan</span>') == []
