"""The visible-page check of an item's fallback values (pure, no Scrapy imports).

Values a typed item took from a generic fallback (provenance ``fallback: true``, see
:mod:`structcrawl.typed.fallbacks`) are checked against what a reader of the page sees, the way
records are (:mod:`structcrawl.validate.visible`), by the same comparisons
(:mod:`structcrawl.visible.compare`):

* a value read from the visible page itself (layer ``visible-page``) passes trivially;
* ``price``: agrees when its amount is among the visible prices (the price containers of
  :func:`structcrawl.visible.facts.visible_facts`, else any amount with a currency in the
  visible text of ``<body>``);
* ``name`` / ``headline``: agrees with the ``<title>`` or an ``<h1>`` (word for word, as for
  records), or appears in the visible text;
* ``sku`` / ``mpn``: appears in the visible text (case-insensitive);
* other fields (availability, currency, images, ...) are not checked.

A value that does not agree is a flag ``{"field", "code": "fallback-not-visible", "layer",
"value", "visible_value"}`` in ``item["validation"]["flags"]``; an item with at least one
checked fallback value gets ``item["validation"] = {"visible_checked": [fields], "flags":
[...]}``. The page's visible facts are computed only when an item has a fallback value to
check (:class:`LazyPage`), once per page.

>>> from structcrawl.core.document import parse_html
>>> doc = parse_html(b'<title>Mug</title><h1>Mug</h1><p class="price">$12.00</p>', "https://s.example/")
>>> item = {"type": "Product", "price": "9.00", "name": "Mug",
...         "provenance": {"price": {"layer": "meta-tags", "fallback": True},
...                        "name": {"layer": "visible-page", "fallback": True}}}
>>> check_fallbacks([item], LazyPage(doc))
1
>>> [(f["field"], f["code"]) for f in item["validation"]["flags"]]
[('price', 'fallback-not-visible')]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from structcrawl.core.document import Document
from structcrawl.visible.compare import agrees, amount_shown, code_shown
from structcrawl.visible.facts import LazyVisibleFacts
from structcrawl.visible.prices import amount, find_prices
from structcrawl.visible.text import visible_text

__all__ = ["FLAG_CODE", "LazyPage", "check_fallbacks", "fallback_fields"]

#: The code of a fallback value the visible page does not show.
FLAG_CODE = "fallback-not-visible"
_VISIBLE_LAYER = "visible-page"
_CHECKED = ("price", "name", "headline", "sku", "mpn")


class LazyPage:
    """A page's visible facts and visible text, each computed on first use (once).

    ``known``: facts already read from the same page (the crawl's
    :class:`~structcrawl.visible.facts.LazyVisibleFacts`, what the record checks read), taken
    as they are instead of being read from the page again; the others are read here, one by
    one, and only those a check asks for (``computed``: whether anything was read here)."""

    def __init__(self, document: Document | None, known: Mapping[str, Any] | None = None):
        self.document = document
        self._known: dict[str, Any] = dict(known or {})
        self._facts: LazyVisibleFacts | None = None
        self._text: str | None = None
        self.computed = False

    def fact(self, name: str) -> Any:
        """The visible fact ``name`` (a :class:`~structcrawl.visible.facts.VisibleFacts`
        field), None without a document."""
        if name in self._known:
            return self._known[name]
        if self.document is None:
            return None
        if self._facts is None:
            self.computed = True
            self._facts = LazyVisibleFacts(self.document)
        value = self._known[name] = self._facts[name]
        return value

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = ""
            if self.document is not None:
                body = self.document.root.find(".//body")
                root = body if body is not None else self.document.root
                self.computed = True
                self._text = " ".join(visible_text(root).split())
        return self._text


def fallback_fields(item: dict[str, Any]) -> list[str]:
    """The checked fields of ``item`` whose value comes from a fallback."""
    provenance = item.get("provenance") or {}
    return [
        name
        for name in _CHECKED
        if isinstance(provenance.get(name), dict)
        and provenance[name].get("fallback")
        and item.get(name) is not None
    ]


def _price_shown(value: Any, page: LazyPage) -> tuple[bool, list[str]]:
    if amount(value) is None:
        return True, []  # nothing to compare
    shown = list(page.fact("prices") or [])
    if amount_shown(value, shown):
        return True, shown
    anywhere = find_prices(page.text)
    return amount_shown(value, anywhere), shown or anywhere


def _name_shown(value: Any, page: LazyPage) -> tuple[bool, list[str]]:
    title = page.fact("title")
    seen = ([title] if title else []) + list(page.fact("h1") or [])
    if any(agrees(str(value), s) for s in seen):
        return True, seen
    return agrees(str(value), page.text) or str(value).casefold() in page.text.casefold(), seen


def _code_shown(value: Any, page: LazyPage) -> tuple[bool, list[str]]:
    return code_shown(value, page.text), []


def check_fallbacks(items: list[dict[str, Any]], page: LazyPage) -> int:
    """Check every fallback value of ``items`` against the page (sets ``validation`` on the
    items that have one); returns how many values were flagged. The page is read only when
    an item has a fallback value that did not come from the visible page itself."""
    flagged = 0
    for item in items:
        fields = fallback_fields(item)
        if not fields:
            continue
        flags: list[dict[str, Any]] = []
        for name in fields:
            origin = item["provenance"][name]
            if origin.get("layer") == _VISIBLE_LAYER or page.document is None:
                continue
            check = _price_shown if name == "price" else _code_shown
            if name in ("name", "headline"):
                check = _name_shown
            ok, visible = check(item[name], page)
            if not ok:
                flags.append(
                    {
                        "field": name,
                        "code": FLAG_CODE,
                        "layer": origin.get("layer"),
                        "value": item[name],
                        "visible_value": visible[:10],
                    }
                )
        validation = dict(item.get("validation") or {})
        validation["visible_checked"] = fields if page.document is not None else []
        validation["flags"] = list(validation.get("flags") or []) + flags
        item["validation"] = validation
        flagged += len(flags)
    return flagged
