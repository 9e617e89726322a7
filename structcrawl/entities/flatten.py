r"""Records as flat field sightings, and back (pure).

Merging compares values field by field, so a record is flattened to dotted fields: a single
nested entity without its own ``@id`` is entered (``offers.price``, ``brand.name``), its type
kept as ``offers.@type``; lists and nested entities that have an ``@id`` stay whole (an
``@id`` entity becomes a reference ``{"@id": ...}`` and an entity of its own, see
:func:`hoist`). Each sighting keeps the raw value and the path it came from.

>>> rec = {"type": ["Product"], "id": None, "properties": {"name": "X", "offers": {
...     "type": ["Offer"], "id": None, "properties": {"price": "9.99"},
...     "provenance": {"fields": {"price": [{"path": "p2", "raw": "9,99"}]}}}},
...     "provenance": {"fields": {"name": [{"path": "p1", "raw": " X "}]}}}
>>> [(f.field, f.value, f.raw) for f in flatten(rec)]
[('name', 'X', ' X '), ('offers.@type', ['Offer'], None), ('offers.price', '9.99', '9,99')]
>>> unflatten({"name": "X", "offers.@type": ["Offer"], "offers.price": "9.99"})
{'name': 'X', 'offers': {'@type': ['Offer'], 'price': '9.99'}}
>>> unflatten({"https://v\\.example/#bin": 3})
{'https://v.example/#bin': 3}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Sighting", "compact", "flatten", "hoist", "is_record", "unflatten"]

_MAX_DEPTH = 4
_SPLIT = re.compile(r"(?<!\\)\.")


def _segment(prop: str) -> str:
    """A property name as one dotted-path segment (IRIs contain dots: escape them)."""
    return prop.replace(".", "\\.")


@dataclass(frozen=True, slots=True)
class Sighting:
    field: str
    value: Any
    raw: Any
    path: str


def is_record(value: Any) -> bool:
    return isinstance(value, dict) and "properties" in value and "type" in value


def compact(value: Any) -> Any:
    """A record (or anything holding records) as plain JSON-LD-like data: nested records
    become ``{"@type": [...], "@id": ..., prop: value}``."""
    if is_record(value):
        out: dict[str, Any] = {"@type": list(value.get("type") or [])}
        if value.get("id"):
            out["@id"] = value["id"]
        for key, val in (value.get("properties") or {}).items():
            out[key] = compact(val)
        return out
    if isinstance(value, list):
        return [compact(v) for v in value]
    return value


def _sources(record: dict[str, Any], prop: str) -> list[dict[str, Any]]:
    return ((record.get("provenance") or {}).get("fields") or {}).get(prop) or []


def flatten(record: dict[str, Any], prefix: str = "", depth: int = 0) -> list[Sighting]:
    """Dotted-field sightings of one entity record (see the module doc)."""
    out: list[Sighting] = []
    for prop, value in (record.get("properties") or {}).items():
        field = prefix + _segment(prop)
        sources = _sources(record, prop)
        path = sources[0].get("path", "") if sources else record.get("source_element", "")
        if is_record(value) and not value.get("id") and depth < _MAX_DEPTH:
            out.append(Sighting(field + ".@type", list(value.get("type") or []), None, path))
            out.extend(flatten(value, field + ".", depth + 1))
            continue
        if is_record(value):  # an entity of its own: referenced, merged separately
            out.append(Sighting(field, {"@id": value["id"]}, None, path))
            continue
        if isinstance(value, list):
            raws = [s.get("raw") for s in sources]
            out.append(Sighting(field, compact(_refs(value)), raws if any(raws) else None, path))
            continue
        raw = sources[0].get("raw") if sources else None
        out.append(Sighting(field, value, raw, path))
    return out


def _refs(values: list[Any]) -> list[Any]:
    return [{"@id": v["id"]} if is_record(v) and v.get("id") else v for v in values]


def hoist(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The record and every nested record that has its own ``@id`` (each merged as its own
    entity), outermost first."""
    found = [record]
    stack = [record]
    while stack:
        current = stack.pop()
        for value in (current.get("properties") or {}).values():
            for item in value if isinstance(value, list) else [value]:
                if is_record(item):
                    if item.get("id"):
                        found.append(item)
                    stack.append(item)
    return found


def unflatten(fields: dict[str, Any]) -> dict[str, Any]:
    """Rebuild nested properties from dotted fields (inverse of :func:`flatten`)."""
    out: dict[str, Any] = {}
    for field in sorted(fields, key=lambda f: (f.count("."), f)):
        parts = [p.replace("\\.", ".") for p in _SPLIT.split(field)]
        node = out
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = node[part] = {}
            node = child
        node[parts[-1]] = fields[field]
    return _ordered(out, list(fields))


def _ordered(tree: dict[str, Any], order: list[str], prefix: str = "") -> dict[str, Any]:
    """Keep the first-seen field order at every level."""
    keys: list[str] = []
    for field in order:
        if field.startswith(prefix):
            head = _SPLIT.split(field[len(prefix) :], 1)[0].replace("\\.", ".")
            if head in tree and head not in keys:
                keys.append(head)
    out: dict[str, Any] = {}
    for k in keys:
        inner = f"{prefix}{_segment(k)}."
        nested = isinstance(tree[k], dict) and any(f.startswith(inner) for f in order)
        out[k] = _ordered(tree[k], order, inner) if nested else tree[k]
    return out
