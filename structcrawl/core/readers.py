"""Reading record values in both value models, as items and identities read them (pure).

Records today carry plain values (strings, numbers, nested records, bare IRIs for some RDFa
objects); the value model being introduced wraps them: references ``{"@id": iri}``, typed
literals ``{"@value": v, "@type": dt}``, language literals ``{"@value": v, "@language": l}``.
Every item reader goes through these helpers so that both shapes read the same.

>>> text({"@value": " 19.90 ", "@type": "xsd:decimal"}), text(["", "a"]), text(3)
('19.90', 'a', '3')
>>> ref({"@id": "https://schema.org/InStock"}), ref("https://x.example/p")
('https://schema.org/InStock', 'https://x.example/p')
>>> [node_type(n) for n in nodes_of([{"type": ["Offer"], "properties": {}}, "x"])]
[['Offer']]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "first",
    "is_node",
    "is_old_price_spec",
    "literal",
    "node_type",
    "nodes_of",
    "props",
    "record_dicts",
    "ref",
    "text",
    "values",
]


def is_node(value: Any) -> bool:
    """A nested record (``{"type", "properties", ...}``) or a compact JSON-LD-like node."""
    if not isinstance(value, dict):
        return False
    if "properties" in value and "type" in value:
        return True
    return "@type" in value and "@value" not in value


def values(value: Any) -> list[Any]:
    """A value as a list (``None`` -> ``[]``, a list -> itself, ``@list``/``@set`` unwrapped)."""
    if value is None:
        return []
    if isinstance(value, dict) and ("@list" in value or "@set" in value):
        inner = value.get("@list", value.get("@set"))
        return values(inner)
    if isinstance(value, list | tuple):
        return list(value)
    return [value]


def literal(value: Any) -> Any:
    """The plain value of a literal (``{"@value": v}`` -> ``v``); anything else unchanged."""
    if isinstance(value, dict) and "@value" in value:
        return value["@value"]
    return value


def text(value: Any) -> str | None:
    """The first non-empty scalar of ``value`` as stripped text (references give their IRI,
    nodes give ``None``)."""
    for item in values(value):
        item = literal(item)
        if isinstance(item, dict):
            if set(item) == {"@id"}:
                item = item["@id"]
            else:
                continue
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int | float):
            return (
                format(item, "f").rstrip("0").rstrip(".") if isinstance(item, float) else str(item)
            )
        if isinstance(item, str) and item.strip():
            if _PRIVATE_USE.search(item):  # an icon font's glyph: no text a reader reads
                item = _PRIVATE_USE.sub(" ", item)
            if item.strip():
                return " ".join(item.split())
    return None


#: Unicode's private-use code points: icon fonts draw their glyphs there ("\uf004" a heart)
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff\U000f0000-\U0010ffff]")


def first(value: Any) -> Any:
    """The first value (raw: literal, reference or node), ``None`` when empty."""
    items = values(value)
    return items[0] if items else None


def ref(value: Any) -> str | None:
    """The IRI of a reference (``{"@id": iri}`` or a bare IRI string) or of a node's id."""
    for item in values(value):
        if isinstance(item, dict):
            iri = item.get("@id") or item.get("id")
            if isinstance(iri, str) and iri:
                return iri
            continue
        item = literal(item)
        if isinstance(item, str) and item.strip():
            return item.strip()
    return None


def node_type(node: dict[str, Any]) -> list[str]:
    kinds = node.get("type") if "properties" in node else node.get("@type")
    return [str(t) for t in values(kinds)]


def props(node: dict[str, Any]) -> dict[str, Any]:
    """A node's properties (records: ``properties``; compact nodes: every non-@ key)."""
    if "properties" in node:
        return node.get("properties") or {}
    return {k: v for k, v in node.items() if not k.startswith("@")}


def nodes_of(value: Any) -> list[dict[str, Any]]:
    """The nested nodes among a property's values."""
    return [v for v in values(value) if is_node(v)]


def record_dicts(records: Iterable[Any]) -> Iterator[dict[str, Any]]:
    """Every record, then the dicts in its ``properties`` (nested records, value objects),
    depth first: each before what it holds, so a reader may stop at the first that answers.

    >>> offer = {"type": ["Offer"], "properties": {"price": "9"}}
    >>> product = {"type": ["Product"], "properties": {"offers": [offer]}}
    >>> [d.get("type") for d in record_dicts([product])]
    [['Product'], ['Offer']]
    """
    stack: list[Any] = list(records)
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            yield value
            properties = value.get("properties")
            if isinstance(properties, dict):
                stack.extend(properties.values())


#: ``priceType`` values of a price specification that states an old, list or advertised
#: price, never the current one (schema.org's PriceTypeEnumeration and Google's), folded
_OLD_PRICE_TYPES = frozenset(
    {"listprice", "strikethroughprice", "msrp", "srp", "invoiceprice", "minimumadvertisedprice"}
)


def is_old_price_spec(spec: dict[str, Any]) -> bool:
    """Whether a price specification's ``priceType`` names an old or list price."""
    kind = ref(props(spec).get("priceType")) or ""
    return kind.rsplit("/", 1)[-1].casefold() in _OLD_PRICE_TYPES
