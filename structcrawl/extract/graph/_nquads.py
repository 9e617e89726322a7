"""N-Quads serialization of quads made of :mod:`structcrawl.extract.rdfa` terms.

Blank nodes are relabelled ``_:b0``, ``_:b1``... in order of first appearance, so one page
always gives the same labels (stable within a page) and labels from different layers never
collide. A literal is written with the datatype it has (``^^xsd:string`` only where a layer
gave it explicitly; plain literals have none).
"""

from __future__ import annotations

from typing import NamedTuple

from structcrawl.extract.rdfa._model import IRI, BNode, Node, Resource

__all__ = ["Quad", "relabel", "serialize_nquads", "term_nt"]


class Quad(NamedTuple):
    subject: Resource
    predicate: IRI
    object: Node
    graph: IRI | BNode | None  # None: the default graph


def _escape_iri(value: str) -> str:
    out = []
    for ch in value:
        if ord(ch) <= 0x20 or ch in '<>"{}|^`\\':
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return "".join(out)


_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}


def _escape_string(value: str) -> str:
    return "".join(_STRING_ESCAPES.get(ch, ch) for ch in value)


def term_nt(term: Node) -> str:
    """One term in N-Triples syntax.

    >>> from structcrawl.extract.rdfa._model import Literal
    >>> term_nt(Literal("a\\"b", lang="en")), term_nt(IRI("http://a.example/x y"))
    ('"a\\\\"b"@en', '<http://a.example/x\\\\u0020y>')
    """
    if isinstance(term, IRI):
        return f"<{_escape_iri(term.value)}>"
    if isinstance(term, BNode):
        return f"_:{term.id}"
    text = f'"{_escape_string(term.value)}"'
    if term.lang:
        return f"{text}@{term.lang}"
    if term.datatype:  # an explicit xsd:string is kept as the processor gave it
        return f"{text}^^<{_escape_iri(term.datatype)}>"
    return text


def relabel(quads: list[Quad], prefix: str = "b") -> list[Quad]:
    """The quads with blank nodes named ``b0``, ``b1``... (``prefix`` then a number) in order
    of first appearance (duplicates removed, order kept)."""
    names: dict[BNode, BNode] = {}

    def label(term: BNode) -> BNode:
        if term not in names:
            names[term] = BNode(f"{prefix}{len(names)}")
        return names[term]

    out: dict[Quad, None] = {}
    for q in quads:
        s = label(q.subject) if isinstance(q.subject, BNode) else q.subject
        o = label(q.object) if isinstance(q.object, BNode) else q.object
        g = label(q.graph) if isinstance(q.graph, BNode) else q.graph
        out[Quad(s, q.predicate, o, g)] = None
    return list(out)


def serialize_nquads(quads: list[Quad], prefix: str = "b") -> str:
    """N-Quads text, one line per quad (blank nodes relabelled with ``prefix``, duplicates
    dropped)."""
    lines = []
    for q in relabel(quads, prefix):
        parts = [term_nt(q.subject), term_nt(q.predicate), term_nt(q.object)]
        if q.graph is not None:
            parts.append(term_nt(q.graph))
        lines.append(" ".join(parts) + " .\n")
    return "".join(lines)
