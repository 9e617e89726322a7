"""From records back to RDF: the quads that records (``Record.to_dict()``) state.

What the records leave out of the processor's triples, by design (the round trip test,
``tests/test_graph_roundtrip.py``, checks that nothing else differs):

* ``rdfa:usesVocabulary`` and the page-metadata predicates (``og:``, ``article:``,
  ``twitter:``...), which the ``opengraph`` layer reports instead;
* the structure of RDF collections (``inlist``): their members are one list value in order,
  so they come back as repeated values (``rdf:first``/``rdf:rest``/``rdf:nil`` are not
  rebuilt);
* the spelling of the schema.org namespace: records name schema.org terms by their short
  names, which come back as ``http://schema.org/`` IRIs whether the page wrote ``http`` or
  ``https``;
* under schema.org properties whose range includes ``URL`` (``url``, ``image``...), an IRI
  and a plain literal with the same text are one string in records: an absolute URL there
  comes back as an IRI; under properties whose every range is a datatype (``telephone``), an
  IRI is a string in records and comes back as a plain literal;
* the identity of a blank node that several triples point at: it is nested in each subject
  (or, past the bounds, a record of its own referenced by ``_:label``).

:func:`kept_by_records` applies that list to a processor's quads: what records are expected
to give back.

Only the RDF layers are read (``json-ld``, ``microdata``, ``rdfa``); Microdata references
left by a bound (``{"@ref": path}``) have no IRI and give no triple.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from structcrawl.core.records import short_schema_name
from structcrawl.core.values import XSD, is_record, is_ref, is_value_object
from structcrawl.extract._schemacontext import literal_properties, url_properties
from structcrawl.extract.graph._nquads import Quad
from structcrawl.extract.rdfa._model import (
    IRI,
    RDF_FIRST,
    RDF_NIL,
    RDF_REST,
    RDF_TYPE,
    BNode,
    Literal,
    Node,
    Resource,
)
from structcrawl.extract.rdfa.records import skipped_predicate

__all__ = ["SCHEMA", "kept_by_records", "record_quads", "term_iri"]

SCHEMA = "http://schema.org/"
_RDF_FORMATS = frozenset({"json-ld", "microdata", "rdfa"})
_ABSOLUTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S*$")


def term_iri(name: str) -> IRI:
    """The IRI of a record's type or property name (short names are schema.org's).

    >>> term_iri("price").value, term_iri("http://xmlns.com/foaf/0.1/name").value
    ('http://schema.org/price', 'http://xmlns.com/foaf/0.1/name')
    """
    return IRI(name if ":" in name else SCHEMA + name)


def _resource(ident: str) -> Resource:
    return BNode(ident[2:]) if ident.startswith("_:") else IRI(ident)


class _Writer:
    def __init__(self, graph: IRI | None):
        self.graph = graph
        self.quads: list[Quad] = []
        self.fresh = 0

    def subject(self, rec: dict[str, Any]) -> Resource:
        ident = rec.get("id")
        if isinstance(ident, str) and ident:
            return _resource(ident)
        self.fresh += 1
        return BNode(f"rec{self.fresh}")

    def record(self, rec: dict[str, Any]) -> Resource:
        subject = self.subject(rec)
        for t in rec.get("type") or []:
            self.quads.append(Quad(subject, RDF_TYPE, term_iri(t), self.graph))
        for prop, value in (rec.get("properties") or {}).items():
            predicate = term_iri(prop)
            for obj in self.objects(prop, value):
                self.quads.append(Quad(subject, predicate, obj, self.graph))
        return subject

    def objects(self, prop: str, value: Any) -> list[Node]:
        if isinstance(value, list):
            return [o for v in value for o in self.objects(prop, v)]
        if is_record(value):
            return [self.record(value)]
        if is_ref(value):
            return [_resource(value["@id"])]
        if is_value_object(value):
            kind, lang = value.get("@type"), value.get("@language")
            datatype = term_iri(kind).value if isinstance(kind, str) else None
            return [Literal(_lexical(value["@value"]), datatype, lang)]
        if isinstance(value, dict):  # {"@ref": path}: a reference without an IRI
            return []
        if isinstance(value, bool):
            return [Literal("true" if value else "false", XSD + "boolean")]
        if isinstance(value, int):
            return [Literal(str(value), XSD + "integer")]
        if isinstance(value, float):
            return [Literal(repr(value), XSD + "double")]
        if value is None:
            return []
        text = str(value)
        if prop in url_properties() and _ABSOLUTE.match(text):
            return [IRI(text)]
        return [Literal(text)]


def _lexical(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def record_quads(records: Iterable[dict[str, Any]], graph: IRI | None = None) -> list[Quad]:
    """The quads the entity records of the RDF layers state (see the module docstring)."""
    writer = _Writer(graph)
    for rec in records:
        if rec.get("kind", "entity") == "entity" and rec.get("format") in _RDF_FORMATS:
            writer.record(rec)
    return writer.quads


def _collections(quads: list[Quad]) -> dict[BNode, list[Node]]:
    """Well-formed RDF collections: head blank node -> members (the RDFa records' rule)."""
    by_subject: dict[Resource, list[Quad]] = {}
    for q in quads:
        by_subject.setdefault(q.subject, []).append(q)
    lists: dict[BNode, list[Node]] = {}
    for head in by_subject:
        node: Node = head
        members: list[Node] = []
        seen: set[Node] = set()
        while node != RDF_NIL:
            group = by_subject.get(node) if isinstance(node, BNode) else None
            if group is None or node in seen or len(group) != 2:
                break
            seen.add(node)
            preds = {q.predicate: q.object for q in group}
            if set(preds) != {RDF_FIRST, RDF_REST}:
                break
            members.append(preds[RDF_FIRST])
            node = preds[RDF_REST]
        else:
            if isinstance(head, BNode) and members:
                lists[head] = members
    return lists


def _schema(iri: IRI) -> IRI:
    short = short_schema_name(iri.value)
    return IRI(SCHEMA + short) if short != iri.value else iri


def kept_by_records(quads: list[Quad]) -> list[Quad]:
    """A processor's quads as records keep them (the losses listed in the module docstring,
    blank node identity aside)."""
    lists = _collections(quads)
    cells = _list_cells(quads, lists)
    out: list[Quad] = []
    for q in quads:
        if skipped_predicate(q.predicate.value) or q.subject in cells or q.object == RDF_NIL:
            continue
        predicate = _schema(q.predicate)
        objects = lists.get(q.object, [q.object]) if isinstance(q.object, BNode) else [q.object]
        for obj in objects:
            out.append(Quad(q.subject, predicate, _as_records_say(predicate, obj), q.graph))
    return out


def _list_cells(quads: list[Quad], lists: dict[BNode, list[Node]]) -> set[Resource]:
    cells: set[Resource] = set()
    rest = {q.subject: q.object for q in quads if q.predicate == RDF_REST}
    for head in lists:
        node: Node = head
        while isinstance(node, BNode) and node not in cells:
            cells.add(node)
            node = rest.get(node, RDF_NIL)
    return cells


def _as_records_say(predicate: IRI, obj: Node) -> Node:
    name = short_schema_name(predicate.value)
    if predicate == RDF_TYPE and isinstance(obj, IRI):
        return _schema(obj)
    if name in url_properties() and isinstance(obj, Literal):
        if not obj.lang and not obj.datatype and _ABSOLUTE.match(obj.value):
            return IRI(obj.value)
    if name in literal_properties() and name not in url_properties() and isinstance(obj, IRI):
        return Literal(obj.value)
    return obj
