"""Per-page extraction bounds: what one hostile or broken page may cost, at most.

Every bound has a sensible default for real pages and turns into an error record naming it
when a page goes past it, instead of a crash, a hang or unbounded memory:

==========================  ==========================  =======================================
bound                       default                     past it
==========================  ==========================  =======================================
``max_body_bytes``          15,000,000 bytes            HTML: only the first bytes are parsed
                                                        (``document-too-large``); a JSON
                                                        response is not read (``json-too-large``)
``max_elements``            250,000 start tags          HTML: the body is cut before the
                                                        250,001st ``<`` + letter
                                                        (``document-too-large``)
``max_dom_depth``           2,048 levels (libxml2's)    the page is rebuilt, deeper parts
                                                        re-attached at half that depth, nothing
                                                        dropped (``document-too-deep``)
``max_json_chars``          5,000,000 characters        ``json-ld-too-large`` / ``json-too-large``
``max_json_depth``          100 nested arrays/objects   ``json-ld-too-deep`` / ``json-too-deep``
``max_repair_chars``        1,000,000 characters        a larger invalid block is not repaired
                                                        (still ``json-ld-invalid``)
``max_blocks``              10,000 scripts per layer    ``json-ld-too-many-blocks`` /
                                                        ``data-block-too-many-blocks``
``max_items``               10,000 records (or meta     ``<layer>-too-many-items``
                            values) per layer
``max_visits``              2,000,000 per layer         ``<layer>-too-complex``: microdata
                                                        element visits (``itemref`` lets items
                                                        share elements); RDFa values placed in
                                                        records (shared blank nodes) and
                                                        triples copied by ``rdfa:copy``
``max_shared``              1,000 rebuilds per layer    an item (microdata) or blank node (RDFa)
                                                        already built is built again at most
                                                        this often, then referenced
                                                        (``<layer>-too-complex``)
``max_rdfa_elements``       50,000 elements             elements carrying RDFa attributes
                                                        processed; the rest of the page is not
                                                        (``rdfa-too-many-items``)
``max_nesting``             100 nested items            ``<layer>-too-deep``: microdata and RDFa
                                                        keep the deeper item as a reference,
                                                        microformats leave it out
==========================  ==========================  =======================================

With the defaults, the costliest page we could build (15 MB of short elements that each carry
microdata, RDFa and microformats attributes, cut to 250,000 start tags) extracts in about 6 s
with a peak of about 500 MB, on one core of a 2-CPU machine; real pages of that size take far
less. Each bound is a field of :class:`Limits`; pass one to
:func:`structcrawl.core.document.parse_html` or :func:`structcrawl.extract.extract_payload`.

Pure module: no Scrapy imports.

>>> DEFAULT_LIMITS.max_json_depth
100
>>> json_depth_exceeds({"a": [[1]]}, 2), json_depth_exceeds({"a": [[1]]}, 3)
(True, False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_LIMITS", "Limits", "json_depth_exceeds", "raw_excerpt"]

#: How much of an oversized block an error record keeps in ``raw`` (the whole body stays in
#: the body store, named by the record's ``provenance.fetch.body_ref``).
RAW_EXCERPT_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on the work one page may cause; see the module docstring for each one."""

    max_body_bytes: int = 15_000_000
    max_elements: int = 250_000
    max_dom_depth: int = 2048
    max_json_chars: int = 5_000_000
    max_json_depth: int = 100
    max_repair_chars: int = 1_000_000
    max_blocks: int = 10_000
    max_items: int = 10_000
    max_visits: int = 2_000_000
    max_shared: int = 1_000
    max_rdfa_elements: int = 50_000
    max_nesting: int = 100


DEFAULT_LIMITS = Limits()


def json_depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests more than ``limit`` arrays/objects deep (iterative walk).

    >>> json_depth_exceeds([1, 2], 1), json_depth_exceeds([[]], 1), json_depth_exceeds(3, 0)
    (False, True, False)
    """
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > limit:
            return True
        stack.extend((c, depth) for c in children if isinstance(c, dict | list))
    return False


def raw_excerpt(text: str, limit: int = RAW_EXCERPT_CHARS) -> str:
    """The first ``limit`` characters of ``text`` (all of it when short enough).

    >>> raw_excerpt("abcdef", 3)
    'abc'
    """
    return text if len(text) <= limit else text[:limit]
