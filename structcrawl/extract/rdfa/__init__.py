"""A conformant RDFa 1.1 processor (RDFa Core 1.1, HTML5 host language) over an lxml tree.

>>> import lxml.html
>>> root = lxml.html.document_fromstring(
...     '<html><head><meta property="og:title" content="Hi"></head></html>')
>>> [(t.subject.value, t.predicate.value, t.object.value) for t in rdfa_triples(root, "http://a.test/")]
[('http://a.test/', 'http://ogp.me/ns#title', 'Hi')]

Pure Python, no network access, nothing executed. The W3C RDFa 1.1 initial context (prefixes and
terms) is built in; ``<base href>`` is honoured; HTML+RDFa specifics (``<time>``/``@datetime``
typing, ``head``/``body`` subjects, ``@rel`` muting beside ``@property``, property copying) are
implemented.
"""

from __future__ import annotations

from ._context import INITIAL_PREFIXES, INITIAL_TERMS
from ._model import IRI, BNode, Literal, Node, Resource, Triple
from .records import FORMAT, PARSER, extract, records_from_triples
from .triples import rdfa_triples, rdfa_triples_bounded

__all__ = [
    "rdfa_triples",
    "rdfa_triples_bounded",
    "IRI",
    "BNode",
    "Literal",
    "Triple",
    "Node",
    "Resource",
    "INITIAL_PREFIXES",
    "INITIAL_TERMS",
    "FORMAT",
    "PARSER",
    "extract",
    "records_from_triples",
]
