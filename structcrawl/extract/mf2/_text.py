"""Text, URL and markup helpers over lxml elements (iterative: no Python recursion).

``textContent`` follows the microformats2 parsing rules: nested ``<script>``, ``<style>`` and
``<template>`` elements are dropped, and depending on the caller nested ``<img>`` elements are
replaced by their ``alt`` (or, for property values, by their resolved ``src`` surrounded by
spaces). Whitespace inside the text is kept as authored; callers strip the ends.
"""

from __future__ import annotations

import copy
import html
import re
from collections.abc import Iterator
from typing import Final
from urllib.parse import unquote, urljoin, urlsplit

import lxml.html
from lxml import etree

__all__ = [
    "IMG_ALT",
    "IMG_ALT_OR_SRC",
    "IMG_NONE",
    "element_children",
    "inner_html",
    "parse_srcset",
    "resolve_url",
    "strip_ws",
    "tag_last_segment",
    "text_content",
]

IMG_NONE: Final = 0
IMG_ALT: Final = 1
IMG_ALT_OR_SRC: Final = 2

_WS: Final = " \t\n\r\f"
_DROP: Final = frozenset({"script", "style", "template"})
_URL_ATTRS: Final = ("href", "src", "cite", "data", "poster", "action", "formaction")
_URL_XPATH: Final = etree.XPath(
    ".//*[@href or @src or @cite or @data or @poster or @action or @formaction or @srcset]"
)
_STRING_VALUE: Final = etree.XPath("string()", smart_strings=False)
_SRCSET_RE: Final = re.compile(r"\s*(\S+?),?(?:\s+([\d.]+[wx]))?\s*(?:,|$)")
# characters libxml2's HTML parser keeps in attribute values but lxml refuses to set again
_NOT_XML: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _set_attr(node: etree._Element, name: str, value: str) -> None:
    try:
        node.set(name, value)
    except ValueError:  # a control character from the page: keep the rest of the value
        node.set(name, _NOT_XML.sub("\ufffd", value))


def strip_ws(value: str) -> str:
    """Strip leading/trailing ASCII whitespace (HTML's definition of whitespace)."""
    return value.strip(_WS)


def resolve_url(base: str, url: str) -> str:
    """Resolve ``url`` against ``base``; absolute http(s) URLs are returned unchanged."""
    url = url.strip(_WS)
    if url.startswith(("http://", "https://")) or not base:
        return url
    try:
        return urljoin(base, url)
    except ValueError:
        return url


def tag_last_segment(href: str) -> str:
    """The last non-empty path segment of a rel=tag URL, percent-decoded."""
    try:
        path = urlsplit(href.strip(_WS)).path
    except ValueError:
        path = href
    segments = [s for s in path.split("/") if s]
    return unquote(segments[-1]) if segments else ""


def element_children(el: etree._Element) -> list[etree._Element]:
    """Element children of ``el``, ignoring comments, processing instructions and templates."""
    return [c for c in el if isinstance(c.tag, str) and c.tag != "template"]


def text_content(el: etree._Element, img: int = IMG_NONE, base: str = "") -> str:
    """The textContent of ``el`` per the microformats2 rules (not stripped).

    ``img`` selects how nested images are rendered: not at all, by their ``alt``, or by their
    ``alt`` falling back to ``" " + resolved src + " "``.
    """
    if next(el.iter("script", "style", "template", "img"), None) is None:
        return _STRING_VALUE(el)  # type: ignore[return-value]  # string-value: all text, in C
    parts: list[str] = [el.text or ""]
    stack: list[tuple[etree._Element, Iterator[etree._Element]]] = [(el, iter(el))]
    while stack:
        node, it = stack[-1]
        child = next(it, None)
        if child is None:
            stack.pop()
            if stack and node.tail:
                parts.append(node.tail)
            continue
        tag = child.tag
        if not isinstance(tag, str) or tag in _DROP:
            if child.tail:
                parts.append(child.tail)
            continue
        if tag == "img":
            if img:
                alt = child.get("alt")
                if alt is not None:
                    parts.append(alt)
                elif img == IMG_ALT_OR_SRC:
                    src = child.get("src")
                    if src is not None:
                        parts.append(" " + resolve_url(base, src) + " ")
            if child.tail:
                parts.append(child.tail)
            continue
        if child.text:
            parts.append(child.text)
        stack.append((child, iter(child)))
    return "".join(parts)


def parse_srcset(srcset: str, base: str) -> dict[str, str]:
    """Parse an ``srcset`` attribute into ``{descriptor: resolved URL}`` (first one wins)."""
    sources: dict[str, str] = {}
    for url, descriptor in _SRCSET_RE.findall(srcset):
        if not url:
            continue
        sources.setdefault(descriptor or "1x", resolve_url(base, url))
    return sources


def _url_rewrites(node: etree._Element, base: str) -> list[tuple[str, str]]:
    """``(attribute, value)`` for the URL attributes of ``node``, resolved, in setting order."""
    out = []
    for attr in _URL_ATTRS:
        value = node.get(attr)
        if value is not None:
            out.append((attr, resolve_url(base, value)))
    srcset = node.get("srcset")
    if srcset:
        resolved = ((resolve_url(base, u), d) for u, d in _SRCSET_RE.findall(srcset) if u)
        out.append(("srcset", ", ".join(f"{u} {d}" if d else u for u, d in resolved)))
    return out


def inner_html(el: etree._Element, base: str) -> str:
    """Serialise the children of ``el`` as HTML, with relative URL attributes resolved.

    The caller's tree is never modified: URL rewriting happens on a copy, and only when some
    URL attribute of the subtree changes (a page whose URLs are all absolute is serialised
    as it is).
    """
    target = el
    nodes = _URL_XPATH(el)
    if nodes:
        rewrites = [_url_rewrites(node, base) for node in nodes]
        if any(
            node.get(attr) != value or _NOT_XML.search(value)
            for node, changes in zip(nodes, rewrites, strict=True)
            for attr, value in changes
        ):
            target = copy.deepcopy(el)
            for node, changes in zip(_URL_XPATH(target), rewrites, strict=True):
                for attr, value in changes:
                    _set_attr(node, attr, value)
    parts = [html.escape(target.text, quote=False)] if target.text else []
    for child in target:
        parts.append(lxml.html.tostring(child, encoding="unicode", method="html", with_tail=True))
    return strip_ws("".join(parts))
