"""Whether a page lists products (a category or search page) and which (pure)."""

from __future__ import annotations

from structcrawl.entities.kinds import item_type
from structcrawl.typed.nodes import Node

__all__ = ["listing_groups"]


def _listed(nodes: list[Node], clusters: list[tuple[str, list[Node]]]) -> list[list[Node]]:
    """Product clusters listed by an ItemList, in list order ([] when none)."""
    listed: list[int] = []
    for n in nodes:
        if "ItemList" in n.types or "OfferCatalog" in n.types:
            listed += [
                m.ordinal
                for m in nodes
                if m.parent is not None
                and _under(nodes, m, n.ordinal)
                and item_type(m.types) == "Product"
            ]
    groups = [
        g for kind, g in clusters if kind == "Product" and any(m.ordinal in listed for m in g)
    ]
    return sorted(groups, key=lambda g: min(m.ordinal for m in g)) if len(groups) >= 2 else []


def _under(nodes: list[Node], node: Node, ancestor: int) -> bool:
    parent = node.parent
    while parent is not None:
        if parent == ancestor:
            return True
        parent = (
            nodes[parent].parent
            if parent < len(nodes) and nodes[parent].ordinal == parent
            else None
        )
    return False


def listing_groups(
    nodes: list[Node],
    clusters: list[tuple[str, list[Node]]],
    products: list[list[Node]],
    own: list[list[Node]],
) -> list[list[Node]]:
    """The product groups a listing page lists, in page order ([] for any other page)."""
    listed = _listed(nodes, clusters)
    if listed and any(all(g is not m for m in listed) for g in own):
        return []  # the page's own product beside a list (related products): a product page
    if listed or len(products) < 2 or own:
        return listed
    if all(min(n.depth for n in g) == 0 for g in products[:2]):
        return sorted(products, key=lambda g: min(n.ordinal for n in g))
    return []
