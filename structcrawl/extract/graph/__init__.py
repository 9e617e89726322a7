"""The page's RDF dataset, lossless: what the structured layers say, as quads.

:func:`page_graph` reads one parsed page: JSON-LD through real JSON-LD expansion (PyLD, the
bundled schema.org context, no network, relative IRIs against the document base), Microdata
by the W3C Microdata to RDF mapping, RDFa from the processor's triples, all of them
(``rdfa:usesVocabulary`` and the page-metadata predicates such as ``og:`` included). Each layer
writes its triples into a named graph of its own (:data:`LAYER_GRAPHS`); named graphs a JSON-LD
block declares keep their own names. A checker that wants one graph reads every quad whatever
its graph. Blank nodes are stable within a page (``_:b0``, ``_:b1``... in order of first
appearance). :func:`to_nquads` writes N-Quads, :func:`to_expanded_jsonld` expanded JSON-LD
(PyLD ``from_rdf``, no native types: nothing is rounded).

``structcrawl extract PAGE --format nquads|jsonld`` prints it; the ``graph`` feed writes it per
page. :func:`record_quads` goes the other way, from records (the RDFa round trip test).
Pure functions: no Scrapy imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pyld import jsonld as pyld_jsonld

from structcrawl.core.document import Document, parse_html
from structcrawl.core.payload import classify
from structcrawl.extract._jsonparse import parse_json
from structcrawl.extract.graph._jsonld import block_quads, describe_error, jsonld_quads
from structcrawl.extract.graph._microdata import microdata_quads
from structcrawl.extract.graph._nquads import Quad, relabel, serialize_nquads
from structcrawl.extract.graph._records import record_quads
from structcrawl.extract.options import DEFAULT_OPTIONS, ExtractOptions
from structcrawl.extract.rdfa._model import IRI
from structcrawl.extract.rdfa.triples import document_triples

__all__ = [
    "GRAPH_FORMATS",
    "GRAPH_SYNTAXES",
    "LAYER_GRAPHS",
    "jsonld_document_nquads",
    "PageGraph",
    "Quad",
    "page_graph",
    "payload_graph",
    "render_graph",
    "record_quads",
    "to_expanded_jsonld",
    "to_nquads",
]

#: The layers the graph export reads, and the named graph each writes its triples into.
LAYER_GRAPHS: dict[str, IRI] = {
    "json-ld": IRI("urn:structcrawl:graph:json-ld"),
    "microdata": IRI("urn:structcrawl:graph:microdata"),
    "rdfa": IRI("urn:structcrawl:graph:rdfa"),
}
GRAPH_SYNTAXES = tuple(LAYER_GRAPHS)


@dataclass(slots=True)
class PageGraph:
    """The quads of one page, and the problems met on the way (``(layer, element, message)``:
    a JSON-LD block JSON-LD processing rejected, a bound reached)."""

    quads: list[Quad] = field(default_factory=list)
    problems: list[tuple[str, str, str]] = field(default_factory=list)


def page_graph(
    doc: Document,
    syntaxes: Iterable[str] | None = None,
    options: ExtractOptions | None = None,
) -> PageGraph:
    """The RDF dataset of the page's structured layers (``syntaxes``: a selection of
    :data:`GRAPH_SYNTAXES`; others named are ignored, they are not RDF)."""
    options = options or DEFAULT_OPTIONS
    wanted = GRAPH_SYNTAXES if syntaxes is None else tuple(syntaxes)
    out = PageGraph()
    if "json-ld" in wanted:
        quads, problems = jsonld_quads(doc, LAYER_GRAPHS["json-ld"], options.jsonld_repairs)
        out.quads.extend(quads)
        out.problems.extend(("json-ld", element, message) for element, message in problems)
    if "microdata" in wanted:
        graph = LAYER_GRAPHS["microdata"]
        out.quads.extend(microdata_quads(doc, graph, options.microdata_mode))
    if "rdfa" in wanted:
        triples, reached = document_triples(doc)
        graph = LAYER_GRAPHS["rdfa"]
        out.quads.extend(Quad(t.subject, t.predicate, t.object, graph) for t in triples)
        out.problems.extend(("rdfa", "", f"bound reached: {bound}") for bound in reached)
    return out


def to_nquads(quads: list[Quad], prefix: str = "b") -> str:
    """N-Quads text (blank nodes relabelled ``<prefix>0``, ``<prefix>1``... in order of first
    appearance; a feed of several pages gives each page its own prefix)."""
    return serialize_nquads(quads, prefix)


def to_expanded_jsonld(quads: list[Quad]) -> list[dict[str, Any]]:
    """Expanded JSON-LD of the dataset (named graphs as ``@graph`` objects; literals keep
    their lexical form and datatype)."""
    text = serialize_nquads(relabel(quads))
    result = pyld_jsonld.from_rdf(text, {"format": "application/n-quads", "useNativeTypes": False})
    return list(result)


#: Output formats of :func:`render_graph`.
GRAPH_FORMATS = ("nquads", "jsonld")


def payload_graph(
    body: bytes,
    url: str,
    content_type: str | None = None,
    *,
    syntaxes: Iterable[str] | None = None,
    options: ExtractOptions | None = None,
) -> PageGraph:
    """:func:`page_graph` for a response body: an HTML page is parsed (once); a JSON-LD
    document (``application/ld+json``, or JSON with a ``@context``) is one JSON-LD block;
    anything else carries no RDF."""
    kind = classify(content_type, body)
    if kind == "html":
        return page_graph(parse_html(body, url, content_type=content_type), syntaxes, options)
    out = PageGraph()
    if kind != "json" or (syntaxes is not None and "json-ld" not in tuple(syntaxes)):
        return out
    parsed = parse_json(body.decode("utf-8", "replace").lstrip("\ufeff"), repair=False)
    value = parsed.values[0] if parsed.ok and len(parsed.values) == 1 else None
    if not isinstance(value, dict | list) or "@context" not in str(value)[:10_000]:
        return out
    try:
        out.quads.extend(block_quads(value, url, 0, LAYER_GRAPHS["json-ld"]))
    except Exception as exc:  # noqa: BLE001 - JSON-LD processing rejected the document
        out.problems.append(("json-ld", "", describe_error(exc)))
    return out


def render_graph(graph: PageGraph, fmt: str) -> str:
    """The dataset as text: ``nquads`` (N-Quads) or ``jsonld`` (expanded JSON-LD)."""
    if fmt == "nquads":
        return to_nquads(graph.quads)
    if fmt == "jsonld":
        return json.dumps(to_expanded_jsonld(graph.quads), ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown graph format {fmt!r}; known: {', '.join(GRAPH_FORMATS)}")


def jsonld_document_nquads(document: Any, base: str) -> str:
    """N-Quads of one JSON-LD document as the JSON-LD API's toRdf gives it (its default graph
    unnamed): what the graph export does with each block, before naming the layer's graph."""
    quads = block_quads(document, base, 0, None)
    return to_nquads(quads)
