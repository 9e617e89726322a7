"""Article items completed as a reader sees them: authors and publisher named, dates in ISO
8601, the body (pure).

:func:`complete_articles` takes the items :func:`structcrawl.typed.build_items` made from a
page's records and returns them with, on every ``Article`` item:

* ``authors`` and ``publisher`` whose markup value is a reference followed to the name the
  page's graph gives it (:func:`~structcrawl.articles.people.graph_names`); a reference the
  graph does not name is not a name and is dropped; every name cleaned as a byline
  (:func:`~structcrawl.articles.people.clean_byline`: "By", roles, "and"-joined lists;
  ``nameRaw`` keeps what the markup said when it differs);
* the ``<meta>`` tags as ranked fallbacks for authors, publisher, datePublished and
  dateModified the markup leaves empty (:mod:`~structcrawl.articles.meta`; provenance
  ``"layer": "meta-tags", "fallback": true``);
* ``datePublished`` / ``dateModified`` in ISO 8601 when the written value reads unambiguously
  (:func:`structcrawl.normalize.dates.normalize_date`), the value as written in
  ``datePublishedRaw`` / ``dateModifiedRaw`` when it differs;
* ``articleBody`` (:mod:`~structcrawl.articles.body`): the markup's when it is the page's whole
  text, else, on the page's primary article, the page's main text (``body=False``: never run
  the extractor).

Items that carry no field at all (an empty ``Organization {}`` in the markup) are dropped.
"""

from __future__ import annotations

from typing import Any

from structcrawl.articles.body import (
    MIN_WORDS,
    choose_body,
    element_text,
    main_provenance,
    main_text,
    markup_text,
    visible_text,
)
from structcrawl.articles.meta import MetaValue, meta_fallbacks
from structcrawl.articles.people import clean_byline, graph_names
from structcrawl.articles.shown import shown_fallbacks
from structcrawl.core.document import Document, page_language
from structcrawl.core.readers import record_dicts
from structcrawl.core.readers import text as read_text
from structcrawl.core.values import is_record, values_of
from structcrawl.entities.kinds import ITEM_TYPES
from structcrawl.normalize.dates import normalize_date

__all__ = [
    "ARTICLE_META_MEMO",
    "BOOKKEEPING",
    "article_body_readings",
    "article_meta",
    "complete_articles",
    "is_empty",
    "may_read_main_text",
]

#: Item keys that are not fields of the thing (an item with only these says nothing).
BOOKKEEPING = frozenset(
    {"kind", "type", "role", "schemaTypes", "sources", "provenance", "conflicts", "canonicalUrl",
     "page_url", "validation"}
)  # fmt: skip


def is_empty(item: dict[str, Any]) -> bool:
    """Whether an item carries no field beyond its bookkeeping."""
    return all(k in BOOKKEEPING or item[k] in (None, "", [], {}) for k in item)


def complete_articles(
    items: list[dict[str, Any]],
    records: list[dict[str, Any]],
    document: Document | None,
    *,
    body: bool = True,
    page_alone: bool = True,
) -> list[dict[str, Any]]:
    """The items with their articles completed (see the module doc), empty items dropped;
    ``page_alone=False``: no Article made from the page alone (its byline and main text)."""
    made = _page_article(items, document) if body and page_alone else None
    if made is not None:
        items = [made[0], *items]
    if not any(i.get("type") == "Article" for i in items):
        return [i for i in items if not is_empty(i)]
    names = graph_names(records)
    fallbacks = _fallbacks(document)
    out = []
    for item in items:
        if item.get("type") == "Article":
            _people(item, names, fallbacks)
            _dates(item, fallbacks, _language(item, document))
            if made is not None and item is made[0]:
                item["articleBody"], item["provenance"]["articleBody"] = made[1], _main_source()
            else:
                _body(item, records, document, extract=body and item.get("role") == "primary")
        if not is_empty(item):
            out.append(item)
    return out


#: the record types an Article item is made of (:data:`structcrawl.entities.kinds.ITEM_TYPES`)
_ARTICLE_TYPES = ITEM_TYPES["Article"]
_PRODUCT_TYPES = ITEM_TYPES["Product"]
#: the fields whose ``<meta>`` or shown value makes a page without items an article
_SIGNALS = frozenset({"authors", "datePublished"})
#: Open Graph types that make the page metadata an article (``typed.articlemeta``)
_OG = frozenset({"article", "blog", "news"})


