"""A page's typed items as entities: the store key of each item's entity, the records that
are sightings of it, and the values the page's arbitration chose for it (pure).

The resolution of a page (:func:`structcrawl.typed.page.resolve_page`) groups the page's
typed nodes into things and builds one item per thing. :func:`page_entity` turns one such
group into a :class:`PageEntity`: the entity merge (:mod:`structcrawl.entities`) stores every
member record under the entity's ``key`` and marks, per field, the value the item took
(:class:`Choice`), so that the ``entities`` feed and the ``items`` feed give one price for one
product. An item with no structured sighting (read from meta tags, application state or the
visible page) gets an entity of its own from its values (``synthetic``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.values import is_record
from structcrawl.entities.identity import preferred_key, store_key
from structcrawl.normalize.keys import entity_key
from structcrawl.typed.fields import Candidate
from structcrawl.typed.nodes import Node

__all__ = ["ENTITY_FIELDS", "Choice", "PageEntity", "page_entity"]

_SCHEMA = "https://schema.org/"
_OFFER = {
    "price": "offers.price",
    "currency": "offers.priceCurrency",
    "availability": "offers.availability",
}
#: Per item type: which item field is which field of the entity (dotted, as merged).
ENTITY_FIELDS: dict[str, dict[str, str]] = {
    "Product": {"name": "name", "sku": "sku", "mpn": "mpn", **_OFFER},
    "Article": {"headline": "headline", "datePublished": "datePublished"},
    "Event": {"name": "name", "startDate": "startDate", **_OFFER},
    "Recipe": {"name": "name", **_OFFER},
    "LocalBusiness": {"name": "name", **_OFFER},
    "JobPosting": {"jobTitle": "title", "datePublished": "datePosted"},
}
_NAMED = {"name": "name"}


@dataclass(frozen=True, slots=True)
class Choice:
    """The value the page's item took for one entity field, in the records' value space."""

    field: str
    value: Any
    layer: str
    path: str
    raw: Any
    fallback: bool


@dataclass(slots=True)
class PageEntity:
    key: str
    kind: str
    role: str
    records: list[dict[str, Any]]  # member records (top-level or nested), in page order
    choices: list[Choice] = field(default_factory=list)
    synthetic: dict[str, Any] | None = None  # the entity's record when no layer had it

    @property
    def types(self) -> list[str]:
        first = self.records[0] if self.records else self.synthetic or {}
        return [str(t) for t in first.get("type") or [self.kind]]

    @property
    def id(self) -> str | None:
        return next((str(r["id"]) for r in self.records if r.get("id")), None)


def _record_value(name: str, value: Any) -> Any:
    """An item value as the records write it (availability as a schema.org IRI)."""
    if name == "availability" and isinstance(value, str) and "/" not in value:
        return _SCHEMA + value
    return value


def _synthetic(kind: str, item: dict[str, Any], page_url: str) -> dict[str, Any]:
    """A record of the thing from its item's values (for an item no layer describes)."""
    fields = ENTITY_FIELDS.get(kind, _NAMED)
    props: dict[str, Any] = {}
    offer: dict[str, Any] = {}
    for name, path in fields.items():
        if item.get(name) is None:
            continue
        head, _, tail = path.partition(".")
        if tail:
            offer[tail] = _record_value(name, item[name])
        else:
            props[head] = item[name]
    for gtin in item.get("gtin") or []:
        if isinstance(gtin, dict) and gtin.get("value"):
            props.setdefault(str(gtin.get("type") or "gtin"), gtin["value"])
    if isinstance(item.get("url"), str):
        props["url"] = item["url"]
    if offer:
        props["offers"] = {
            "kind": "entity", "format": "resolved", "type": ["Offer"], "id": None,
            "properties": offer, "source_url": page_url,
        }  # fmt: skip
    record: dict[str, Any] = {
        "kind": "entity", "format": "resolved", "type": [kind], "id": None,
        "properties": props, "source_url": page_url, "source_element": "",
        "provenance": {"fields": {}},
    }  # fmt: skip
    record["key"] = entity_key(record)
    return record


def page_entity(
    kind: str,
    role: str,
    nodes: Sequence[Node],
    item: dict[str, Any],
    chosen: dict[str, Candidate],
    page_url: str,
) -> PageEntity:
    """The entity of one item built from ``nodes`` (none: its values came from fallbacks
    only), with the values the item took (``chosen``: item field -> winning candidate)."""
    # the records among the nodes (a data block's compact nodes are read through their own
    # typed-node records)
    records = [n.data for n in sorted(nodes, key=lambda n: n.ordinal) if is_record(n.data)]
    synthetic = None if records else _synthetic(kind, item, page_url)
    key = preferred_key(store_key(r) for r in records) if records else synthetic["key"]  # type: ignore[index]
    choices = []
    for name, path in ENTITY_FIELDS.get(kind, _NAMED).items():
        cand = chosen.get(name)
        if cand is None or (item.get(name) is None and cand.value is not None):
            continue
        choices.append(  # a value read as nothing is chosen as nothing (no value)
            Choice(
                path,
                _record_value(name, item.get(name)),
                cand.layer,
                cand.path,
                cand.raw,
                cand.fallback,
            )
        )
    return PageEntity(key, kind, role, records, choices, synthetic)
