"""Which elements may open a microformat: the class scan that starts the walk of
:mod:`._parser` (and the cheap page check of :func:`structcrawl.extract.mf2.has_microformats`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from itertools import accumulate, compress
from typing import Final, cast

from lxml import etree

from ._vocab import BACKCOMPAT_CLASS_NAMES, BACKCOMPAT_ROOTS

__all__ = ["MEANINGFUL", "ROOT_TOKEN", "class_scan", "joined_classes"]

_WS: Final = "[ \\t\\n\\f\\r]"  # ASCII whitespace: what class tokens are split on
_CLASSIC: Final = "|".join(sorted(map(re.escape, BACKCOMPAT_ROOTS), key=len, reverse=True))
#: A class token that opens a microformat: ``h-*`` or a classic root (a superset of the exact
#: checks: ``mf2_roots`` and membership in ``BACKCOMPAT_ROOTS``).
ROOT_TOKEN: Final = re.compile(rf"(?:^|{_WS})(?:h-|(?:{_CLASSIC})(?:{_WS}|$))")
_NAMED: Final = "|".join(sorted(map(re.escape, BACKCOMPAT_CLASS_NAMES), key=len, reverse=True))
#: A class token that may mean something to the walk: an mf2 root or property prefix, or a
#: class name of the classic vocabularies. A class attribute without one is skipped at once.
MEANINGFUL: Final = re.compile(rf"(?:^|{_WS})(?:(?:h|p|u|dt|e)-|(?:{_NAMED})(?:{_WS}|$))")

_TO_SPACE: Final = str.maketrans("\t\n\f\r", "    ")


def joined_classes(values: Iterable[str]) -> str:
    """Class attribute values joined by spaces, their ASCII whitespace made spaces and a space
    added at both ends: each token is ``" <token> "`` in it, and ``split(" ")`` gives them.

    >>> joined_classes(["h-card\tvcard", "p-name"])
    ' h-card vcard p-name '
    """
    return f" {' '.join(values).translate(_TO_SPACE)} "


#: What a property prefix of :data:`MEANINGFUL` looks like in the class attributes joined by
#: spaces, whitespace made spaces and a space added at both ends (class names, its other
#: tokens, are looked up among the page's tokens).
_PROPERTY_NEEDLES: Final = (" h-", " p-", " u-", " dt-", " e-")


def class_scan(
    root: etree._Element,
    classed: Iterable[etree._Element] | None = None,
    classes: Sequence[str] | None = None,
) -> tuple[list[etree._Element], bool, dict[etree._Element, str], list[etree._Element]]:
    """One pass over the class attributes under ``root`` (itself included): the elements
    that may open a microformat (a class token starting with ``h-`` or a classic root, not
    inside a ``<template>``), in document order; whether any class contains ``value`` (the
    value class pattern may apply); and, when there are candidates, the non-empty class
    attributes it read by element and the elements whose class may mean something to the
    walk (a :data:`MEANINGFUL` token, or ``include`` for the classic include pattern), in
    document order (else empty). ``classed``: the elements under ``root`` that carry a class
    attribute, in document order, when the caller already knows them (a shared
    :class:`~structcrawl.core.document.ElementIndex`); ``classes``: their class values, in
    the same order, when it read them too.

    The classes are joined into one string (space-separated, whitespace made spaces, a space
    at both ends) and searched for the tokens at C speed; each hit is mapped back to its
    element by offset and checked with the element's own regular expression, so only the few
    elements a hit points at are tested one by one.
    """
    elements = list(root.iter(etree.Element) if classed is None else classed)
    read = [el.get("class") for el in elements] if classes is None or classed is None else classes
    if not all(read):  # no attribute (a whole tree), or class="": not a class
        elements, read = list(compress(elements, read)), list(filter(None, read))
    texts = cast("list[str]", read)  # all non-empty now
    joined = joined_classes(texts)
    has_value = "value" in joined
    tokens = set(joined.split(" "))
    roots = [f" {name} " for name in tokens.intersection(BACKCOMPAT_ROOTS)]
    if " h-" in joined:
        roots.append(" h-")
    if not roots:
        return [], has_value, {}, []
    # texts[i] is joined[starts[i] : starts[i] + len(texts[i])]
    starts = list(accumulate(map((1).__add__, map(len, texts)), initial=1))
    candidates = []
    for i in _hits(joined, roots, starts):
        el, cls = elements[i], texts[i]
        if ROOT_TOKEN.search(cls) and el.tag != "template":
            if next(el.iterancestors("template"), None) is None:
                candidates.append(el)
    named = tokens.intersection(BACKCOMPAT_CLASS_NAMES)
    needles = [*_PROPERTY_NEEDLES, *(f" {name} " for name in named)]
    makers = [
        elements[i]
        for i in _hits(joined, [n for n in needles if n in joined], starts, ["include"])
        if "include" in texts[i] or MEANINGFUL.search(texts[i])
    ]
    return candidates, has_value, dict(zip(elements, texts, strict=True)), makers


def _hits(
    joined: str, tokens: list[str], starts: list[int], substrings: tuple[str, ...] | list[str] = ()
) -> list[int]:
    """The indices of the classes (at offsets ``starts`` in ``joined``) where a token (a
    needle starting with a space: the token starts after it) or a substring occurs, sorted."""
    found: set[int] = set()
    for needle, shift in (*((t, 1) for t in tokens), *((t, 0) for t in substrings)):
        pos = joined.find(needle)
        while pos >= 0:
            found.add(bisect_right(starts, pos + shift) - 1)
            pos = joined.find(needle, pos + 1)
    return sorted(found)
