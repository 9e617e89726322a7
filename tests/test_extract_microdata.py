from __future__ import annotations

from structcrawl.core.document import parse_html
from structcrawl.extract import microdata


def extract(body: str, url: str = "https://shop.example/p/1.html", mode: str = "practical"):
    return microdata.extract(parse_html(f"<html><body>{body}</body></html>".encode(), url), mode)


_PRICE = (
    '<div itemscope itemtype="https://schema.org/Offer">'
    '<span itemprop="price" content="119.01">119,01 €</span>'
    '<span itemprop="startDate" content="2014-10-12T21:00">starts 10/12/2014 9:00PM</span></div>'
)


def test_practical_mode_reads_content_on_any_element():
    (rec,) = extract(_PRICE)
    assert rec.properties == {"price": "119.01", "startDate": "2014-10-12T21:00"}
    (source,) = rec.provenance.fields["price"]
    assert (source.raw, source.attribute, source.text) == ("119.01", "content", "119,01 €")


def test_strict_mode_reads_the_text_as_whatwg_says():
    (rec,) = extract(_PRICE, mode="strict")
    assert rec.properties == {"price": "119,01 €", "startDate": "starts 10/12/2014 9:00PM"}
    assert rec.provenance.fields["price"][0].attribute is None


_ORPHAN = (
    '<div itemprop="review" itemscope itemtype="https://schema.org/Review">'
    '<span itemprop="author">Ann</span></div>'
)


def test_orphan_scope_is_an_item_in_practical_mode_and_a_warning_in_strict():
    (rec,) = extract(_ORPHAN)
    assert rec.kind == "entity" and rec.type == ["Review"]
    assert rec.properties == {"author": "Ann"}
    assert rec.repairs == ["microdata-orphan-itemprop"]
    strict = extract(_ORPHAN, mode="strict")
    (warning,) = strict  # the scope; its own properties belong to it, not to the page
    assert warning.kind == "warning" and warning.error.code == "microdata-itemprop-outside-item"
    assert "'review'" in warning.error.message


def test_nested_orphans_are_one_item():
    (rec,) = extract(
        '<div itemprop="x" itemscope itemtype="https://schema.org/Product">'
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
        '<span itemprop="price">3</span></div></div>'
    )
    assert rec.properties["offers"].properties == {"price": "3"}


def test_itemref_to_a_missing_id_is_a_warning():
    rec, warning = extract(
        '<div itemscope itemtype="https://schema.org/Thing" itemref="gone"><span itemprop="name">'
        "N</span></div>"
    )
    assert rec.properties == {"name": "N"}
    assert warning.kind == "warning" and warning.error.code == "microdata-itemref-missing"
    assert warning.source_element == "/html/body/div"


def test_names_of_other_vocabularies_are_full_iris():
    (rec,) = extract(
        '<div itemscope itemtype="http://purl.org/goodrelations/v1#Offering">'
        '<span itemprop="name">N</span><span itemprop="http://schema.org/sku">S</span>'
        '<div itemprop="includes" itemscope><span itemprop="weight">3</span></div></div>'
    )
    gr = "http://purl.org/goodrelations/v1#"
    assert rec.type == [gr + "Offering"]
    assert set(rec.properties) == {gr + "name", "sku", gr + "includes"}
    # an untyped nested item inherits the vocabulary
    assert rec.properties[gr + "includes"].properties == {gr + "weight": "3"}


def test_url_values_are_references_unless_the_range_is_url_or_text():
    (rec,) = extract(
        '<div itemscope itemtype="https://schema.org/LocalBusiness">'
        '<a itemprop="url" href="/s">s</a><a itemprop="telephone" href="tel:+1">call</a>'
        '<a itemprop="founder" href="/people/ann">Ann</a></div>'
    )
    assert rec.properties == {
        "url": "https://shop.example/s",
        "telephone": "tel:+1",
        "founder": {"@id": "https://shop.example/people/ann"},
    }


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
    assert p["availability"] == {"@id": "https://schema.org/InStock"}  # a reference
    assert p["o"] == {"@id": "https://shop.example/p/d.bin"}  # not a schema.org URL property
    assert p["price"] == "19.99" and p["m"] == "0.5"
    assert p["t"] == "2025-03-01" and p["t2"] == "2025"
    assert p["name"] == "Trail shoe"
    assert rec.provenance.fields["name"][0].raw == "  Trail\n  shoe "
    assert p["v"] == {"@id": "https://shop.example/p/v.mp4"}
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


def test_property_outside_items_is_a_page_warning():
    (warning,) = extract('<span itemprop="name">orphan</span>')
    assert warning.kind == "warning" and warning.properties == {}
    assert warning.error.code == "microdata-itemprop-outside-item"
    assert "'name'" in warning.error.message


def _strings(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def test_a_record_holds_plain_strings_not_ones_that_keep_the_page_s_tree():
    # lxml's "smart" XPath strings keep their element, and the whole tree with it, alive for
    # as long as the record (the entity merge keeps raw values for the crawl); they are also
    # no JSON type to jsonschema-rs
    page = _PRICE + '<p itemscope itemtype="https://schema.org/Thing"><b itemprop="name">K</b></p>'
    for mode in ("practical", "strict"):
        found = [s for rec in extract(page, mode=mode) for s in _strings(rec.to_dict())]
        assert "K" in found and all(type(s) is str for s in found), mode
