"""The state of one microformat while the document walk (:mod:`._parser`) reads it, and the
document's base URL."""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import urljoin, urlsplit

from lxml import etree

from ._vocab import BACKCOMPAT_ROOTS, backcompat_properties, mf2_properties, mf2_roots

__all__ = ["Item", "document_base"]

_SAFE_BASE_SCHEMES: Final = frozenset({"http", "https", "file", ""})


def document_base(root: etree._Element, url: str) -> str:
    """``url`` adjusted by the first ``<base href>`` (unsafe schemes are ignored)."""
    for base in root.iterfind(".//base[@href]"):
        href = (base.get("href") or "").strip()
        if not href:
            break
        try:
            candidate = urljoin(url, href)
            scheme = urlsplit(candidate).scheme.lower()
        except ValueError:
            break
        if scheme in _SAFE_BASE_SCHEMES:
            return candidate
        break
    return url


class Item:
    """A microformat being parsed."""

    __slots__ = (
        "backcompat",
        "children",
        "date",
        "el",
        "first_p_name",
        "first_u_url",
        "has_nested",
        "has_pe",
        "has_u",
        "includes",
        "level",
        "out",
        "props",
        "prop_elements",
        "roots",
        "slots",
        "types",
    )

    def __init__(
        self, el: etree._Element, types: list[str], roots: tuple[str, ...], level: int
    ) -> None:
        self.el = el
        self.level = level  # 1 for top-level items
        self.types = types
        self.roots = roots  # classic root names (backcompat vocabulary), empty for mf2
        self.backcompat = bool(roots)
        self.props: dict[str, list[Any]] = {}
        self.prop_elements: dict[str, list[etree._Element]] = {}  # where each value came from
        self.children: list[dict[str, Any]] = []
        self.has_pe = self.has_u = self.has_nested = False
        self.first_p_name: Any = None
        self.first_u_url: Any = None
        self.date: str | None = None
        self.includes: list[etree._Element] = []
        self.out: dict[str, Any] | None = None  # placeholder when a child / top-level item
        self.slots: list[tuple[str, dict[str, Any]]] = []  # (prefix, placeholder) as property

    def add(self, prefix: str, name: str, value: Any, source: etree._Element) -> None:
        self.props.setdefault(name, []).append(value)
        self.prop_elements.setdefault(name, []).append(source)
        if prefix in ("p", "e"):
            self.has_pe = True
        elif prefix == "u":
            self.has_u = True
        if name == "name" and prefix == "p" and self.first_p_name is None:
            self.first_p_name = value
        elif name == "url" and prefix == "u" and self.first_u_url is None:
            self.first_u_url = value

    def boundary(self, tokens: list[str]) -> bool:
        """Whether class ``tokens`` mark a nested property or microformat in this vocabulary."""
        if any(t.startswith("h-") for t in tokens) and mf2_roots(tokens):
            return True
        if any(t in BACKCOMPAT_ROOTS for t in tokens):
            return True
        if self.backcompat:
            return bool(backcompat_properties(self.roots, tokens, []))
        return bool(mf2_properties(tokens))
