"""Article fields from Open Graph and Dublin Core page metadata, for a page whose structured
layers name no article but whose ``og:type`` is ``article`` (``meta-tags`` fallback, pure)."""

from __future__ import annotations

from typing import Any

from structcrawl.core.readers import props, text, values
from structcrawl.typed.fallbacks import fallback
from structcrawl.typed.fields import Candidate

__all__ = ["article_meta_candidates", "is_article_meta"]

_ARTICLE_META = {
    "og:title": "headline", "dc:title": "headline", "article:published_time": "datePublished",
    "dc:date": "datePublished", "dcterms:issued": "datePublished",
    "article:modified_time": "dateModified", "dcterms:modified": "dateModified",
    "dc:creator": "authors", "og:url": "url", "dc:identifier": "url",
    "og:description": "description", "dc:description": "description", "dc:language": "inLanguage",
    "article:section": "articleSection", "dc:publisher": "publisher",
}  # fmt: skip


def is_article_meta(records: list[dict[str, Any]]) -> bool:
    """Whether the page metadata says the page is an article (``og:type`` article)."""
    return any(
        text(props(r).get("og:type")) in ("article", "blog", "news")
        for r in records
        if r.get("format") == "opengraph"
    )


def article_meta_candidates(records: list[dict[str, Any]]) -> list[Candidate]:
    """Article fields from Open Graph and Dublin Core page metadata (``meta-tags`` fallback)."""
    out: list[Candidate] = []
    for index, rec in enumerate(records):
        if rec.get("kind") != "entity" or rec.get("format") not in ("opengraph", "dublincore"):
            continue
        path = str(rec.get("source_element") or "")
        for key, raw in props(rec).items():
            field = _ARTICLE_META.get(key.replace("DC.", "dc:").replace("dc.", "dc:"))
            if not field or text(raw) is None:
                continue
            value: Any = text(raw)
            if field == "authors":
                value = [{"name": text(v)} for v in values(raw) if text(v)]
            elif field == "publisher":
                value = {"name": text(raw)}
            out.append(
                fallback(
                    field, value, "meta-tags", f"{path}#{key}", raw, f'<meta name="{key}">', index
                )
            )
            if field == "headline":
                out.append(
                    fallback(
                        "name",
                        value,
                        "meta-tags",
                        f"{path}#{key}",
                        raw,
                        f'<meta name="{key}">',
                        index,
                    )
                )
    return out
