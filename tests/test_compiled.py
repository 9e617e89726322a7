"""The compiled passes over a page's tree are the Python ones, on every page at hand (the
fixtures, the shared real pages: news, blogs, shops, the large product pages; the conformance
suites' pages) and on edge cases: the visible walk (structcrawl.visible._cwalk) and the element
index's pass (structcrawl.core._cindex). They are an optional build (setup.py): where they were
not built the tests skip, and under CI=true, whose install builds them, they fail."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from structcrawl.core import _index as index_module
from structcrawl.core._index import (
    _WORDS_BYTES,
    BLOCK_TAGS,
    INDEXED_ATTRIBUTES,
    INDEXED_TAGS,
    LINK_TAGS,
    _scan,
)
from structcrawl.core.document import parse_html
from structcrawl.visible import walk as walk_module
from structcrawl.visible.tree import bodies
from structcrawl.visible.walk import Walk, _said_old, _walk, visible_walk
from tests._conformance import suite_dir
from tests.servers import real_pages_corpus, require

ROOT = Path(__file__).resolve().parents[1]


def _compiled() -> Any:
    require(
        walk_module._compiled is not None,
        "the compiled walk is not built (setup.py) or not wanted (STRUCTCRAWL_NO_EXTENSIONS)",
    )
    return walk_module._compiled


def _compiled_scan() -> Any:
    require(
        index_module._compiled is not None,
        "the compiled index is not built (setup.py) or not wanted (STRUCTCRAWL_NO_EXTENSIONS)",
    )
    return index_module._compiled


def _same_scans(compiled: Any, root: etree._Element, page: object = None) -> None:
    """The index's lists, their elements by identity (the proxies of one tree)."""
    python = _scan(root)  # kept alive: the compiled pass's proxies are the same objects
    made = compiled(root, INDEXED_ATTRIBUTES, INDEXED_TAGS, BLOCK_TAGS, LINK_TAGS, _WORDS_BYTES)

    def ids(found: Any) -> Any:
        by_attribute, named, blocks, links, data, size, classes, places = found
        return (
            {name: list(map(id, els)) for name, els in by_attribute.items()},
            [list(map(id, els)) for els in (named, blocks, links)],
            list(map(id, data)),
            size,
            classes,
            places,
        )

    assert list(made[0]) == list(python[0]), page  # the attributes in the same order
    assert ids(made) == ids(python), page


def _said(walk: Walk) -> tuple[Any, ...]:
    """Everything a walk holds, its elements by identity (the proxies of one tree)."""
    return (
        id(walk.start),
        [(p.text, id(p.el), p.order, p.struck, tuple(map(id, p.strikers))) for p in walk.pieces],
        [(at, id(el)) for at, el in walk.heads],
        list(map(id, walk.seen)),
        list(map(id, walk.controls)),
    )


def _same_walks(compiled: Any, root: etree._Element, page: object = None) -> None:
    python = _walk(root)  # kept alive: the compiled walk's proxies are the same objects
    assert _said(compiled(root, _said_old())) == _said(python), page


def _pages() -> list[Path]:
    corpus = real_pages_corpus()
    found = sorted(ROOT.joinpath("fixtures").rglob("*.html"))
    found += sorted(corpus.glob("*.htm*"))
    found += sorted(corpus.parent.joinpath("products", "pages").glob("*.htm*"))
    for suite in ("extruct-samples", "jsonld-html", "microformats", "rdfa-html5"):
        found += sorted(suite_dir(suite).rglob("*.html"))[:100]
    return found


@pytest.mark.timeout(300)
def test_the_compiled_passes_are_the_python_ones_on_every_page_at_hand():
    compiled, scan = _compiled(), _compiled_scan()
    pages = _pages()
    assert len(pages) > 500
    for path in pages:
        doc = parse_html(path.read_bytes(), f"https://site.example/{path.parent.name}/")
        _same_walks(compiled, (bodies(doc) or [doc.root])[0], path)
        _same_scans(scan, doc.root, path)
        _same_scans(scan, (bodies(doc) or [doc.root])[0], path)  # a subtree's


def _compiled_text() -> Any:
    from structcrawl.visible import text

    _compiled()  # built (the walk's module holds it)
    require(text._compiled is not None, "the compiled visible text is not built or not wanted")
    return text._compiled


