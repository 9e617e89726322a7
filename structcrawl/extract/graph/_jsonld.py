"""The JSON-LD layer as RDF: each block through real JSON-LD expansion (PyLD ``to_rdf``).

Relative IRIs resolve against the document base (``<base href>`` counts); the schema.org
context is the bundled one and nothing is fetched
(:func:`structcrawl.extract.jsonld_html.expand_options`). Each block is read on its own, with
the same repairs as the records: a block that stays invalid gives no quads (its error record
says why), and a block that JSON-LD processing rejects (an unknown remote context, a keyword
misused) gives none either, and a problem saying so. Blank nodes are per block.
"""

from __future__ import annotations

from typing import Any

from pyld import jsonld as pyld_jsonld

from structcrawl.core.document import Document
from structcrawl.extract._jsonparse import parse_json
from structcrawl.extract.graph._nquads import Quad
from structcrawl.extract.jsonld import ld_json_scripts
from structcrawl.extract.jsonld_html import expand_options
from structcrawl.extract.rdfa._model import IRI, BNode, Literal, Node

__all__ = ["block_quads", "describe_error", "jsonld_quads"]

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _term(block: int, node: dict[str, Any]) -> Node:
    kind, value = node["type"], node["value"]
    if kind == "IRI":
        return IRI(value)
    if kind == "blank node":
        return BNode(f"j{block}.{value[2:]}")
    datatype = node.get("datatype")
    if datatype == _XSD_STRING or node.get("language"):
        datatype = None  # a plain (or language-tagged) string, as PyLD's N-Quads writer says
    return Literal(value, datatype, node.get("language"))


def describe_error(exc: BaseException) -> str:
    """``code: message`` of the innermost JSON-LD error (PyLD wraps the cause)."""
    inner: BaseException = exc
    while inner.__cause__ is not None:
        inner = inner.__cause__
    code = getattr(inner, "code", None) or getattr(exc, "code", None) or type(inner).__name__
    message = inner.args[0] if inner.args else str(inner)
    return f"{code}: {str(message).splitlines()[0][:300]}"


def block_quads(value: Any, base: str, block: int, layer_graph: IRI | None) -> list[Quad]:
    """The quads of one parsed JSON-LD value (its default graph named ``layer_graph``, or
    left the default graph when ``None``)."""
    dataset = pyld_jsonld.to_rdf(value, expand_options(base))
    quads: list[Quad] = []
    for graph_name, triples in dataset.items():
        graph: IRI | BNode | None
        if graph_name == "@default":
            graph = layer_graph
        elif graph_name.startswith("_:"):
            graph = BNode(f"j{block}.{graph_name[2:]}")
        else:
            graph = IRI(graph_name)
        for t in triples:
            s, p, o = (_term(block, t[k]) for k in ("subject", "predicate", "object"))
            assert isinstance(s, IRI | BNode) and isinstance(p, IRI)
            quads.append(Quad(s, p, o, graph))
    return quads


def jsonld_quads(
    doc: Document, layer_graph: IRI, repairs: str = "safe"
) -> tuple[list[Quad], list[tuple[str, str]]]:
    """The quads of every JSON-LD block of the page, in block order, and ``(element,
    message)`` for each block JSON-LD processing rejected."""
    limits = doc.limits
    quads: list[Quad] = []
    problems: list[tuple[str, str]] = []
    for index, script in enumerate(ld_json_scripts(doc)[: limits.max_blocks]):
        text = script.text or ""
        if not text.strip() or len(text) > limits.max_json_chars:
            continue
        parsed = parse_json(
            text,
            repair=repairs,
            max_depth=limits.max_json_depth,
            max_repair_chars=limits.max_repair_chars,
        )
        if not parsed.ok:
            continue
        value = parsed.values[0] if len(parsed.values) == 1 else parsed.values
        try:
            quads.extend(block_quads(value, doc.base_url, index, layer_graph))
        except Exception as exc:  # noqa: BLE001 - JSON-LD processing rejected the block
            problems.append((doc.path_of(script), describe_error(exc)))
    return quads, problems
