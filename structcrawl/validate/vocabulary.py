"""The schema.org vocabulary (types, properties, enumerations) as shipped in the package.

The data file ``structcrawl/vocab/schemaorg.json.gz`` is derived from a schema.org release
(see ``structcrawl/vocab/README.md``); it is read once through :mod:`importlib.resources`, so no
network is needed at run time. :meth:`Vocabulary.check_node` reports, as warnings, what a
node says that schema.org does not know:

* ``unknown-type`` / ``unknown-property``: a schema.org-named term (a short name or a
  schema.org IRI) that the release does not define (``did you mean`` for case slips);
* ``property-not-expected-on-type``: a known property whose domains include none of the
  node's known types or their supertypes;
* ``superseded-term``: a type or property the release marks as superseded;
* ``unknown-enumeration-member``: a value of an enumeration-only property (``availability``,
  ``dayOfWeek``, ...) that is not a member of the enumeration.

Terms of other vocabularies (full IRIs, CURIEs such as ``og:title``) are never reported.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from importlib import resources
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.validate._issues import Issue, join_path

__all__ = ["Vocabulary", "is_schema_term"]

_DATA = ("vocab", "schemaorg.json.gz")
#: Action constraints: ``query-input``, ``name-output`` (schema.org/docs/actions.html).
_ACTION_SUFFIXES = ("-input", "-output")
_MAX_TERMS = 8192


def is_schema_term(name: str) -> bool:
    """True for names that claim to be schema.org terms: short names and schema.org IRIs.

    >>> is_schema_term("Product"), is_schema_term("https://schema.org/price")
    (True, True)
    >>> is_schema_term("og:title"), is_schema_term("https://ogp.me/ns#title"), is_schema_term("@id")
    (False, False, False)
    """
    local = short_schema_name(name)
    return bool(local) and not local.startswith("@") and not any(c in local for c in ":/#")


class Vocabulary:
    """Types (with their parents), properties (with domains and ranges), enumerations."""

    def __init__(self, data: Mapping[str, Any]):
        self.release: str = str(data.get("release", ""))
        self.source: dict[str, Any] = dict(data.get("source", {}))
        self.parents: dict[str, tuple[str, ...]] = {
            k: tuple(v) for k, v in data.get("types", {}).items()
        }
        self.properties: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
            k: (frozenset(v[0]), tuple(v[1])) for k, v in data.get("properties", {}).items()
        }
        self.enumerations: dict[str, frozenset[str]] = {
            k: frozenset(v) for k, v in data.get("enumerations", {}).items()
        }
        self.superseded: dict[str, str] = dict(data.get("superseded", {}))
        self._folded = {k.casefold(): k for k in (*self.parents, *self.properties)}
        self._ancestors: dict[str, frozenset[str]] = {}
        self._enum_props: dict[str, frozenset[str] | None] = {}
        self._terms: dict[str, tuple[str, str, Any] | None] = {}
        self._node_terms: dict[tuple[tuple[str, ...], str], tuple[tuple[str, str], ...]] = {}

    @classmethod
    @lru_cache(maxsize=1)
    def default(cls) -> Vocabulary:
        """The shipped release, loaded once per process."""
        blob = resources.files("structcrawl").joinpath(*_DATA).read_bytes()
        return cls(json.loads(gzip.decompress(blob)))

    def is_type(self, name: str) -> bool:
        return short_schema_name(name) in self.parents

    def is_property(self, name: str) -> bool:
        return short_schema_name(name) in self.properties

    def ancestors(self, name: str) -> frozenset[str]:
        """The type and all its supertypes (empty for an unknown type).

        >>> sorted(Vocabulary.default().ancestors("Store"))
        ['LocalBusiness', 'Organization', 'Place', 'Store', 'Thing']
        """
        name = short_schema_name(name)
        if name not in self.parents:
            return frozenset()
        cached = self._ancestors.get(name)
        if cached is None:
            seen: set[str] = set()
            todo = [name]
            while todo:
                current = todo.pop()
                if current not in seen:
                    seen.add(current)
                    todo.extend(self.parents.get(current, ()))
            cached = self._ancestors[name] = frozenset(seen)
        return cached

    def supertype_levels(self, name: str) -> Iterable[list[str]]:
        """The type, then its parents, then their parents ... (breadth first, no repeats)."""
        level = [short_schema_name(name)] if self.is_type(name) else []
        seen: set[str] = set(level)
        while level:
            yield level
            nxt = [p for t in level for p in self.parents.get(t, ()) if p not in seen]
            seen.update(nxt)
            level = list(dict.fromkeys(nxt))

    def enumeration_members(self, prop: str) -> frozenset[str] | None:
        """Members allowed for a property whose every range is an enumeration, else None.

        >>> "InStock" in Vocabulary.default().enumeration_members("availability")
        True
        """
        return self._enumeration_members(short_schema_name(prop))

    def _enumeration_members(self, prop: str) -> frozenset[str] | None:
        """Members allowed for a property whose every range is an enumeration, else None."""
        if prop not in self._enum_props:
            ranges = self.properties[prop][1] if prop in self.properties else ()
            members: frozenset[str] | None = None
            if ranges and all(r in self.enumerations for r in ranges):
                members = frozenset().union(*(self.enumerations[r] for r in ranges))
            self._enum_props[prop] = members
        return self._enum_props[prop]

    def _suggest(self, name: str) -> str:
        hit = self._folded.get(name.casefold())
        return f" (did you mean {hit}?)" if hit and hit != name else ""

    def check_types(self, types: Iterable[str], path: str) -> list[Issue]:
        issues = []
        for raw in types:
            if not isinstance(raw, str) or not is_schema_term(raw):
                continue
            name = short_schema_name(raw)
            if name not in self.parents:
                issues.append(
                    Issue(
                        join_path(path, "@type"),
                        "unknown-type",
                        f"{name} is not a schema.org {self.release} type{self._suggest(name)}",
                    )
                )
            elif name in self.superseded:
                issues.append(
                    Issue(
                        join_path(path, "@type"),
                        "superseded-term",
                        f"{name} is superseded by {self.superseded[name]}",
                    )
                )
        return issues

    def check_node(
        self, types: Iterable[str], properties: Mapping[str, Any], path: str
    ) -> list[Issue]:
        """Vocabulary warnings for one node (not its nested records)."""
        known = tuple(short_schema_name(t) for t in types if isinstance(t, str) and self.is_type(t))
        issues: list[Issue] = []
        for raw_key, value in properties.items():
            term = self._term(raw_key) if isinstance(raw_key, str) else None
            if term is None:
                continue
            name, key, entry = term
            found = self._term_issues(known, key, entry)
            members = self._enumeration_members(key) if entry is not None else None
            if not found and members is None:
                continue
            here = join_path(path, name)
            issues.extend(Issue(here, code, message) for code, message in found)
            if members is not None:
                issues.extend(self._check_members(key, value, members, here))
        return issues

    def _term_issues(
        self, known: tuple[str, ...], key: str, entry: Any
    ) -> tuple[tuple[str, str], ...]:
        """``(code, message)`` of what the vocabulary says about property ``key`` on a node of
        the ``known`` types, whatever its value (kept per types and key)."""
        cache_key = (known, key)
        found = self._node_terms.get(cache_key)
        if found is not None:
            return found
        out: list[tuple[str, str]] = []
        if entry is None:
            out.append(
                (
                    "unknown-property",
                    f"{key} is not a schema.org {self.release} property{self._suggest(key)}",
                )
            )
        else:
            if key in self.superseded:
                out.append(("superseded-term", f"{key} is superseded by {self.superseded[key]}"))
            scope: frozenset[str] = frozenset().union(*(self.ancestors(t) for t in known))
            # Role nodes (and anything typed outside schema.org) may carry any property
            domains = entry[0]
            if scope and "Role" not in scope and domains and not (domains & scope):
                out.append(
                    (
                        "property-not-expected-on-type",
                        f"{key} is not expected on {'/'.join(known)} "
                        f"(schema.org domains: {', '.join(sorted(domains)[:6])}"
                        f"{', ...' if len(domains) > 6 else ''})",
                    )
                )
        if len(self._node_terms) > _MAX_TERMS:  # type combinations of other vocabularies vary
            self._node_terms.clear()
        found = self._node_terms[cache_key] = tuple(out)
        return found

    def _term(
        self, raw_key: str
    ) -> tuple[str, str, tuple[frozenset[str], tuple[str, ...]] | None] | None:
        """``(local name, property name, vocabulary entry)`` of a property key that claims to
        be a schema.org term (an action constraint ``query-input`` is its property's), else
        None; kept per key (a crawl has few distinct property names)."""
        try:
            return self._terms[raw_key]
        except KeyError:
            pass
        term = None
        if is_schema_term(raw_key):
            name = key = short_schema_name(raw_key)
            if key not in self.properties and key.endswith(_ACTION_SUFFIXES):
                key = key.rsplit("-", 1)[0]
            term = (name, key, self.properties.get(key))
        if len(self._terms) > _MAX_TERMS:  # keys of other vocabularies vary
            self._terms.clear()
        self._terms[raw_key] = term
        return term

    def _check_members(
        self, key: str, value: Any, members: frozenset[str], path: str
    ) -> list[Issue]:
        values = value if isinstance(value, list) else [value]
        issues = []
        for i, item in enumerate(values):
            if not isinstance(item, str):
                continue
            if not is_schema_term(item.strip()):
                continue  # an IRI of another vocabulary (e.g. GoodRelations)
            local = short_schema_name(item.strip())
            if local not in members:
                where = join_path(path, i) if isinstance(value, list) else path
                issues.append(
                    Issue(
                        where,
                        "unknown-enumeration-member",
                        f"{item!r} is not a member of {'/'.join(self.properties[key][1])}",
                    )
                )
        return issues
