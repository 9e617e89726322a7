"""What the page shows about buying its product (pure): the one definition of a buy control,
and the stock reading every check and item shares.

* :func:`buy_control`: the first visible control to buy (a button, an input, a link, an image
  whose words are ``Add to cart``, ``Buy now``, ... in many languages, or whose id or name
  names the cart, :data:`structcrawl.visible.words.CART_NAME`), outside navigation, asides
  and footers: ``("InStock", label)``, ``("OutOfStock", label)`` when it is disabled;
* :func:`in_buy_control`: whether a text sits inside one (its "sold out" is one of the states
  a stylesheet switches between, not what the page says);
* :func:`visible_availability`: the page's first "sold out" wording outside buy controls,
  navigation, asides and footers, and its enabled buy control, read once per page (kept on
  the document) for the record check (:mod:`structcrawl.validate.availability`) and the
  items (:mod:`structcrawl.typed`).

>>> from structcrawl.core.document import parse_html
>>> visible_availability(parse_html(
...     b"<h1>Kettle</h1><p class=stock>Sold out</p><button>Notify me</button>", "https://s.example/"))
Availability(sold_out='Sold out', buy_control=None)
>>> visible_availability(parse_html(
...     b"<h1>Kettle</h1><button>Add to cart <i>Sold out</i></button>", "https://s.example/"))
Availability(sold_out=None, buy_control='Add to cart Sold out')
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.extensions import compiled
from structcrawl.visible.folded import Folded
from structcrawl.visible.tree import NOT_RENDERED, bodies, hidden, is_control, region_of
from structcrawl.visible.walk import COMPILED, visible_walk
from structcrawl.visible.words import BUY, CART_NAME, OUT_OF_STOCK, PREORDER

__all__ = [
    "AVAILABILITY_MEMO",
    "BUYABLE",
    "Availability",
    "box_buy_control",
    "buy_control",
    "buy_element_outside",
    "in_buy_control",
    "page_buy_control",
    "visible_availability",
]

#: where a document keeps its availability once read (here or by a worker process)
AVAILABILITY_MEMO = "visible-availability"

#: availabilities that say the product can be bought: what a page showing "sold out" and no
#: way to buy, or only a pre-order button, contradicts
BUYABLE = frozenset({"InStock", "LimitedAvailability", "OnlineOnly", "InStoreOnly"})

_MAX_TEXT = 200_000  # characters of page text read for the phrases
_UNSEEN = frozenset({*NOT_RENDERED, "title"})


@dataclass(frozen=True, slots=True)
class Availability:
    """What the page shows: the first "sold out" phrase, and the enabled buy control's words."""

    sold_out: str | None = None
    buy_control: str | None = None

    @property
    def preorder(self) -> bool:
        """Whether the way to buy is a pre-order ("Pre-order now", "Vorbestellen")."""
        return bool(self.buy_control and PREORDER.search(self.buy_control))


_CONTROLS = etree.XPath(
    "//body//button|//body//input[@type='submit' or @type='button' or @type='image']"
    "|//body//a|//body//*[@role='button']|//body//img[@alt]"
)
_CLICKABLE = frozenset({"a", "button", "label"})
_BODIES = etree.XPath("//body")


def _controls(
    root: etree._Element, bodies: list[etree._Element] | None = None
) -> list[etree._Element]:
    """What :data:`_CONTROLS` selects, in one pass over the page's only ``<body>`` (the union
    of five paths walks it five times and sorts what they found: twice the time); ``bodies``:
    the page's bodies when known (:func:`~structcrawl.visible.tree.bodies`)."""
    bodies = _BODIES(root) if bodies is None else bodies
    if len(bodies) != 1:
        return list(_CONTROLS(root))  # type: ignore[arg-type]
    return [el for el in bodies[0].iterdescendants(etree.Element) if is_control(el)]


def _control_label(el: etree._Element) -> str:
    """A control's words: its ``value``, text and images' ``alt`` (read by the compiled
    walk's module where it is built: :func:`_python_label` its reference)."""
    return _compiled_label(el, _python_label) if _compiled_label is not None else _python_label(el)