@pytest.mark.timeout(300)
def test_the_compiled_visible_text_and_paragraphs_are_the_python_ones_on_every_page_at_hand():
    """Of each page's root, its body and every seventh element (and every element of the
    demo site's pages), comments, hidden and non-rendered descendants among them: an
    element's visible text, and an article's shown text in paragraphs (what its markup body
    is checked against)."""
    from structcrawl.articles._blocks import _paragraphs
    from structcrawl.visible.text import _visible_text
    from structcrawl.visible.tree import rendered

    text, paragraphs = _compiled_text(), _compiled_paragraphs()
    read = 0
    for n, path in enumerate(_pages()):
        doc = parse_html(path.read_bytes(), f"https://site.example/{path.parent.name}/")
        every = 1 if "fixtures" in path.parts else 7
        elements = [doc.root, *bodies(doc), *list(doc.root.iter())[n % every :: every]]
        for el in elements:
            assert text(el, rendered) == _visible_text(el), (path, el.tag)
            assert paragraphs(el) == _paragraphs(el), (path, el.tag)
            read += 1
    assert read > 50_000


@pytest.mark.timeout(300)
def test_the_compiled_control_labels_are_the_python_ones_on_every_page_at_hand():
    """Of every control of each page (where the buy control is looked for) and every seventh
    element (every element of the demo site's pages): a control's words, its value, its text
    and its images' alt texts."""
    from structcrawl.visible import stock
    from structcrawl.visible.tree import is_control

    _compiled()
    label = stock._compiled_label
    require(label is not None, "the compiled control label is not built or not wanted")
    read = 0
    for n, path in enumerate(_pages()):
        doc = parse_html(path.read_bytes(), f"https://site.example/{path.parent.name}/")
        every = 1 if "fixtures" in path.parts else 7
        elements = list(doc.root.iter(etree.Element))
        asked = [el for el in elements if is_control(el)] + elements[n % every :: every]
        for el in asked:
            assert label(el, stock._python_label) == stock._python_label(el), (path, el.tag)
            read += 1
    assert read > 50_000


def _compiled_paragraphs() -> Any:
    from structcrawl.articles import _blocks

    _compiled()
    require(_blocks._compiled is not None, "the compiled paragraphs are not built or not wanted")
    return _blocks.paragraphs


_EDGES = {
    "struck, hidden and regions": b"<body><p>Was <s>$9</s> <span class='old-price'>$8</span>"
    b"<i style='text-decoration: line-through'>$7</i> now $5</p><div hidden>x</div>"
    b"<p style='DISPLAY : none'>y</p><nav>menu</nav><div role=listbox>z</div>"
    b"<input type=HIDDEN value=1><input type=submit value=Buy><img alt='Cart'>"
    b"<a>link</a><button>Add</button><b role=button>go</b></body>",
    "titles, headings, comments": b"<body><title>T <b>in</b></title><h1>A<!-- c -->B</h1>"
    b"<h2>C</h2><?pi x?>tail<h3>D</h3></body>",
    "text and tails around skipped subtrees": b"<body><div>a<script>x</script>b<style>y"
    b"</style>c<template>t</template>d<noscript>n</noscript>e</div>f</body>",
    "attributes written twice, empty, unquoted": b"<body><p class='' id=was>1</p>"
    b"<p class=was class=now>2</p><p id=x class=compare-at>3</p></body>",
    "no body": b"<p>only a paragraph</p>",
    "hidden by attributes": b"<body><p>a<b hidden>x</b>b<input type=HIDDEN>c<input type=text>"
    b"d<i style='DISPLAY:none'>h</i>e<u style=''>u</u>f<b hidden=''>g</b><noscript>n</noscript>"
    b"<template>t</template>k</p></body>",
}


@pytest.mark.parametrize("page", list(_EDGES.values()), ids=list(_EDGES))
def test_the_compiled_passes_are_the_python_ones_on_edge_cases(page):
    from structcrawl.articles._blocks import _paragraphs
    from structcrawl.visible.text import _visible_text
    from structcrawl.visible.tree import rendered

    doc = parse_html(page, "https://site.example/")
    _same_walks(_compiled(), (bodies(doc) or [doc.root])[0])
    _same_scans(_compiled_scan(), doc.root)
    for el in doc.root.iter():
        assert _compiled_text()(el, rendered) == _visible_text(el)
        assert _compiled_paragraphs()(el) == _paragraphs(el)


