"""The RDFa processor's entry points: triples of a document, with bounds."""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from structcrawl.core._index import ElementIndex
from structcrawl.core.document import Document

from ._copy import copy_properties_bounded, deduplicate
from ._iri import BASE_TAGS, document_base
from ._model import RDFA_COPY, Triple
from ._processor import process_bounded

__all__ = ["document_triples", "rdfa_triples", "rdfa_triples_bounded"]


def rdfa_triples(root: etree._Element, base_url: str) -> list[Triple]:
    """Extract the RDFa triples of the document whose ``<html>`` element is ``root``.

    ``base_url`` is the document URL; a ``<base href>`` in the document is applied on top of it
    (and the fragment is dropped). Triples come in document order, without duplicates; each
    carries the element whose processing generated it.
    """
    return rdfa_triples_bounded(root, base_url)[0]


def rdfa_triples_bounded(
    root: etree._Element,
    base_url: str,
    *,
    max_elements: int | None = None,
    max_copies: int | None = None,
    index: ElementIndex | None = None,
    skip: Callable[[str], bool] | None = None,
) -> tuple[list[Triple], list[str]]:
    """:func:`rdfa_triples` with bounds: at most ``max_elements`` elements carrying RDFa
    attributes are processed, and at most ``max_copies`` triples copied by ``rdfa:copy``.
    Returns the triples and the bounds that were reached (``"max_elements"``,
    ``"max_copies"``). ``index``: the elements of the tree under ``root`` by attribute, when
    the caller has them (a parsed page's shared index). ``skip``: predicates whose triples the
    caller drops: leaves that would only state their values are not processed, so those
    triples may be missing (the others are the same; a page that copies properties with
    ``rdfa:copy`` is read in full, as copies count towards ``max_copies``)."""
    base = document_base(root, base_url, index.named(*BASE_TAGS) if index is not None else None)
    reached = []
    triples, truncated = process_bounded(root, base, max_elements, index, skip)
    if skip is not None and any(t.predicate == RDFA_COPY for t in triples):
        triples, truncated = process_bounded(root, base, max_elements, index)
    if truncated:
        reached.append("max_elements")
    triples, cut = copy_properties_bounded(triples, max_copies)
    if cut:
        reached.append("max_copies")
    return deduplicate(triples), reached


def document_triples(
    doc: Document, skip: Callable[[str], bool] | None = None
) -> tuple[list[Triple], list[str]]:
    """:func:`rdfa_triples_bounded` of a parsed page, within its bounds (``max_rdfa_elements``
    elements, ``max_visits`` copies) and over its shared element index."""
    limits = doc.limits
    return rdfa_triples_bounded(
        doc.root,
        doc.url,
        max_elements=limits.max_rdfa_elements,
        max_copies=limits.max_visits,
        index=doc.index(),
        skip=skip,
    )
