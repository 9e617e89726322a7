"""The microformats2 ``rels`` and ``rel-urls`` of a document."""

from __future__ import annotations

from typing import Any, Final

from lxml import etree

from ._text import resolve_url, text_content
from ._vocab import split_tokens

__all__ = ["parse_rels"]

_RELS_XPATH: Final = etree.XPath(
    "descendant-or-self::*[self::a or self::area or self::link][@rel][not(ancestor::template)]"
)


def parse_rels(
    root: etree._Element, base: str
) -> tuple[dict[str, list[str]], dict[str, dict[str, Any]]]:
    """The document's ``rels`` and ``rel-urls`` (``<a>``, ``<area>``, ``<link>`` with ``rel``)."""
    rels: dict[str, list[str]] = {}
    rel_urls: dict[str, dict[str, Any]] = {}
    for el in _RELS_XPATH(root):
        href = el.get("href")
        tokens = split_tokens(el.get("rel"))
        if href is None or not tokens:
            continue
        url = resolve_url(base, href)
        entry = rel_urls.get(url)
        if entry is None:
            entry = rel_urls[url] = {"rels": [], "text": text_content(el)}
        for attr in ("media", "hreflang", "type", "title"):
            value = el.get(attr)
            if value is not None and attr not in entry:
                entry[attr] = value
        for token in tokens:
            urls = rels.setdefault(token, [])
            if url not in urls:
                urls.append(url)
            if token not in entry["rels"]:
                entry["rels"].append(token)
    for entry in rel_urls.values():
        entry["rels"].sort()
    return rels, rel_urls
