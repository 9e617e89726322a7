"""RDF term types produced by the RDFa processor, and the vocabulary IRIs it needs.

The term classes are tiny frozen dataclasses: hashable, comparable, and distinct from each other
(``IRI("x") != BNode("x")``), which plain tuples would not be.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeAlias

from lxml import etree

__all__ = [
    "IRI",
    "BNode",
    "Literal",
    "Triple",
    "Node",
    "Resource",
    "RDF_NS",
    "RDFA_NS",
    "XSD_NS",
    "XHV_NS",
    "RDF_TYPE",
    "RDF_FIRST",
    "RDF_REST",
    "RDF_NIL",
    "RDF_XMLLITERAL",
    "RDF_HTML",
    "RDFA_USES_VOCABULARY",
    "RDFA_COPY",
    "RDFA_PATTERN",
]


@dataclass(frozen=True, slots=True)
class IRI:
    """An absolute IRI (``value`` is the IRI string)."""

    value: str

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class BNode:
    """A blank node, identified within one document by ``id`` (no ``_:`` prefix)."""

    id: str

    def __str__(self) -> str:
        return "_:" + self.id


@dataclass(frozen=True, slots=True)
class Literal:
    """A literal: lexical ``value``, optional ``datatype`` IRI string, optional ``lang`` tag.

    For ``rdf:XMLLiteral`` and ``rdf:HTML`` literals the value is the serialized markup.
    """

    value: str
    datatype: str | None = None
    lang: str | None = None

    def __str__(self) -> str:
        return self.value


Resource: TypeAlias = IRI | BNode
Node: TypeAlias = IRI | BNode | Literal


class Triple(NamedTuple):
    """One generated statement, plus the element whose processing generated it."""

    subject: Resource
    predicate: IRI
    object: Node
    element: etree._Element


RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFA_NS = "http://www.w3.org/ns/rdfa#"
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
XHV_NS = "http://www.w3.org/1999/xhtml/vocab#"

RDF_TYPE = IRI(RDF_NS + "type")
RDF_FIRST = IRI(RDF_NS + "first")
RDF_REST = IRI(RDF_NS + "rest")
RDF_NIL = IRI(RDF_NS + "nil")
RDF_XMLLITERAL = RDF_NS + "XMLLiteral"
RDF_HTML = RDF_NS + "HTML"
RDFA_USES_VOCABULARY = IRI(RDFA_NS + "usesVocabulary")
RDFA_COPY = IRI(RDFA_NS + "copy")
RDFA_PATTERN = IRI(RDFA_NS + "Pattern")
