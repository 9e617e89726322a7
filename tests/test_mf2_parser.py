"""Unit tests of the microformats2 parser over lxml trees (:mod:`structcrawl.extract.mf2`)."""

from __future__ import annotations

import json
import time
from typing import Any

import lxml.html
import pytest
from lxml import etree

from structcrawl.core.document import parse_html
from structcrawl.extract.mf2 import has_microformats, parse_mf2
from structcrawl.extract.mf2._parser import MAX_NESTING

URL = "https://example.org/posts/1"


def _root(html: str, url: str = URL) -> lxml.html.HtmlElement:
    return parse_html(html.encode("utf-8"), url).root


def _parse(html: str, url: str = URL, **kwargs: Any) -> dict[str, Any]:
    return parse_mf2(_root(html, url), url, **kwargs)


# -- has_microformats ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        '<div class="h-card">Jo</div>',
        '<p class="x\th-entry y">Post</p>',
        '<div class="vcard"><span class="fn">Jo</span></div>',
        '<article class="post hentry">x</article>',
        '<div class="hreview-aggregate">x</div>',
        '<html class="h-feed"><body></body></html>',
    ],
)
def test_has_microformats_true(html: str) -> None:
    assert has_microformats(_root(html)) is True
    assert _with_values(_root(html)) is True


@pytest.mark.parametrize(
    "html",
    [
        "<p>no classes at all</p>",
        '<div class="width-full search-box th-x">h- inside tokens only</div>',
        '<div class="vcards hentry-like adr2">near misses</div>',
        '<a rel="author" href="/me">rels are not microformats</a>',
    ],
)
def test_has_microformats_false(html: str) -> None:
    root = _root(html)
    assert has_microformats(root) is False
    assert _with_values(root) is False
    assert parse_mf2(root, URL)["items"] == []


def _with_values(root: Any) -> bool:
    """has_microformats of the class values read once (the page's element index), joined."""
    classed = [el for el in root.iter(etree.Element) if el.get("class") is not None]
    return has_microformats(root, classed, [el.get("class") for el in classed])


def test_has_microformats_fast_on_large_page() -> None:
    body = "".join(f'<div class="row width-{i}"><span>cell {i}</span></div>' for i in range(20000))
    root = _root(f"<html><body>{body}</body></html>")
    start = time.perf_counter()
    assert has_microformats(root) is False
    assert time.perf_counter() - start < 1.0  # one XPath over 40k elements: milliseconds


# -- core parsing -------------------------------------------------------------------------


def test_no_microformats_gives_empty_document() -> None:
    assert _parse("<html><body><p>Hello</p></body></html>") == {
        "items": [],
        "rels": {},
        "rel-urls": {},
    }


def test_nested_hcard_as_entry_author() -> None:
    result = _parse(
        """<article class="h-entry">
             <h1 class="p-name">Hello</h1>
             <a class="p-author h-card" href="/jo"><img src="/jo.png" alt="">Jo Bloggs</a>
             <div class="e-content"><p>Body <a href="/x">link</a></p></div>
           </article>"""
    )
    (entry,) = result["items"]
    assert entry["type"] == ["h-entry"]
    assert entry["properties"]["name"] == ["Hello"]
    (author,) = entry["properties"]["author"]
    assert author == {
        "type": ["h-card"],
        "properties": {
            "name": ["Jo Bloggs"],
            "photo": [{"value": "https://example.org/jo.png", "alt": ""}],
            "url": ["https://example.org/jo"],
        },
        "value": "Jo Bloggs",
    }
    assert "children" not in entry
    assert entry["properties"]["content"] == [
        {"html": '<p>Body <a href="https://example.org/x">link</a></p>', "value": "Body link"}
    ]


