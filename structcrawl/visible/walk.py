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
  reading (:func:`structcrawl.visible.stock.visible_availability`) reads their own text;
* ``controls``: the controls among the elements walked (links, buttons, button inputs,
  images with ``alt``, ``role="button"``: :func:`~structcrawl.visible.tree.is_control`), the
  start aside, in document order: where the buy control is looked for
  (:mod:`structcrawl.visible.stock`), a control in a subtree the walk does not enter being
  hidden or in a region, so no buy control.

The walk is made by :mod:`structcrawl.visible._cwalk` where the install built it (Cython over
lxml's C API: the same walk, ~2.5 times as fast; :data:`COMPILED`), else by :func:`_walk`,
the reference the compiled one is tested against (``tests/test_compiled.py``).

>>> from structcrawl.core.document import parse_html
>>> walk = visible_walk(parse_html(
...     b"<h1>Kettle</h1><nav>Home</nav><p>Was <s>$9</s> now $7</p>", "https://s.example/"))
>>> [(p.text, len(p.strikers)) for p in walk.pieces], [h[0] for h in walk.heads]
([('Kettle', 0), ('Was', 0), ('$9', 1), ('now $7', 0)], [0])
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.extensions import compiled
from structcrawl.visible.tree import bodies, walk_marks

__all__ = ["COMPILED", "Piece", "Walk", "visible_walk"]


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
    controls: list[etree._Element]


#: a started element's strikers (its own included) and whether it is in a ``<title>``; None
#: for one not entered
_Frame = tuple[tuple[etree._Element, ...], bool] | None


#: the class and id strings already read and whether they name an old price
#: (:func:`~structcrawl.visible.tree.struck`), kept from page to page: the pages of a site
#: share their templates' class names (a page of ~2,000 classed elements has ~600 distinct
#: strings); emptied once it holds this many
_SAID_OLD_MOST = 20_000
_SAID_OLD: dict[str, bool] = {}


def _said_old() -> dict[str, bool]:
    if len(_SAID_OLD) >= _SAID_OLD_MOST:
        _SAID_OLD.clear()
    return _SAID_OLD


def _walk(start: etree._Element) -> Walk:
    """The walk (see the module doc) by libxml2's walker (``iterwalk``: the tree's elements
    and comments in document order, a subtree skipped at its start), each element's
    attributes read once (:func:`~structcrawl.visible.tree.walk_marks`)."""
    pieces: list[Piece] = []
    heads: list[tuple[int, etree._Element]] = []
    seen: list[etree._Element] = []
    controls: list[etree._Element] = []
    frames: list[_Frame] = []  # one per element started and not yet ended
    said_old = _said_old()
    walker = etree.iterwalk(start, events=("start", "end", "comment", "pi"))
    for event, node in walker:
        if event == "start":
            enters, strikes, control = walk_marks(node, said_old)
            if not enters:  # non-rendered, hidden, a region (navigation, asides, footers, ...)
                walker.skip_subtree()
                frames.append(None)
                continue
            frame = frames[-1] if frames else None
            strikers, in_title = frame if frame is not None else ((), False)
            tag = node.tag
            in_title = in_title or tag == "title"
            if not in_title:
                seen.append(node)
            if tag == "h1" or tag == "h2":
                heads.append((len(pieces), node))
            if control and frames:
                controls.append(node)
            inner = (*strikers, node) if strikes else strikers
            frames.append((inner, in_title))
            text = node.text
            if text and not text.isspace():
                pieces.append(Piece(" ".join(text.split()), node, len(pieces), bool(inner), inner))
            continue
        if event == "end":
            frames.pop()
        if not frames:
            continue  # the start's own tail is not read
        tail = node.tail  # an element's or a comment's, its parent's text
        if tail and not tail.isspace():
            inner = frames[-1][0]  # type: ignore[index]  # its parent is entered
            owner = node.getparent()
            pieces.append(Piece(" ".join(tail.split()), owner, len(pieces), bool(inner), inner))
    return Walk(start, pieces, heads, seen, controls)


def visible_walk(document: Document) -> Walk:
    """The walk of the document's visible tree from its first ``<body>`` (its root without
    one), made once per document (kept on its memo), by the compiled walk where it is built
    (:data:`COMPILED`)."""
    known = document.memo.get("visible-walk")
    if isinstance(known, Walk):
        return known
    found = bodies(document)
    start = found[0] if found else document.root
    made = _compiled(start, _said_old()) if _compiled is not None else _walk(start)
    document.memo["visible-walk"] = made
    return made


#: the compiled walk (:mod:`structcrawl.visible._cwalk`: the same walk, ~2.5 times as fast),
#: imported once the classes it makes are defined; None where not built or not wanted
#: (:func:`structcrawl.core.extensions.compiled`)
_compiled: Callable[[etree._Element, dict[str, bool]], Walk] | None = compiled(
    "structcrawl.visible._cwalk", "walk"
)
#: whether :func:`visible_walk` walks with the compiled walk
COMPILED = _compiled is not None
