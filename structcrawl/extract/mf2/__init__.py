"""A microformats2 parser over an already-parsed lxml tree.

Implements the microformats2 parsing specification (https://microformats.org/wiki/microformats2-parsing):
``h-*`` roots, ``p-``/``u-``/``dt-``/``e-`` properties with the value class pattern, implied
``name``/``photo``/``url``, nested microformats, ``rels`` and ``rel-urls``, plus backcompat
parsing of the classic (v1) vocabularies (hCard, hEntry, hFeed, hEvent, hReview,
hReview-aggregate, hProduct, hRecipe, hResume, hNews, adr, geo) with the include pattern.

The tree is never re-parsed nor modified, and the walk is iterative, so documents nested
thousands of levels deep are fine.

>>> import lxml.html
>>> root = lxml.html.document_fromstring('<p class="h-card"><a href="/me">Jo</a></p>')
>>> has_microformats(root)
True
>>> parse_mf2(root, "https://example.org/")["items"]
[{'type': ['h-card'], 'properties': {'name': ['Jo'], 'url': ['https://example.org/me']}}]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lxml import etree

from ._parser import MAX_NESTING, ROOT_TOKEN, Mf2Parser, document_base
from ._scan import joined_classes
from ._vocab import BACKCOMPAT_ROOTS

__all__ = ["has_microformats", "parse_mf2"]


def has_microformats(
    root: etree._Element,
    classed: Iterable[etree._Element] | None = None,
    classes: Sequence[str] | None = None,
) -> bool:
    """Cheap check: does any element have a class token starting with ``h-``, or a classic
    root class (``vcard``, ``hentry``, ``hreview``, ``vevent``, ``hproduct``, ``hfeed``, ``adr``,
    ``geo``, ``hresume``, ``hrecipe``, ``hnews``, ``hreview-aggregate``)?

    The class attributes are read in one pass that stops at the first root token (tokens split
    on ASCII whitespace, as the parser does). A False answer guarantees that :func:`parse_mf2`
    finds no items (rels may still exist). ``classed``: the elements of ``root`` that have a
    ``class`` attribute, when known (``Document.index().having("class")``), read instead of
    walking the tree; ``classes``: their class values, in the same order, when known
    (``Document.index().values("class")``), read instead of the elements.
    """
    search = ROOT_TOKEN.search
    if classes is not None:  # joined and split once, not one search each (~1 ms a large page)
        joined = joined_classes(classes)
        return " h-" in joined or not BACKCOMPAT_ROOTS.isdisjoint(joined.split(" "))
    for el in root.iter(etree.Element) if classed is None else classed:
        cls = el.get("class")
        if cls and search(cls):
            return True
    return False


def parse_mf2(
    root: etree._Element,
    base_url: str,
    *,
    with_paths: bool = False,
    max_items: int | None = None,
    max_nesting: int = MAX_NESTING,
    rels: bool = True,
    classed: Iterable[etree._Element] | None = None,
    linked: Iterable[etree._Element] | None = None,
    base: str | None = None,
    classes: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Parse the document under ``root`` (the ``<html>`` element) for microformats.

    ``base_url`` is the document URL; a ``<base href>`` in the document is applied to it.
    Returns ``{"items": [...], "rels": {...}, "rel-urls": {...}}`` in the microformats2 JSON
    format. With ``with_paths=True`` every item dict also carries ``"_path"``, the XPath of its
    root element, and ``"_paths"``, per property the XPath of the element each value came from
    (implied values: the item element), both as ``root.getroottree().getpath(el)`` gives them,
    and the result carries ``"_limits": {"too_deep": n, "truncated": bool}``.

    Bounds: items nested deeper than ``max_nesting`` are ignored with their subtree; after
    ``max_items`` items nothing more is parsed. ``rels=False`` skips ``rels``/``rel-urls``.
    ``classed``/``linked``: the elements under ``root`` with a class / a rel attribute, in
    document order, when the caller already has them (saves a walk of the tree; with both,
    the walk of each microformat enters only subtrees where a class or rel may mean
    something); ``base``: the document base when the caller already applied ``<base href>``
    to ``base_url`` (saves another walk); ``classes``: the class values of ``classed``, in
    the same order, when the caller already read them.
    """
    if base is None:
        base = document_base(root, base_url)
    parser = Mf2Parser(
        root,
        base,
        with_paths,
        max_items=max_items,
        max_nesting=max_nesting,
        rels=rels,
        classed=classed,
        linked=linked,
        classes=classes,
    )
    result = parser.parse()
    if with_paths:
        result["_limits"] = {"too_deep": parser.too_deep, "truncated": parser.truncated}
    return result
