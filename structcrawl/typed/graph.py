"""References within a page's graph, followed where an item needs what they point at (pure).

A JSON-LD ``@graph`` (WordPress/Yoast and most SEO plugins) describes each thing once and
links the others by reference: the article's ``author`` is ``{"@id": ".../#person-x"}``, and
the Person with that ``@id``, and its name, is another node of the same page. An item reads
the Person's name, not its IRI. :func:`follow_references` gives each node's properties with
every reference to a node of the page replaced by that node (one level: the referenced node's
own references stay references, so cycles end). A reference to nothing on the page stays as it
is.

>>> from structcrawl.typed.nodes import page_nodes
>>> records = [
...     {"kind": "entity", "type": ["Article"], "id": "https://n.example/a#article",
...      "properties": {"author": {"@id": "https://n.example/#p"}, "headline": "H"}},
...     {"kind": "entity", "type": ["Person"], "id": "https://n.example/#p",
...      "properties": {"name": "Ada"}}]
>>> nodes = follow_references(page_nodes(records))
>>> nodes[0].props["author"]["properties"]
{'name': 'Ada'}
"""

from __future__ import annotations

import dataclasses
from typing import Any

from structcrawl.core.readers import props
from structcrawl.typed.nodes import Node

__all__ = ["follow_references"]


def _target(value: Any) -> str | None:
    """The IRI a bare reference points at (``{"@id": iri}``, or a record that is nothing but
    its id); None for anything else."""
    if isinstance(value, dict):
        if set(value) == {"@id"} and isinstance(value["@id"], str):
            return value["@id"]
        if "properties" in value and not value.get("properties") and value.get("id"):
            return str(value["id"])
    return None


def _followed(value: Any, index: dict[str, dict[str, Any]], own: str | None) -> Any:
    if isinstance(value, list):
        out = [_followed(v, index, own) for v in value]
        return out if any(a is not b for a, b in zip(out, value, strict=True)) else value
    iri = _target(value)
    if iri is not None and iri != own and iri in index:
        return index[iri]
    return value


def follow_references(nodes: list[Node]) -> list[Node]:
    """The nodes, each with its references to other nodes of the page followed (see the
    module doc); nodes without such references are returned as they are."""
    index: dict[str, dict[str, Any]] = {}
    for node in nodes:
        if node.id and len(node.props) > len(props(index.get(node.id) or {"properties": {}})):
            index[node.id] = node.data
    if not index:
        return nodes
    out = []
    for node in nodes:
        followed = {k: _followed(v, index, node.id) for k, v in node.props.items()}
        changed = any(followed[k] is not v for k, v in node.props.items())
        out.append(dataclasses.replace(node, props=followed) if changed else node)
    return out