def test_implied_name_photo_url() -> None:
    result = _parse(
        """<div class="h-card"><a href="/jo"><img src="/jo.png" alt="Jo Bloggs"></a></div>
           <img class="h-card" src="/ann.png" alt=" Ann ">
           <abbr class="h-card" title="Bob B.">BB</abbr>"""
    )
    jo, ann, bob = result["items"]
    assert jo["properties"] == {
        "name": ["Jo Bloggs"],
        "photo": [{"value": "https://example.org/jo.png", "alt": "Jo Bloggs"}],
        "url": ["https://example.org/jo"],
    }
    assert ann["properties"] == {
        "name": ["Ann"],
        "photo": [{"value": "https://example.org/ann.png", "alt": " Ann "}],
    }
    assert bob["properties"] == {"name": ["Bob B."]}


def test_no_implied_properties_with_explicit_ones_or_children() -> None:
    result = _parse(
        """<div class="h-card"><span class="p-org">ACME</span> <a href="/a">A</a></div>
           <div class="h-feed"><div class="h-entry">Only a child</div></div>"""
    )
    card, feed = result["items"]
    assert card["properties"] == {"org": ["ACME"], "url": ["https://example.org/a"]}
    assert feed["properties"] == {}
    assert feed["children"] == [{"type": ["h-entry"], "properties": {"name": ["Only a child"]}}]


def test_dt_value_class_date_and_time_combined() -> None:
    result = _parse(
        """<div class="h-event">
             <span class="p-name">Party</span>
             <span class="dt-start"><time class="value" datetime="2024-05-01">May 1</time>
               at <span class="value">7:30pm</span><span class="value">-08:00</span></span>
             <span class="dt-end"><span class="value">11pm</span></span>
             <time class="dt-published" datetime="2024-04-01T10:00:00+02:00">April</time>
           </div>"""
    )
    props = result["items"][0]["properties"]
    assert props["start"] == ["2024-05-01 19:30-0800"]
    assert props["end"] == ["2024-05-01 23:00"]  # implied date from dt-start
    assert props["published"] == ["2024-04-01T10:00:00+02:00"]  # whole values kept as authored


def test_relative_urls_resolved_against_base_href() -> None:
    html = """<html><head><base href="/blog/"></head><body>
        <div class="h-entry">
          <a class="u-url p-name" href="post.html">Post</a>
          <img class="u-photo" src="../img/a.png">
          <div class="e-content"><a href="other.html">o</a><img src="i.png" alt="i"></div>
        </div>
        <a rel="next" href="page2">next</a>
      </body></html>"""
    root = _root(html)
    before = etree.tostring(root)
    result = parse_mf2(root, URL)
    props = result["items"][0]["properties"]
    assert props["url"] == ["https://example.org/blog/post.html"]
    assert props["photo"] == ["https://example.org/img/a.png"]
    assert props["content"][0]["html"] == (
        '<a href="https://example.org/blog/other.html">o</a>'
        '<img src="https://example.org/blog/i.png" alt="i">'
    )
    assert result["rels"] == {"next": ["https://example.org/blog/page2"]}
    assert result["rel-urls"] == {
        "https://example.org/blog/page2": {"rels": ["next"], "text": "next"}
    }
    assert etree.tostring(root) == before  # the caller's tree is never modified


def test_rels_and_rel_urls() -> None:
    result = _parse(
        """<link rel="alternate" type="application/rss+xml" href="/feed" title="Feed">
           <a rel="me nofollow" href="https://social.example/@jo" hreflang="en">Jo</a>
           <a rel="me" href="https://social.example/@jo">again</a>"""
    )
    assert result["rels"] == {
        "alternate": ["https://example.org/feed"],
        "me": ["https://social.example/@jo"],
        "nofollow": ["https://social.example/@jo"],
    }
    assert result["rel-urls"]["https://social.example/@jo"] == {
        "rels": ["me", "nofollow"],
        "text": "Jo",
        "hreflang": "en",
    }
    assert result["rel-urls"]["https://example.org/feed"]["type"] == "application/rss+xml"


