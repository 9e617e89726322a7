"""Open Graph, Twitter cards and Dublin Core."""

from __future__ import annotations

from structcrawl.core.document import parse_html
from structcrawl.extract import dublincore, opengraph


def doc(head: str, url: str = "https://news.example/a/story.html"):
    return parse_html(f"<html><head>{head}</head><body></body></html>".encode(), url)


def test_og_structured_images_keep_their_details():
    d = doc(
        '<meta property="og:type" content="article"><meta property="og:title" content=" T ">'
        '<meta property="og:image" content="/i/1.jpg"><meta property="og:image:width" content="800">'
        '<meta property="og:image:alt" content="first"><meta property="og:image" content="i/2.jpg">'
        '<meta property="og:image:height" content="600"><meta property="article:tag" content="a">'
        '<meta property="article:tag" content="b"><meta property="og:url" content="/a/story.html">'
    )
    (og,) = opengraph.extract(d)
    assert og.format == "opengraph" and og.type == ["article"]
    assert og.properties["og:title"] == "T"
    assert og.properties["og:image"] == [
        {"url": "https://news.example/i/1.jpg", "width": "800", "alt": "first"},
        {"url": "https://news.example/a/i/2.jpg", "height": "600"},
    ]
    assert og.properties["article:tag"] == ["a", "b"]
    assert og.properties["og:url"] == "https://news.example/a/story.html"
    assert og.provenance.fields["og:image:width"][0].path == "/html/head/meta[4]"
    assert og.raw[0] == {"attribute": "property", "property": "og:type", "content": "article"}
    assert og.repairs == []


def test_twitter_cards_are_their_own_record_and_name_attribute_is_labelled():
    d = doc(
        '<meta name="twitter:card" content="summary"><meta name="twitter:site" content="@n">'
        '<meta name="og:title" content="Named">'
    )
    twitter, og = sorted(opengraph.extract(d), key=lambda r: r.format, reverse=True)
    assert twitter.format == "twitter"
    assert twitter.properties == {"twitter:card": "summary", "twitter:site": "@n"}
    assert og.properties == {"og:title": "Named"}
    assert og.repairs == ["og-name-attribute"]


def test_no_meta_no_records():
    assert opengraph.extract(doc("<title>x</title>")) == []
    assert dublincore.extract(doc("<title>x</title>")) == []


def test_dublin_core_prefixes_and_repeats():
    d = doc(
        '<link rel="schema.DC" href="http://purl.org/dc/elements/1.1/">'
        '<link rel="schema.TERMS" href="http://purl.org/dc/terms/">'
        '<meta name="DC.title" content="Title"><meta name="dc.creator" content="A">'
        '<meta name="DC.creator" content="B"><meta name="TERMS.modified" content="2025-01-02">'
        '<meta name="XX.title" content="ignored">'
    )
    (dc,) = dublincore.extract(d)
    assert dc.properties == {
        "dc:title": "Title",
        "dc:creator": ["A", "B"],
        "dcterms:modified": "2025-01-02",
    }


def test_og_product_prices_are_grouped():
    d = doc(
        '<meta property="product:price:amount" content="129.00">'
        '<meta property="product:price:currency" content="EUR">'
        '<meta property="product:price:amount" content="139.00">'
        '<meta property="product:price:currency" content="CHF">'
        '<meta property="og:locale:alternate" content="de_DE">'
    )
    (og,) = opengraph.extract(d)
    assert og.properties["product:price"] == [
        {"amount": "129.00", "currency": "EUR"},
        {"amount": "139.00", "currency": "CHF"},
    ]
    assert og.properties["og:locale:alternate"] == "de_DE"


def test_og_property_written_as_a_full_iri_is_open_graph():
    """``property="http://ogp.me/ns#image"`` is og:image (RDFa's IRI form of the CURIE); the
    RDFa records leave ogp.me predicates to this extractor, so it must not be lost."""
    d = doc(
        '<meta property="og:image" content="https://news.example/1.jpg">'
        '<meta property="http://ogp.me/ns#image" content="https://news.example/2.jpg">'
        '<meta property="https://ogp.me/ns/article#section" content="Arts">'
        '<meta property="http://ogp.me/ns/unknown#x" content="kept out">'
    )
    (og,) = opengraph.extract(d)
    assert og.properties == {
        "og:image": [{"url": "https://news.example/1.jpg"}, {"url": "https://news.example/2.jpg"}],
        "article:section": "Arts",
    }


def test_dublin_core_link_rel_gives_uri_values():
    """DC-HTML writes URI values as ``<link rel="DCTERMS.replaces" href>``: read, resolved,
    in document order with the meta tags; ``rel="schema.DC"`` is a declaration, no value."""
    d = doc(
        '<link rel="schema.DC" href="http://purl.org/dc/elements/1.1/">'
        '<meta name="DC.title" content="Story">'
        '<link rel="DCTERMS.replaces" href="/a/old.html">'
        '<link rel="stylesheet" href="/s.css">'
    )
    (dc,) = dublincore.extract(d)
    assert dc.properties == {
        "dc:title": "Story",
        "dcterms:replaces": "https://news.example/a/old.html",
    }