def test_namespaced_elements_and_entity_references_are_read_alike():
    """A tree parsed as XML (an XHTML page read by another tool): namespaced elements and
    attributes, whose names the passes spell ``{uri}name`` and whose marks the walk's Python
    reads, and entity references left unresolved (neither pass enters them; an attribute's
    value that holds one, as lxml reads it: the price mentioned in ``data-q``)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(
        b'<!DOCTYPE html [<!ENTITY e "<i class=\'x\'>x</i>"><!ENTITY w "was"><!ENTITY p "PRICE">'
        b'<!ENTITY h "display: none">]><html xmlns="http://www.w3.org/1999/xhtml" xmlns:v="urn:v">'
        b'<head><base href="/b/"/></head>'
        b'<body><p class="was" v:data="1" data-p="2">a&e;b</p><v:price itemprop="price">9 EUR'
        b"</v:price><nav>n</nav><q data-q='a &p;' data-r='&w;'>q</q><del>1</del>tail<!-- c -->"
        b"<?pi x?><i style='&h;'>gone</i><b class='k &w; m'>o</b></body></html>",
        parser,
    )
    _same_walks(_compiled(), root[1])
    _same_scans(_compiled_scan(), root)
    from structcrawl.articles._blocks import _paragraphs
    from structcrawl.visible import stock
    from structcrawl.visible.text import _visible_text
    from structcrawl.visible.tree import rendered

    for el in root.iter():  # the entity references' tails read, their content not
        assert _compiled_text()(el, rendered) == _visible_text(el)
        assert stock._control_label(el) == stock._python_label(el)
        assert _compiled_paragraphs()(el) == _paragraphs(el)
    assert "gone" not in _compiled_text()(root, rendered)  # a style lxml reads: hidden
    index = index_module.ElementIndex(root)
    assert [el.tag for el in index.named("{http://www.w3.org/1999/xhtml}base")] == [
        "{http://www.w3.org/1999/xhtml}base"
    ]
    assert [el.tag for el in index.data_mentioning()] == ["{http://www.w3.org/1999/xhtml}q"]
    assert index.values("class") == ["was", "k was m"]
    struck = _compiled()(root[1], _said_old()).pieces[-1]
    assert (struck.text, struck.struck) == ("o", True)  # "was": an old price's class word


def test_the_compiled_paragraphs_read_names_as_the_python_ones_do():
    """Element names lowercased, namespaced and beyond ASCII (an XML tree: a Kelvin sign
    lowercases to ``k``, so ``BLOC\u212aQUOTE`` ends a paragraph as ``blockquote`` does),
    a ``hidden`` attribute in a namespace (not the one that hides), a block with no children
    and whole subtrees not read."""
    from structcrawl.articles._blocks import _paragraphs

    root = etree.fromstring(
        "<DIV xmlns:x='urn:x'>a<P>b<B>c</B>d</P>e<x:Li>f</x:Li>g<BLOC\u212aQUOTE>h"
        "</BLOC\u212aQUOTE>i<w\u00f6rter>j</w\u00f6rter>k<Script>s</Script>l<p x:hidden='1'>m"
        "</p><p hidden=''>n</p>o<hr/>p<TITLE>t</TITLE>q<br/></DIV>".encode()
    )
    for el in root.iter():
        assert _compiled_paragraphs()(el) == _paragraphs(el), el.tag
    assert _compiled_paragraphs()(root) == ["a", "bcd", "e", "f", "g", "h", "ijkl", "m", "o", "pq"]


def test_the_page_is_read_by_the_compiled_passes_where_they_are_built():
    """visible_walk and the element index use them (the same walk, on the memo);
    STRUCTCRAWL_NO_EXTENSIONS=1 keeps the Python ones (read when the modules are imported)."""
    _compiled(), _compiled_scan()
    assert index_module.COMPILED is walk_module.COMPILED
    doc = parse_html(b"<h1>Kettle</h1><p>Was <s>$9</s> now $7</p>", "https://s.example/")
    made = visible_walk(doc)
    assert walk_module.COMPILED is (os.environ.get("STRUCTCRAWL_NO_EXTENSIONS", "") in ("", "0"))
    assert [(p.text, p.struck) for p in made.pieces] == [
        ("Kettle", False), ("Was", False), ("$9", True), ("now $7", False),
    ]  # fmt: skip
    assert visible_walk(doc) is made