def may_read_main_text(records: list[dict[str, Any]], document: Document | None) -> bool:
    """Whether completing the page's articles may read its main text, told before the page
    is resolved from what costs little to read: a record (or a record in one) typed as an
    article, ``og:type`` article, or an author or publication date in the ``<meta>`` tags
    where no record is a product (a shop's product page often carries its theme's
    ``article:published_time``; its product is the page's primary item, and the text is read
    only for a page without one). A page that reads it without any of these (a byline shown
    without markup) reads it when resolved; this only lets a crawl read the text beforehand,
    beside its event loop."""
    if document is None:
        return False
    product = False
    for value in record_dicts(records):
        types = value.get("type")
        if isinstance(types, list):
            if _ARTICLE_TYPES.intersection(types):
                return True
            product = product or bool(_PRODUCT_TYPES.intersection(types))
        properties = value.get("properties")
        if isinstance(properties, dict) and value.get("format") == "opengraph":
            og = read_text(properties.get("og:type"))
            if og in _OG:
                return True
            product = product or (og or "").split(".")[0] == "product"  # product.item too
    return not product and article_meta(document)


#: where a document keeps whether its meta tags say it is an article (:func:`article_meta`)
ARTICLE_META_MEMO = "article-meta"


def article_meta(document: Document) -> bool:
    """Whether the page's meta tags give an article's author or publication date (kept on
    its memo)."""
    return document.memoized(
        ARTICLE_META_MEMO, lambda doc: bool(_SIGNALS & set(meta_fallbacks(doc)))
    )


def _fallbacks(document: Document | None) -> dict[str, list[MetaValue]]:
    """Per field, the meta tags' value, else the visible page's."""
    if document is None:
        return {}
    return {**shown_fallbacks(document), **meta_fallbacks(document)}


def _main_source() -> dict[str, Any]:
    return main_provenance()


def _page_article(
    items: list[dict[str, Any]], document: Document | None
) -> tuple[dict[str, Any], str] | None:
    """An Article made from the page alone, with its main text, for a page whose items name
    nothing it is about but which says it is authored or dated (a ``<meta>`` author or
    publication date, a shown byline or marked publication ``<time>``) and whose main text has
    at least ``MIN_WORDS`` words."""
    if document is None or any(i.get("role") == "primary" for i in items):
        return None
    meta = meta_fallbacks(document)
    shown = shown_fallbacks(document)
    if not (_SIGNALS & set(meta) or _SIGNALS & set(shown)):
        return None
    text = main_text(document)
    if not text or len(text.split()) < MIN_WORDS:
        return None
    item: dict[str, Any] = {"kind": "item", "type": "Article", "role": "primary"}
    found = meta.get("headline") or shown.get("headline")
    prov: dict[str, Any] = {}
    if found:
        item["headline"] = item["name"] = found[0].value
        prov["headline"] = prov["name"] = _fallback("headline", found, found[0].value)
    item.update(provenance=prov, conflicts={}, sources=[])
    return item, text


def _fallback(field: str, found: list[MetaValue], value: Any) -> dict[str, Any]:
    first = found[0]
    meta = first.layer == "meta-tags"
    return {
        "record": None,
        "layer": first.layer,
        "path": first.path,
        "raw": first.value if len(found) == 1 else [v.value for v in found],
        "rule": f'<meta name="{first.key}">' if meta else f"{first.layer}:{first.key}",
        "fallback": True,
        "evidence": f"{first.key}={first.value}",
    }


def _named(value: str, names: dict[str, str]) -> tuple[list[str], str | None]:
    """The names a markup name gives, and the IRI it was a reference to (if any)."""
    iri = value if value in names else None
    return clean_byline(names.get(value, value)), iri


def _add(authors: list[dict[str, str]], name: str, raw: str) -> None:
    """Add an author once (names compared case-insensitively), with what was written."""
    if name.casefold() not in {a["name"].casefold() for a in authors}:
        authors.append({"name": name, **({"nameRaw": raw} if name != raw else {})})


def _people(item: dict[str, Any], names: dict[str, str], meta: dict[str, list[MetaValue]]) -> None:
    prov = item.setdefault("provenance", {})
    authors: list[dict[str, str]] = []
    followed: dict[str, str] = {}
    for entry in values_of(item.get("authors")):
        raw = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(raw, str):
            continue
        found, iri = _named(raw, names)
        if iri:
            followed[iri] = names[iri]
        for name in found:
            _add(authors, name, names.get(raw, raw))
    if not authors and "authors" in meta:
        for value in meta["authors"]:
            for name in clean_byline(value.value):
                _add(authors, name, value.value)
        if authors:
            prov["authors"] = _fallback("authors", meta["authors"], authors)
    _set(item, "authors", authors or None, followed)
    publisher = item.get("publisher")
    raw = publisher.get("name") if isinstance(publisher, dict) else None
    chosen: dict[str, str] | None = None
    pub_followed: dict[str, str] = {}
    if isinstance(raw, str):
        found, iri = _named(raw, names)
        if iri:
            pub_followed[iri] = names[iri]
        if found:
            chosen = {"name": " ".join(names.get(raw, raw).split())} if iri else {"name": found[0]}
    if chosen is None and "publisher" in meta:
        chosen = {"name": meta["publisher"][0].value}
        prov["publisher"] = _fallback("publisher", meta["publisher"], chosen)
    _set(item, "publisher", chosen, pub_followed)


