"""Dublin Core in HTML meta tags (``DC.title``, ``DCTERMS.modified``, ``dc.creator``...).

Values come from ``<meta name="DC.x" content>`` and, for URI values, from
``<link rel="DCTERMS.x" href>`` (DC-HTML). Prefixes ``DC``/``DCTERMS`` (any case) are always
recognized; other prefixes count when a ``<link rel="schema.X" href="http://purl.org/dc/...">``
declares them. One ``dublincore``
record per page; keys are ``dc:<element>`` or ``dcterms:<term>``; repeated elements are lists.
At most ``doc.limits.max_items`` values are read (``dublincore-too-many-items``).
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, error_record

__all__ = ["PARSER", "extract"]

PARSER = "structcrawl.extract.dublincore"
_TERMS_NS = "http://purl.org/dc/terms/"


def _prefixes(doc: Document) -> dict[str, str]:
    prefixes = {"dc": "dc", "dcterms": "dcterms", "dct": "dcterms"}
    for link in doc.index().named("link"):
        rel = (link.get("rel") or "").strip()
        href = (link.get("href") or "").strip()
        if rel.lower().startswith("schema.") and href.startswith("http://purl.org/dc/"):
            prefixes[rel[7:].lower()] = "dcterms" if href.startswith(_TERMS_NS) else "dc"
    return prefixes


def _name_and_value(el: Any) -> tuple[str, str | None]:
    """``(name, value)`` of ``<meta name=DC.x content=v>`` or of ``<link rel=DCTERMS.x
    href=uri>`` (DC-HTML's form for URI values; the caller resolves it against the base once
    the name is known to be Dublin Core); a ``rel=schema.X`` declaration is not a value."""
    if el.tag == "meta":
        return (el.get("name") or el.get("property") or "").strip(), el.get("content")
    rel, href = (el.get("rel") or "").strip(), el.get("href")
    if rel.lower().startswith("schema.") or href is None:
        return "", None
    return rel, href


def extract(doc: Document) -> list[Record]:
    prefixes = _prefixes(doc)
    rec: Record | None = None
    values = 0
    for el in doc.index().named("meta", "link"):
        name, content = _name_and_value(el)
        prefix, dot, term = name.partition(".")
        if not dot or not term or prefix.lower() not in prefixes or content is None:
            continue
        if el.tag == "link":
            content = doc.resolve(content)
        values += 1
        if values > doc.limits.max_items:
            error = error_record(
                source_url=doc.url,
                format="dublincore",
                code="dublincore-too-many-items",
                message=f"more than {doc.limits.max_items:,} Dublin Core meta tags: only the "
                "first were read (max_items)",
                source_element=doc.path_of(el),
                parser=PARSER,
            )
            return [rec, error] if rec is not None else [error]
        if rec is None:
            rec = Record(
                source_url=doc.url,
                format="dublincore",
                source_element="/html/head",
                provenance=Provenance(parser=PARSER),
                raw=[],
            )
        key = f"{prefixes[prefix.lower()]}:{term}"
        rec.raw.append({"name": name, "content": content, "scheme": el.get("scheme")})
        rec.add_value(key, content.strip(), doc.path_of(el), content)
    return [rec] if rec is not None else []
