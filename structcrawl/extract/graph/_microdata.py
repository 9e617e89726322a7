"""The Microdata layer as RDF, by the W3C Microdata to RDF mapping (Note, 2nd edition).

Every top-level item (and, in practical mode, every orphan ``itemscope``+``itemprop`` item)
gives a subject: its ``itemid``, else a blank node; each ``itemtype`` an ``rdf:type``. A
property name that is an absolute URL is its own IRI; otherwise it is the item's vocabulary
(its first type up to the last ``#`` or ``/``, else the enclosing item's) plus the name, and
without any vocabulary the document URL ``#`` name. Values: a nested item is its subject; a URL
attribute (``href``, ``src``, ``data``) an IRI; ``time@datetime`` a literal typed by its lexical
form (``xsd:date``, ``xsd:dateTime``, ``xsd:duration``...); any other value a literal in the
element's language (``lang``, inherited). Properties are found by the same crawl as the
records (:mod:`structcrawl.extract.microdata`), so ``itemref`` and the bounds apply alike.
"""

from __future__ import annotations

from urllib.parse import urldefrag

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.extract import microdata
from structcrawl.extract.graph._nquads import Quad
from structcrawl.extract.rdfa._literals import temporal_datatype
from structcrawl.extract.rdfa._model import IRI, RDF_TYPE, BNode, Literal, Node, Resource

__all__ = ["microdata_quads"]

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def _language(el: etree._Element) -> str | None:
    for node in (el, *el.iterancestors()):
        lang = node.get(_XML_LANG) or node.get("lang")
        if lang is not None:
            return lang or None
    return None


class _Mapper:
    def __init__(self, doc: Document, practical: bool, graph: IRI):
        self.doc = doc
        self.graph = graph
        self.crawler = microdata.ItemCrawler(doc, practical)
        self.practical = practical
        self.subjects: dict[etree._Element, Resource] = {}
        self.quads: list[Quad] = []
        self.base = urldefrag(doc.url)[0]

    def property_iri(self, name: str, vocab: str | None) -> IRI:
        if ":" in name:
            return IRI(_schema_http(name))
        if vocab is not None:
            return IRI(vocab + name)
        return IRI(f"{self.base}#{name}")

    def value(self, el: etree._Element, vocab: str | None, depth: int) -> Node | None:
        if el.get("itemscope") is not None:
            if depth >= self.doc.limits.max_nesting or self.crawler.exhausted():
                return None
            return self.item(el, vocab, depth + 1)
        seen = microdata.property_value(self.doc, el, self.practical)
        if seen.attribute in ("href", "src", "data") and seen.value:
            return IRI(seen.value)
        if seen.attribute == "datetime":
            return Literal(seen.value, temporal_datatype(seen.value))
        return Literal(seen.value, None, _language(el))

    def item(self, el: etree._Element, inherited: str | None, depth: int = 0) -> Resource:
        known = self.subjects.get(el)
        if known is not None:
            return known
        itemid = (el.get("itemid") or "").strip()
        subject: Resource = (
            IRI(self.doc.resolve(itemid)) if itemid else BNode(f"m{len(self.subjects)}")
        )
        self.subjects[el] = subject
        self.crawler.items += 1
        types = (el.get("itemtype") or "").split()
        for t in types:
            if ":" in t:
                self.quads.append(Quad(subject, RDF_TYPE, IRI(_schema_http(t)), self.graph))
        vocab = _vocabulary(types, inherited)
        for prop_el in self.crawler.crawl(el):
            obj = self.value(prop_el, vocab, depth)
            if obj is None:
                continue
            for name in dict.fromkeys((prop_el.get("itemprop") or "").split()):
                self.quads.append(Quad(subject, self.property_iri(name, vocab), obj, self.graph))
        return subject


_SCHEMA_SPELLINGS = ("https://schema.org/", "http://www.schema.org/", "https://www.schema.org/")


def _schema_http(iri: str) -> str:
    """schema.org IRIs in the namespace its own context uses (``http://schema.org/``), so that
    the layers agree on one spelling.

    >>> _schema_http("https://schema.org/Product"), _schema_http("http://v.example/T")
    ('http://schema.org/Product', 'http://v.example/T')
    """
    for spelling in _SCHEMA_SPELLINGS:
        if iri.startswith(spelling):
            return "http://schema.org/" + iri[len(spelling) :]
    return iri


def _vocabulary(types: list[str], inherited: str | None) -> str | None:
    """The vocabulary of an item: its first type up to the last ``#`` or ``/``."""
    if not types or ":" not in types[0]:
        return inherited
    first = _schema_http(types[0])
    return first[: max(first.rfind("#"), first.rfind("/")) + 1]


def microdata_quads(doc: Document, graph: IRI, mode: str = "practical") -> list[Quad]:
    """The quads of the page's Microdata, in document order of the items."""
    mapper = _Mapper(doc, mode == "practical", graph)
    scopes = microdata.item_scopes(doc)
    for el in scopes:
        if mapper.crawler.exhausted():
            break
        if el.get("itemprop") is None:
            mapper.item(el, None)
    if mode == "practical":
        for el in scopes:
            if el.get("itemprop") is None or el in mapper.crawler.owned:
                continue
            if mapper.crawler.exhausted() or microdata.in_item(el):
                continue
            mapper.item(el, None)
    return mapper.quads