def _python_label(el: etree._Element) -> str:
    """:func:`_control_label` in Python: the reference of the compiled one."""
    tag, get = el.tag, el.get
    if tag == "input":  # an image button says it in its own alt
        alts, text = get("alt") or "", ""
    elif not len(el):  # no descendants: its own text, its own alt if an image
        alts = (get("alt") or "") if tag == "img" else ""
        text = el.text or ""
    else:
        alts = " ".join(i.get("alt") or "" for i in el.iter("img"))
        text = " ".join(el.itertext())
    return " ".join(f"{get('value') or ''} {text} {alts}".split())


#: the compiled :func:`_control_label` (``(element, python) -> str``), where the walk is
#: compiled (the same module)
_compiled_label: Callable[[etree._Element, Callable[[etree._Element], str]], str] | None = (
    compiled("structcrawl.visible._cwalk", "control_label") if COMPILED else None
)


def in_buy_control(el: etree._Element) -> bool:
    """Whether ``el`` is (inside) a clickable element that also says "add to cart": its stock
    wording is one of the states a stylesheet switches between, not what the page shows."""
    for node in (el, *islice(el.iterancestors(), 3)):
        if node.tag in _CLICKABLE or node.get("role") == "button":
            return bool(BUY.search(_control_label(node)))
    return False


def buy_control(
    root: etree._Element, outside: frozenset[etree._Element] = frozenset()
) -> tuple[str | None, str | None]:
    """The first visible buy control: ``InStock``, or ``OutOfStock`` when it is disabled;
    none inside the elements ``outside`` (the product cards of other products)."""
    return _first_buy(_controls(root), outside)[1:]


def box_buy_control(box: etree._Element) -> tuple[str | None, str | None]:
    """:func:`buy_control` among the controls inside ``box`` (a product card)."""
    controls = (el for el in box.iter(etree.Element) if is_control(el))
    return _first_buy(controls, frozenset())[1:]


def _first_buy(
    controls: Iterable[etree._Element], outside: frozenset[etree._Element], start: int = 0
) -> tuple[int, str | None, str | None]:
    """The position among ``controls`` of the first buy control (the number of controls
    when none is), and what :func:`buy_control` says of it; the first ``start`` controls
    are not read."""
    at = start - 1
    for at, el in enumerate(islice(controls, start, None), start):
        label = _control_label(el)
        if len(label) > 60:
            continue
        ident, name = el.get("id"), el.get("name")
        named = CART_NAME.search(f"{ident or ''} {name or ''}") if ident or name else None
        if not (named or BUY.search(label)):
            continue
        if any(
            hidden(a) or region_of(a) or a.tag in NOT_RENDERED or a in outside
            for a in (el, *el.iterancestors())
        ):
            continue
        disabled = el.get("disabled") is not None or "disabled" in (el.get("class") or "")
        said = label or (named.group(0) if named else "")
        return at, ("OutOfStock" if disabled else "InStock"), said
    return at + 1, None, None


def _page_controls(doc: Document) -> tuple[list[etree._Element], int, str | None, str | None]:
    """The page's controls, and the position and reading of its first buy control (kept on
    the document's memo). Of a page with one ``<body>``, the controls its visible walk found
    (:func:`~structcrawl.visible.walk.visible_walk`): those it does not enter are hidden or in
    a region, so no buy control, and the walk serves the stock reading and the evidence too."""
    known = doc.memo.get("buy-controls")
    if isinstance(known, tuple):
        return known
    found_bodies = bodies(doc)
    if len(found_bodies) == 1:
        controls = visible_walk(doc).controls
    else:
        controls = _controls(doc.root, found_bodies)
    found = doc.memo["buy-controls"] = (controls, *_first_buy(controls, frozenset()))
    return found


def page_buy_control(doc: Document) -> tuple[str | None, str | None]:
    """:func:`buy_control` of the page, found once per document (kept on its memo) for the
    evidence and the availability reading (its search is from the document's root, whatever
    element it is given)."""
    return _page_controls(doc)[2:]


