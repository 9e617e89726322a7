"""Typed items merged across pages: the typed item of one merged entity (pure).

The crawl merges every sighting of a thing, across layers and pages, into one entity
(:mod:`structcrawl.entities`: ``@id``, canonical URL, GTIN, ISBN, SKU within a site, MPN with
brand). :func:`merged_item` turns such an entity (a line of the ``entities`` feed) into the
flat typed item of its type (:mod:`structcrawl.typed`), so the ``items-merged`` feed has one
item per thing of the whole crawl, where the ``items`` feed has one per page:

* the fields are read from the entity's merged properties (the value the layer precedence
  chose), by the same rules as a page's items;
* ``provenance`` of each field names the page, layer and path of the chosen value and how many
  sightings gave it; ``conflicts`` lists, per item field, the values other sightings gave
  (``value``, ``layers``, ``urls``, ``count``), e.g. two pages that disagree on the price;
* ``sources``: every page and layer the entity was seen in; ``entityKey``: its key (as on
  page items); ``change``: the entity's change since the previous run, when change detection is on.

Entities whose type is not an item type (offers, ratings, web pages, ...) give no item.

>>> entity = {"key": "k", "type": ["Product"], "properties": {"name": "Mug",
...     "offers": {"@type": ["Offer"], "price": "12.00", "priceCurrency": "EUR"}},
...     "conflicts": [{"field": "offers.price", "chosen": "12.00", "values": [
...         {"value": "12.00", "count": 1, "formats": ["json-ld"], "urls": ["https://s/a"]},
...         {"value": "13.50", "count": 1, "formats": ["microdata"], "urls": ["https://s/b"]}]}],
...     "sources": [{"url": "https://s/a", "format": "json-ld"},
...                 {"url": "https://s/b", "format": "microdata"}]}
>>> item = merged_item(entity)
>>> item["price"], item["currency"], [c["value"] for c in item["conflicts"]["price"]]
('12.00', 'EUR', ['13.50'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from structcrawl.entities.merge import DEFAULT_PRECEDENCE
from structcrawl.typed.other import item_type
from structcrawl.typed.page import build_items

__all__ = ["FIELD_PATHS", "merged_item"]

#: Which item field an entity's (dotted) property path fills, for provenance and conflicts.
FIELD_PATHS: dict[str, str] = {
    "name": "name",
    "headline": "headline",
    "sku": "sku",
    "mpn": "mpn",
    "gtin": "gtin",
    "gtin8": "gtin",
    "gtin12": "gtin",
    "gtin13": "gtin",
    "gtin14": "gtin",
    "brand": "brand",
    "brand.name": "brand",
    "url": "url",
    "description": "description",
    "image": "images",
    "offers.price": "price",
    "offers.lowPrice": "price",
    "offers.priceCurrency": "currency",
    "offers.availability": "availability",
    "datePublished": "datePublished",
    "startDate": "startDate",
}


def _node(value: Any) -> Any:
    """An entity's merged property value in the records' shape (typed nodes as ``{"type",
    "properties"}``), which :func:`build_items` reads."""
    if isinstance(value, list):
        return [_node(v) for v in value]
    if not isinstance(value, Mapping) or "@value" in value:
        return value
    if set(value) == {"@id"}:
        return value
    types = value.get("@type") or []
    types = [types] if isinstance(types, str) else list(types)
    props = {k: _node(v) for k, v in value.items() if k not in ("@type", "@id")}
    node: dict[str, Any] = {"type": types, "properties": props}
    if value.get("@id"):
        node["id"] = value["@id"]
    return node


def _field_of(path: str) -> str | None:
    plain = ".".join(p for p in path.split(".") if not p.isdigit())
    return FIELD_PATHS.get(plain)


def _provenance(entity: Mapping[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, seen in (entity.get("provenance") or {}).items():
        name = _field_of(path)
        if name is None or name not in item or name in out or not seen:
            continue
        first = seen[0]
        out[name] = {
            "layer": first.get("format"),
            "url": first.get("url"),
            "path": first.get("path"),
            "raw": first.get("raw"),
            "entity_path": path,
            "sightings": len(seen),
        }
    return out


def _conflicts(entity: Mapping[str, Any]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for conflict in entity.get("conflicts") or []:
        name = _field_of(str(conflict.get("field") or ""))
        if name is None:
            continue
        for value in conflict.get("values") or []:
            if value.get("value") == conflict.get("chosen"):
                continue
            out.setdefault(name, []).append(
                {
                    "value": value.get("value"),
                    "layers": list(value.get("formats") or []),
                    "urls": list(value.get("urls") or []),
                    "count": value.get("count"),
                    "entity_path": conflict.get("field"),
                }
            )
    return out


def merged_item(
    entity: Mapping[str, Any], precedence: Sequence[str] = DEFAULT_PRECEDENCE
) -> dict[str, Any] | None:
    """The typed item of one merged entity (a dict of an entity item), None when its type is
    not an item type."""
    types = [str(t) for t in entity.get("type") or []]
    kind = item_type(types)
    if kind is None:
        return None
    sources = list(entity.get("sources") or [])
    page = str(sources[0].get("url") or "") if sources else ""
    record = {
        "kind": "entity",
        "format": (entity.get("formats") or ["json-ld"])[0],
        "type": types,
        "id": entity.get("id"),
        "properties": _node(dict(entity.get("properties") or {}))["properties"],
        "source_url": page,
    }
    built = [i for i in build_items([record], page, None, precedence=precedence)]
    item = next((i for i in built if i.get("type") == kind), None)
    if item is None:
        return None
    item.pop("role", None)
    item["entityKey"] = entity.get("key")
    item["provenance"] = {**item.get("provenance", {}), **_provenance(entity, item)}
    item["conflicts"] = _conflicts(entity)
    item["sources"] = [
        {"url": s.get("url"), "layer": s.get("format"), "path": s.get("element")} for s in sources
    ]
    if entity.get("change") is not None:
        item["change"] = entity["change"]
    return item
