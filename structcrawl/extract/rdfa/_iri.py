"""IRI resolution against the document base, and the HTML5 ``<base href>`` rule."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urljoin

from lxml import etree

__all__ = ["BASE_TAGS", "document_base", "resolve_iri"]

_XHTML = "{http://www.w3.org/1999/xhtml}"
#: The names of the base element: HTML, and XHTML in a tree parsed as XML.
BASE_TAGS = ("base", _XHTML + "base")
_UNSAFE_BASE_SCHEMES = ("javascript:", "data:")
# An absolute http(s) reference that urljoin returns as written (it keeps an absolute
# reference's path as is; nothing here for urlsplit to strip, no ';' params, no IPv6 brackets):
# most IRIs of real pages, resolved without urljoin's parse and unparse.
_AS_WRITTEN = re.compile(r"https?://[^\x00-\x20\[\]/?#;\x7f]+(?:[/?][^\x00-\x20#;\x7f]*)?\Z")


def document_base(
    root: etree._Element, url: str, bases: Iterable[etree._Element] | None = None
) -> str:
    """The base IRI: the first ``<base href>`` resolved against ``url``, fragment removed.
    ``bases``: the ``<base>`` elements under ``root`` in document order, when the caller
    knows them (saves a walk of the tree)."""
    base = url.strip()
    for element in root.iter(*BASE_TAGS) if bases is None else bases:
        href = element.get("href")
        if href is None:
            continue
        href = href.strip()
        try:
            candidate = urljoin(base, href) if href else base
        except ValueError:  # e.g. "http://[broken" is not parseable: ignore the <base>
            break
        if not candidate.lower().startswith(_UNSAFE_BASE_SCHEMES):
            base = candidate
        break
    return base.partition("#")[0]


def resolve_iri(base: str, value: str) -> str:
    """RFC 3986 reference resolution that keeps empty fragments and queries.

    ``urljoin`` drops an empty fragment or query (``http://x/vocab#`` would lose its ``#``);
    vocabulary IRIs must survive exactly as written.
    """
    if not value:
        return base
    ref, hash_sign, fragment = value.partition("#")
    if not ref:
        return base + hash_sign + fragment
    if _AS_WRITTEN.match(ref) and not ref.endswith("?"):
        return value
    try:
        joined = urljoin(base, ref)
    except ValueError:  # unparseable (e.g. "http://[broken"): keep the value as written
        return value
    if ref.endswith("?") and not joined.endswith("?"):
        joined += "?"
    return joined + hash_sign + fragment
