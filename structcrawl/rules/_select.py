"""Selector specs and their evaluation over the page's one lxml tree (through parsel).

parsel's ``Selector(root=..., type="html")`` wraps the existing tree without parsing again, so
CSS (with parsel's ``::text`` and ``::attr(name)``) and XPath both run on ``Document.root``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from cssselect import SelectorError
from lxml import etree
from parsel import Selector
from parsel.csstranslator import css2xpath

from structcrawl.visible.tree import element_text

__all__ = [
    "SelectorSpec",
    "element_text",
    "page_selector",
    "parse_selector",
    "select_elements",
    "select_values",
]

# parsel registers these EXSLT prefixes for every XPath query.
_XPATH_NAMESPACES = {
    "re": "http://exslt.org/regular-expressions",
    "set": "http://exslt.org/sets",
}


@dataclass(frozen=True, slots=True)
class SelectorSpec:
    """One CSS or XPath query, as written in the rules file."""

    kind: Literal["css", "xpath"]
    query: str

    @property
    def label(self) -> str:
        """``css:<query>`` or ``xpath:<query>`` (the ``selector`` of a provenance sighting)."""
        return f"{self.kind}:{self.query}"


def parse_selector(text: str, kind: str | None = None) -> SelectorSpec:
    """A spec from a rules-file string: CSS unless ``kind`` says otherwise or the text starts
    with ``xpath:`` (``css:`` is accepted too). Raises ``ValueError`` for a query that does
    not compile.

    >>> parse_selector("h1::text").label
    'css:h1::text'
    >>> parse_selector("xpath://td[@class='sku']/text()").query
    "//td[@class='sku']/text()"
    """
    query = text.strip()
    if kind is None:
        kind = "css"
        for prefix in ("xpath:", "css:"):
            if query.startswith(prefix):
                kind, query = prefix[:-1], query[len(prefix) :].strip()
                break
    if not query:
        raise ValueError("empty selector")
    if kind == "css":
        try:
            xpath = css2xpath(query)
        except SelectorError as exc:
            raise ValueError(f"invalid CSS selector {query!r}: {exc}") from None
        _check_xpath(xpath, query)
        return SelectorSpec("css", query)
    if kind == "xpath":
        _check_xpath(query, query)
        return SelectorSpec("xpath", query)
    raise ValueError(f"unknown selector kind {kind!r}")


def _check_xpath(xpath: str, written: str) -> None:
    try:
        etree.XPath(xpath, namespaces=_XPATH_NAMESPACES)
    except etree.XPathError as exc:
        raise ValueError(f"invalid XPath {written!r}: {exc}") from None


def page_selector(root: etree._Element) -> Selector:
    """A parsel selector over an already parsed tree (no second parse)."""
    return Selector(root=root, type="html")


def _run(spec: SelectorSpec, context: Selector) -> list[Selector]:
    try:
        if spec.kind == "css":
            return list(context.css(spec.query))
        return list(context.xpath(spec.query))
    except (ValueError, etree.XPathError):  # validated at load; a runtime failure finds nothing
        return []


def select_elements(spec: SelectorSpec, context: Selector) -> list[Selector]:
    """The elements ``spec`` selects under ``context`` (text and attribute results ignored)."""
    return [s for s in _run(spec, context) if isinstance(s.root, etree._Element)]


def select_values(spec: SelectorSpec, context: Selector) -> list[Any]:
    """The raw values ``spec`` selects: strings for ``::text``/``::attr()``/``text()``/``@x``
    results and XPath string or number results, the text content for elements."""
    out: list[Any] = []
    for result in _run(spec, context):
        root = result.root
        if isinstance(root, etree._Element):
            out.append(element_text(root))
        elif isinstance(root, (str, int, float)) and not isinstance(root, bool):
            out.append(str(root))
    return out
