"""Fuzz: every extractor, over generated markup, bytes and charsets, never raises.

Invariants checked on every example (``structcrawl.extract.extract_payload``): it returns a
:class:`~structcrawl.extract.PageExtraction` whose ``records`` is a list of ``Record``; every
record serializes with ``json.dumps`` (strict: no NaN/Infinity, and as UTF-8, so no lone
surrogates); error and skip records carry a non-empty code and message. Half the examples run
under tiny :class:`~structcrawl.core.limits.Limits`, so the bound paths (too deep, too many, too
large, the rebuild of over-deep DOMs) are exercised as often as the normal ones. Element paths
(:class:`structcrawl.core.document.ElementPaths`) are checked against lxml's ``getpath``.

Bounded: a fixed number of examples with a per-example deadline; the whole file runs in well
under a minute.
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from structcrawl.core.document import ElementPaths, parse_html
from structcrawl.core.limits import Limits
from structcrawl.core.records import Record
from structcrawl.extract import PageExtraction, extract_payload

TINY = Limits(
    max_body_bytes=20_000,
    max_elements=400,
    max_dom_depth=12,
    max_json_chars=3_000,
    max_json_depth=6,
    max_repair_chars=2_000,
    max_blocks=3,
    max_items=4,
    max_visits=60,
    max_nesting=3,
)
#: More examples locally: STRUCTCRAWL_FUZZ_EXAMPLES=5000 .venv/bin/pytest tests/test_fuzz_extract.py
EXAMPLES = int(os.environ.get("STRUCTCRAWL_FUZZ_EXAMPLES", "150"))
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

TAGS = [
    "div", "span", "p", "a", "img", "meta", "link", "time", "data", "meter", "object",
    "base", "template", "source", "table", "td", "ul", "li", "head", "body", "html", "svg",
    "math", "section", "x-widget", "og:thing", "br", "wbr", "embed", "audio", "area",
]  # fmt: skip
ATTRS = [
    "itemscope", "itemprop", "itemref", "itemtype", "itemid", "id", "typeof", "property",
    "vocab", "prefix", "about", "resource", "rel", "rev", "href", "src", "content", "datatype",
    "inlist", "lang", "xml:lang", "xmlns:ex", "class", "datetime", "value", "name", "headers",
    "data", "srcset", "alt", "title", "{x}y", "xmlns",
]  # fmt: skip
WORDS = [
    "a", "b", "name", "offers", "Product", "http://schema.org/Product", "schema:name",
    "https://schema.org/", "ex: http://ex.example/", "_:b0", "[ex:x]", "#a", "a b", "b a",
    "h-card", "h-entry p-name", "p-name", "u-url", "dt-start", "e-content", "vcard", "fn",
    "hentry", "h-x p-y h-z", "og:title", "DC.title", "rdfa:copy", "rdfa:Pattern",
    "javascript:alert(1)", "data:text/html,x", "http://[bad", "//evil.example/", "",
    "2024-01-02T03:04:05Z", "P1D", "xsd:date", "rdf:XMLLiteral", "rdf:HTML", "ex:x",
]  # fmt: skip
TYPES = ["application/ld+json", "application/json", "text/template", "application/x+json"]
CHARSETS = ["utf-8", "utf-16", "utf-16-be", "latin-1", "cp1252", "shift_jis", "gb18030", "koi8-r"]
CONTENT_TYPES = [
    None, "text/html", "text/html; charset=utf-8", "text/html; charset=utf-16",
    "text/html; charset=latin-1", "text/html; charset=nonsense", "application/xhtml+xml",
    "application/json", "application/ld+json; charset=utf-8", "text/plain",
    "application/octet-stream", "image/png", 'text/html; charset="', ";;;",
]  # fmt: skip

texts = st.one_of(
    st.sampled_from(WORDS),
    st.text(max_size=12),
    st.text(alphabet="<>&\"'/=:#[]{}\\ \n\x00\x01\x1f\ud800", max_size=8),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    texts,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(
                st.sampled_from(
                    [
                        "@type",
                        "@id",
                        "@context",
                        "@graph",
                        "@value",
                        "@list",
                        "name",
                        "offers",
                        "url",
                        "a",
                    ]
                ),
                texts,
            ),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=8,
)
# JSON-ish text: valid JSON, or JSON broken the ways publishers break it
MUTATIONS = [
    lambda t: t, lambda t: t[: len(t) // 2], lambda t: t + ",", lambda t: t.replace("}", ",}"),
    lambda t: "<!--" + t + "-->", lambda t: "// c\n" + t, lambda t: t.replace("null", "NaN"),
    lambda t: t + t, lambda t: t.replace('"', "&quot;"), lambda t: t + "</script><p>x",
    lambda t: "[" * 60 + t + "]" * 60, lambda t: t.replace("0", "1e999"),
    lambda t: "<!-- -->" * 40 + t, lambda t: t.replace('"', "'"), lambda t: "\ufeff" + t,
]  # fmt: skip
json_texts = st.builds(
    lambda v, m: m(json.dumps(v, ensure_ascii=False)),
    json_values,
    st.sampled_from(MUTATIONS),
)


def _attr(name: str, value: str, quote: str) -> str:
    if name in ("itemscope", "inlist") and not value:
        return f" {name}"
    if quote == "":
        return f" {name}={value.replace(' ', '_') or 'x'}"
    return f" {name}={quote}{value.replace(quote, '&quot;')}{quote}"


@st.composite
def elements(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return draw(st.text(max_size=10)).replace("<", "&lt;")
    if kind == 1:
        script_type = draw(st.sampled_from(TYPES))
        return f'<script type="{script_type}">{draw(json_texts)}</script>'
    tag = draw(st.sampled_from(TAGS))
    attrs = draw(st.lists(st.tuples(st.sampled_from(ATTRS), texts), max_size=5))
    quote = draw(st.sampled_from(['"', "'", ""]))
    head = "".join(_attr(n, v, quote) for n, v in attrs)
    children = ""
    if depth < 3:
        children = "".join(draw(st.lists(elements(depth + 1), max_size=3)))
    close = draw(st.sampled_from([f"</{tag}>", "", "</div>"]))
    return f"<{tag}{head}>{children}{close}"


@st.composite
def pages(draw: st.DrawFn) -> tuple[bytes, str | None]:
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(st.binary(max_size=300)), draw(st.sampled_from(CONTENT_TYPES))
    if shape == 1:  # a JSON response
        body = draw(json_texts).encode("utf-8", "surrogatepass")
        return body, draw(st.sampled_from(["application/json", "application/ld+json", None]))
    prefix = draw(
        st.sampled_from(
            [
                "",
                "<!doctype html>",
                "\ufeff",
                '<?xml version="1.0"?>',
                '<!DOCTYPE html [<!ENTITY e "&e;&e;">]>',
            ]
        )
    )
    html = prefix + "<html>" + "".join(draw(st.lists(elements(), max_size=6))) + "</html>"
    nest = draw(st.integers(0, 3))
    if nest:  # deep nesting, for the DOM depth bound (and the rebuild under tiny limits)
        tag = draw(st.sampled_from(["div", "span", "p"]))
        html = html.replace(
            "</html>", f"<{tag} itemscope typeof=T class=h-x>" * nest * 10 + "deep" + "</html>"
        )
    charset = draw(st.sampled_from(CHARSETS))
    body = html.encode(charset, "replace")
    return body, draw(st.sampled_from(CONTENT_TYPES))


def _check(result: Any) -> None:
    assert isinstance(result, PageExtraction)
    assert isinstance(result.records, list)
    for rec in result.records:
        assert isinstance(rec, Record)
        data = rec.to_dict()
        text = json.dumps(data, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")  # no lone surrogates either
        if rec.kind in ("error", "skip", "warning"):  # warning: a page problem, no data lost
            assert rec.error is not None and rec.error.code and rec.error.message, data
        else:
            assert rec.kind == "entity" and rec.error is None


@SETTINGS
@given(pages(), st.booleans())
def test_extract_payload_never_raises(page: tuple[bytes, str | None], tiny: bool) -> None:
    body, content_type = page
    result = extract_payload(
        body, "https://fuzz.example/a/b?c", content_type, limits=TINY if tiny else None
    )
    _check(result)


@SETTINGS
@given(st.lists(elements(), min_size=1, max_size=8), st.integers(0, 2))
def test_element_paths_match_lxml(parts: list[str], repeat: int) -> None:
    doc = parse_html("<html><body>" + "".join(parts) * (repeat + 1), "https://f.example/")
    tree = doc.root.getroottree()
    elements_ = list(doc.root.iter())
    for native in (ElementPaths.NATIVE_PATHS, 0):  # as used, and the linear-time method alone
        paths = ElementPaths(doc.root, native=native)
        for _ in range(3):  # past the native calls, parents get indexed
            for el in elements_:
                assert paths(el) == tree.getpath(el)
