"""Identity of entities: strong identifier keys, the grouping of what shares them, and the key
that names a group (pure). The one module that says when two sightings are one thing, for a
page's items (:mod:`structcrawl.typed`) and for the crawl's entities alike.

Strong keys: ``id:<iri>`` (``@id`` / ``itemid`` / RDFa subject; blank nodes excluded),
``gtin:<14 digits>`` (GTIN-8/12/13/14 in one form), ``isbn:<13 digits>``,
``mpn:<brand>:<mpn>``, ``sku:<site>:<sku>`` (a SKU is unique within one site: site scoping),
``url:<canonical url>`` (``url``, ``mainEntityOfPage``). Keys are prefixed by the item kind
(``Product|gtin:...``), so only things of one kind are grouped.

Grouping (:func:`resolve`) is a union-find over those keys with one rule on top: **distinct
strong identifiers are never merged through a weaker key.** Keys are linked strongest first
(``id``, then ``gtin``/``isbn``, ``mpn``, ``sku``, ``url``, names); a link through a weaker key
is refused when the two groups already hold different ``@id``s (or different GTINs/ISBNs, for
a link weaker than those). Three people with three ``@id``s who share a team page URL stay
three, and a fourth sighting known only by that URL is none of them. The grouping depends
only on the members and their keys, never on their order: links
are made in a fixed order, each group is named by its smallest key and groups are listed in
order of that name, members in order of their sort key.

>>> groups = resolve({"a": ["id:1"], "b": ["gtin:1", "id:1"], "c": ["gtin:1"], "d": ["sku:x"]})
>>> groups
[['a', 'b', 'c'], ['d']]
>>> resolve({"c": ["gtin:1"], "d": ["sku:x"], "b": ["id:1", "gtin:1"], "a": ["id:1"]}) == groups
True
>>> resolve({"p1": ["id:#p1", "url:team"], "p2": ["id:#p2", "url:team"], "p3": ["url:team"]})
[['p1'], ['p2'], ['p3']]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any, TypeVar
from urllib.parse import urlsplit

from structcrawl.core.readers import nodes_of, props, ref, text, values
from structcrawl.entities.kinds import item_type
from structcrawl.normalize.identifiers import gtin14, isbn13
from structcrawl.normalize.urls import canonical_url

__all__ = [
    "UnionFind",
    "identity_keys",
    "preferred_key",
    "record_identity",
    "resolve",
    "site_of",
    "store_key",
    "url_key",
]

M = TypeVar("M", bound=Hashable)

_GTINS = ("gtin", "gtin8", "gtin12", "gtin13", "gtin14")
#: How strong a key of each class is (lower: stronger); other classes rank last.
STRENGTH = {"id": 0, "gtin": 1, "isbn": 1, "mpn": 2, "sku": 3, "url": 4, "name": 5}
#: Classes two groups may not hold distinct values of when a weaker key would join them.
_GUARDED = ("id", "gtin", "isbn")


def site_of(url: str) -> str:
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        host = ""
    return host[4:] if host.startswith("www.") else host


def url_key(url: str | None, base: str = "") -> str | None:
    if not url or not isinstance(url, str) or url.startswith("_:"):
        return None
    try:
        return canonical_url(url, keep_fragment=False)
    except ValueError:
        return None


def identity_keys(
    node_id: str | None, p: dict[str, Any], page_url: str, *, with_url: bool = True
) -> list[str]:
    """The strong keys of an entity with properties ``p`` found on ``page_url``."""
    keys: list[str] = []
    if node_id and not node_id.startswith("_:"):
        keys.append("id:" + node_id)
    if with_url:
        for prop in ("url", "mainEntityOfPage"):
            for v in values(p.get(prop)):
                target = ref(props(v).get("url")) or ref(v) if nodes_of(v) else ref(v)
                key = url_key(target)
                if key:
                    keys.append("url:" + key)
    for prop in _GTINS:
        for v in values(p.get(prop)):
            g = gtin14(text(v), prop)
            if g:
                keys.append("gtin:" + g)
    for v in values(p.get("isbn")):
        i = isbn13(text(v))
        if i:
            keys.append("isbn:" + i)
    sku = text(p.get("sku"))
    if sku:
        keys.append(f"sku:{site_of(page_url)}:{sku.casefold()}")
    mpn, brand = text(p.get("mpn")), p.get("brand")
    brand_name = text(props(nodes_of(brand)[0]).get("name")) if nodes_of(brand) else text(brand)
    if mpn and brand_name:
        keys.append(f"mpn:{brand_name.casefold()}:{mpn.casefold()}")
    return sorted(set(keys))


def record_identity(record: dict[str, Any], page_url: str) -> list[str]:
    """The strong keys of an entity record, each prefixed by its item type family
    (``Product|gtin:...``), so that only things of one kind are resolved together."""
    types = [str(t).rsplit("/", 1)[-1] for t in record.get("type") or []]
    family = item_type(types) or "+".join(sorted(types)) or "Thing"
    node_id = record.get("id") if isinstance(record.get("id"), str) else None
    return [f"{family}|{k}" for k in identity_keys(node_id, props(record), page_url)]


def store_key(record: dict[str, Any]) -> str:
    """The key a record's entity is stored under: its key from normalization
    (:func:`structcrawl.normalize.keys.entity_key`), or (normalization off) its id or its
    location."""
    key = record.get("key")
    if key:
        return str(key)
    if record.get("id"):
        return f"id:{record['id']}"
    types = ",".join(record.get("type") or [])
    return f"at:{types}@{record.get('source_url')}{record.get('source_element')}"


def key_class(key: str) -> str:
    """``id`` for ``Product|id:https://...``, ``gtin`` for ``gtin:0061...``, ``key`` for a
    store key (``key|id:...``), ..."""
    if key.startswith("key|"):
        return "key"
    return key.rsplit("|", 1)[-1].split(":", 1)[0]


def preferred_key(keys: Iterable[str]) -> str:
    """The key that names an entity known under several store keys: an ``@id`` key (the
    page's own name for the thing) before a derived one, then the smallest.

    >>> preferred_key(["derived:Product:ab", "id:https://s.example/p#x"])
    'id:https://s.example/p#x'
    """
    return min(keys, key=lambda k: (not k.startswith("id:"), k))


class UnionFind:
    """Union-find over string keys; the representative of a set is its smallest key, so the
    result is the same whatever order the unions come in. Each set remembers its values of
    the guarded classes, so that :meth:`union` can refuse a weak link between two things."""

    def __init__(self) -> None:
        self._parent: dict[str, str] = {}
        self._strong: dict[str, dict[str, set[str]]] = {}
        self.refused: set[str] = set()  # keys a guarded union was refused through

    def add(self, key: str) -> None:
        if key not in self._parent:
            self._parent[key] = key
            cls = key_class(key)
            self._strong[key] = {cls: {key}} if cls in _GUARDED else {}

    def find(self, key: str) -> str:
        self.add(key)
        root = key
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[key] != root:  # path compression
            self._parent[key], key = root, self._parent[key]
        return root

    def union(self, a: str, b: str, via: str | None = None) -> str | None:
        """Join the sets of ``a`` and ``b``; refused (None) when ``via``, the key that links
        them, is weaker than a guarded class both sets hold different values of."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if via is not None:
            strength = STRENGTH.get(key_class(via), len(STRENGTH))
            sa, sb = self._strong[ra], self._strong[rb]
            for cls in _GUARDED:
                if STRENGTH[cls] < strength and sa.get(cls) and sb.get(cls):
                    if not sa[cls] & sb[cls]:
                        return None
        low, high = (ra, rb) if ra < rb else (rb, ra)
        self._parent[high] = low
        for cls, found in self._strong.pop(high).items():
            self._strong[low].setdefault(cls, set()).update(found)
        return low


def _linked(
    anchors: Iterable[str], links: list[tuple[int, str, str]], contested: set[str]
) -> UnionFind:
    uf = UnionFind()
    for key in anchors:
        uf.add(key)
    for _, key, home in links:
        if key not in contested and uf.union(home, key, via=key) is None:
            uf.refused.add(key)
    return uf


def resolve(members: Mapping[M, Iterable[str]], sort_key: object = None) -> list[list[M]]:
    """Group members that share a key (transitively, under the rule of the module doc);
    members without keys stand alone.

    Groups are ordered by their representative key (a keyless member by its own ``repr``),
    members within a group by ``sorted`` order (or ``sort_key``)."""
    anchor: dict[M, str] = {}
    links: list[tuple[int, str, str]] = []
    for member, keys in members.items():
        own = sorted(set(keys), key=lambda k: (STRENGTH.get(key_class(k), len(STRENGTH)), k))
        if not own:
            continue
        # a member's strongest key anchors it; its other keys link it to whatever holds them
        anchor[member] = own[0]
        for key in own[1:]:
            links.append((STRENGTH.get(key_class(key), len(STRENGTH)), key, own[0]))
    links.sort()  # strongest links first, in a fixed order
    uf = _linked(anchor.values(), links, contested=set())
    contested = uf.refused
    if contested:  # a weak key two distinct things claim names neither of them
        uf = _linked(anchor.values(), links, contested)
    groups: dict[str, list[M]] = {}
    for member in members:
        name = uf.find(anchor[member]) if member in anchor else "\uffff" + repr(member)
        groups.setdefault(name, []).append(member)
    key_fn = sort_key if callable(sort_key) else None
    return [sorted(groups[name], key=key_fn) for name in sorted(groups)]  # type: ignore[arg-type,type-var]
