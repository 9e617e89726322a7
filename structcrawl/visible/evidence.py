"""Visible-page evidence for a product: the price nearest the main heading, availability from
buy controls and stock wording, labelled SKU / article numbers and EANs (pure, no site code).

The page is read once, in document order, as a list of visible text pieces
(:mod:`structcrawl.visible.tree` says what is visible; the product is not read from
navigation, asides, footers, form controls or drawings). The main heading is the
first visible ``<h1>``. A price is a text piece that reads as an amount with a currency; it is
skipped when struck through (``del``/``s``/``strike`` or a class naming an old, compare or list
price) or when its own text or the words just before it say it is something else (instalments,
savings, shipping, thresholds, unit prices). The nearest remaining price after the heading wins
(before it, at double the distance; :mod:`structcrawl.visible.mainprice` says in which block).
Nothing is read from a product card, one box of a grid or
carousel of other products (:mod:`structcrawl.visible.cards`): not its price, stock wording or
buy button.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import islice
from urllib.parse import urlsplit

from lxml import etree

from structcrawl.core.currency import page_language
from structcrawl.core.document import Document
from structcrawl.visible.cards import cards, in_card
from structcrawl.visible.folded import Folded
from structcrawl.visible.heading import heading_element, heading_text, page_heading
from structcrawl.visible.labels import LabelText
from structcrawl.visible.mainprice import main_price
from structcrawl.visible.prices import declared_currency, find_prices, price_texts
from structcrawl.visible.stock import buy_element_outside, in_buy_control
from structcrawl.visible.walk import Piece, Walk, visible_walk
from structcrawl.visible.words import (
    DECOY_WORDS,
    FROM_WORDS,
    GTIN_LABEL,
    IN_STOCK,
    MODEL_LABEL,
    OLD_PRICE_LABEL,
    OUT_OF_STOCK,
    PREORDER,
    REF_LABEL,
    REGULAR_CLASS,
    SKU_LABEL,
    UNIT_AFTER,
)

__all__ = [
    "EVIDENCE_MEMO",
    "Evidence",
    "Piece",
    "evidence_here",
    "page_evidence",
    "page_heading",
    "price_candidates",
]

#: where a document keeps its evidence once read (here or by a worker process)
EVIDENCE_MEMO = "page-evidence"


@dataclass(slots=True)
class Evidence:
    heading: str | None = None
    price: str | None = None  # the price text nearest the heading ("49,90 EUR")
    price_path: str = ""
    #: the element of that price text (where it is, as ``price_path`` says; not a part of
    #: what the page reads, so not compared)
    price_element: etree._Element | None = field(default=None, compare=False, repr=False)
    availability: str | None = None
    availability_text: str | None = None
    sku: str | None = None
    sku_text: str | None = None
    gtin: str | None = None
    gtin_text: str | None = None
    prices: list[str] = field(default_factory=list)  # every visible non-struck price text
    language: str | None = None  # the page's language (``<html lang>``), primary subtag
    region: str | None = None  # its region subtag (``en-CA`` -> ``ca``)
    host: str = ""  # the page's host
    declared: str | None = None  # the currency the page's own forms declare (``currency_code``)
    #: the product cards of other products the page shows (:mod:`structcrawl.visible.cards`)
    cards: frozenset[etree._Element] = field(default_factory=frozenset, compare=False, repr=False)


def _regular(el: etree._Element) -> bool:
    """Whether the price sits in an element (or its parent) classed as the regular price."""
    for node in (el, el.getparent()):
        if node is not None and REGULAR_CLASS.search(f"{node.get('class') or ''}"):
            return True
    return False


def _pieces(walk: Walk, around: frozenset[etree._Element]) -> list[Piece]:
    """The walk's pieces, struck where a struck element they sit in is not ``around``: the
    main heading and its ancestors, never struck (a class word of an old or unrelated price,
    ``shipping-taxable``, ``no-sidebar``, ``elementor-widget``, on an element that holds the
    page's heading is no aside of other prices but the page)."""
    if not around:
        return walk.pieces
    return [
        Piece(p.text, p.el, p.order, False, p.strikers)
        if p.strikers and all(s in around for s in p.strikers)
        else p
        for p in walk.pieces
    ]


_DIGIT = re.compile(r"\d")


def price_candidates(
    pieces: list[Piece], anchor: int, from_price: bool = False
) -> tuple[list[tuple[int, str, Piece]], list[str], list[etree._Element]]:
    """``(distance to the piece ``anchor``, price text, piece)`` of every price that may be the
    product's, every visible price text and the elements showing them (struck ones aside).
    ``from_price``: a lowest price ("From $18.00", "ab 14,90 €") may be the one (a listing's
    card: the product's price as listed)."""
    out: list[tuple[int, str, Piece]] = []
    shown: list[str] = []
    holders: list[etree._Element] = []
    for i, piece in enumerate(pieces):
        if piece.struck or not _DIGIT.search(piece.text) and len(piece.text) > 4:
            continue  # no amount in it (a short piece may start a price: "$", "29")
        found = price_texts(piece.text) or _split_price(pieces, i)
        if not found or piece.struck:
            continue
        # a label just before (not a price of its own: "statt 13,99 €" says nothing of the next)
        labels: list[str] = []
        for p in reversed(pieces[max(0, i - 2) : i]):
            if find_prices(p.text):
                break  # the label before that price is that price's
            labels.insert(0, p.text)
        before = " ".join(labels)[-40:]
        context = f"{before} {piece.text}"
        for text in found:
            if not re.search(r"[1-9]", text):
                continue
            shown.append(text)
            holders.append(piece.el)
            after = piece.text.split(text, 1)[-1]
            said = context.replace(text, " ")
            if UNIT_AFTER.match(after) or DECOY_WORDS.search(
                FROM_WORDS.sub(" ", said) if from_price else said
            ):
                continue
            if not after.strip() and _old_label(pieces, i) or _range_end(pieces, i, text):
                continue
            distance = (i - anchor) if i >= anchor else 2 * (anchor - i)
            # a "regular" price is the current one only where no other price competes
            out.append((distance + (1000 if _regular(piece.el) else 0), text, piece))
    return out, shown, holders


#: what joins the two ends of a range ("$300 - $500", "10 € bis 20 €"), at the end of a text
_DASH = re.compile(r"(?:^|\s)(?:[-–—]|to|bis|à|a)\s*$|[-–—]\s*$", re.I)


def _range_end(pieces: list[Piece], i: int, text: str) -> bool:
    """Whether the price ``text`` of piece ``i`` ends a range ("$300 - $500", the dash a
    piece of its own or not): the range's upper end is no price to pay."""
    before = pieces[i].text.split(text, 1)[0]
    if before.strip():
        return bool(_DASH.search(before) and find_prices(before))
    return i >= 2 and bool(_DASH.match(pieces[i - 1].text) and find_prices(pieces[i - 2].text))


#: class words of text written for screen readers only
_READER_ONLY = re.compile(r"sr-only|visually-hidden|screen-reader|offscreen|hidden-visually", re.I)


def _old_label(pieces: list[Piece], i: int) -> bool:
    """Whether the piece right after a price is screen-reader text naming it the old one
    ("$45.00<span class=sr-only>Regular Price</span>"; a visible "Was" introduces the next)."""
    if i + 1 >= len(pieces):
        return False
    label = pieces[i + 1]
    return bool(OLD_PRICE_LABEL.match(label.text)) and bool(
        _READER_ONLY.search(label.el.get("class") or "")
    )


_BARE_AMOUNT = re.compile(r"\d{1,3}(?:[.,'’ \u00a0]\d{3})+(?:[.,]\d{1,2})?|\d{5,9}")


def _block(el: etree._Element) -> set[etree._Element]:
    """The element, its parent and its grandparent (those it has)."""
    return {el, *islice(el.iterancestors(), 2)}


def _split_price(pieces: list[Piece], i: int) -> list[str]:
    """A price written over two to four elements (``<b>€ <span>20,-</span></b>``,
    ``<span>$</span><span>29</span><span>.</span><span>99</span>``): a short piece and the
    short ones after it, inside one small block, read together; the first may also be a
    whole amount whose sign follows (``<strong>30,000</strong><sub>원~</sub>``)."""
    if len(pieces[i].text) > 4 and not _BARE_AMOUNT.fullmatch(pieces[i].text):
        return []
    near = _block(pieces[i].el)
    parts = [pieces[i].text]
    for piece in pieces[i + 1 : i + 4]:
        if len(piece.text) > 16 or not near & _block(piece.el):
            break
        if find_prices(piece.text):
            break  # a price of its own ("-", "$500", "3 bids" is no "-$5003")
        parts.append(piece.text)
    for k in range(len(parts), 1, -1):
        if find_prices(parts[k - 1]):
            continue  # a price of its own
        for joined in ("".join(parts[:k]), " ".join(parts[:k])):
            found = price_texts(joined)
            if found and sum(c.isdigit() for c in found[0]) == sum(
                c.isdigit() for part in parts[:k] for c in part
            ):
                return found[:1]
    return []


#: class/id words of an element that states the product's stock (preferred as evidence)
_STOCK_BOX = re.compile(r"stock|availab|inventory|lieferbar|verfuegbar|verfügbar|dispon", re.I)
#: class/id words of one option among several (a colour or size swatch, a variant)
_OPTION_BOX = re.compile(r"swatch|variant|variation|option|selector|colou?r|size|twister", re.I)


def _names(el: etree._Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}"


def _stock_rank(el: etree._Element) -> int:
    """0: inside an element whose class or id names the stock or availability; 2: inside one
    option of a list of options, i.e. an element named as an option (swatch, variant, selector,
    colour, size) or a child of one so named, beside siblings like it (a sold-out colour says
    nothing of the selected one), which wins over a stock name; 1: anything else. Looks at the
    element and four ancestors."""
    node: etree._Element | None = el
    rank = 1
    for _ in range(5):
        if node is None or not isinstance(node.tag, str):
            break
        names = _names(node)
        parent = node.getparent()
        if parent is not None and (_OPTION_BOX.search(names) or _OPTION_BOX.search(_names(parent))):
            if sum(1 for c in parent if c.tag == node.tag) > 1:
                return 2
        if _STOCK_BOX.search(names):
            rank = min(rank, 0)
        node = parent
    return rank


def _nearest_first(count: int, anchor: int, most: int) -> list[int]:
    """The first ``most`` of ``range(count)`` sorted by distance to ``anchor``, the one before
    it first on a tie (what a stable sort gives), without sorting them all."""
    out = [anchor] if 0 <= anchor < count else []
    step = 1
    while len(out) < most and (anchor - step >= 0 or anchor + step < count):
        for i in (anchor - step, anchor + step):
            if 0 <= i < count and len(out) < most:
                out.append(i)
        step += 1
    return out


#: the labels of a SKU, a reference and a model number, in that order, and of a GTIN (searched
#: in the text lowercased: :mod:`structcrawl.visible.folded`)
_CODE_LABELS = (Folded(SKU_LABEL), Folded(REF_LABEL), Folded(MODEL_LABEL))
_GTIN_LABEL = Folded(GTIN_LABEL)
#: stock wording and what it says, the first that matches winning (searched in the texts
#: lowercased: :mod:`structcrawl.visible.folded`)
_STOCK_WORDS = (
    (Folded(PREORDER), "PreOrder"),
    (Folded(OUT_OF_STOCK), "OutOfStock"),
    (Folded(IN_STOCK), "InStock"),
)


def _stock_said(texts: list[str]) -> list[str | None]:
    """What each text's stock wording says (:data:`_STOCK_WORDS`, the first that matches
    winning), the texts searched as one per pattern: no wording spans the ``\\x00`` between
    two, and each text starts and ends at a word boundary there as it does alone."""
    starts: list[int] = []
    at = 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    joined = "\x00".join(texts)
    said: list[str | None] = [None] * len(texts)
    for pattern, value in reversed(_STOCK_WORDS):  # the first to match wins: it is read last
        for found in pattern.finditer(joined):
            said[bisect_right(starts, found.start()) - 1] = value
    return said


def _availability(
    pieces: list[Piece],
    anchor: int,
    boxes: frozenset[etree._Element],
    control: tuple[str | None, str | None],
) -> tuple[str | None, str | None]:
    """Stock wording nearest the heading, stated by a stock element first and by one option of
    a list of options last; else a buy control (disabled: out of stock); neither from a
    product card ``boxes`` (another product's)."""
    near = _nearest_first(len(pieces), anchor, 400)
    said = _stock_said([t if len(t := pieces[i].text) <= 160 else "" for i in near])
    found: list[tuple[int, int, str, str]] = []
    for order, (i, value) in enumerate(zip(near, said, strict=True)):
        if value is None:
            continue
        # whether it sits in a buy control (its words read) only for stock wording
        el = pieces[i].el
        if not in_buy_control(el) and not in_card(el, boxes):
            found.append((_stock_rank(el), order, value, pieces[i].text))
    if found:
        rank, _, value, text = min(found)
        if rank < 2 or control[0] is None:  # one option's "sold out" yields to a buy control
            return value, text
    return control


def page_evidence(document: Document) -> Evidence:
    """Visible-page evidence (see the module doc); empty fields where the page says nothing.
    Read once per document (kept on its memo: the record check ``price-shown-as-old`` and the
    typed items both ask)."""
    known = document.memo.get(EVIDENCE_MEMO)
    if isinstance(known, Evidence):
        return known
    ev = document.memo[EVIDENCE_MEMO] = evidence_here(document)
    return ev


def evidence_here(document: Document) -> Evidence:
    """The evidence read on ``document``'s own tree, whatever its memo holds: the elements of
    evidence another process read (:mod:`structcrawl.visible.wire`) are not this tree's."""
    el = heading_element(document)
    around = frozenset([el, *el.iterancestors()]) if el is not None else frozenset()
    walk = visible_walk(document)
    pieces, heads = _pieces(walk, around), walk.heads
    head = next((h for h in heads if h[1] is el), None)
    if head is None and el is not None:  # a heading that is no h1 or h2: its first piece
        at = next((p.order for p in pieces if p.el is el or el in p.el.iterancestors()), None)
        head = (at, el) if at is not None else None
    h1_at = head[0] if head else None
    ev = Evidence()
    ev.language, ev.region = page_language(document.root.get("lang"))
    ev.host = (urlsplit(document.url).hostname or "").lower()
    ev.declared = declared_currency(document)
    if head is not None:
        ev.heading = heading_text(el)
    anchor = h1_at if h1_at is not None else 0
    priced, ev.prices, holders = price_candidates(pieces, anchor)
    boxes = cards(holders, around)
    state, said, control = buy_element_outside(document, boxes)
    ev.price, piece = main_price(priced, head[1] if head else None, boxes, control)
    ev.cards = boxes
    if piece is not None:
        ev.price_path = document.path_of(piece.el)
        ev.price_element = piece.el
    ev.availability, ev.availability_text = _availability(pieces, anchor, boxes, (state, said))
    text = LabelText(pieces)
    sku = next(
        (found for p in _CODE_LABELS if (found := text.nearest(p, anchor))),
        None,
    )
    if sku:
        ev.sku, ev.sku_text = sku
    gtin = text.nearest(_GTIN_LABEL, anchor)
    if gtin:
        ev.gtin, ev.gtin_text = gtin[0].replace(" ", ""), gtin[1]
    return ev
