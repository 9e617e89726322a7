"""RDFa 1.1: triples from :mod:`structcrawl.rdfa`, grouped into records by subject.

Every IRI subject becomes a record; a blank node becomes a record of its own only when no
other subject points at it, and is nested as a record value where one does. An IRI object
that is itself a subject is kept as a reference (``{"@id": iri}``), any other IRI as a
string. schema.org types and properties are shortened to local names; other vocabularies keep
full IRIs. RDF collections (``inlist``) become lists. ``raw`` holds the subject's triples in
N-Triples form; each property's provenance is the XPath of the element that produced the triple.

Open Graph and Twitter properties (``og:``, ``article:``, ``twitter:``... which RDFa also reads
from ``<meta property>``) are left to the ``opengraph`` layer, which keeps their structure
(which width belongs to which image); repeating them here would only pool those details.
"""

from __future__ import annotations

import re
from typing import Any

from structcrawl.document import Document
from structcrawl.rdfa import IRI, BNode, Literal, Triple, rdfa_triples
from structcrawl.records import Provenance, Record, short_schema_name

__all__ = ["FORMAT", "PARSER", "extract", "records_from_triples"]

FORMAT = "rdfa"
PARSER = "structcrawl.extract.rdfa"
_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDF_TYPE = _RDF + "type"
_SKIP_PREDICATES = frozenset({"http://www.w3.org/ns/rdfa#usesVocabulary"})
#: Open Graph namespaces, and the OG/Twitter prefixes pages use without declaring them.
_META_PREDICATE = re.compile(
    r"^(?:https?://ogp\.me/ns|https?://dev\.twitter\.com/cards"
    r"|(?:og|article|product|book|profile|music|video|fb|business|twitter):)"
)


def _skipped(predicate: str) -> bool:
    return predicate in _SKIP_PREDICATES or bool(_META_PREDICATE.match(predicate))


def _nt(term: Any) -> str:
    if isinstance(term, IRI):
        return f"<{term.value}>"
    if isinstance(term, BNode):
        return f"_:{term.id}"
    text = term.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if term.lang:
        return f'"{text}"@{term.lang}'
    if term.datatype:
        return f'"{text}"^^<{term.datatype}>'
    return f'"{text}"'


def _literal_raw(term: Literal) -> Any:
    if term.lang or term.datatype:
        out: dict[str, Any] = {"@value": term.value}
        if term.lang:
            out["@language"] = term.lang
        if term.datatype:
            out["@type"] = term.datatype
        return out
    return term.value


def records_from_triples(triples: list[Triple], doc: Document) -> list[Record]:
    by_subject: dict[Any, list[Triple]] = {}
    referenced: set[Any] = set()
    for t in triples:
        if _skipped(t.predicate.value):
            continue
        by_subject.setdefault(t.subject, []).append(t)
        if isinstance(t.object, BNode) and t.object != t.subject:
            referenced.add(t.object)

    def as_list(node: Any) -> list[Triple] | None:
        """The ``rdf:first`` triples of a well-formed RDF collection at ``node``, else None."""
        items: list[Triple] = []
        seen: set[Any] = set()
        while not (isinstance(node, IRI) and node.value == _RDF + "nil"):
            group = by_subject.get(node)
            if not isinstance(node, BNode) or node in seen or group is None or len(group) != 2:
                return None
            seen.add(node)
            preds = {t.predicate.value: t for t in group}
            if set(preds) != {_RDF + "first", _RDF + "rest"}:
                return None
            items.append(preds[_RDF + "first"])
            node = preds[_RDF + "rest"].object
        return items

    def value(obj: Any, subject: Any, inner: frozenset[Any]) -> tuple[Any, Any]:
        """``(value, raw)`` of one object term."""
        if isinstance(obj, Literal):
            return obj.value, _literal_raw(obj)
        if isinstance(obj, BNode):
            if obj in by_subject and obj not in inner:
                return build(obj, inner, False), None
            return {"@id": f"_:{obj.id}"}, _nt(obj)
        if obj.value == _RDF + "nil":
            return [], []
        if obj in by_subject and obj != subject:
            return {"@id": obj.value}, obj.value
        return obj.value, obj.value

    def build(subject: Any, building: frozenset[Any], top: bool) -> Record:
        group = by_subject[subject]
        first = next((t for t in group if t.predicate.value == RDF_TYPE), group[0])
        rec = Record(
            source_url=doc.url,
            format=FORMAT,
            source_element=doc.path_of(first.element),
            provenance=Provenance(parser=PARSER),
            id=subject.value if isinstance(subject, IRI) else None,
            raw=[" ".join((_nt(t.subject), _nt(t.predicate), _nt(t.object))) for t in group]
            if top
            else None,
        )
        inner = building | {subject}
        for t in group:
            obj = t.object
            if t.predicate.value == RDF_TYPE and isinstance(obj, IRI):
                rec.type.append(short_schema_name(obj.value))
                continue
            prop = short_schema_name(t.predicate.value)
            items = as_list(obj) if isinstance(obj, BNode) else None
            if items is None:
                val, raw = value(obj, subject, inner)
                rec.add_value(prop, val, doc.path_of(t.element), raw)
                continue
            # an RDF collection (inlist): a list value, each item with its own element
            values = [value(item.object, subject, inner) for item in items]
            current = rec.properties.get(prop, [])
            rec.properties[prop] = (current if isinstance(current, list) else [current]) + [
                v for v, _ in values
            ]
            for item, (_, raw) in zip(items, values, strict=True):
                rec.provenance.add(prop, doc.path_of(item.element), raw)
        return rec

    return [
        build(subject, frozenset(), True)
        for subject in by_subject
        if isinstance(subject, IRI) or subject not in referenced
    ]


def extract(doc: Document) -> list[Record]:
    return records_from_triples(rdfa_triples(doc.root, doc.url), doc)
