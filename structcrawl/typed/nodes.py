"""The entities of one page as nodes: every typed record and every typed node nested in it
(pure).

A :class:`Node` remembers the record it came from (index, layer, path, repairs), how deep it
sits and under which property, so that items can cite their provenance and the primary
entity can prefer top-level things over things mentioned inside them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from structcrawl.core.readers import is_node, node_type, props, values
from structcrawl.entities.kinds import item_type

__all__ = [
    "NESTED_ONLY",
    "Node",
    "item_kind",
    "item_kinds",
    "page_nodes",
    "type_names",
]

_MAX_DEPTH = 6
_DOCUMENT_FORMATS = frozenset({"data-block", "json", "network-json"})
#: properties whose nodes are only ever parts of another thing (a variant, an accessory, an
#: offer's item): no item of the page is built from them
NESTED_ONLY = frozenset(
    {
        "hasVariant",
        "isVariantOf",
        "isRelatedTo",
        "isSimilarTo",
        "isAccessoryOrSparePartFor",
        "isConsumableFor",
        "model",
        "itemOffered",
    }
)


@dataclass(slots=True)
class Node:
    """One typed entity found in a page."""

    ordinal: int  # position in the page's walk (records in order, depth first)
    types: list[str]
    id: str | None
    props: dict[str, Any]
    format: str
    path: str
    record: int  # index of the top-level record
    depth: int = 0
    via: str = ""  # the property that holds it ("" for a top-level record)
    repaired: bool = False
    provenance: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    parent: int | None = None  # ordinal of the node holding it
    data: dict[str, Any] = field(default_factory=dict, repr=False)  # the record (or node) itself

    @property
    def layer(self) -> str:
        return self.format


def type_names(types: list[str]) -> list[str]:
    """schema.org local names of a type list (other vocabularies' IRIs dropped)."""
    out = []
    for t in types:
        local = (
            t.rsplit("/", 1)[-1]
            if t.startswith(("http://schema.org/", "https://schema.org/"))
            else t
        )
        if local and ":" not in local and "/" not in local:
            out.append(local)
    return out


def _node_id(node: dict[str, Any]) -> str | None:
    value = node.get("id") if "properties" in node else node.get("@id")
    return value if isinstance(value, str) and value else None


def _provenance(node: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    prov = node.get("provenance")
    fields = prov.get("fields") if isinstance(prov, dict) else None
    return fields if isinstance(fields, dict) else {}


def page_nodes(records: list[dict[str, Any]]) -> list[Node]:
    """Every typed entity in the page's records, outermost first (error records skipped;
    the whole-document record of a data block is skipped, its typed nodes are kept)."""
    out: list[Node] = []
    for index, record in enumerate(records):
        if record.get("kind") != "entity":
            continue
        fmt = str(record.get("format") or "")
        repaired = bool(record.get("repairs"))
        stack: list[tuple[dict[str, Any], int, str, str, int | None]] = [
            (record, 0, "", str(record.get("source_element") or ""), None)
        ]
        while stack:
            node, depth, via, path, parent = stack.pop()
            types = type_names(node_type(node))
            whole_block = depth == 0 and fmt in _DOCUMENT_FORMATS and path.endswith(("#$", "$"))
            ordinal = len(out)
            if types and not whole_block:
                out.append(
                    Node(
                        ordinal,
                        types,
                        _node_id(node),
                        props(node),
                        fmt,
                        path,
                        index,
                        depth,
                        via,
                        repaired,
                        _provenance(node),
                        parent,
                        node,
                    )
                )
                here: int | None = ordinal
            else:
                here = parent
            if depth >= _MAX_DEPTH:
                continue
            children = []
            for prop, value in props(node).items():
                for i, child in enumerate(values(value)):
                    if is_node(child):
                        element = child.get("source_element") if "properties" in child else None
                        children.append(
                            (child, depth + 1, prop, str(element or f"{path}/{prop}[{i}]"), here)
                        )
            stack.extend(reversed(children))
    return out


def item_kinds(records: list[dict[str, Any]]) -> set[str]:
    """The item kinds of the records' nodes (:func:`item_kind`), told from the records
    before they are checked, as :func:`structcrawl.typed.shown.product_records`: a page whose
    records make a ``Product`` reads no grid of product cards (its resolution builds its
    product from them, :mod:`structcrawl.typed.page`).

    >>> offer = {"kind": "entity", "type": ["Offer"], "properties": {"price": "9.90"}}
    >>> item_kinds([offer]), item_kinds([{**offer, "type": ["Product"]}])
    (set(), {'Product'})
    """
    return {kind for n in page_nodes(records) if (kind := item_kind(n)) is not None}


def item_kind(node: Node) -> str | None:
    """The kind of item a page's items may build from ``node`` (None for a node only ever a
    part of another thing, :data:`NESTED_ONLY`, or of no item type)."""
    return None if node.via in NESTED_ONLY else item_type(node.types)
