"""What the page shows, as fallback candidates for its product, and whether a page without a
structured product is a product page (pure).

The visible price nearest the main heading, the availability its wording or buy button
implies, labelled SKU and EAN (:mod:`~structcrawl.visible.evidence`) become ``visible-page``
candidates; :func:`product_fallbacks` gathers every generic fallback of a page
(:mod:`~structcrawl.typed.fallbacks` and these), best first.
"""

from __future__ import annotations

import re
from typing import Any

import structcrawl.typed._norm as _norm
from structcrawl.core.currency import sign_fits
from structcrawl.core.document import Document
from structcrawl.core.readers import props, record_dicts, text
from structcrawl.entities.kinds import ITEM_TYPES
from structcrawl.typed.fallbacks import (
    data_block_candidates,
    fallback,
    itemprop_candidates,
    meta_candidates,
    shape,
)
from structcrawl.typed.fields import Candidate
from structcrawl.typed.urlid import url_id_candidates
from structcrawl.visible.evidence import Evidence
from structcrawl.visible.grid import GridProduct
from structcrawl.visible.oldprices import old_amounts, old_beside_price
from structcrawl.visible.prices import amount, sign_currency
from structcrawl.visible.stock import BUYABLE, visible_availability

__all__ = [
    "PRODUCT_BESIDE",
    "grid_candidates",
    "is_product_page",
    "may_read_visible",
    "price_overrule",
    "needs_visible",
    "product_records",
    "product_fallbacks",
    "stock_overrule",
    "url_id_fallbacks",
    "visible_candidates",
    "visible_price",
]

_AMOUNT = re.compile(r"\d(?:[\d.,' \u00a0]*\d)?")


def visible_candidates(ev: Evidence) -> list[Candidate]:
    out: list[Candidate] = []
    if ev.price:
        amount, cur, sign = _visible_amount(ev)
        out.append(
            fallback(
                "price",
                amount,
                "visible-page",
                ev.price_path,
                ev.price,
                "price nearest the main heading",
            )
        )
        if cur:
            out.append(
                fallback(
                    "currency",
                    cur,
                    "visible-page",
                    ev.price_path,
                    sign,
                    "currency sign of that price",
                )
            )
            out.append(
                fallback(
                    "currencyRaw",
                    sign,
                    "visible-page",
                    ev.price_path,
                    sign,
                    "currency sign of that price",
                )
            )
    if ev.availability:
        out.append(
            fallback(
                "availability",
                ev.availability,
                "visible-page",
                "",
                ev.availability_text,
                f"page text: {ev.availability_text!r}",
            )
        )
    elif ev.price:  # a price on show and nothing saying it cannot be bought: on sale
        out.append(
            fallback(
                "availability",
                "InStock",
                "visible-page",
                ev.price_path,
                None,
                f"price shown ({ev.price!r}), no stock wording, no disabled buy control",
            )
        )
    if ev.sku:
        out.append(
            fallback("sku", ev.sku, "visible-page", "", ev.sku_text, f"labelled: {ev.sku_text!r}")
        )
    if ev.gtin:
        out.append(
            fallback(
                "gtin",
                shape("gtin", ev.gtin),
                "visible-page",
                "",
                ev.gtin_text,
                f"labelled: {ev.gtin_text!r}",
            )
        )
    if ev.heading:
        out.append(
            fallback("name", ev.heading, "visible-page", "//h1", ev.heading, "the main heading")
        )
    return out


def _visible_amount(
    ev: Evidence, price: str | None = None
) -> tuple[str | None, str | None, str | None]:
    """The visible price (``price``, else the one nearest the heading) read; an ambiguous sign
    (``$``, ``kr``, ``¥``) is read from what the page says about its language and region (the
    one currency policy, :func:`structcrawl.core.currency.sign_currency`, as for records),
    else the amount is kept without a currency."""
    shown = price or ev.price
    if not shown:
        return None, None, None
    amount, cur, sign = _norm.price(shown, language=ev.language, region=ev.region, host=ev.host)
    if amount is not None:
        return amount, _or_declared(cur, sign, ev), sign
    number = _AMOUNT.search(shown)
    if number is None:
        return None, None, None
    sign = (shown[: number.start()] + shown[number.end() :]).strip() or None
    code = _or_declared(sign_currency(sign or "", ev.language, ev.region, ev.host), sign, ev)
    digits = number.group(0).strip(" .,'\u00a0")
    return _norm.price(digits, code, ev.language)[0], code, sign


