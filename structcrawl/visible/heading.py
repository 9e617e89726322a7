"""The page's main heading (pure): the visible ``h1`` that names the page (the one sharing
most words with its title; an ``h2`` where it names the page better), or, on a page without
heading elements, the element whose own text is the product part of its title. The product
evidence reads the page around it (:mod:`structcrawl.visible.evidence`).
"""

from __future__ import annotations

import re

from lxml import etree

from structcrawl.core.document import Document
from structcrawl.core.readers import text
from structcrawl.visible.tree import NOT_RENDERED, bodies, hidden, region_of

__all__ = ["HEADING_MEMO", "PAGE_HEADING_MEMO", "heading_element", "heading_text", "page_heading"]

#: where a document keeps its main heading once found: ``(element or None,)``
HEADING_MEMO = "heading-element"
#: where a document keeps its main heading's text (:func:`page_heading`)
PAGE_HEADING_MEMO = "page-heading"

_WORD = re.compile(r"\w+")


def _main_heading(
    heads: list[tuple[int, etree._Element]], title: str
) -> tuple[int, etree._Element] | None:
    """The visible h1 that shares most words with the page's title (the first on a tie, and
    the first when none shares any): a dialog's or a banner's h1 ("Adding to cart...") before
    the product's does not name the page. An h2 sharing more words (two at least) with the
    title than every h1, and more than half its own words, names the page instead."""
    said = {w.lower() for w in _WORD.findall(title)}

    def words(head: tuple[int, etree._Element]) -> set[str]:
        return {w.lower() for w in _WORD.findall(" ".join(head[1].itertext()))}

    def shared(head: tuple[int, etree._Element]) -> int:
        return len(words(head) & said)

    h1s = [h for h in heads if h[1].tag == "h1"]
    h1 = max(h1s, key=shared) if h1s else None
    # an h2 names the page where it shares at least two words with its title, more than any
    # h1 (the h1s of a page can be its related products' names) and most of its own words
    # ("Similar ads for TV, projectors near Feldkirch may interest you" shares the title's
    # category and place but is mostly words of its own: a section's heading)
    h2 = max((h for h in heads if h[1].tag == "h2"), key=shared, default=None)
    if h2 is not None and shared(h2) >= 2 and (h1 is None or shared(h2) > shared(h1)):
        if h1 is None or 2 * shared(h2) > len(words(h2)):
            return h2
    return h1


_HEADS = etree.XPath("//body//h1|//body//h2")


def _titles(document: Document) -> list[str]:
    """The texts of the page's titles: each ``<title>`` of a ``<head>`` and each Open Graph
    title (``<meta property="og:title">``'s content, from the element index), what
    ``//head/title|//meta[@property='og:title']/@content`` selects in a third of its time
    (the union walks the page twice and sorts; the order is not read: their words are)."""
    titles = [
        "".join(t.itertext())
        for head in document.index().named("head")
        for t in head.iterchildren("title")
    ]
    for meta in document.index().named("meta"):
        content = meta.get("content")
        if content is not None and meta.get("property") == "og:title":
            titles.append(content)
    return titles


def _heads(document: Document) -> list[etree._Element]:
    """What :data:`_HEADS` selects: the h1 and h2 elements of the page's only ``<body>``, from
    the element index (no walk of the page: the union of two paths walks it twice and sorts)."""
    found = bodies(document)
    if len(found) != 1:
        return list(_HEADS(document.root))  # type: ignore[arg-type]
    return document.index().named_in(found[0], "h1", "h2")


def heading_element(document: Document) -> etree._Element | None:
    """The main heading (:func:`_main_heading`) among the visible h1 and h2 elements, without
    reading the rest of the page; found once per document (kept on its memo: the resolution's
    first pass and the product evidence both ask)."""
    known = document.memo.get(HEADING_MEMO)
    if isinstance(known, tuple):
        return known[0]  # type: ignore[no-any-return]
    found = _heading_element(document)
    document.memo[HEADING_MEMO] = (found,)
    return found


def _heading_element(document: Document) -> etree._Element | None:
    heads = [
        (i, el)
        for i, el in enumerate(_heads(document))
        if not any(
            a.tag in NOT_RENDERED or hidden(a) or region_of(a) for a in (el, *el.iterancestors())
        )
    ]
    titles = _titles(document)
    head = _main_heading(
        [h for h in heads if "".join(h[1].itertext()).strip()] or heads, " ".join(titles)
    )
    return head[1] if head else _title_twin(document, titles)


#: what separates a page title's parts ("Kettle 1.7 l - Shop", "Shop | Kettle")
_TITLE_PARTS = re.compile(r"\s+[-–—|:·•»]\s+|\s*[|｜]\s*")
#: text nodes equal to a text (each node read once: linear in the page's text)
_SAME_TEXT = etree.XPath("//body//text()[normalize-space(.)=$text]")


def _title_twin(document: Document, titles: list[str]) -> etree._Element | None:
    """A page with no heading element: the first visible element whose own text is a part of
    the title (``<div class="title">`` holding the title's product part)."""
    parts = {" ".join(p.split()) for t in titles for p in _TITLE_PARTS.split(t)}
    for part in sorted((p for p in parts if len(p) >= 4), key=len, reverse=True):
        for node in _SAME_TEXT(document.root, text=part):
            el = node.getparent()
            if el is None or node.is_tail or el.tag in ("a", "option", "button", "title"):
                continue  # the element whose own text it is, not a link or a control
            if not any(
                a.tag in NOT_RENDERED or hidden(a) or region_of(a)
                for a in (el, *el.iterancestors())
            ):
                return el
    return None


def page_heading(document: Document) -> str | None:
    """The page's main heading, as the product evidence reads it
    (:func:`structcrawl.visible.evidence.page_evidence`), at a fraction of its cost (what the
    resolution needs before it knows whether it needs the rest; kept on its memo)."""
    return document.memoized(PAGE_HEADING_MEMO, lambda doc: heading_text(heading_element(doc)))


def heading_text(el: etree._Element | None) -> str | None:
    """An element's text, whitespace normalized, icon fonts' glyphs left out (``None`` for
    none or an empty one)."""
    return text("".join(el.itertext())) if el is not None else None
