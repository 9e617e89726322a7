"""One walk of the page's visible tree, shared by its readers (pure, kept on the document).

:func:`visible_walk` reads the tree from ``<body>`` once, in document order, not entering
non-rendered or hidden elements nor regions (navigation, asides, footers, controls, drawings:
:mod:`structcrawl.visible.tree`), and keeps what the readers of the page need:

* ``pieces``: the visible text pieces (whitespace normalized), each with the element whose
  text or child's tail it is and the struck elements (:func:`~structcrawl.visible.tree.struck`)
  it sits in: the product evidence (:mod:`structcrawl.visible.evidence`) decides which of
  them strike it;
* ``heads``: each visible ``h1`` and ``h2`` with the number of pieces before it;
* ``seen``: the elements walked, outside any ``<title>``, in document order: the stock
  reading (:func:`structcrawl.visible.stock.visible_availability`) reads their own text.

>>> from structcrawl.core.document import parse_html
>>> walk = visible_walk(parse_html(
...     b"<h1>Kettle</h1><nav>Home</nav><p>Was <s>$9</s> now $7</p>", "https://s.example/"))
>>> [(p.text, len(p.strikers)) for p in walk.pieces], [h[0] for h in walk.heads]
([('Kettle', 0), ('Was', 0), ('$9', 1), ('now $7', 0)], [0])
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.visible.tree import NOT_RENDERED, hidden, region_of, struck

__all__ = ["Piece", "Walk", "visible_walk"]


@dataclass(slots=True)
class Piece:
    text: str
    el: etree._Element
    order: int
    struck: bool
    #: the struck elements it sits in (its own element included), outermost first
    strikers: tuple[etree._Element, ...] = ()


@dataclass(slots=True)
class Walk:
    """What one walk of the visible tree found (see the module doc)."""

    start: etree._Element
    pieces: list[Piece]
    heads: list[tuple[int, etree._Element]]
    seen: list[etree._Element]


_Entry = tuple[etree._Element | str, tuple[etree._Element, ...], etree._Element | None, bool]


def _walk(start: etree._Element) -> Walk:
    pieces: list[Piece] = []
    heads: list[tuple[int, etree._Element]] = []
    seen: list[etree._Element] = []
    stack: list[_Entry] = [(start, (), None, False)]
    while stack:
        node, strikers, owner, in_title = stack.pop()
        if isinstance(node, str):
            if owner is not None and node.strip():
                text = " ".join(node.split())
                pieces.append(Piece(text, owner, len(pieces), bool(strikers), strikers))
            continue
        if not isinstance(node.tag, str) or node.tag in NOT_RENDERED or hidden(node):
            continue
        if region_of(node):  # navigation, asides, footers, controls, drawings: not the product
            continue
        in_title = in_title or node.tag == "title"
        if not in_title:
            seen.append(node)
        if node.tag in ("h1", "h2"):
            heads.append((len(pieces), node))
        inner = (*strikers, node) if struck(node) else strikers
        kids: list[_Entry] = []
        if node.text:
            kids.append((node.text, inner, node, in_title))
        for child in node:
            kids.append((child, inner, node, in_title))
            if child.tail:
                kids.append((child.tail, inner, node, in_title))
        stack.extend(reversed(kids))
    return Walk(start, pieces, heads, seen)


def visible_walk(document: Document) -> Walk:
    """The walk of the document's visible tree from its first ``<body>`` (its root without
    one), made once per document (kept on its memo)."""
    known = document.memo.get("visible-walk")
    if isinstance(known, Walk):
        return known
    bodies = document.root.xpath("//body")
    walk = document.memo["visible-walk"] = _walk(bodies[0] if bodies else document.root)
    return walk
