"""Implied ``name``, ``photo`` and ``url`` of microformats2 roots.

Each rule only looks at the root element, its element children and grandchildren (the
``:only-child`` / ``:only-of-type`` selectors of the specification), so none needs recursion.
``is_root`` tells whether a candidate child is itself a microformat root (those are skipped).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lxml import etree

from ._text import IMG_ALT, element_children, resolve_url, strip_ws, text_content
from ._values import parse_img

__all__ = ["implied_name", "implied_photo", "implied_url"]

IsRoot = Callable[[etree._Element], bool]


def _alt_or_title(el: etree._Element) -> str | None:
    """Non-empty ``alt`` of img/area or ``title`` of abbr, else None."""
    tag = el.tag
    if tag in ("img", "area"):
        value = el.get("alt")
    elif tag == "abbr":
        value = el.get("title")
    else:
        return None
    return value if value else None


def implied_name(el: etree._Element, is_root: IsRoot) -> str:
    """The implied name of root ``el``."""
    tag = el.tag
    if tag in ("img", "area"):
        alt = el.get("alt")
        if alt is not None:
            return strip_ws(alt)
    elif tag == "abbr":
        title = el.get("title")
        if title is not None:
            return strip_ws(title)
    children = element_children(el)
    if len(children) == 1 and not is_root(children[0]):
        child = children[0]
        value = _alt_or_title(child)
        if value is not None:
            return strip_ws(value)
        if child.tag not in ("img", "area", "abbr"):
            grandchildren = element_children(child)
            if len(grandchildren) == 1 and not is_root(grandchildren[0]):
                value = _alt_or_title(grandchildren[0])
                if value is not None:
                    return strip_ws(value)
    return strip_ws(text_content(el, IMG_ALT))


def _only_of_type(children: list[etree._Element], tag: str, is_root: IsRoot) -> Any:
    found = [c for c in children if c.tag == tag]
    if len(found) == 1 and not is_root(found[0]):
        return found[0]
    return None


def implied_photo(el: etree._Element, base: str, is_root: IsRoot) -> str | dict[str, Any] | None:
    """The implied photo of root ``el`` (a URL, or ``{"value", "alt"}``), or None."""
    if el.tag == "img":
        value = parse_img(el, base, True)
        if value is not None:
            return value
    elif el.tag == "object" and el.get("data") is not None:
        return resolve_url(base, el.get("data") or "")
    children = element_children(el)
    levels = [children]
    if len(children) == 1 and not is_root(children[0]):
        levels.append(element_children(children[0]))
    for level in levels:
        img = _only_of_type(level, "img", is_root)
        if img is not None and img.get("src") is not None:
            return parse_img(img, base, True)
        obj = _only_of_type(level, "object", is_root)
        if obj is not None and obj.get("data") is not None:
            return resolve_url(base, obj.get("data") or "")
    return None


def implied_url(el: etree._Element, base: str, is_root: IsRoot) -> str | None:
    """The implied url of root ``el``, or None."""
    if el.tag in ("a", "area") and el.get("href") is not None:
        return resolve_url(base, el.get("href") or "")
    children = element_children(el)
    levels = [children]
    if len(children) == 1 and not is_root(children[0]):
        levels.append(element_children(children[0]))
    for level in levels:
        for tag in ("a", "area"):
            link = _only_of_type(level, tag, is_root)
            if link is not None and link.get("href") is not None:
                return resolve_url(base, link.get("href") or "")
    return None