def grid_candidates(card: GridProduct, ev: Evidence) -> list[Candidate]:
    """What one card of the page's grid of products shows of its product
    (:func:`structcrawl.visible.grid.grid_products`), as ``visible-page:card`` candidates."""
    rule, out = "visible-page:card", []
    if card.name:
        out.append(fallback("name", card.name, rule, card.path, card.name, "the card's name"))
    out.append(fallback("url", card.url, rule, card.path, card.url, "the card's link"))
    amount, cur, sign = _visible_amount(ev, card.price)
    if amount is not None:
        out.append(fallback("price", amount, rule, card.price_path, card.price, "card price"))
    if amount is not None and cur:
        out.append(fallback("currency", cur, rule, card.price_path, sign, "its currency sign"))
        out.append(fallback("currencyRaw", sign, rule, card.price_path, sign, "its sign"))
    if card.availability:
        said, why = card.availability_text, f"card text: {card.availability_text!r}"
        out.append(fallback("availability", card.availability, rule, card.path, said, why))
    return out


def _or_declared(code: str | None, sign: str | None, ev: Evidence) -> str | None:
    """``code``, else the currency the page's own checkout form declares where the ambiguous
    ``sign`` may stand for it (:func:`structcrawl.visible.prices.declared_currency`)."""
    if code is None and sign and ev.declared and sign_fits(sign, ev.declared):
        return ev.declared
    return code


def visible_price(ev: Evidence) -> str | None:
    """The normalized price nearest the main heading (``None`` without one)."""
    return _visible_amount(ev)[0]


def product_fallbacks(
    records: list[dict[str, Any]],
    doc: Document | None,
    ev: Evidence,
    shown: list[str],
    visible: bool = True,
) -> list[Candidate]:
    """Every generic fallback of the page's product but its URL id (:func:`url_id_fallbacks`
    adds it where a product is built); ``visible``: the visible page's own
    (:func:`visible_candidates`) among them."""
    out = meta_candidates(records) + data_block_candidates(records, shown, ev.heading)
    if doc is not None:
        seen = visible_candidates(ev) if visible else []
        out += itemprop_candidates(doc) + seen
    return out


def url_id_fallbacks(fallbacks: list[Candidate], doc: Document | None) -> list[Candidate]:
    """:func:`product_fallbacks` and, the last of them, the page's URL id
    (:func:`structcrawl.typed.urlid.url_id_candidates`): its search reads every text and
    attribute of the page (~2 ms a large page), so it is made only for a product built, not
    for every page resolved."""
    return [*fallbacks, *url_id_candidates(doc)] if doc is not None else fallbacks


#: the item kinds beside which (or without any) the visible page may make the page's product
PRODUCT_BESIDE = frozenset({"Organization", "BreadcrumbList", "ItemList"})


def is_product_page(
    records: list[dict[str, Any]], fb: list[Candidate], ev: Evidence, other_primary: str | None
) -> bool:
    og_product = any(
        text(props(r).get("og:type")) in ("product", "og:product", "product.item")
        for r in records
        if r.get("format") == "opengraph"
    )
    strong = any(
        c.value
        and c.field in ("price", "sku")
        and c.rule.split(":")[0] in ("meta-tags", "itemprop-loose", "data-block-product")
        for c in fb
    )
    # a heading with two of: a price, stock wording or a buy control, a labelled article code
    signals = sum(x is not None for x in (ev.price, ev.availability, ev.sku or ev.gtin))
    visible = ev.heading is not None and signals >= 2
    beside = other_primary is None or other_primary in PRODUCT_BESIDE
    return og_product or strong or (visible and beside)


def stock_overrule(document: Document | None) -> list[Candidate]:
    """What the page says of its stock over a markup that says the product is on sale: its
    own "Sold out" with no button to buy (``OutOfStock``), or a button to pre-order
    (``PreOrder``). The wording wins and the markup's value stays a conflict; it is the
    reading the record check uses (:func:`structcrawl.visible.stock.visible_availability`)."""
    if document is None:
        return []
    stock = visible_availability(document)
    if stock.sold_out and not stock.buy_control:
        value, said, why = "OutOfStock", stock.sold_out, "and no button to buy"
    elif stock.preorder:
        value, said, why = "PreOrder", stock.buy_control or "", "as its way to buy"
    else:
        return []
    return [
        Candidate(
            "availability",
            value,
            "visible-page",
            "",
            said,
            f"visible-page:{'sold-out' if value == 'OutOfStock' else 'preorder'}",
            fallback=True,
            evidence=f"the page shows {said!r} {why}",
            overrules=BUYABLE,
        )
    ]


def price_overrule(document: Document | None, ev: Evidence) -> list[Candidate]:
    """The current price the page shows over a markup price it shows beside it as the old
    one (``49,99 €`` beside ``Statt: <del>59,99 €</del>``, the markup saying 59.99: the sale
    is not in the markup). The candidate overrules the amounts struck through or named old
    in the current price's own price box
    (:func:`structcrawl.visible.oldprices.old_amounts_near`); the markup's value stays a
    conflict."""
    if document is None or not ev.price:
        return []
    current = visible_price(ev)
    now = amount(current) if current is not None else None
    if now is None:
        return []
    stale = {a for a in old_beside_price(document, ev.price_element) if a > now}
    if not stale:
        return []
    return [
        Candidate(
            "price",
            current,
            "visible-page",
            ev.price_path,
            ev.price,
            "visible-page:current-price",
            fallback=True,
            evidence=f"the page shows {ev.price!r} as its price, the markup's amount struck"
            " through beside it",
            overrules=frozenset(str(a) for a in stale),
        )
    ]


