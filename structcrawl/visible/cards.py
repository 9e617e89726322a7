"""Product cards: the boxes of a grid or carousel, each showing another product (pure).

A category page lists its products in alike boxes (``<div class="product-box">`` five
times, each with a name linking to the product's page, a price and often an "Add to cart"
button), and a product page shows its related, recommended or recently viewed products the
same way. A price, a stock word or a buy button inside such a box is that other product's,
never the one the page is about, whatever class names the theme gives the box.

:func:`cards` finds them from where the page's prices are: an ancestor of a price element
whose parent does not hold the main heading is a card when at least :data:`MIN_CARDS` of its
siblings alike it (the same tag, the same first class word) each hold a price too and each
link to a page of their own (distinct link targets). A colour swatch or a quantity tier
shows a price without a link to another page, and the heading's own block is never a card.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'''<h1>Teas</h1><ul>
... <li class="card"><a href="/a">A</a><span>9,90 EUR</span></li>
... <li class="card"><a href="/b">B</a><span>12,49 EUR</span></li>
... <li class="card"><a href="/c">C</a><span>8,50 EUR</span></li></ul>''', "https://s.example/")
>>> spans, h1 = doc.root.findall(".//span"), doc.root.find(".//h1")
>>> found = cards(spans, frozenset([h1, *h1.iterancestors()]))
>>> sorted(el.find("a").text for el in found)
['A', 'B', 'C']
>>> in_card(spans[0], found)
True
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from itertools import islice

from lxml import etree

__all__ = ["MIN_CARDS", "cards", "in_card", "link_target"]

#: alike boxes, each with a price and a link of its own, that make a grid of cards
MIN_CARDS = 3
#: how many ancestors of a price are looked at for its card (a card's price sits a few
#: levels below the card's box; a page's layout above it)
_DEPTH = 10
#: the most elements a card holds (its image, name, prices, badges, button)
_MOST_ELEMENTS = 300
#: how much larger than the smallest card of a grid its largest may be
_SIZE_RATIO = 3


def _kind(el: etree._Element) -> tuple[str, str]:
    """What makes boxes alike: their tag and first class word (``product type-product
    post-12 instock`` and ``product type-product post-13 outofstock`` are alike)."""
    words = (el.get("class") or "").split()
    return str(el.tag), words[0] if words else ""


def link_target(href: str | None) -> str:
    """A link's target page ("" for none: an anchor on this page or a script)."""
    if not href:
        return ""
    href = href.strip().partition("#")[0]
    return "" if href.lower().startswith(("javascript:", "mailto:", "tel:")) else href


def _alike_in_size(boxes: Iterable[etree._Element]) -> bool:
    """Whether the boxes are cards by their size: each of at most :data:`_MOST_ELEMENTS`
    elements, the largest at most :data:`_SIZE_RATIO` times the smallest (a grid's cards are
    near copies of one another; a page's sections, which may share a class word such as
    ``widget``, are not)."""
    sizes = [sum(1 for _ in islice(box.iter(), _MOST_ELEMENTS + 1)) for box in boxes]
    return max(sizes) <= _MOST_ELEMENTS and max(sizes) <= _SIZE_RATIO * min(sizes)


def _links_apart(boxes: Iterable[etree._Element]) -> bool:
    """Whether each box links to a page of its own (the first link target of each box, at
    least :data:`MIN_CARDS` of them distinct)."""
    targets = set()
    for box in boxes:
        first = next((t for a in box.iter("a") if (t := link_target(a.get("href")))), "")
        if not first:
            return False
        targets.add(first)
    return len(targets) >= MIN_CARDS


def cards(
    prices: Iterable[etree._Element], around: frozenset[etree._Element]
) -> frozenset[etree._Element]:
    """The product cards among the ancestors of the price elements ``prices`` (see the
    module doc); ``around``: the main heading and its ancestors (no box under one of them is
    a card: the boxes beside the heading's own are the page's sections)."""
    boxes: defaultdict[tuple[etree._Element, str, str], set[etree._Element]] = defaultdict(set)
    for el in prices:
        node = el
        for _ in range(_DEPTH):
            parent = node.getparent()
            if parent is None or parent in around:
                break  # the heading's block and its siblings are the page, not a grid
            boxes[(parent, *_kind(node))].add(node)
            node = parent
    found: set[etree._Element] = set()
    for alike in boxes.values():
        if len(alike) >= MIN_CARDS and _alike_in_size(alike) and _links_apart(alike):
            found |= alike
    return frozenset(found)


def in_card(el: etree._Element, found: frozenset[etree._Element]) -> bool:
    """Whether ``el`` is or sits in one of the cards ``found``."""
    if not found:
        return False
    return el in found or any(a in found for a in el.iterancestors())
