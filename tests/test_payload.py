from __future__ import annotations

import pytest

from structcrawl.core.payload import classify, split_content_type
from structcrawl.extract import extract_payload

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


@pytest.mark.parametrize(
    "ctype, body, kind",
    [
        ("text/html; charset=utf-8", b"<html><body>x</body></html>", "html"),
        ("application/xhtml+xml", b'<?xml version="1.0"?><html></html>', "xhtml"),
        ("application/json", b'{"a": 1}', "json"),
        ("application/ld+json", b"[]", "json"),
        ("application/vnd.api+json", b"{}", "json"),
        ("application/xml", b"<urlset/>", "xml"),
        ("application/javascript", b"var a = 1;", "javascript"),
        ("application/pdf", b"%PDF-1.4\n", "pdf"),
        ("text/html", b"%PDF-1.4\n", "pdf"),
        ("text/html", PNG, "image"),
        ("image/png", PNG, "image"),
        ("text/html", b"\x00\x01\x02binary", "other"),
        (None, b"<!doctype html><p>x", "html"),
        ("application/octet-stream", b"[1, 2]", "json"),
        ("text/html", b"   \n", "empty"),
    ],
)
def test_classify(ctype, body, kind):
    assert classify(ctype, body) == kind


def test_split_content_type():
    assert split_content_type('Text/HTML; Charset="ISO-8859-1"') == ("text/html", "iso-8859-1")
    assert split_content_type(None) == ("", None)


def test_binary_labelled_html_is_not_parsed_and_says_what_arrived():
    (rec,) = extract_payload(PNG, "https://x.example/a", "text/html").records
    assert rec.kind == "skip" and rec.format == "page"
    assert rec.error.code == "payload-image"
    assert "text/html" in rec.error.message


def test_declared_charset_is_used():
    body = '<html><head><meta property="og:title" content="Café"></head></html>'.encode("cp1252")
    result = extract_payload(
        body, "https://x.example/", "text/html; charset=windows-1252", syntaxes=["opengraph"]
    )
    assert result.records[0].properties["og:title"] == "Café"
    assert result.encoding == "cp1252"


def test_html5_void_elements_do_not_swallow_their_siblings():
    from lxml import etree

    from structcrawl.core.document import parse_html

    html = b"<html><body><video><source src=a>T1<track src=c>T2<p>x</p>T3</video>T4</body></html>"
    doc = parse_html(html, "https://x.example/")
    assert etree.tostring(doc.root) == (
        b'<html><body><video><source src="a"/>T1<track src="c"/>T2<p>x</p>T3</video>T4</body></html>'
    )