#: Primary item types that leave room for a product the page shows without markup.
_WEAK_PRIMARY = frozenset({"Organization", "BreadcrumbList", "ItemList", "Person"})
_PRODUCT_FIELDS = ("price", "currency", "availability", "sku")


def needs_visible(items: list[dict[str, Any]], document: Document) -> bool:
    """Whether the visible page could change the items: the primary product lacks a price, a
    currency, availability or SKU, its layers disagree on the price, it has variants (the
    shown price picks the variant) or its price is one the page shows as an old price, or no
    primary item (a weak one, or one no layer made) leaves a shown product unfound. A listing
    takes no visible fallbacks."""
    if any(i.get("role") == "listed" for i in items):
        return False
    primary = next((i for i in items if i.get("role") == "primary"), None)
    if primary is None or primary.get("type") in _WEAK_PRIMARY:
        return True
    if primary.get("type") != "Product":  # unless no layer made it (a signed page's Article)
        return not primary.get("sources")
    conflicts = primary.get("conflicts") or {}
    return (
        any(primary.get(f) is None for f in _PRODUCT_FIELDS)
        or "price" in conflicts
        or bool(primary.get("variants"))
        or amount(primary.get("price")) in old_amounts(document)
    )


#: record types an item of which leaves no room for a product (:data:`ITEM_TYPES`)
_OTHER_KINDS = frozenset().union(
    *(ITEM_TYPES[kind] for kind in ("Article", "Event", "Recipe", "JobPosting", "LocalBusiness"))
)
#: record types (and Open Graph types) of a product or its offers
_PRODUCT_KINDS = frozenset({*ITEM_TYPES["Product"], "Offer", "AggregateOffer", "product"})
#: properties that give a record a price or stock (schema.org, Open Graph, microformats)
_PRICED = frozenset(
    {"price", "lowPrice", "offers", "availability", "og:price:amount", "product:price:amount"}
)


def may_read_visible(records: list[dict[str, Any]]) -> bool:
    """Whether checking and resolving the page may read its visible page, told from its
    records before they are checked: not where they make an item of another kind than a
    product (an article, an event, a recipe, a job, a place) and none is a product or offer or
    has a price or stock (the checks compare prices and stock with the page; the resolution
    reads it for a product it lacks or that its markup leaves short, :func:`needs_visible`).
    A page this passes over that reads it all the same reads it when resolved; this only lets
    a crawl read it beforehand, beside its event loop.

    >>> article = {"type": ["NewsArticle"], "properties": {"headline": "Pier"}}
    >>> offer = {"type": ["Offer"], "properties": {"price": "9.90"}}
    >>> may_read_visible([article]), may_read_visible([article, offer]), may_read_visible([])
    (False, True, True)
    >>> may_read_visible([{"format": "opengraph", "properties": {"og:type": "article"}}])
    True
    """
    product, other = _record_kinds(records)
    return product or not other


def product_records(records: list[dict[str, Any]]) -> bool:
    """Whether a record (or a record it holds) is a product or an offer or has a price or
    stock: where the checks read the page's availability, its prices and its old prices (a
    product's or an offer's, :mod:`structcrawl.validate.page`) and the resolution its stock
    and old prices over the markup's (:func:`stock_overrule`, :func:`price_overrule`); without
    one, the resolution may read the page's grid of products instead (a category page). Told
    from the records before they are checked, as :func:`may_read_visible`.

    >>> offer = {"type": ["Offer"], "properties": {"price": "9.90"}}
    >>> product_records([{"type": ["WebPage"]}]), product_records([{"type": ["Thing"]}, offer])
    (False, True)
    """
    return _record_kinds(records)[0]


def _record_kinds(records: list[dict[str, Any]]) -> tuple[bool, bool]:
    """``(product, other)``: whether a record is a product or offer or has a price or stock
    (then ``other`` is not looked for), and whether one is of a kind that leaves no room for a
    product (:data:`_OTHER_KINDS`; not Open Graph's ``article``: the article it makes has no
    layer's item behind it, and the resolution reads the visible page for it,
    :func:`needs_visible`)."""
    other = False
    for value in record_dicts(records):
        types = value.get("type")
        kinds = set(types) if isinstance(types, list) else set()
        properties = value.get("properties")
        if isinstance(properties, dict):
            og = text(properties.get("og:type")) if value.get("format") == "opengraph" else None
            kinds.update(og.split(".")[:1] if og else ())
            if _PRICED.intersection(properties):
                return True, other
        if _PRODUCT_KINDS.intersection(kinds):
            return True, other
        other = other or bool(_OTHER_KINDS.intersection(kinds))
    return False, other
