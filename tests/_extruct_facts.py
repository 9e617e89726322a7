"""Facts: extruct's expected outputs and structcrawl's records brought to one comparable form.

A *fact* is ``(subject, path, value)``, all strings:

* ``subject`` names the top-level thing the fact is about: for the tree syntaxes (JSON-LD,
  microdata, microformats) its short type names and its id (``"Product #https://x/p"``); for
  RDFa, whose output is a flat graph, the node's IRI (blank nodes all as ``"_:"``); for Open
  Graph and Dublin Core, which describe the page, ``"page"``.
* ``path`` is the property path from that subject, nested items descended with dots
  (``"offers.price"``); a nested item also gives ``"<path>.@type"`` and ``"<path>.@id"`` facts,
  the top-level one ``"@type"`` and ``"@id"``.
* ``value`` is :func:`normalise` of one leaf value.

Both sides are read into a multiset (``Counter``) of facts; a page agrees with extruct when the
two multisets are equal, and every fact only one side has is a disagreement. The legitimate
representational differences between extruct's output and ours are removed in exactly two
places, both documented below: :func:`normalise` (one leaf value) and :func:`match_relative`
(a relative URL extruct left unresolved). Everything else must be equal.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import urljoin, urlsplit

from structcrawl.core.records import short_schema_name

__all__ = ["Fact", "extruct_facts", "match_relative", "normalise", "our_facts"]

Fact = tuple[str, str, str]
_SPACE = re.compile(r"\s+")
#: Keys of a JSON-LD or uniform node that are not properties (``_nodeId_`` is extruct's
#: reference to the HTML element, ``iid`` its flat-form item number).
_NODE_META = frozenset({"@type", "@id", "@context", "_nodeId_", "iid"})


def normalise(value: Any, base: str) -> str:
    """One leaf value as a comparable string.

    * strings: runs of whitespace (spaces, tabs, newlines) become one space and the ends are
      stripped: extruct's microdata collapses text content, the spec (and structcrawl) keeps
      ``textContent`` as it is, and neither form is more right for comparing meaning;
    * ``{"@value": v}`` (JSON-LD value objects, RDFa literals) is ``v``, ``{"@id": iri}`` (a
      reference) is ``<iri>`` resolved against ``base``; an RDFa blank node is ``_:``;
    * numbers, booleans and null are their JSON text (``119.99`` is not ``"119.99"``).

    Lists are not values: the readers emit one fact per list item, so a single value and a
    one-item list are the same fact.

    >>> normalise("  Sleeker than     ACME's  anvil ", "http://a.example/")
    "Sleeker than ACME's anvil"
    >>> normalise({"@value": "2011-09-10", "@type": "xsd:date"}, "http://a.example/")
    '2011-09-10'
    >>> normalise({"@id": "#me"}, "http://a.example/p"), normalise(119.99, ""), normalise(None, "")
    ('<http://a.example/p#me>', '119.99', 'null')
    """
    if isinstance(value, dict):
        if "@value" in value:
            return normalise(value["@value"], base)
        if "@id" in value:
            return "<" + _resolve(value["@id"], base) + ">"
    if isinstance(value, str):
        return _SPACE.sub(" ", value).strip()
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def match_relative(only_extruct: Counter[Fact], only_ours: Counter[Fact], base: str) -> int:
    """Pair extruct facts whose value is a relative URL with our fact for the same subject and
    path whose value is that URL resolved against the page's base (extruct's tests call most
    extractors without a base URL, so extruct leaves ``href="anvil.jpg"`` as written; the spec
    and structcrawl resolve it). Both counters are updated in place; returns the pairs made.

    >>> theirs = Counter({("Product", "image", "anvil.jpg"): 1})
    >>> ours = Counter({("Product", "image", "http://a.example/anvil.jpg"): 1})
    >>> match_relative(theirs, ours, "http://a.example/p.html"), +theirs, +ours
    (1, Counter(), Counter())
    """
    paired = 0
    for fact in list(only_extruct.elements()):
        subject, path, value = fact
        if not value or urlsplit(value).scheme:
            continue
        resolved = (subject, path, urljoin(base, value))
        if only_ours[resolved] > 0:
            only_ours[resolved] -= 1
            only_extruct[fact] -= 1
            paired += 1
    only_ours += Counter()  # drop zero counts
    only_extruct += Counter()
    return paired


def _resolve(value: Any, base: str) -> str:
    if not isinstance(value, str):
        return normalise(value, base)
    value = value.strip()
    return "_:" if value.startswith("_:") else urljoin(base, value)


def _listify(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _types(value: Any) -> list[str]:
    return sorted({short_schema_name(t) for t in _listify(value) if isinstance(t, str)})


# --- tree syntaxes: JSON-LD, microdata, microformats ---------------------------------------------


def _tree_facts(
    subject: str, path: str, item: dict[str, Any], base: str, props: dict[str, Any]
) -> Iterator[Fact]:
    """Facts of one item given its ``props`` (property name -> value or list of values)."""
    for name, values in props.items():
        key = f"{path}{short_schema_name(name)}"
        for value in _listify(values):
            nested = _as_item(value)
            if nested is None:
                if isinstance(value, dict) and not ({"@value", "@id"} & set(value)):
                    for sub, leaf in value.items():  # {"html", "value"} of an e-* property
                        yield subject, f"{key}.{sub}", normalise(leaf, base)
                else:
                    yield subject, key, normalise(value, base)
                continue
            types, ident, nested_props = nested
            for t in types:
                yield subject, f"{key}.@type", t
            if ident is not None:
                yield subject, f"{key}.@id", _resolve(ident, base)
            yield from _tree_facts(subject, f"{key}.", value, base, nested_props)


def _as_item(value: Any) -> tuple[list[str], Any, dict[str, Any]] | None:
    """``(types, id, properties)`` when ``value`` is an item in any of the shapes met here
    (our record dict, extruct's nested microdata/mf2 ``type``/``properties``, a JSON-LD or
    uniform node with ``@type``), else None."""
    if not isinstance(value, dict) or "@value" in value:
        return None
    if "format" in value and "properties" in value:  # a structcrawl record
        return _types(value.get("type")), value.get("id"), value["properties"]
    if isinstance(value.get("properties"), dict) or ("type" in value and "value" in value):
        # extruct's microdata/mf2 (type optional; an item without properties has a value)
        props = dict(value.get("properties", {}))
        for extra in ("children", "value"):  # mf2: children and a nested item's value
            if extra in value:
                props[extra] = value[extra]
        return _types(value.get("type")), value.get("id"), props
    if "@type" in value or ("@id" in value and len(value) > 1):  # JSON-LD / uniform node
        props = {k: v for k, v in value.items() if k not in _NODE_META}
        types, context = value.get("@type"), value.get("@context")
        if isinstance(types, str) and isinstance(context, str) and ":" not in types:
            types = f"{context.rstrip('/')}/{types}"  # extruct's uniform form: local @type
        return _types(types), value.get("@id"), props
    return None


def tree_facts(items: Iterable[Any], base: str) -> Counter[Fact]:
    """Facts of top-level items (extruct's items or our records, in any shape)."""
    found: Counter[Fact] = Counter()
    for item in items:
        parsed = _as_item(item)
        if parsed is None and isinstance(item, dict):  # a top-level JSON-LD object, untyped
            props = {k: v for k, v in item.items() if k not in _NODE_META}
            parsed = ([], item.get("@id"), props)
        if parsed is None:
            continue
        types, ident, props = parsed
        subject = " ".join(types) + (f" #{_resolve(ident, base)}" if ident is not None else "")
        found.update((subject, "@type", t) for t in types)
        found.update(_tree_facts(subject, "", item, base, props))
    return found


def jsonld_top_level(items: Iterable[Any]) -> list[Any]:
    """extruct's JSON-LD objects as structcrawl splits them: arrays split, one object per
    ``@graph`` node, plus the container when it carries more than ``@context``/``@graph``."""
    out: list[Any] = []
    for node in items:
        if isinstance(node, list):
            out.extend(jsonld_top_level(node))
        elif isinstance(node, dict):
            graph = node.get("@graph")
            if graph is not None:
                out.extend(jsonld_top_level(_listify(graph)))
                rest = {k: v for k, v in node.items() if k not in ("@context", "@graph")}
                if rest:
                    out.append(rest)
            else:
                out.append(node)
    return out


# --- page-level and graph syntaxes ----------------------------------------------------------------


def rdfa_facts(nodes: Iterable[Any], base: str) -> Counter[Fact]:
    """Facts of a flat RDFa graph: extruct's expanded JSON-LD nodes or our rdfa records (whose
    nested records are flattened into nodes of their own)."""
    found: Counter[Fact] = Counter()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        parsed = _as_item(node)
        if parsed is None:
            continue
        types, ident, props = parsed
        subject = _resolve(ident, base) if ident is not None else "_:"
        found.update((subject, "@type", t) for t in types)
        for name, values in props.items():
            for value in _listify(values):
                child = _as_item(value) if isinstance(value, dict) and "@id" not in value else None
                if child is not None:  # our nested record: a reference plus a node of its own
                    stack.append(value)
                    ref = child[1]
                    value = {"@id": ref if ref is not None else "_:"}
                found[(subject, short_schema_name(name), _rdfa_object(value, base))] += 1
    return found


def _rdfa_object(value: Any, base: str) -> str:
    """An RDFa object: an IRI object is its IRI (structcrawl writes an IRI that is no node
    of its own as a plain string, and a node as ``{"@id": iri}``; extruct always writes
    ``{"@id": iri}``), a literal its :func:`normalise`-d value (its datatype dropped: ours
    keeps the lexical value only)."""
    if isinstance(value, dict) and "@id" in value:
        return _resolve(value["@id"], base)
    return normalise(value, base)


def opengraph_facts(items: Iterable[Any], base: str) -> Counter[Fact]:
    """Open Graph: extruct's ``namespace``/``properties`` pairs or its uniform form, and our
    opengraph records. Ours groups a structured property with its object
    (``og:image: {"url": u, "width": w}``), extruct lists ``og:image: u``, ``og:image:width: w``:
    ours is read back into extruct's flat pairs."""
    found: Counter[Fact] = Counter()
    for item in items:
        if not isinstance(item, dict):
            continue
        if "format" in item:  # our record
            pairs: list[tuple[str, Any]] = []
            for name, values in item["properties"].items():
                for value in _listify(values):
                    if isinstance(value, dict):
                        pairs.extend(
                            (name if sub == "url" else f"{name}:{sub}", v)
                            for sub, v in value.items()
                        )
                    else:
                        pairs.append((name, value))
        elif "properties" in item:
            pairs = [tuple(p) for p in item["properties"]]  # type: ignore[misc]
        else:  # uniform: og:type is @type
            pairs = [(k, v) for k, v in item.items() if k not in ("@context", "@type")]
            pairs += [("og:type", item["@type"])] if "@type" in item else []
        found.update(("page", name, normalise(v, base)) for name, v in pairs)
    return found


def dublincore_facts(items: Iterable[Any], base: str) -> Counter[Fact]:
    """Dublin Core: extruct's ``elements``/``terms`` (``DC.title``, ``DCTERMS.issued``, link
    ``rel``/``href``) and our records (``dc:title``, ``dcterms:issued``)."""
    found: Counter[Fact] = Counter()
    for item in items:
        if not isinstance(item, dict):
            continue
        if "format" in item:
            for name, values in item["properties"].items():
                found.update(("page", name, normalise(v, base)) for v in _listify(values))
            continue
        for entry in item.get("elements", []) + item.get("terms", []):
            raw = entry.get("name") or entry.get("rel") or ""
            prefix, dot, local = raw.partition(".")
            name = f"{prefix.lower()}:{local}" if dot else f"dc:{raw}"  # a bare DC element name
            value = entry.get("content", entry.get("href"))
            found[("page", name, normalise(value, base))] += 1
    return found


def our_facts(records: list[dict[str, Any]], syntax: str, base: str) -> Counter[Fact]:
    """Facts of our entity records of one syntax (extruct's syntax names)."""
    fmt = {"microformat": "microformats"}.get(syntax, syntax)
    mine = [r for r in records if r["kind"] == "entity" and r["format"] == fmt]
    return _READERS[syntax](mine, base)


def extruct_facts(items: list[Any], syntax: str, base: str) -> Counter[Fact]:
    """Facts of extruct's expected output for one syntax."""
    if syntax == "json-ld":
        items = jsonld_top_level(items)
    elif syntax == "microdata":
        items = [_uniform_id(i) for i in unflatten_microdata(items)]
    return _READERS[syntax](items, base)


def _uniform_id(value: Any) -> Any:
    """extruct's uniform microdata writes an item's itemid as ``id`` beside ``@type``: as
    ``@id``, like every other form."""
    if isinstance(value, list):
        return [_uniform_id(v) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _uniform_id(v) for k, v in value.items()}
    if "@type" in out and "id" in out and "@id" not in out:
        out["@id"] = out.pop("id")
    return out


def unflatten_microdata(items: list[Any]) -> list[Any]:
    """extruct's flat microdata (``iid`` numbers, ``{"iid_ref": n}`` values) back into its
    nested form: each reference replaced by the item, referenced items no longer top-level.
    Items without ``iid`` are returned as they are."""
    by_iid = {i["iid"]: i for i in items if isinstance(i, dict) and "iid" in i}
    if not by_iid:
        return items
    referenced: set[Any] = set()

    def inline(value: Any, seen: frozenset[Any]) -> Any:
        if isinstance(value, list):
            return [inline(v, seen) for v in value]
        if isinstance(value, dict) and "iid_ref" in value:
            ref = value["iid_ref"]
            referenced.add(ref)
            if ref in seen or ref not in by_iid:
                return value
            return inline(by_iid[ref], seen | {ref})
        if isinstance(value, dict) and "properties" in value:
            props = {k: inline(v, seen) for k, v in value["properties"].items()}
            return {k: v for k, v in value.items() if k != "iid"} | {"properties": props}
        return value

    nested = [inline(i, frozenset({i.get("iid")})) for i in items]
    return [n for i, n in zip(items, nested, strict=True) if i.get("iid") not in referenced]


_READERS = {
    "json-ld": tree_facts,
    "microdata": tree_facts,
    "microformat": tree_facts,
    "rdfa": rdfa_facts,
    "opengraph": opengraph_facts,
    "dublincore": dublincore_facts,
}
