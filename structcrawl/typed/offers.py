"""The default offer of a product and its price, currency and availability (pure).

The default offer is, in order: the offer whose ``url`` is the page's URL (a variant
selected by the URL); the offer whose price the page shows next to its heading; the first
offer in stock; the first offer. An ``AggregateOffer`` gives its ``price`` when it has one,
else the price the page shows among ``lowPrice``/``highPrice`` and its nested offers, else
``lowPrice``. A price missing on the offer is read from its ``priceSpecification`` (a list
price or strikethrough price is never the current price).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import structcrawl.typed._norm as _norm
from structcrawl.core.readers import (
    is_old_price_spec,
    node_type,
    nodes_of,
    props,
    ref,
    text,
    values,
)

__all__ = ["OfferReading", "default_offer", "offer_nodes"]


@dataclass(frozen=True, slots=True)
class OfferReading:
    price: str | None
    price_raw: Any
    price_path: str
    currency: str | None
    currency_raw: str | None
    availability: str | None
    availability_raw: Any
    url: str | None
    sku: str | None
    index: int


def offer_nodes(product: dict[str, Any]) -> list[dict[str, Any]]:
    """The product's offers (an AggregateOffer's nested offers follow it)."""
    out: list[dict[str, Any]] = []
    for offer in nodes_of(product.get("offers")):
        out.append(offer)
        if "AggregateOffer" in {t.rsplit("/", 1)[-1] for t in node_type(offer)}:
            out.extend(nodes_of(props(offer).get("offers")))
    return out


def _spec_price(offer: dict[str, Any]) -> tuple[Any, str | None]:
    for spec in nodes_of(offer.get("priceSpecification")):
        sp = props(spec)
        if is_old_price_spec(spec) or not sp.get("price"):
            continue
        return sp.get("price"), text(sp.get("priceCurrency"))
    return None, None


def _prices(offer: dict[str, Any], shown: str | None) -> list[tuple[Any, str]]:
    """``(raw price, property)`` candidates of one offer, best first."""
    out: list[tuple[Any, str]] = []
    if offer.get("price") not in (None, ""):
        out.append((values(offer["price"])[0], "price"))
    spec, _ = _spec_price(offer)
    if spec is not None:
        out.append((spec, "priceSpecification.price"))
    for prop in ("lowPrice", "highPrice"):
        if offer.get(prop) not in (None, ""):
            out.append((values(offer[prop])[0], prop))
    if shown is not None:
        out.sort(key=lambda pv: 0 if _norm.price(pv[0])[0] == shown else 1)
    elif len(out) > 1 and out[0][1] == "highPrice":
        out.reverse()
    return out


def _read(offer_node: dict[str, Any], index: int, shown: str | None, base: str) -> OfferReading:
    offer = props(offer_node)
    cur_raw = text(offer.get("priceCurrency")) or _spec_price(offer)[1]
    code = _norm.currency(cur_raw)
    # as written ("$"), where normalization read it by the one currency policy ("USD")
    cur_raw = text(offer.get("currencyRaw")) or cur_raw
    price, raw, path = None, None, ""
    tried = _prices(offer, shown)
    for value, prop in tried:
        amount, found, sign = _norm.price(value, code)
        if amount is not None:
            price, raw, path = amount, value, prop
            if code is None and found:
                code, cur_raw = found, sign
            break
    else:
        if tried:  # none reads as a price: the first as written, reported as unreadable
            raw, path = tried[0]
    avail_raw = offer.get("availability")
    return OfferReading(
        price,
        raw,
        path,
        code,
        cur_raw,
        _norm.availability(avail_raw),
        avail_raw,
        ref(offer.get("url")),
        text(offer.get("sku")),
        index,
    )


def default_offer(
    product: dict[str, Any], page_url: str | None = None, shown: str | None = None
) -> tuple[OfferReading | None, list[OfferReading]]:
    """The default offer's reading and every offer's reading (see the module doc)."""
    readings = [_read(o, i, shown, page_url or "") for i, o in enumerate(offer_nodes(product))]
    if not readings:
        return None, []
    for r in readings:
        if page_url and r.url and r.url == page_url:
            return r, readings
    if shown is not None:
        for r in readings:
            if r.price == shown:
                return r, readings
    for r in readings:
        if r.price is not None and r.availability in (
            None,
            "InStock",
            "LimitedAvailability",
            "OnlineOnly",
            "InStoreOnly",
        ):
            return r, readings
    priced = [r for r in readings if r.price is not None]
    return (priced or readings)[0], readings
