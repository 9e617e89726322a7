"""One item from the nodes that are one thing and the fallbacks it may take (pure): its
candidates, one value per field by one arbitration (:func:`~structcrawl.typed.fields.choose`),
and the values it chose (which the entity merge marks, :mod:`~structcrawl.typed.pageentities`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from structcrawl.typed.fields import Candidate, choose
from structcrawl.typed.nodes import Node
from structcrawl.typed.other import other_candidates
from structcrawl.typed.product import product_candidates, variant_summary

__all__ = ["build"]

_FIELD_ORDER = (
    "name",
    "price",
    "currency",
    "currencyRaw",
    "availability",
    "sku",
    "gtin",
    "mpn",
    "brand",
    "url",
    "canonicalUrl",
)


#: Fields whose value is read from what a layer wrote; one that reads as nothing is reported.
_READ = frozenset({"price", "currency", "availability"})


def _item(
    kind: str, cands: list[Candidate], precedence: Sequence[str], prefer_price: str | None
) -> tuple[dict[str, Any], dict[str, Candidate]]:
    fields: dict[str, list[Candidate]] = {}
    placeholders: list[dict[str, Any]] = []
    for c in cands:
        if c.field == "price" and _is_zero(c.value):  # "0.00": a template's placeholder
            placeholders.append({"value": c.value, **c.provenance(), "rule": "zero-placeholder"})
            continue
        fields.setdefault(c.field, []).append(c)
    item: dict[str, Any] = {"kind": "item", "type": kind}
    provenance: dict[str, Any] = {}
    conflicts: dict[str, Any] = {"price": placeholders} if placeholders else {}
    order = [f for f in _FIELD_ORDER if f in fields] + [f for f in fields if f not in _FIELD_ORDER]
    chosen: dict[str, Candidate] = {}
    for field in order:
        win, others = choose(fields[field], precedence, prefer_price if field == "price" else None)
        if win is None:
            continue
        chosen[field] = win
        item[field] = win.value
        provenance[field] = win.provenance()
        if others:
            conflicts[field] = others
    # a currency goes with its price: take the price's own currency when it has one
    if "price" in chosen and "currency" in fields:
        mates = [
            c
            for c in fields["currency"]
            if c.record == chosen["price"].record and c.layer == chosen["price"].layer and c.value
        ]
        if mates and mates[0].value != item.get("currency"):
            conflicts.setdefault("currency", []).append(
                {"value": item.get("currency"), **provenance["currency"]}
            )
            item["currency"], provenance["currency"] = mates[0].value, mates[0].provenance()
            chosen["currency"] = mates[0]
    if "price" not in item and item.get("availability") != "Discontinued":
        # a currency says what a price is in: none without a price (a discontinued product
        # keeps the currency it was sold in)
        for name in ("currency", "currencyRaw"):
            chosen.pop(name, None)
            if name in item:
                conflicts.setdefault(name, []).append(
                    {"value": item.pop(name), **provenance.pop(name)}
                )
    for c in cands:  # a value a layer gave that reads as none (availability "NOT SOLD")
        written = isinstance(c.raw, str | int | float) and not isinstance(c.raw, bool)
        # named when the field is empty, and when a fallback filled it in the layer's place
        # (the page's "1,234.00" over JSON-LD's ambiguous "1.234"): never replaced silently
        filled = c.field in item and not (c.field in chosen and chosen[c.field].fallback)
        if c.field in _READ and c.value is None and written and not filled and not c.fallback:
            conflicts.setdefault(c.field, []).append(
                {"value": c.raw, **c.provenance(), "rule": "unreadable"}
            )
            chosen.setdefault(c.field, c)
    item["provenance"] = provenance
    item["conflicts"] = conflicts
    return item, chosen


def _is_zero(value: Any) -> bool:
    try:
        return value is not None and Decimal(str(value)) == 0
    except InvalidOperation:
        return False


def build(
    kind: str,
    group: list[Node],
    page_url: str,
    shown: str | None,
    precedence: Sequence[str],
    extra: list[Candidate],
) -> tuple[dict[str, Any], dict[str, Candidate]]:
    cands: list[Candidate] = []
    for n in sorted(group, key=lambda n: n.ordinal):
        if kind == "Product":
            cands += product_candidates(n, page_url, shown, lambda u: u)
        else:
            cands += other_candidates(n, kind)
    item, chosen = _item(kind, cands + extra, precedence, shown)
    if kind == "Product" and item.get("availability") == "Discontinued" and "price" in item:
        # a discontinued product is no longer sold: its last price is not a current price
        dropped = {
            "value": item.pop("price"),
            **item["provenance"].pop("price"),
            "rule": "discontinued",
        }
        item["conflicts"].setdefault("price", []).insert(0, dropped)
        if "price" in chosen:  # chosen as no price: the entity drops it too
            chosen["price"] = dataclasses.replace(chosen["price"], value=None)
    if kind == "Product":
        variants = [v for n in group for v in variant_summary(n, page_url)]
        if variants:
            item["variants"] = variants
    types = sorted({t for n in group for t in n.types})
    if types:
        item["schemaTypes"] = types
    item["sources"] = sorted({(n.format, n.path) for n in group})
    item["sources"] = [{"layer": f, "path": p} for f, p in item["sources"]]
    return item, chosen
