"""Property values: ``p-*``, ``u-*``, ``dt-*`` and ``e-*``, with the value class pattern.

Every function takes the property element, the document base URL and a *boundary* predicate
telling which descendants are nested properties or microformats of the current vocabulary: the
value class pattern does not look inside those.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from lxml import etree

from ._datetime import date_of, is_time, join_parts, normalize_time
from ._text import (
    IMG_ALT_OR_SRC,
    inner_html,
    parse_srcset,
    resolve_url,
    strip_ws,
    text_content,
)
from ._vocab import split_tokens

__all__ = [
    "Boundary",
    "parse_dt",
    "parse_e",
    "parse_img",
    "parse_p",
    "parse_u",
]

#: Called with an element's class tokens: True when it is a nested property or microformat.
#: ``None`` instead of a predicate means the document has no value classes at all (fast path).
Boundary = Callable[[list[str]], bool] | None

_HAS_VALUE_CLASS: Final = etree.XPath("boolean(.//*[contains(@class, 'value')])")
_U_SRC_TAGS: Final = frozenset({"audio", "video", "source", "iframe"})


def _value_elements(el: etree._Element, boundary: Boundary) -> list[tuple[etree._Element, bool]]:
    """Descendants with class ``value`` / ``value-title`` not inside nested properties/roots.

    Returns ``(element, is_value_title)`` pairs in document order. A value element is not
    searched further (nested value elements are part of its text).
    """
    if boundary is None or not _HAS_VALUE_CLASS(el):
        return []
    found: list[tuple[etree._Element, bool]] = []
    stack = [iter(el)]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
            continue
        if not isinstance(child.tag, str) or child.tag == "template":
            continue
        tokens = split_tokens(child.get("class"))
        if tokens:
            if "value-title" in tokens:
                found.append((child, True))
                continue
            if "value" in tokens:
                found.append((child, False))
                continue
            if boundary(tokens):
                continue
        stack.append(iter(child))
    return found


def _vcp_text(el: etree._Element, boundary: Boundary) -> str | None:
    """Value-class-pattern string for p-* and u-* properties, or None when not applicable."""
    values = _value_elements(el, boundary)
    if not values:
        return None
    parts: list[str] = []
    for node, is_title in values:
        tag = node.tag
        if is_title:
            parts.append(node.get("title") or "")
        elif tag in ("img", "area"):
            parts.append(node.get("alt") or "")
        elif tag == "data":
            value = node.get("value")
            parts.append(value if value is not None else text_content(node))
        elif tag == "abbr":
            title = node.get("title")
            parts.append(title if title is not None else text_content(node))
        else:
            parts.append(text_content(node))
    return "".join(parts)


def parse_p(
    el: etree._Element,
    base: str,
    boundary: Boundary,
    extra: Sequence[etree._Element] = (),
) -> str:
    """Plain-text value of a ``p-*`` property element.

    ``extra`` are elements included into ``el`` by the include pattern (their text is appended).
    """
    vcp = _vcp_text(el, boundary)
    if vcp is not None:
        return vcp
    tag = el.tag
    if tag in ("abbr", "link"):
        title = el.get("title")
        if title is not None:
            return title
    elif tag in ("data", "input"):
        value = el.get("value")
        if value is not None:
            return value
    elif tag in ("img", "area"):
        alt = el.get("alt")
        if alt is not None:
            return alt
    text = text_content(el, IMG_ALT_OR_SRC, base)
    for node in extra:
        text += text_content(node, IMG_ALT_OR_SRC, base)
    return strip_ws(text)


def parse_img(el: etree._Element, base: str, with_alt: bool) -> str | dict[str, Any] | None:
    """``img[src]`` as a URL, or as ``{"value", "alt"[, "srcset"]}`` when it has alt/srcset."""
    src = el.get("src")
    if src is None:
        return None
    url = resolve_url(base, src)
    if not with_alt:
        return url
    alt = el.get("alt")
    srcset = el.get("srcset")
    if alt is None and not srcset:
        return url
    out: dict[str, Any] = {"value": url}
    if alt is not None:
        out["alt"] = alt
    if srcset:
        out["srcset"] = parse_srcset(srcset, base)
    return out


def parse_u(
    el: etree._Element, base: str, boundary: Boundary, with_alt: bool = True
) -> str | dict[str, Any]:
    """URL value of a ``u-*`` property element (``{"value", "alt"}`` for images with alt)."""
    tag = el.tag
    raw: str | None = None
    if tag in ("a", "area", "link"):
        raw = el.get("href")
    elif tag == "img":
        img = parse_img(el, base, with_alt)
        if img is not None:
            return img
    elif tag in _U_SRC_TAGS:
        raw = el.get("src")
        if raw is None and tag == "video":
            raw = el.get("poster")
    elif tag == "object":
        raw = el.get("data")
    if raw is None:
        raw = _vcp_text(el, boundary)
    if raw is None:
        if tag == "abbr":
            raw = el.get("title")
        elif tag in ("data", "input"):
            raw = el.get("value")
    if raw is None:
        raw = strip_ws(text_content(el))
    return resolve_url(base, raw)


def parse_dt(
    el: etree._Element, boundary: Boundary, implied_date: str | None
) -> tuple[str, str | None]:
    """Date-time value of a ``dt-*`` property element and the date it carries (if any)."""
    value: str | None = None
    values = _value_elements(el, boundary)
    if values:
        parts: list[str] = []
        for node, is_title in values:
            tag = node.tag
            if is_title:
                part = node.get("title")
            elif tag in ("img", "area"):
                part = node.get("alt")
            elif tag == "data":
                part = node.get("value")
                part = text_content(node) if part is None else part
            elif tag == "abbr":
                part = node.get("title")
                part = text_content(node) if part is None else part
            elif tag in ("time", "ins", "del"):
                part = node.get("datetime")
                part = text_content(node) if part is None else part
            else:
                part = text_content(node)
            part = strip_ws(part or "")
            if part:
                parts.append(part)
        value = join_parts(parts, implied_date) if parts else None
        if value is not None:
            return value, date_of(value)
    tag = el.tag
    if tag in ("time", "ins", "del"):
        value = el.get("datetime")
    elif tag == "abbr":
        value = el.get("title")
    elif tag in ("data", "input"):
        value = el.get("value")
    if value is None:
        value = strip_ws(text_content(el))
    if implied_date and is_time(value):
        return f"{implied_date} {normalize_time(value)}", implied_date
    return value, date_of(value)


def parse_e(el: etree._Element, base: str) -> dict[str, Any]:
    """``{"html", "value"}`` of an ``e-*`` property element."""
    return {
        "html": inner_html(el, base),
        "value": strip_ws(text_content(el, IMG_ALT_OR_SRC, base)),
    }
