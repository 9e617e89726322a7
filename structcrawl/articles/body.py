"""An article's body as plain text: the markup's ``articleBody`` when it carries the whole text
the page shows, else the page's main text read by trafilatura (pure).

The shape is zyte-common-items' ``Article.articleBody``: plain text, one paragraph per block,
paragraphs separated by a blank line.

* **Markup.** A JSON-LD ``articleBody`` string is taken as written (its line breaks become
  paragraphs) when it is the page's own text (at least :data:`VISIBLE_SHARE` of its word
  4-gram shingles appear in the page's visible text) and the whole of it (it holds at least
  :data:`WHOLE_SHARE` of the main text's shingles; a teaser or a paywall excerpt does not).
  A Microdata or RDFa ``articleBody`` names an element, which holds the article and whatever
  the template puts in it (galleries, widgets, "read more" boxes): when the main text lies
  within it, the main text is the body (``within_markup`` in its provenance); the element's
  shown text (:mod:`structcrawl.articles._blocks`) is the body only when the extractor finds
  nothing. A page whose HTML shows fewer than :data:`MIN_WORDS` words of main text (its
  scripts fill the text in), or whose main text lies within a markup body the page does not
  show (the extractor read it from the page's data), cannot be checked: a markup body of at
  least that many words is taken then, with ``"checked": false``.
* **Main text.** Otherwise the page's main text, by trafilatura (``fast`` mode: its own
  extraction without the readability/jusText fallbacks, no comments, tables kept), from the
  page's parsed tree serialized once. A page larger than :data:`MAX_HTML_CHARS` is not read.

Provenance says which: ``{"layer": "json-ld", "rule": "markup-articleBody", ...}`` or
``{"layer": "main-text", "rule": "trafilatura 2.3.1", ...}``, with the shares measured.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from lxml import etree

from structcrawl.articles._blocks import paragraphs
from structcrawl.articles._shingles import covered, shingles
from structcrawl.core.document import Document
from structcrawl.workers.maintext import MAX_HTML_CHARS, document_main_text, page_html, shape

__all__ = [
    "BODY_ELEMENTS_MEMO",
    "MAX_HTML_CHARS",
    "MIN_WORDS",
    "VISIBLE_SHARE",
    "WHOLE_SHARE",
    "MAIN_TEXT_MEMO",
    "PAGE_TEXT_MEMO",
    "Body",
    "choose_body",
    "element_text",
    "main_provenance",
    "main_text",
    "page_html",
    "shape",
]

logger = logging.getLogger(__name__)

VISIBLE_SHARE = 0.9
WHOLE_SHARE = 0.8
#: the least main text (in words) that makes a dated page without items an article
MIN_WORDS = 100
EXTRACTOR = "trafilatura"


@dataclass(frozen=True, slots=True)
class Body:
    """A chosen body and where it came from."""

    text: str
    provenance: dict[str, Any]


def extractor_version() -> str | None:
    try:
        import trafilatura
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    return str(getattr(trafilatura, "__version__", "")) or None


#: where a document keeps its main text once read (by a worker process or here)
MAIN_TEXT_MEMO = "main-text"


def main_text(document: Document) -> str | None:
    """The page's main text by trafilatura (shaped, see
    :func:`structcrawl.workers.maintext.shape`), None when it finds none, the page is too
    large, or the extractor fails (never raises). Read once per document: a crawl's worker
    process may have read it already (:mod:`structcrawl.crawl.pipelines.pagework`)."""
    memo = document.memo
    if MAIN_TEXT_MEMO in memo:
        known: str | None = memo[MAIN_TEXT_MEMO]
        return known
    text = memo[MAIN_TEXT_MEMO] = document_main_text(document)
    return text


def _words(text: str) -> int:
    return len(text.split())


def _unshown(main: str, mark: Any, markup: str) -> bool:
    """The markup body cannot be checked against a page whose HTML shows little text: the
    main text is under :data:`MIN_WORDS` words, or lies within the markup's (the extractor
    read it from the page's data) while the markup has at least that many words."""
    if _words(markup) < MIN_WORDS:
        return False
    return _words(main) < MIN_WORDS or covered(shingles(main), mark) >= WHOLE_SHARE


