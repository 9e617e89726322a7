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

from typing import Any, Final

from lxml import etree

from ._parser import Mf2Parser, document_base
from ._vocab import BACKCOMPAT_ROOTS, split_tokens

__all__ = ["has_microformats", "parse_mf2"]

_CLASS_CANDIDATES: Final = etree.XPath(
    "descendant-or-self::*/@class[contains(., 'h-')"
    + "".join(f" or contains(., '{name}')" for name in sorted(BACKCOMPAT_ROOTS))
    + "]"
)


def has_microformats(root: etree._Element) -> bool:
    """Cheap check: does any element have a class token starting with ``h-``, or a classic
    root class (``vcard``, ``hentry``, ``hreview``, ``vevent``, ``hproduct``, ``hfeed``, ``adr``,
    ``geo``, ``hresume``, ``hrecipe``, ``hnews``, ``hreview-aggregate``)?

    One XPath selects the class attributes containing one of those strings; their tokens
    (split on ASCII whitespace, as the parser does) are then checked until the first hit.
    A False answer guarantees that :func:`parse_mf2` finds no items (rels may still exist).
    """
    for value in _CLASS_CANDIDATES(root):
        for token in split_tokens(value):
            if token.startswith("h-") or token in BACKCOMPAT_ROOTS:
                return True
    return False


def parse_mf2(root: etree._Element, base_url: str, *, with_paths: bool = False) -> dict[str, Any]:
    """Parse the document under ``root`` (the ``<html>`` element) for microformats.

    ``base_url`` is the document URL; a ``<base href>`` in the document is applied to it.
    Returns ``{"items": [...], "rels": {...}, "rel-urls": {...}}`` in the microformats2 JSON
    format. With ``with_paths=True`` every item dict also carries ``"_path"``, the XPath of its
    root element, and ``"_paths"``, per property the XPath of the element each value came from
    (implied values: the item element), both as ``root.getroottree().getpath(el)`` gives them.
    """
    base = document_base(root, base_url)
    return Mf2Parser(root, base, with_paths).parse()
