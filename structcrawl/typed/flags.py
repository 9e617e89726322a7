"""The flags an item's fields carry from the values they came from (pure).

An item field says when its value is not as plain as it looks: ``fallback`` (read by a
generic fallback, not a structured layer), ``conflict`` (other sources disagree, see
``conflicts``), ``unreadable`` (a layer wrote a value that reads as none: an ambiguous price,
an availability that is no ItemAvailability), and the normalization flags of the record
value it was read from (``date-unparsed``, ``price-ambiguous-separator``,
``currency-ambiguous``, ...). A field left empty because its only value could not be read
keeps that value's flags, so an item says why it has no price instead of silently having
none.

>>> records = [{"kind": "entity", "type": ["Product"], "properties": {"offers": {
...     "kind": "entity", "type": ["Offer"], "properties": {"price": "1.234"},
...     "flags": [{"field": "price", "code": "price-ambiguous-separator"}]}}, "flags": []}]
>>> item_flags({"type": "Product", "provenance": {}, "conflicts": {}}, records, [0])
{'price': ['price-ambiguous-separator']}
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["item_flags"]

#: record property -> item field
_FIELDS = {
    "price": "price", "lowPrice": "price", "highPrice": "price", "priceCurrency": "currency",
    "availability": "availability", "sku": "sku", "mpn": "mpn", "gtin": "gtin",
    "gtin8": "gtin", "gtin12": "gtin", "gtin13": "gtin", "gtin14": "gtin", "name": "name",
    "headline": "headline", "datePublished": "datePublished", "dateModified": "dateModified",
    "startDate": "startDate", "endDate": "endDate", "datePosted": "datePublished",
    "validThrough": "validThrough", "url": "url", "image": "images",
}  # fmt: skip


def _flags(record: dict[str, Any], depth: int = 0) -> Iterator[dict[str, Any]]:
    yield from (f for f in record.get("flags") or [] if isinstance(f, dict))
    if depth > 4:
        return
    for value in (record.get("properties") or {}).values():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, dict) and "properties" in v:
                yield from _flags(v, depth + 1)


def item_flags(
    item: dict[str, Any], records: Sequence[dict[str, Any]], members: Sequence[int]
) -> dict[str, list[str]]:
    """Per item field, the flags of the values it came from (see the module doc).
    ``members``: indexes in ``records`` of the records the item was built from."""
    out: dict[str, list[str]] = {}

    def add(field: str, code: str) -> None:
        if code not in out.setdefault(field, []):
            out[field].append(code)

    provenance = item.get("provenance") or {}
    for index in sorted(set(members)):
        if not 0 <= index < len(records):
            continue
        for flag in _flags(records[index]):
            field = _FIELDS.get(str(flag.get("field") or "").rsplit(".", 1)[-1])
            if field is None or not flag.get("code"):
                continue
            source = provenance.get(field)
            chosen_from = source.get("record") if isinstance(source, dict) else None
            # the chosen value's own record, or any record of a field left empty
            if item.get(field) is None or chosen_from in (None, index):
                add(field, str(flag["code"]))
    for field, source in provenance.items():
        if isinstance(source, dict) and source.get("fallback"):
            add(field, "fallback")
    for field, others in (item.get("conflicts") or {}).items():
        if item.get(field) is not None:
            add(field, "conflict")
        elif any(isinstance(o, dict) and o.get("rule") == "unreadable" for o in others):
            add(field, "unreadable")  # a layer wrote one, it reads as no value
    return {k: v for k, v in out.items() if v}
