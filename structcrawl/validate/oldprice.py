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

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import join_path
from structcrawl.visible.evidence import page_evidence
from structcrawl.visible.oldprices import old_amounts, old_amounts_near
from structcrawl.visible.prices import amount

__all__ = ["check_old_price"]

#: price specifications that state an old or list price on purpose (shown struck through)
_OLD_TYPES = frozenset({"ListPrice", "StrikethroughPrice", "MSRP", "SRP", "InvoicePrice"})


def _listed(value: Any) -> list[tuple[int | None, Any]]:
    if isinstance(value, list):
        return list(enumerate(value))
    return [] if value is None else [(None, value)]


def _at(path: str, index: int | None) -> str:
    return path if index is None else join_path(path, index)


def _offer_prices(offer: dict[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """``(path, raw)`` of an offer's current price: its ``price`` and the prices of its price
    specifications that are no list or strikethrough price."""
    props = offer.get("properties") or {}
    for i, value in _listed(props.get("price")):
        yield _at(join_path(path, "price"), i), value
    for i, spec in _listed(props.get("priceSpecification")):
        if not isinstance(spec, dict):
            continue
        spec_props = spec.get("properties") or {}
        kind = spec_props.get("priceType")
        if isinstance(kind, str) and short_schema_name(kind.strip()) in _OLD_TYPES:
            continue
        where = _at(join_path(path, "priceSpecification"), i)
        for j, value in _listed(spec_props.get("price")):
            yield _at(join_path(where, "price"), j), value


def _prices(record: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    types = {short_schema_name(t) for t in record.get("type") or [] if isinstance(t, str)}
    if types & {"Offer"}:
        yield from _offer_prices(record, "")
    for i, offer in _listed((record.get("properties") or {}).get("offers")):
        if isinstance(offer, dict) and isinstance(offer.get("properties"), dict):
            yield from _offer_prices(offer, _at("offers", i))


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
    if now is None or ev.price_element is None:
        return []
    beside = old_amounts_near(document, ev.price_element)
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
