"""Which of the prices a product page shows is its product's (pure): the one nearest the main
heading within the smallest block around the heading that holds one; a price in a
description's running text yields to the buy box's; never another product's (a product
card's) nor a bound of a filter form.
"""

from __future__ import annotations

from lxml import etree

from structcrawl.visible.cards import in_card
from structcrawl.visible.walk import Piece

__all__ = ["in_filter_form", "main_price"]


def main_price(
    found_prices: list[tuple[int, str, Piece]],
    heading: etree._Element | None,
    boxes: frozenset[etree._Element],
    control: etree._Element | None = None,
) -> tuple[str | None, Piece | None]:
    """The price nearest the heading within the smallest block around the heading that holds
    one (a sidebar offer before the product block does not compete), never inside the product
    cards ``boxes`` (another product's). A price in running text (a description's paragraph)
    yields to the one nearest the heading in the buy box: the smallest block around the buy
    ``control`` that holds a price, where that block is apart from the heading's."""
    found_prices = [
        c for c in found_prices if not in_card(c[2].el, boxes) and not in_filter_form(c[2].el)
    ]
    if not found_prices:
        return None, None
    lineage = [(c, {c[2].el, *c[2].el.iterancestors()}) for c in found_prices]
    best = _nearest(lineage, list(heading.iterancestors()) if heading is not None else [])
    if control is not None and _in_prose(best[2].el):
        around = {heading, *heading.iterancestors()} if heading is not None else set()
        blocks = []
        for block in control.iterancestors():
            if block in around:
                break  # the heading's block: read around the heading
            blocks.append(block)
        best = _nearest(lineage, blocks, best)
    return best[1], best[2]


_Priced = tuple[int, str, Piece]


def in_filter_form(el: etree._Element) -> bool:
    """Whether ``el`` is inside a form that is sent with GET (a search or a listing's filters:
    "The highest price is $95.00" bounds a filter; a cart's form is sent with POST)."""
    form = next(el.iterancestors("form"), None)
    return form is not None and (form.get("method") or "get").strip().lower() == "get"


def _nearest(
    lineage: list[tuple[_Priced, set[etree._Element]]],
    blocks: list[etree._Element],
    otherwise: _Priced | None = None,
) -> _Priced:
    """The price nearest the heading inside the first of ``blocks`` that holds one; where none
    does, ``otherwise`` (or the nearest of all)."""
    for block in blocks:
        inside = [c for c, line in lineage if block in line]
        if inside:
            return min(inside, key=lambda c: c[0])
    return otherwise or min((c for c, _ in lineage), key=lambda c: c[0])


#: a paragraph with more text than this is running text (a description), not a price's box
_PROSE = 200


def _in_prose(el: etree._Element) -> bool:
    """Whether ``el`` is (inside) a paragraph of running text."""
    for node in (el, *list(el.iterancestors())[:4]):
        if node.tag == "p":
            size = 0
            for text in node.itertext():
                size += len(text.strip())
                if size > _PROSE:
                    return True
            return False
    return False
