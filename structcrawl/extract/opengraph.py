"""Open Graph (``og:``, ``article:``, ``product:``, ... ) and Twitter card meta tags.

One ``opengraph`` record and one ``twitter`` record per page (when the page has such tags).
Keys are the full property names (``og:title``). Structured properties (``og:image``,
``og:video``, ``og:audio``) are dicts that collect the ``:width``/``:height``/``:alt``...
tags that follow each of them, so every detail stays with the right image. Repeated
properties become lists in document order. URL values are resolved against the base.
Tags written with ``name=`` instead of ``property=`` (a common mistake) are accepted, and the
record's ``repairs`` says so. At most ``doc.limits.max_items`` tags are read
(``opengraph-too-many-items`` says how many were not).
"""

from __future__ import annotations

from typing import Any

from structcrawl.core.document import Document
from structcrawl.core.records import Provenance, Record, error_record

__all__ = ["OG_PREFIXES", "PARSER", "extract"]

PARSER = "structcrawl.extract.opengraph"
OG_PREFIXES = ("og", "article", "product", "book", "profile", "music", "video", "fb", "business")
#: Structured properties: the tags after each one (``og:image:width``) belong to it.
#: The og:image/video/audio ones are their own ``url``; the product ones group their parts.
_URL_STRUCTURED = ("og:image", "og:video", "og:audio")
_GROUPED = (
    "product:price",
    "product:sale_price",
    "product:original_price",
    "product:pretax_price",
    "product:shipping_cost",
    "product:weight",
    "product:shipping_weight",
)
_STRUCTURED = _URL_STRUCTURED + _GROUPED
_URL_KEYS = frozenset(
    {"og:url", "og:image", "og:video", "og:audio", "twitter:image", "twitter:player"}
)
_URL_SUBKEYS = frozenset({"url", "secure_url"})
#: ``property`` written as a full IRI (``http://ogp.me/ns#image``, RDFa's own form): its
#: namespace -> the prefix it is read as. RDFa records leave these out (they are Open Graph).
_NAMESPACES = {"http://ogp.me/ns#": "og", "https://ogp.me/ns#": "og"} | {
    f"{scheme}://ogp.me/ns/{p}#": p
    for scheme in ("http", "https")
    for p in ("article", "book", "profile", "music", "video")
}


def _curie(key: str) -> str:
    """``key`` with an Open Graph namespace IRI written as its prefix (else ``key``)."""
    if key.startswith(("http://ogp.me/ns", "https://ogp.me/ns")):
        namespace, hash_, local = key.partition("#")
        prefix = _NAMESPACES.get(namespace + hash_)
        if prefix and local:
            return f"{prefix}:{local}"
    return key


def _meta_tags(doc: Document) -> list[tuple[Any, str, str, str]]:
    """``(element, attribute, key, content)`` for og/twitter meta tags in document order."""
    found = []
    for el in doc.index().named("meta"):
        content = el.get("content")
        if content is None:
            continue
        for attr in ("property", "name"):
            key = (el.get(attr) or "").strip()
            if ":" not in key:  # neither a prefixed name nor an Open Graph IRI
                continue
            key = _curie(key)
            prefix = key.partition(":")[0].lower()
            if ":" in key and (prefix in OG_PREFIXES or prefix == "twitter"):
                found.append((el, attr, prefix + key[len(prefix) :], content))
                break
    return found


def _record(doc: Document, fmt: str) -> Record:
    return Record(
        source_url=doc.url,
        format=fmt,
        source_element="/html/head",
        provenance=Provenance(parser=PARSER),
        raw=[],
    )


def extract(doc: Document) -> list[Record]:
    records: dict[str, Record] = {}
    current: dict[str, dict[str, Any]] = {}  # last structured value per og:image/video/audio
    tags = _meta_tags(doc)
    extra = len(tags) - doc.limits.max_items
    for el, attr, key, content in tags[: doc.limits.max_items]:
        fmt = "twitter" if key.startswith("twitter:") else "opengraph"
        rec = records.get(fmt)
        if rec is None:
            rec = records[fmt] = _record(doc, fmt)
        rec.raw.append({"attribute": attr, "property": key, "content": content})
        if attr == "name" and fmt == "opengraph" and "og-name-attribute" not in rec.repairs:
            rec.repairs.append("og-name-attribute")
        path = doc.path_of(el)
        value: Any = content.strip()
        base = None
        if key.startswith(_STRUCTURED):  # (most keys are not: og:title, twitter:card...)
            base = next((s for s in _STRUCTURED if key == s or key.startswith(s + ":")), None)
        if base is not None:
            sub = key[len(base) + 1 :] or "url"
            if sub in _URL_SUBKEYS and value:
                value = doc.resolve(value)
            group = current.get(base)
            starts_url = key == base or group is None or "url" in group
            if base in _URL_STRUCTURED and sub == "url" and starts_url:
                current[base] = {"url": value}
                rec.add_value(base, current[base], path, content)
                continue
            if group is None or sub in group:  # a repeated part starts the next group
                group = current[base] = {}
                rec.add_value(base, group, path, content)
            group[sub] = value
            rec.provenance.add(f"{base}:{sub}", path, content)
            continue
        if key in _URL_KEYS and value:
            value = doc.resolve(value)
        rec.add_value(key, value, path, content)
    for fmt, rec in records.items():
        if fmt == "opengraph":
            og_type = rec.properties.get("og:type")
            if isinstance(og_type, str) and og_type:
                rec.type = [og_type]
    out = list(records.values())
    if extra > 0:
        out.append(
            error_record(
                source_url=doc.url,
                format="opengraph",
                code="opengraph-too-many-items",
                message=f"{len(tags):,} Open Graph/Twitter meta tags: only the first "
                f"{doc.limits.max_items:,} were read (max_items); {extra:,} were not",
                source_element=doc.path_of(tags[doc.limits.max_items][0]),
                parser=PARSER,
            )
        )
    return out