def test_class_name_rules() -> None:
    result = _parse(
        """<div class="h-card H-entry h-x-">
             <p class="p-name p-NAME p-nam_e">Jo</p><p class="p-8-vendor-name">v</p>
           </div>"""
    )
    (card,) = result["items"]
    assert card == {"type": ["h-card"], "properties": {"name": ["Jo"], "8-vendor-name": ["v"]}}


def test_template_content_ignored() -> None:
    result = _parse(
        '<div class="h-card"><template><p class="p-name">Hidden</p></template>Shown</div>'
    )
    assert result["items"][0]["properties"] == {"name": ["Shown"]}


def test_with_paths_marks_every_item() -> None:
    html = '<div class="h-entry"><a class="p-author h-card" href="/a">A</a><div class="h-cite">C</div></div>'
    root = _root(html)
    plain = parse_mf2(root, URL)
    tagged = parse_mf2(root, URL, with_paths=True)
    tree = root.getroottree()
    entry = tagged["items"][0]
    assert entry["_path"] == "/html/body/div"
    assert entry["properties"]["author"][0]["_path"] == tree.getpath(root.find(".//a"))
    assert entry["children"][0]["_path"] == "/html/body/div/div"
    assert "_path" not in json.dumps(plain)


# -- backcompat ----------------------------------------------------------------------------


def test_backcompat_vcard_in_hentry() -> None:
    result = _parse(
        """<div class="hentry">
             <h2 class="entry-title"><a rel="bookmark" href="/p/1">Title</a></h2>
             <span class="author vcard"><a class="fn url" href="/jo">Jo</a></span>
             <a rel="tag" href="/tags/python%20tips/">Python</a>
             <abbr class="published" title="2012-06-25T17:08:26">June</abbr>
           </div>"""
    )
    (entry,) = result["items"]
    assert entry["type"] == ["h-entry"]
    assert entry["properties"] == {
        "name": ["Title"],
        "url": ["https://example.org/p/1"],
        "author": [
            {
                "type": ["h-card"],
                "properties": {"name": ["Jo"], "url": ["https://example.org/jo"]},
                "value": "Jo",
            }
        ],
        "category": ["python tips"],
        "published": ["2012-06-25T17:08:26"],
    }


def test_mf2_root_wins_over_classic_root() -> None:
    result = _parse('<p class="h-card vcard"><span class="fn">Classic</span> Jo</p>')
    assert result["items"] == [{"type": ["h-card"], "properties": {"name": ["Classic Jo"]}}]


def test_include_pattern_cycles_are_safe() -> None:
    result = _parse(
        """<div id="outer"><div class="vcard" id="me" itemref="me outer org">
             <span class="fn">Jo</span><a class="include" href="#outer">again</a>
           </div></div>
           <p id="org" class="org">ACME</p>"""
    )
    card = result["items"][0]
    assert card["type"] == ["h-card"]
    assert card["properties"] == {"name": ["Jo"], "org": ["ACME"]}


# -- robustness ----------------------------------------------------------------------------


def _depth(value: Any) -> int:
    """Nesting depth of a JSON-like value, computed without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children = (
            node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        )
        stack.extend((child, depth + 1) for child in children)
    return deepest


@pytest.mark.parametrize("classes", ["h-x", "p-child h-x", "p-name", "e-c h-x"])
def test_deep_nesting_does_not_recurse(classes: str) -> None:
    root = lxml.html.document_fromstring("<html><body></body></html>")
    node = root.find("body")
    for i in range(3000):
        node = etree.SubElement(node, "div", {"class": classes})
        node.text = f"level {i} "
    root.find("body")[0].set("class", "h-top " + classes)
    result = parse_mf2(root, URL, with_paths=True)
    assert len(result["items"]) == 1
    json.dumps(result)  # stays serialisable: nesting is capped
    assert _depth(result) <= 4 * MAX_NESTING + 10


def test_deep_nesting_from_markup() -> None:
    html = '<div class="h-x">' * 3000 + "deep" + "</div>" * 3000
    result = _parse(html)
    assert len(result["items"]) == 1
    json.dumps(result)
