"""Product fields from one structured entity (a schema.org ``Product`` or subtype) (pure).

Field names and shapes follow zyte-common-items' ``Product``: ``price`` is a plain decimal
string of the default offer's current price, ``currency`` an ISO 4217 code beside
``currencyRaw``, ``availability`` a schema.org ItemAvailability member name, ``gtin`` a list of
``{"type": "gtin13", "value": ...}``, ``brand`` ``{"name": ...}``, ``images`` a list of
``{"url": ...}``, ``additionalProperties`` a list of ``{"name", "value"}``.

Variants: a ``ProductGroup`` (or a product with ``hasVariant``) gives one item for the
variant the page shows (the variant whose ``url`` is the page URL, else the one whose price
the page shows, else the first in stock, else the first), named and described by the group,
with every variant listed under ``variants``.
"""

from __future__ import annotations

from typing import Any

import structcrawl.typed._norm as _norm
from structcrawl.core.readers import nodes_of, props, ref, text, values
from structcrawl.entities.kinds import PRODUCT_TYPES
from structcrawl.typed.fields import Candidate
from structcrawl.typed.nodes import Node
from structcrawl.typed.offers import OfferReading, default_offer

__all__ = ["PRODUCT_TYPES", "product_candidates", "variant_summary"]

_GTIN_PROPS = ("gtin13", "gtin12", "gtin14", "gtin8", "gtin", "isbn")
_IN_STOCK = (None, "InStock", "LimitedAvailability", "OnlineOnly", "InStoreOnly")


def _name(value: Any) -> str | None:
    node = nodes_of(value)
    if node:
        return text(props(node[0]).get("name"))
    return text(value)


def _images(value: Any, resolve: Any) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for item in values(value):
        url = (
            text(props(item).get("url") or props(item).get("contentUrl"))
            if nodes_of(item)
            else ref(item)
        )
        if url and {"url": resolve(url)} not in out:
            out.append({"url": resolve(url)})
    return out


def _rating(value: Any) -> dict[str, Any] | None:
    nodes = nodes_of(value)
    if not nodes:
        return None
    p = props(nodes[0])
    out = {
        "ratingValue": text(p.get("ratingValue")),
        "bestRating": text(p.get("bestRating")),
        "reviewCount": text(p.get("reviewCount")) or text(p.get("ratingCount")),
    }
    return {k: v for k, v in out.items() if v is not None} or None


def _additional(value: Any) -> list[dict[str, str]]:
    out = []
    for node in nodes_of(value):
        p = props(node)
        name, val = text(p.get("name")), text(p.get("value"))
        if name and val is not None:
            out.append({"name": name, "value": val})
    return out


def _gtins(p: dict[str, Any]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for prop in _GTIN_PROPS:
        for raw in values(p.get(prop)):
            digits = _norm.gtin(raw, prop if prop != "isbn" else "gtin")
            if digits and all(g["value"] != digits for g in out):
                out.append(
                    {"type": prop if prop != "gtin" else f"gtin{len(digits)}", "value": digits}
                )
    return out


def pick_variant(node: Node, page_url: str, shown: str | None) -> dict[str, Any] | None:
    """The variant the page shows (see the module doc), as a property dict."""
    variants = [props(v) for v in nodes_of(node.props.get("hasVariant"))]
    if not variants:
        return None
    offers = [default_offer(v, page_url, shown)[0] for v in variants]
    for v, o in zip(variants, offers, strict=True):
        if page_url and (ref(v.get("url")) == page_url or (o and o.url == page_url)):
            return v
    if shown is not None:
        for v, o in zip(variants, offers, strict=True):
            if o and o.price == shown:
                return v
    for v, o in zip(variants, offers, strict=True):
        if o and o.price and o.availability in _IN_STOCK:
            return v
    return variants[0]


def variant_summary(node: Node, page_url: str) -> list[dict[str, Any]]:
    out = []
    for v in nodes_of(node.props.get("hasVariant")):
        p = props(v)
        offer, _ = default_offer(p, page_url)
        entry = {
            "name": text(p.get("name")),
            "sku": text(p.get("sku")),
            "url": ref(p.get("url")),
            "price": offer.price if offer else None,
            "currency": offer.currency if offer else None,
            "availability": offer.availability if offer else None,
        }
        out.append({k: val for k, val in entry.items() if val is not None})
    return out


def product_candidates(
    node: Node, page_url: str, shown: str | None, resolve: Any
) -> list[Candidate]:
    """Every Product field this entity gives, with its provenance."""
    p = node.props
    variant = pick_variant(node, page_url, shown)
    source = {**p, **{k: v for k, v in (variant or {}).items() if k != "name"}} if variant else p

    def cand(field: str, value: Any, prop: str, raw: Any = None, rule: str = "") -> Candidate:
        return Candidate(
            field,
            value,
            node.format,
            f"{node.path}#{prop}",
            raw if raw is not None else source.get(prop),
            rule or prop,
            node.record,
            repaired=node.repaired,
        )

    brand = _name(p.get("brand") or p.get("manufacturer"))
    out = [
        cand("name", text(p.get("name")), "name"),
        cand("description", text(p.get("description")), "description"),
        cand("sku", text(source.get("sku")), "sku"),
        cand("mpn", text(source.get("mpn")), "mpn"),
        cand("gtin", _gtins(source), "gtin"),
        cand("brand", {"name": brand} if brand else None, "brand"),
        cand("url", resolve(ref(p.get("url"))) if ref(p.get("url")) else None, "url"),
        cand("images", _images(p.get("image"), resolve), "image"),
        cand("aggregateRating", _rating(p.get("aggregateRating")), "aggregateRating"),
        cand(
            "additionalProperties", _additional(p.get("additionalProperty")), "additionalProperty"
        ),
        cand("color", text(source.get("color")), "color"),
        cand("size", text(source.get("size")), "size"),
    ]
    if not text(source.get("sku")) and text(source.get("productID")):
        out.append(cand("sku", text(source.get("productID")).split(":")[-1], "productID"))  # type: ignore[union-attr]
    offer, _ = default_offer(source, page_url, shown)
    if offer is not None:
        out += _offer_fields(offer, cand, has_sku=bool(text(source.get("sku"))))
    return out


def _offer_fields(offer: OfferReading, cand: Any, *, has_sku: bool) -> list[Candidate]:
    """``price``, ``currency``, ``currencyRaw``, ``availability`` (and a SKU the product lacks)
    of the default offer."""
    at = f"offers[{offer.index}]"
    cur, price_rule = f"{at}.priceCurrency", f"{at}.{offer.price_path}".rstrip(".")
    out = [
        cand("price", offer.price, "offers", offer.price_raw, price_rule),
        cand("currency", offer.currency, "offers", offer.currency_raw, cur),
        cand("currencyRaw", offer.currency_raw, "offers", offer.currency_raw, cur),
        cand(
            "availability", offer.availability, "offers", offer.availability_raw,
            f"{at}.availability",
        ),
    ]  # fmt: skip
    if offer.sku and not has_sku:
        out.append(cand("sku", offer.sku, "offers", offer.sku, f"{at}.sku"))
    return out
