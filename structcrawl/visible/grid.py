"""The products a page lists in its grid of cards, as a shopper reads them (pure).

A category or search page without product markup shows its products as product cards
(:mod:`structcrawl.visible.cards`). :func:`grid_products` reads the page's main grid, the
parent holding most cards, card by card in page order: the product's page (the card's first
link), its name (the card's heading, else its longest link text to that page, else the link's
``title`` or the image's ``alt``), its price (the first the card shows that is no old, unit,
instalment or shipping price; a lowest "From" price is the listed one) and its availability
(the card's own stock wording, else its buy button: enabled ``InStock``, disabled
``OutOfStock``).

>>> from structcrawl.core.document import parse_html
>>> from structcrawl.visible.evidence import page_evidence
>>> doc = parse_html(b'''<h1>Teas</h1><ul>
... <li class="card"><a href="/a">Sencha</a> <s>12,00 EUR</s> <span>9,90 EUR</span></li>
... <li class="card"><a href="/b">Gyokuro</a> <span>ab 12,49 EUR</span></li>
... <li class="card"><a href="/c">Hojicha</a> <span>8,50 EUR</span> Sold out</li>
... </ul>''', "https://s.example/tea/")
>>> [(p.name, p.url, p.price, p.availability) for p in grid_products(doc, page_evidence(doc).cards)]
... # doctest: +NORMALIZE_WHITESPACE
[('Sencha', 'https://s.example/a', '9,90 EUR', None),
 ('Gyokuro', 'https://s.example/b', '12,49 EUR', None),
 ('Hojicha', 'https://s.example/c', '8,50 EUR', 'OutOfStock')]
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.visible.cards import MIN_CARDS, link_target
from structcrawl.visible.evidence import price_candidates
from structcrawl.visible.stock import box_buy_control, in_buy_control
from structcrawl.visible.tree import element_places
from structcrawl.visible.walk import Piece, Walk, visible_walk
from structcrawl.visible.words import OUT_OF_STOCK, PREORDER

__all__ = ["GRID_MEMO", "UNREAD_CARDS", "GridProduct", "grid_products"]

#: where a document keeps its grid's products: ``(cards, own_price, products)``
GRID_MEMO = "page-grid"
#: the cards of a page read in another process, whose elements the crawl has not
#: (:mod:`structcrawl.visible.wire`): its grid's products are those of its memo
UNREAD_CARDS: frozenset[Any] = frozenset({"cards read in another process"})

_HEADINGS = frozenset({"h2", "h3", "h4", "h5", "h6"})


@dataclass(frozen=True, slots=True)
class GridProduct:
    """One card of the page's grid as read (``path``: the card's element)."""

    path: str
    url: str
    name: str | None
    price: str | None = None
    price_path: str = ""
    availability: str | None = None
    availability_text: str | None = None


def _main_grid(cards: frozenset[etree._Element]) -> list[etree._Element]:
    """The cards of the parent holding most of them, in page order ([] under
    :data:`~structcrawl.visible.cards.MIN_CARDS`)."""
    parents = Counter(card.getparent() for card in cards)
    if not parents:
        return []
    count = max(parents.values())
    tied = [p for p, n in parents.items() if n == count]
    if len(tied) > 1:  # the first in page order (a set's order is no order)
        order = element_places(next(iter(cards)).getroottree().getroot(), tied)
        tied.sort(key=lambda p: order.get(p, -1))
    parent = tied[0]
    if parent is None or count < MIN_CARDS:
        return []
    return [child for child in parent if child in cards]


def _is_main(walk: Walk, grid: list[etree._Element]) -> bool:
    """Whether the grid is the page's main content: the last ``h1``/``h2`` before its first
    card is an ``h1`` (or there is none). A grid after a section heading ("Related
    products", "Customers also bought") on a page with a price of its own is a part of
    another page, a product page whose product was not read: its cards are not what the page
    lists. (A category page's own ``h2`` between its title and its grid, "12 products", is
    no such sign alone: its prices are all in the cards.)"""
    first = {grid[0], *grid[0].iterdescendants()}
    start = next((p.order for p in walk.pieces if p.el in first), None)
    if start is None:
        return False
    before = [el for order, el in walk.heads if order <= start and el not in first]
    return not before or before[-1].tag == "h1" or not any(el.tag == "h1" for el in before)


def _clean(value: str | None) -> str | None:
    return " ".join(value.split()) or None if value else None


def _name(card: etree._Element, target: str) -> str | None:
    """The card's heading, else its longest link text to ``target``, else that link's
    ``title``, else its first image's ``alt``."""
    for el in card.iter(*_HEADINGS):
        if name := _clean("".join(el.itertext())):
            return name
    links = [a for a in card.iter("a") if link_target(a.get("href")) == target]
    texts = [t for a in links if (t := _clean("".join(a.itertext())))]
    if texts:
        return max(texts, key=len)
    titles = [t for a in links if (t := _clean(a.get("title")))]
    if titles:
        return titles[0]
    return next((a for img in card.iter("img") if (a := _clean(img.get("alt")))), None)


def _stock(pieces: list[Piece], card: etree._Element) -> tuple[str | None, str | None]:
    """The card's own stock wording (not a buy button's states), else its buy button."""
    for piece in pieces:
        if len(piece.text) > 160 or in_buy_control(piece.el):
            continue
        for pattern, value in ((PREORDER, "PreOrder"), (OUT_OF_STOCK, "OutOfStock")):
            if pattern.search(piece.text):
                return value, piece.text
    return box_buy_control(card)


def _struck_within(piece: Piece, outer: set[etree._Element]) -> Piece:
    """The piece struck only by what strikes it within its card: a class word of an old or
    unrelated price on the card or the grid's containers (``product-teaser``, a layout's
    ``sidebar``) says nothing of one card's prices."""
    if not piece.strikers or any(s not in outer for s in piece.strikers):
        return piece
    return Piece(piece.text, piece.el, piece.order, False, piece.strikers)


def grid_products(
    doc: Document, cards: frozenset[etree._Element], own_price: bool = False
) -> list[GridProduct]:
    """The products of the page's main grid of ``cards`` (see the module doc). ``own_price``:
    the page shows a price outside the cards; its grid is then its listing only where it is
    the page's main content (:func:`_is_main`). Read once per document for the same cards
    (kept on its memo, where a worker process may have put it:
    :mod:`structcrawl.visible.wire`, with the cards it found). Cards read in another process
    that did not read the grid (:data:`UNREAD_CARDS`, no grid on the memo: its records made a
    product, whose page reads no grid) are read again here, on this page's own tree."""
    known = doc.memo.get(GRID_MEMO)
    if known is not None and known[0] == cards and known[1] == own_price:
        return list(known[2])
    if cards is UNREAD_CARDS:
        from structcrawl.visible.evidence import evidence_here

        grid = _main_grid(evidence_here(doc).cards)
    else:
        grid = _main_grid(cards)
    if not grid and cards is not UNREAD_CARDS:
        return []
    out = _grid_products(doc, grid, own_price) if grid else []
    doc.memo[GRID_MEMO] = (cards, own_price, tuple(out))
    return out


def _grid_products(doc: Document, grid: list[etree._Element], own_price: bool) -> list[GridProduct]:
    walk = visible_walk(doc)
    if own_price and not _is_main(walk, grid):
        return []
    of: dict[etree._Element, list[Piece]] = {card: [] for card in grid}
    parent = grid[0].getparent()
    outer = {parent, *parent.iterancestors()} if parent is not None else set()
    for piece in walk.pieces:
        holder = next((a for a in (piece.el, *piece.el.iterancestors()) if a in of), None)
        if holder is not None:
            of[holder].append(_struck_within(piece, {holder, *outer}))
    out = []
    for card, pieces in of.items():
        target = next((t for a in card.iter("a") if (t := link_target(a.get("href")))), "")
        priced, _, _ = price_candidates(pieces, 0, from_price=True)
        first = min(priced, key=lambda c: c[0]) if priced else None
        availability, said = _stock(pieces, card)
        out.append(
            GridProduct(
                path=doc.path_of(card),
                url=urljoin(doc.url, target),
                name=_name(card, target),
                price=first[1] if first else None,
                price_path=doc.path_of(first[2].el) if first else "",
                availability=availability,
                availability_text=said,
            )
        )
    return out
