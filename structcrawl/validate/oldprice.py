"""The markup's price shown as the page's old price: a sale the markup does not know of.

A shop on sale shows its former price struck through or named old (``Statt: <del>59,99
€</del>`` beside ``49,99 €``: :mod:`structcrawl.visible.oldprices`). Markup that still says
59.99 matches a price the page shows, so ``price-vs-visible`` stays silent, yet it states the
price the product no longer costs: Google's merchant listings compare the markup's price with
the price a shopper pays. :func:`check_old_price` names it ``price-shown-as-old`` when an
offer's ``price`` is among the amounts the page shows as old in the price box of the page's
current price (:func:`structcrawl.visible.evidence.page_evidence`: the price nearest the main
heading) and the current price is lower. The typed item reads the current price and keeps the
markup's as a conflict (:func:`structcrawl.typed.shown.price_overrule`); this is the same
reading, told as a problem of the record.

The visible page is read only when one of the record's prices is among the page's old
amounts (read from the element index, kept on the document's memo).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.readers import is_old_price_spec
from structcrawl.core.records import short_schema_name
from structcrawl.validate.visible import offer_prices
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.oldprices import old_amounts, old_beside_price
from structcrawl.visible.prices import amount

__all__ = ["check_old_price"]


def _current(spec: dict[str, Any]) -> bool:
    """A price specification of a current price (no old, list or advertised one)."""
    return not is_old_price_spec(spec)


def _prices(record: dict[str, Any]) -> list[tuple[str, Any]]:
    """``(path, raw)`` of the current prices of a record's offers (its own when it is an
    Offer): each offer's ``price`` and those of its current price specifications."""
    types = {short_schema_name(t) for t in record.get("type") or [] if isinstance(t, str)}
    return offer_prices(record, "Offer" in types, ("price",), _current)


def check_old_price(record: dict[str, Any], document: Document) -> list[dict[str, Any]]:
    """``price-shown-as-old`` conflicts of one product or offer record (see the module doc)."""
    old = old_amounts(document)
    if not old:
        return []
    stale: list[tuple[str, Any, Decimal]] = []
    for path, raw in _prices(record):
        value = amount(raw)
        if value is not None and value in old:
            stale.append((path, raw, value))
    if not stale:
        return []
    ev = page_evidence(document)
    now = amount(ev.price) if ev.price else None
    if now is None:
        return []
    beside = old_beside_price(document, ev.price_element)
    return [
        {
            "field": path,
            "record_value": raw,
            "visible_value": ev.price,
            "visible_source": ev.price_path,
            "code": "price-shown-as-old",
            "message": (
                f"the markup says {raw}, which the page shows struck through as the old price "
                f"beside its current price {ev.price!r}"
            ),
        }
        for path, raw, value in stale
        if value in beside and value > now
    ]
