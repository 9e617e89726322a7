"""The compiled visible walk (structcrawl.visible._cwalk) is the Python walk, on every page at
hand: the fixtures, the shared real pages (news, blogs, shops, the large product pages) and
the conformance suites' pages. It is an optional build (setup.py): where it was not built the
tests skip, and under CI=true, whose install builds it, they fail."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

from structcrawl.core.document import parse_html
from structcrawl.visible import walk as walk_module
from structcrawl.visible.tree import bodies
from structcrawl.visible.walk import Walk, _said_old, _walk, visible_walk
from tests._conformance import suite_dir
from tests.servers import real_pages_corpus, require

ROOT = Path(__file__).resolve().parents[1]


def _compiled() -> Any:
    require(walk_module._compiled is not None, "the compiled walk is not built (setup.py)")
    return walk_module._compiled


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
def test_the_compiled_walk_is_the_python_walk_on_every_page_at_hand():
    compiled = _compiled()
    pages = _pages()
    assert len(pages) > 500
    for path in pages:
        doc = parse_html(path.read_bytes(), f"https://site.example/{path.parent.name}/")
        root = (bodies(doc) or [doc.root])[0]
        _same_walks(compiled, root, path)


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
}


@pytest.mark.parametrize("page", list(_EDGES.values()), ids=list(_EDGES))
def test_the_compiled_walk_is_the_python_walk_on_edge_cases(page):
    compiled = _compiled()
    doc = parse_html(page, "https://site.example/")
    _same_walks(compiled, (bodies(doc) or [doc.root])[0])


def test_namespaced_elements_and_entity_references_are_walked_alike():
    """A tree parsed as XML (an XHTML page read by another tool): namespaced elements, whose
    marks the Python reads, and entity references left unresolved."""
    compiled = _compiled()
    parser = etree.XMLParser(resolve_entities=False, no_network=True)
    root = etree.fromstring(
        b'<!DOCTYPE html [<!ENTITY e "x">]><html xmlns="http://www.w3.org/1999/xhtml" '
        b'xmlns:v="urn:v"><body><p class="was">a&e;b</p><v:price>9 EUR</v:price>'
        b"<nav>n</nav><del>1</del>tail</body></html>",
        parser,
    )
    _same_walks(compiled, root[0])


def test_the_page_is_walked_by_the_compiled_walk_where_it_is_built():
    """visible_walk uses it (the same walk, on the memo); STRUCTCRAWL_PYTHON_WALK=1 keeps the
    Python one (read when the module is imported)."""
    _compiled()
    doc = parse_html(b"<h1>Kettle</h1><p>Was <s>$9</s> now $7</p>", "https://s.example/")
    made = visible_walk(doc)
    assert walk_module.COMPILED is (os.environ.get("STRUCTCRAWL_PYTHON_WALK", "") in ("", "0"))
    assert [(p.text, p.struck) for p in made.pieces] == [
        ("Kettle", False), ("Was", False), ("$9", True), ("now $7", False),
    ]  # fmt: skip
    assert visible_walk(doc) is made