def main_provenance() -> dict[str, Any]:
    """The provenance of a body read by the main-text extractor."""
    return {
        "record": None,
        "layer": "main-text",
        "path": "",
        "raw": None,
        "rule": f"{EXTRACTOR} {extractor_version()}",
        "extractor": EXTRACTOR,
        "version": extractor_version(),
    }


def markup_text(value: Any, element: etree._Element | None = None) -> str | None:
    """The markup body as plain text: an element's shown paragraphs, else the string."""
    if element is not None:
        found = paragraphs(element)
        return "\n\n".join(found) if found else None
    if isinstance(value, str) and value.strip():
        return shape(value.replace("\r\n", "\n"))
    return None


#: where a document keeps its shown text as paragraphs (:func:`visible_text`) and the shown
#: text of the elements a markup body names (:func:`element_text`): a worker process may
#: have read them (:mod:`structcrawl.pageread.whole`)
PAGE_TEXT_MEMO = "page-paragraphs"
BODY_ELEMENTS_MEMO = "article-body-elements"


def visible_text(document: Document) -> str:
    """The page's shown text, one paragraph a line (read once per document)."""
    return document.memoized(PAGE_TEXT_MEMO, _visible_text)


def _visible_text(document: Document) -> str:
    body = document.root.find("body")
    return "\n".join(paragraphs(body if body is not None else document.root))


def element_text(document: Document, path: str) -> tuple[bool, str | None]:
    """Whether the page has an element at ``path`` (the XPath a Microdata or RDFa
    ``articleBody`` was read from) and, if so, its body (:func:`markup_text`); read once per
    document and path.

    >>> from structcrawl.core.document import parse_html
    >>> doc = parse_html(b"<article><p>One.</p><p>Two.</p></article>", "https://a.test/")
    >>> element_text(doc, "/html/body/article"), element_text(doc, "/html/body/div")
    ((True, 'One.\\n\\nTwo.'), (False, None))
    """
    known = document.memo.setdefault(BODY_ELEMENTS_MEMO, {})
    if path not in known:
        try:
            found = document.root.getroottree().xpath(path)
        except (etree.XPathError, ValueError):
            found = []
        element = found[0] if found and isinstance(found[0], etree._Element) else None
        text = markup_text(None, element) if element is not None else None
        known[path] = (element is not None, text)
    there, text = known[path]  # a list where a worker process said it (JSON)
    return bool(there), text


def choose_body(
    document: Document | None,
    markup: str | None,
    markup_provenance: dict[str, Any] | None,
    *,
    extract: bool = True,
    element: bool = False,
) -> Body | None:
    """The body (see the module doc): the markup's when it is the page's whole text, else the
    main text (``extract=False``: never run the extractor; the markup's body is then taken
    when the page shows it). ``element``: the markup body is an element's text (Microdata,
    RDFa), which gives way to the main text found within it."""
    if document is None:
        return None
    checked: dict[str, Any] = {}
    if markup:
        mark = shingles(markup)
        checked["visible_share"] = round(covered(mark, shingles(visible_text(document))), 3)
    main = main_text(document) if extract else None
    if markup and checked["visible_share"] >= VISIBLE_SHARE:
        if main is not None:
            checked["whole_share"] = round(covered(shingles(main), mark), 3)
        whole = main is None or checked["whole_share"] >= WHOLE_SHARE
        if whole and not (element and main is not None):
            return Body(markup, {**(markup_provenance or {}), "rule": "markup-articleBody",
                                 **checked})  # fmt: skip
        # an element marked articleBody holds the article and whatever the template put in
        # it (galleries, widgets, "read more" boxes): the main text read inside it is cleaner
    elif markup and main is not None and _unshown(main, mark, markup):
        # the page's HTML shows next to no text (a page its scripts fill in), or only a part
        # of the markup's: nothing to check the markup against, and it is the better reading
        checked["main_words"] = _words(main)
        checked["whole_share"] = round(covered(shingles(main), mark), 3)
        prov = {**(markup_provenance or {}), "rule": "markup-articleBody", **checked}
        return Body(markup, {**prov, "checked": False})
    if main is None:
        return None
    prov = main_provenance()
    if checked:
        key = "within_markup" if checked.get("whole_share", 0) >= WHOLE_SHARE else "markup_rejected"
        prov[key] = {**(markup_provenance or {}), **checked}
    return Body(main, prov)