def buy_element_outside(
    doc: Document, outside: frozenset[etree._Element]
) -> tuple[str | None, str | None, etree._Element | None]:
    """:func:`page_buy_control` where it is outside the elements ``outside`` (a page whose
    first buy button is a product card's: the first of the page's own), with the control's
    element. The search goes on from the page's first buy control: a control before it is
    none with or without ``outside``."""
    controls, at, state, said = _page_controls(doc)
    if state is not None and outside:
        at, state, said = _first_buy(controls, outside, at)
    return state, said, (controls[at] if state is not None else None)


def _seen_elements(root: etree._Element) -> Iterator[etree._Element]:
    """The elements a reader can see, depth first, outside navigation, asides and footers
    (those subtrees are not entered)."""
    stack = [root]
    while stack:
        el = stack.pop()
        if not isinstance(el.tag, str) or el.tag in _UNSEEN or hidden(el) or region_of(el):
            continue  # nor navigation, asides, footers: a related product's "Sold out"
        yield el
        stack.extend(reversed(el))


def _seen_texts(doc: Document, root: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """The elements a reader can see under ``root`` (:func:`_seen_elements`), each with its
    own text (:func:`_own_text`), those without any left out. Where the page's visible walk
    (:func:`structcrawl.visible.walk.visible_walk`, made once for the stock reading, the buy
    control and the product evidence) starts at ``root``, from its elements and its text
    pieces: no element's text read again."""
    walk = visible_walk(doc)
    if walk.start is not root:
        for el in _seen_elements(root):
            text = _own_text(el)
            if text:
                yield el, text
        return
    owned: dict[etree._Element, list[str]] = {}  # each element's pieces, in document order
    for piece in walk.pieces:
        parts = owned.get(piece.el)
        if parts is None:
            owned[piece.el] = [piece.text]
        else:
            parts.append(piece.text)
    for el in walk.seen:
        parts = owned.get(el)
        if parts is not None:
            yield el, parts[0] if len(parts) == 1 else " ".join(parts)


def _own_text(el: etree._Element) -> str:
    """The element's own text and its children's tails, whitespace normalized (as the walk's
    pieces are: ``Out of<br>\n  stock`` reads ``Out of stock``)."""
    if not len(el):
        text = el.text
    else:
        text = " ".join(t for t in (el.text, *(child.tail for child in el)) if isinstance(t, str))
    return " ".join(text.split()) if text else ""


def _sold_out(doc: Document, root: etree._Element) -> str | None:
    """The first sold-out wording a reader sees under ``root`` outside a buy control, in the
    elements' own texts (up to :data:`_MAX_TEXT` characters). The texts are searched as one
    (``\\x00`` between two: no wording spans it, and each text starts and ends at a word
    boundary there as it does alone), not one search each; a text's first wording is the one
    a search of it alone finds, and its others are passed over as that search does."""
    elements: list[etree._Element] = []
    texts: list[str] = []
    starts: list[int] = []
    read = at = 0
    for el, text in _seen_texts(doc, root):
        if read >= _MAX_TEXT:
            break
        read += len(text)
        elements.append(el)
        texts.append(text)
        starts.append(at)
        at += len(text) + 1
    joined = "\x00".join(texts)
    last = -1  # the text whose first wording was read
    for found in _SOLD_OUT.finditer(joined):
        i = bisect_right(starts, found.start()) - 1
        if i == last:
            continue
        last = i
        if not in_buy_control(elements[i]):
            return joined[found.start() : found.end()]
    return None


#: the sold-out wording, searched in the texts lowercased (:mod:`structcrawl.visible.folded`)
_SOLD_OUT = Folded(OUT_OF_STOCK)


def visible_availability(doc: Document) -> Availability:
    """The availability signals a reader sees on ``doc`` (computed once per document)."""
    known = doc.memo.get(AVAILABILITY_MEMO)
    if isinstance(known, Availability):
        return known
    body = doc.root.find("body")
    root = body if body is not None else doc.root
    state, label = page_buy_control(doc)
    result = Availability(
        sold_out=_sold_out(doc, root), buy_control=label if state == "InStock" else None
    )
    doc.memo[AVAILABILITY_MEMO] = result
    return result
