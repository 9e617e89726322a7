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
  comes back as an IRI.

Only the RDF layers are read (``json-ld``, ``microdata``, ``rdfa``); Microdata references
left by a bound (``{"@ref": path}``) have no IRI and give no triple.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from structcrawl.core.values import XSD, is_record, is_ref, is_value_object
from structcrawl.extract._schemacontext import url_properties
from structcrawl.extract.graph._nquads import Quad
from structcrawl.extract.rdfa._model import IRI, RDF_TYPE, BNode, Literal, Node, Resource

__all__ = ["SCHEMA", "record_quads", "term_iri"]

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
