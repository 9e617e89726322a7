"""The amounts a page shows as old prices: struck through or named so (pure).

A shop on sale writes the price it no longer asks struck through (``del``, ``s``,
``strike``) or in an element whose class names it old (``old-price``, ``was``,
``compare-at``, ``price--crossed``, ``uvp``, ``rrp``, ``msrp``, ``list-price``,
``original``). Structured markup that says the product costs one of these amounts, on a
page that shows a current price beside it, is stale (the sale is not in the markup): the
typed items read the current price instead and keep the markup's as a conflict
(:func:`structcrawl.typed.shown.price_overrule`). Read from the element index and the
``del``/``s``/``strike`` elements, not by a walk of the page; kept on the document's memo.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<h1>Drill</h1><b>49,99 \\xe2\\x82\\xac</b> <small>Statt: '
...     b'<del>59,99 \\xe2\\x82\\xac</del></small><span class="old-price" hidden>$5</span>',
...     "https://shop.example/drill", content_type="text/html; charset=utf-8")
>>> sorted(old_amounts(doc))
[Decimal('59.99')]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from decimal import Decimal
from itertools import accumulate

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.visible.prices import amount, price_texts
from structcrawl.visible.tree import rendered
from structcrawl.visible.words import STRUCK

__all__ = [
    "OLD_AMOUNTS_MEMO",
    "OLD_BESIDE_PRICE_MEMO",
    "OLD_PRICES_MEMO",
    "old_amounts",
    "old_amounts_near",
    "old_beside_price",
    "old_prices",
]

#: where a document keeps its old prices once read (here or by a worker process)
OLD_PRICES_MEMO = "old-prices"
#: where a page read in another process keeps their amounts (its elements are not at hand)
OLD_AMOUNTS_MEMO = "old-amounts"
#: where a document keeps the old prices shown beside its price (:func:`old_beside_price`)
OLD_BESIDE_PRICE_MEMO = "old-beside-price"

#: class words of an element holding the old price of a sale (narrower than the words
#: the evidence skips: a shipping or related-product price is no old price of this one; a
#: modifier such as ``with-list-price`` marks the current price shown beside an old one)
_WAS = re.compile(
    r"(?:^|(?<!with)(?<!has)[-_ ])"
    r"(?:old|was|compare|compare-?at|strike|strikethrough|crossed|uvp|rrp|msrp"
    r"|list-?price|price-?list|original|before|instead-?of|statt)(?:$|[-_ ])",
    re.I,
)
_LONGEST = 80  # characters: an old price is a short text, not a block that holds one
_NEAR = 4  # levels up from the current price (its amount may sit three deep): its price box


def _shown(el: etree._Element) -> bool:
    return all(rendered(node) for node in (el, *el.iterancestors()))


#: substrings one of which every :data:`_WAS` match holds, casefolded (the dotless i folded
#: too, as :func:`structcrawl.visible.tree.struck`'s hint does: ``re.I`` matches it with ``i``)
_NEEDLES = (
    "old", "was", "compar", "strike", "crossed", "uvp", "rrp", "msrp", "list", "original",
    "before", "instead", "statt",
)  # fmt: skip


def _named_old(
    elements: list[etree._Element], name: str, texts: list[str] | None = None
) -> list[etree._Element]:
    """The elements whose attribute ``name`` names an old price: the values joined and
    searched for :data:`_NEEDLES` at C speed, only the values a hit points at tested with
    :data:`_WAS` (one regular expression per element costs more than the rest of the
    page's reading). ``texts``: the elements' values of ``name``, when already read."""
    if texts is None:
        texts = [el.get(name) or "" for el in elements]
    # the values folded as one, where that keeps every length (folding never shortens a
    # character, so the same total length is the same offsets); else each on its own
    # ("ß" -> "ss"), as the offsets below are of the folded values
    joined = "\n".join(texts).casefold().replace("ı", "i")
    lengths = map(len, texts)
    if len(joined) != sum(map(len, texts)) + len(texts) - 1:
        folded = [text.casefold().replace("ı", "i") for text in texts]
        joined, lengths = "\n".join(folded), map(len, folded)
    starts = list(accumulate(map((1).__add__, lengths), initial=0))
    hits: set[int] = set()
    for needle in _NEEDLES:
        pos = joined.find(needle)
        while pos >= 0:
            hits.add(bisect_right(starts, pos) - 1)
            pos = joined.find(needle, pos + 1)
    return [elements[i] for i in sorted(hits) if _WAS.search(texts[i])]


def _candidates(document: Document) -> list[etree._Element]:
    index = document.index()
    out = index.named(*STRUCK)
    return out + _named_old(index.having("class"), "class", index.values("class"))


def old_prices(document: Document) -> list[tuple[Decimal, etree._Element]]:
    """Every amount the page shows as an old price, with the element showing it (read once
    per document, kept on its memo)."""
    known = document.memo.get(OLD_PRICES_MEMO)
    if known is not None:
        return known  # type: ignore[no-any-return]
    found: list[tuple[Decimal, etree._Element]] = []
    for el in _candidates(document):
        text = " ".join("".join(el.itertext()).split())
        if not text or len(text) > _LONGEST or not _shown(el):
            continue
        for price in price_texts(text):
            value = amount(price)
            if value is not None and value > 0:
                found.append((value, el))
    document.memo[OLD_PRICES_MEMO] = found
    return found


def old_amounts(document: Document) -> frozenset[Decimal]:
    """Every amount the page shows as an old price (see the module doc)."""
    return document.memoized(OLD_AMOUNTS_MEMO, lambda doc: frozenset(v for v, _ in old_prices(doc)))


def old_beside_price(
    document: Document, price_element: etree._Element | None
) -> frozenset[Decimal]:
    """The old prices shown beside the page's current price, ``price_element`` (the visible
    page's, :attr:`structcrawl.visible.evidence.Evidence.price_element`; none beside no
    element): :func:`old_amounts_near`, read once per document, kept on its memo."""
    known = document.memo.get(OLD_BESIDE_PRICE_MEMO)
    if known is None:
        known = frozenset() if price_element is None else old_amounts_near(document, price_element)
        document.memo[OLD_BESIDE_PRICE_MEMO] = known
    return known  # type: ignore[no-any-return]


def old_amounts_near(
    document: Document, element: etree._Element, levels: int = _NEAR
) -> frozenset[Decimal]:
    """The old prices shown beside ``element`` (a current price): inside its ancestor
    ``levels`` up, the block that holds a sale's two prices, not the page's body."""
    block = element
    for _ in range(levels):
        parent = block.getparent()
        if parent is None or parent.tag in ("body", "html"):
            break
        block = parent
    return frozenset(
        value
        for value, el in old_prices(document)
        if el is not element and (el is block or block in el.iterancestors())
    )
