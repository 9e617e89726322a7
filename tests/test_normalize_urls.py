"""URLs: absolute, safe-encoded, the fragment rule, unsafe schemes left alone."""

from __future__ import annotations

import pytest

from structcrawl.normalize.urls import canonical_url, normalize_url

BASE = "https://shop.example/products/x.html"

# (value, base, is_id, expected)
GOOD = [
    ("/static/a.svg", BASE, False, "https://shop.example/static/a.svg"),
    ("../img/a b.png", BASE, False, "https://shop.example/img/a%20b.png"),
    ("img/ü.png", BASE, False, "https://shop.example/products/img/%C3%BC.png"),
    ("https://münchen.example/straße", None, False, "https://xn--mnchen-3ya.example/stra%C3%9Fe"),
    (" HTTPS://Shop.Example:443/p?b=2&a=1 ", None, False, "https://shop.example/p?b=2&a=1"),
    ("http://shop.example:80/p", None, False, "http://shop.example/p"),
    ("http://shop.example:8080/p", None, False, "http://shop.example:8080/p"),
    ("https://shop.example/p\n/q", None, False, "https://shop.example/p/q"),
    # fragments on plain URL values: kept when they name an element, dropped otherwise
    ("https://shop.example/r#step-2", None, False, "https://shop.example/r#step-2"),
    ("/about.html#team", BASE, False, "https://shop.example/about.html#team"),
    ("https://shop.example/app#!/item/3", None, False, "https://shop.example/app#!/item/3"),
    ("https://shop.example/p#", None, False, "https://shop.example/p"),
    ("https://shop.example/p#utm_source=x&b=1", None, False, "https://shop.example/p"),
    ("https://shop.example/p#:~:text=warm", None, False, "https://shop.example/p"),
    ("https://shop.example/p#/cart", None, False, "https://shop.example/p"),
    # on identifiers every fragment is kept
    ("/products/x#product", BASE, True, "https://shop.example/products/x#product"),
    ("#utm=1", BASE, True, "https://shop.example/products/x.html#utm=1"),
    ("_:b0", BASE, True, "_:b0"),
    # other schemes are only trimmed
    ("mailto:help@shop.example", BASE, False, "mailto:help@shop.example"),
    ("tel:+1 206 555 0100", BASE, False, "tel:+1 206 555 0100"),
    ("urn:isbn:9783161484100", BASE, False, "urn:isbn:9783161484100"),
]


@pytest.mark.parametrize(("value", "base", "is_id", "expected"), GOOD)
def test_good_urls(value, base, is_id, expected):
    result = normalize_url(value, base=base, is_id=is_id)
    assert result.flags == ()
    assert result.value == expected


FLAGGED = [
    ("javascript:alert(1)", "url-unsafe"),
    (" JavaScript:void(0)", "url-unsafe"),
    ("data:text/html;base64,PHNjcmlwdD4=", "url-unsafe"),
    ("vbscript:msgbox", "url-unsafe"),
    ("", "url-empty"),
    ("   ", "url-empty"),
    (42, "url-invalid"),
    (None, "url-invalid"),
    ("http://[bad", "url-invalid"),
]


@pytest.mark.parametrize(("value", "code"), FLAGGED)
def test_unsafe_and_invalid_urls_are_flagged_and_left_as_they_were(value, code):
    result = normalize_url(value, base=BASE)
    assert [f.code for f in result.flags] == [code]
    assert result.value == value


def test_relative_url_without_a_base_is_flagged():
    result = normalize_url("/p/1")
    assert (result.value, [f.code for f in result.flags]) == ("/p/1", ["url-relative"])


@pytest.mark.parametrize(
    ("value", "keep", "expected"),
    [
        (
            "HTTPS://Northwind.Example:443/products/x?b=2&a=1#product",
            True,
            "https://northwind.example/products/x?a=1&b=2#product",
        ),
        (
            "https://northwind.example/products/x#product",
            False,
            "https://northwind.example/products/x",
        ),
        ("https://northwind.example", True, "https://northwind.example/"),
        ("https://northwind.example/%7Efoo", True, "https://northwind.example/~foo"),
        ("URN:isbn:123", True, "urn:isbn:123"),
    ],
)
def test_canonical_url(value, keep, expected):
    assert canonical_url(value, keep_fragment=keep) == expected
