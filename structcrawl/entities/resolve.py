"""Entity resolution by shared strong identifiers: a deterministic union-find (pure).

Members (records, nodes, page items) are given with the identifier keys they carry
(``id:<iri>``, ``url:<canonical url>``, ``gtin:<14 digits>``, ``sku:<site>:<sku>``, ...).
Members that share any key are one entity. The grouping depends only on the members and their
keys, never on the order they arrive in: each group is named by its smallest key and groups
are listed in order of that name, members in order of their sort key.

>>> groups = resolve({"a": ["id:1"], "b": ["gtin:1", "id:1"], "c": ["gtin:1"], "d": ["sku:x"]})
>>> groups
[['a', 'b', 'c'], ['d']]
>>> resolve({"c": ["gtin:1"], "d": ["sku:x"], "b": ["id:1", "gtin:1"], "a": ["id:1"]}) == groups
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TypeVar

__all__ = ["UnionFind", "resolve"]

M = TypeVar("M", bound=Hashable)


class UnionFind:
    """Union-find over string keys; the representative of a set is its smallest key, so the
    result is the same whatever order the unions come in."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}

    def add(self, key: str) -> None:
        self._parent.setdefault(key, key)

    def find(self, key: str) -> str:
        self.add(key)
        root = key
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[key] != root:  # path compression
            self._parent[key], key = root, self._parent[key]
        return root

    def union(self, a: str, b: str) -> str:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        low, high = (ra, rb) if ra < rb else (rb, ra)
        self._parent[high] = low
        return low


def resolve(members: Mapping[M, Iterable[str]], sort_key: object = None) -> list[list[M]]:
    """Group members that share a key (transitively); members without keys stand alone.

    Groups are ordered by their representative key (a keyless member by its own ``repr``),
    members within a group by ``sorted`` order (or ``sort_key``)."""
    uf = UnionFind()
    anchor: dict[M, str] = {}
    for member, keys in members.items():
        keys = sorted(set(keys))
        if not keys:
            continue
        anchor[member] = keys[0]
        for key in keys[1:]:
            uf.union(keys[0], key)
    groups: dict[str, list[M]] = {}
    for member in members:
        name = uf.find(anchor[member]) if member in anchor else "\uffff" + repr(member)
        groups.setdefault(name, []).append(member)
    key_fn = sort_key if callable(sort_key) else None
    return [sorted(groups[name], key=key_fn) for name in sorted(groups)]  # type: ignore[arg-type,type-var]
