"""Authors, publisher and dates from a page's ``<meta>`` tags, as ranked fallbacks for an
article whose markup does not give them (pure).

Each field reads the first of its keys (``name``, ``property`` or ``itemprop`` of a ``<meta>``
outside any Microdata item, compared case-insensitively) that has a usable value:

* authors: ``author``, ``article:author`` (not a profile URL), ``DC.creator``,
  ``dcterms.creator``, ``citation_author`` (one tag per author), ``parsely-author``,
  ``sailthru.author``, ``byl``;
* datePublished: ``article:published_time``, ``og:published_time``, ``date``,
  ``DC.date.issued``, ``DC.date``, ``dcterms.issued``, ``dcterms.created``, ``dcterms.date``,
  ``citation_publication_date``, ``citation_date``, ``pubdate``, ``publishdate``,
  ``publish-date``, ``parsely-pub-date``, ``sailthru.date``;
* dateModified: ``article:modified_time``, ``og:updated_time``, ``dcterms.modified``,
  ``DC.date.modified``, ``last-modified``;
* publisher: ``DC.publisher``, ``dcterms.publisher``, ``citation_publisher``,
  ``og:site_name``;
* headline (for an article made from the page alone): ``og:title``, ``twitter:title``,
  ``DC.title``, ``citation_title``.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<head><meta name="author" content="By Ada Roe">'
...     b'<meta name="date" content="2014-05-13T09:17:00+02:00">'
...     b'<meta property="og:site_name" content="Daily"></head>', "https://n.example/a")
>>> [(k, v[0].value) for k, v in sorted(meta_fallbacks(doc).items())]
[('authors', 'By Ada Roe'), ('datePublished', '2014-05-13T09:17:00+02:00'), ('publisher', 'Daily')]
"""

from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from structcrawl.core.document import Document

__all__ = ["FIELDS", "META_MEMO", "MetaValue", "meta_fallbacks"]

#: where a document keeps its meta tags' fallbacks (:func:`meta_fallbacks`)
META_MEMO = "meta-fallbacks"

FIELDS: dict[str, tuple[str, ...]] = {
    "authors": (
        "author", "article:author", "dc.creator", "dcterms.creator", "citation_author",
        "parsely-author", "sailthru.author", "byl",
    ),
    "datePublished": (
        "article:published_time", "og:published_time", "date", "dc.date.issued", "dc.date",
        "dcterms.issued", "dcterms.created", "dcterms.date", "citation_publication_date",
        "citation_date", "pubdate", "publishdate", "publish-date", "parsely-pub-date",
        "sailthru.date",
    ),
    "dateModified": (
        "article:modified_time", "og:updated_time", "dcterms.modified", "dc.date.modified",
        "last-modified",
    ),
    "publisher": ("dc.publisher", "dcterms.publisher", "citation_publisher", "og:site_name"),
    "headline": ("og:title", "twitter:title", "dc.title", "citation_title"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class MetaValue:
    key: str  # the key as written
    value: str
    path: str
    layer: str = "meta-tags"


def _key(el: etree._Element) -> str | None:
    for attribute in ("name", "property", "itemprop"):
        found = el.get(attribute)
        if found and found.strip():
            return str(found).strip()
    return None


def meta_fallbacks(document: Document) -> dict[str, list[MetaValue]]:
    """Per field, the values of its best-ranked key that the page's meta tags carry (several
    for keys written once per author); a field no tag gives is absent. Read once per
    document (kept on its memo)."""
    known = document.memoized(META_MEMO, _meta_fallbacks)
    return {field: list(values) for field, values in known.items()}


def _meta_fallbacks(document: Document) -> dict[str, list[MetaValue]]:
    by_key: dict[str, list[MetaValue]] = {}
    for el in document.index().named("meta"):
        key = _key(el)
        content = " ".join((el.get("content") or "").split())
        if not key or not content:
            continue
        if el.get("itemprop") and not el.get("name") and not el.get("property"):
            if any(a.get("itemscope") is not None for a in el.iterancestors()):
                continue  # a Microdata property: the Microdata layer reads it
        found = MetaValue(key, content, document.path_of(el))
        by_key.setdefault(key.casefold(), []).append(found)
    out: dict[str, list[MetaValue]] = {}
    for field, keys in FIELDS.items():
        for key in keys:
            usable = [
                v
                for v in by_key.get(key, [])
                if not (key == "article:author" and v.value.startswith(("http://", "https://")))
            ]
            if usable:
                out[field] = usable
                break
    return out