def _set(item: dict[str, Any], field: str, value: Any, followed: dict[str, str]) -> None:
    prov = item["provenance"]
    if value is None:
        if field in item:
            dropped = item.pop(field)
            source = prov.pop(field, {})
            item.setdefault("conflicts", {}).setdefault(field, []).append(
                {"value": dropped, **source, "rule": "unnamed-reference"}
            )
        return
    item[field] = value
    if followed and field in prov:
        prov[field] = {**prov[field], "references": followed}


def _language(item: dict[str, Any], document: Document | None) -> str | None:
    lang = item.get("inLanguage")
    if not lang and document is not None:
        lang = page_language(document)
    return str(lang).split("-")[0].lower() if lang else None


def _dates(item: dict[str, Any], meta: dict[str, list[MetaValue]], language: str | None) -> None:
    prov = item.setdefault("provenance", {})
    for field in ("datePublished", "dateModified"):
        raw = item.get(field)
        if not raw and field in meta:
            raw = meta[field][0].value
            prov[field] = _fallback(field, meta[field], raw)
        if not isinstance(raw, str) or not raw.strip():
            continue
        normalized = normalize_date(raw, language=language)
        unread = any(f.code != "date-no-timezone" for f in normalized.flags)
        value = raw if unread or not isinstance(normalized.value, str) else normalized.value
        item[field] = value
        # as the page wrote it: the record's raw value when normalization already read it
        written = (prov.get(field) or {}).get("raw") if isinstance(prov.get(field), dict) else None
        written = written if isinstance(written, str) and written.strip() else raw
        if value != written:
            item[field + "Raw"] = written


def _element_path(records: list[dict[str, Any]], index: Any) -> str | None:
    """The path of the element a Microdata / RDFa ``articleBody`` was read from (None when
    unknown)."""
    if not isinstance(index, int) or not 0 <= index < len(records):
        return None
    stack = [records[index]]
    while stack:
        node = stack.pop()
        fields = (node.get("provenance") or {}).get("fields") or {}
        for source in values_of(fields.get("articleBody")):
            path = source.get("path") if isinstance(source, dict) else None
            if isinstance(path, str) and path.startswith("/"):
                return path
        for value in (node.get("properties") or {}).values():
            stack.extend(v for v in values_of(value) if is_record(v))
    return None


def article_body_readings(records: list[dict[str, Any]], document: Document) -> None:
    """Read on ``document`` (kept on its memo) what checking its records' ``articleBody``
    values reads of the page (:func:`_body`): its shown text and the elements Microdata and
    RDFa name as bodies; nothing where no record has one. A page worker reads them with the
    page (:mod:`structcrawl.pageread.whole`), so that the crawl does not parse it for them."""
    if not any("articleBody" in (v.get("properties") or {}) for v in record_dicts(records)):
        return
    visible_text(document)
    for i, record in enumerate(records):
        path = _element_path(records, i) if record.get("format") in ("microdata", "rdfa") else None
        if path is not None:
            element_text(document, path)


def _body(
    item: dict[str, Any], records: list[dict[str, Any]], document: Document | None, *, extract: bool
) -> None:
    prov = item.setdefault("provenance", {})
    source = prov.get("articleBody")
    markup, element = None, False
    if source is not None and document is not None:
        path = None
        if source.get("layer") in ("microdata", "rdfa"):
            path = _element_path(records, source.get("record"))
        element, text = element_text(document, path) if path is not None else (False, None)
        markup = text if element else markup_text(source.get("raw") or item.get("articleBody"))
        source = {k: v for k, v in source.items() if k != "raw"}
    chosen = choose_body(document, markup, source, extract=extract, element=element)
    conflicts = item.get("conflicts") or {}
    if "articleBody" in conflicts:  # other layers' bodies: where they are, not their text again
        conflicts["articleBody"] = [
            {k: v for k, v in c.items() if k not in ("value", "raw")}
            for c in conflicts["articleBody"]
        ]
    if chosen is None:
        item.pop("articleBody", None)
        prov.pop("articleBody", None)
        return
    item["articleBody"] = chosen.text
    prov["articleBody"] = chosen.provenance
