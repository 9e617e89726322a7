"""A page's visible readings as plain data, to read them in another process (pure).

The visible page is most of a product page's work (docs/speed.md), and each reading is a pure
function of the parsed page: :func:`readings` makes them all on a page (in a worker process,
:mod:`structcrawl.workers.page`, on its own parse of the same bytes) and says them as JSON;
:func:`adopt` puts them on the crawl's own parse of the page, on its memo, where each reader
finds its reading instead of making it:

* the stock reading (:func:`structcrawl.visible.stock.visible_availability`);
* the facts the record checks read (:class:`structcrawl.visible.facts.LazyVisibleFacts`);
* the old prices (:func:`structcrawl.visible.oldprices.old_prices`);
* the main heading (:func:`structcrawl.visible.heading.heading_element`);
* the product evidence (:func:`structcrawl.visible.evidence.page_evidence`) and the products
  of the page's grid (:func:`structcrawl.visible.grid.grid_products`).

Elements are said by their path from the root (:func:`~structcrawl.visible.tree.element_path`:
each one's place among its parent's children, found from the element up, and found again by
descending, without a walk of the tree): the same bytes parse to the same tree
(:func:`structcrawl.core.document.parse_html`), and a page whose tree has another number of
elements, or no element at a path, is not adopted (its readers then read it themselves).

>>> from structcrawl.core.document import parse_html
>>> body = b'<h1>Kettle</h1><p class="price">49,90 EUR</p><button>Add to cart</button>'
>>> said = readings(parse_html(body, "https://shop.example/k"))
>>> doc = parse_html(body, "https://shop.example/k")
>>> adopt(doc, said), page_evidence(doc).price, page_evidence(doc).price_element.tag
(True, '49,90 EUR', 'p')
>>> visible_availability(doc)
Availability(sold_out=None, buy_control='Add to cart')
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from structcrawl.core.document import Document, LazyDocument
from structcrawl.visible.evidence import EVIDENCE_MEMO, Evidence, page_evidence
from structcrawl.visible.facts import FACT_NAMES, FACTS_MEMO, read_facts
from structcrawl.visible.grid import GRID_MEMO, UNREAD_CARDS, GridProduct, grid_products
from structcrawl.visible.heading import (
    HEADING_MEMO,
    PAGE_HEADING_MEMO,
    heading_element,
    page_heading,
)
from structcrawl.visible.oldprices import (
    OLD_AMOUNTS_MEMO,
    OLD_BESIDE_PRICE_MEMO,
    OLD_PRICES_MEMO,
    old_beside_price,
    old_prices,
)
from structcrawl.visible.prices import TEXT_PRICES_MEMO, text_prices
from structcrawl.visible.stock import AVAILABILITY_MEMO, Availability, visible_availability
from structcrawl.visible.tree import element_at, element_path

__all__ = ["adopt", "readings"]

#: the Evidence fields that hold elements, said by their places
_ELEMENTS = ("price_element", "cards")


def readings(document: Document, *, product: bool = True, grid: bool = True) -> dict[str, Any]:
    """The visible readings of ``document``, made in the crawl's order (the record checks',
    then the resolution's), as JSON-ready data (see the module doc): the main heading, the
    product evidence and the facts always; the stock reading, the facts' prices and the old
    prices with ``product`` (what the checks of a product's or an offer's record and the
    resolution of its product read); the grid's products with ``grid``. A reading left out is
    made by the crawl when asked for."""
    availability = visible_availability(document) if product else None
    facts = read_facts(document, [n for n in FACT_NAMES if product or n != "prices"])
    old = old_prices(document) if product else []
    heading = heading_element(document)
    ev = page_evidence(document)
    found = grid_products(document, ev.cards, own_price=ev.price is not None) if grid else None
    root = document.root
    paths = {
        el: element_path(root, el)
        for el in (heading, ev.price_element, *ev.cards, *(e for _, e in old))
        if el is not None
    }
    evidence = {f.name: getattr(ev, f.name) for f in dataclasses.fields(ev)}
    evidence["price_element"] = paths.get(ev.price_element)
    evidence["cards"] = sorted(paths[card] for card in ev.cards)
    return {
        "elements": document.index().size,
        "availability": (
            [availability.sold_out, availability.buy_control] if availability else None
        ),
        "facts": facts,
        "old_prices": [[str(value), paths[el]] for value, el in old] if product else None,
        "beside_price": (
            [str(v) for v in sorted(old_beside_price(document, ev.price_element))]
            if product
            else None
        ),
        "heading": paths.get(heading),
        "page_heading": page_heading(document),
        # where no price container shows a price: the prices of the body's text instead
        "text_prices": text_prices(document) if product and not facts.get("prices") else None,
        "evidence": evidence,
        "grid": [dataclasses.asdict(p) for p in found] if found is not None else None,
    }


def adopt(document: Document, said: dict[str, Any]) -> bool:
    """Put the :func:`readings` of another parse of the same page on ``document``'s memo;
    False (nothing put) where the two trees differ in size. A page not parsed here (a
    :class:`~structcrawl.core.document.LazyDocument`) gets them without their elements
    (:func:`_adopt_unparsed`)."""
    if isinstance(document, LazyDocument) and not document.parsed:
        _adopt_unparsed(document, said)
        return True
    if said.get("elements") != document.index().size:
        return False
    evidence = dict(said["evidence"])
    old = said["old_prices"]
    paths = [
        *(path for _, path in old or ()),
        *evidence["cards"],
        *(p for p in (said["heading"], evidence["price_element"]) if p is not None),
    ]
    at = {tuple(path): element_at(document.root, path) for path in paths}
    if None in at.values():  # a place the tree does not have: another tree after all
        return False

    def element(path: list[int] | None) -> Any:
        return None if path is None else at[tuple(path)]

    cards = frozenset(element(path) for path in evidence["cards"])
    ev = Evidence(**{k: v for k, v in evidence.items() if k not in _ELEMENTS})
    ev.price_element, ev.cards = element(evidence["price_element"]), cards
    made: list[tuple[str, Any]] = [
        (FACTS_MEMO, said["facts"]),
        (HEADING_MEMO, (element(said["heading"]),)),
        (EVIDENCE_MEMO, ev),
    ]
    if said["availability"] is not None:
        made.append((AVAILABILITY_MEMO, Availability(*said["availability"])))
    if old is not None:
        made.append((OLD_PRICES_MEMO, [(Decimal(value), element(path)) for value, path in old]))
    _put(document, made, said, ev)
    return True


def _adopt_unparsed(document: Document, said: dict[str, Any]) -> None:
    """The readings on a page whose tree was not parsed here, which therefore has none of
    their elements: the evidence without its price element and cards, whose readers find
    what they read of them on the memo (the old prices beside the price, the grid's products
    for :data:`~structcrawl.visible.grid.UNREAD_CARDS`, where it was read: else they are
    read on a parse), the old prices' amounts without theirs; the main heading's element is
    left to be found (a parse) if asked for."""
    evidence = said["evidence"]
    ev = Evidence(**{k: v for k, v in evidence.items() if k not in _ELEMENTS})
    made: list[tuple[str, Any]] = [(FACTS_MEMO, said["facts"]), (EVIDENCE_MEMO, ev)]
    if said["availability"] is not None:
        made.append((AVAILABILITY_MEMO, Availability(*said["availability"])))
    if said["old_prices"] is not None:
        amounts = frozenset(Decimal(value) for value, _ in said["old_prices"])
        made.append((OLD_AMOUNTS_MEMO, amounts))
    ev.cards = UNREAD_CARDS
    _put(document, made, said, ev)


def _put(
    document: Document,
    made: list[tuple[str, Any]],
    said: dict[str, Any],
    ev: Evidence,
) -> None:
    """The readings both kinds of adoption put alike, then ``made``, on the memo."""
    if "page_heading" in said:
        made.append((PAGE_HEADING_MEMO, said["page_heading"]))
    if said.get("text_prices") is not None:
        made.append((TEXT_PRICES_MEMO, said["text_prices"]))
    if said.get("beside_price") is not None:
        made.append((OLD_BESIDE_PRICE_MEMO, frozenset(map(Decimal, said["beside_price"]))))
    if said["grid"] is not None:
        grid = tuple(GridProduct(**product) for product in said["grid"])
        made.append((GRID_MEMO, (ev.cards, ev.price is not None, grid)))
    memo = document.memo
    for key, reading in made:  # a reading already made here stays (it is the same)
        memo.setdefault(key, reading)
