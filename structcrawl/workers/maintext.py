"""A page's main text by trafilatura, from its parsed tree (pure; run in the crawl's process
or in a worker process: :mod:`structcrawl.workers.page`).

The one definition of how the main text is read (the HTML it is read from, the extractor's
options, the shape of its text), used by :func:`structcrawl.articles.body.main_text` in
process and by the crawl's worker, so both read the same text from the same page.
"""

from __future__ import annotations

import logging
from typing import Any

from lxml import etree

__all__ = ["MAX_HTML_CHARS", "document_main_text", "html_main_text", "page_html", "shape"]

logger = logging.getLogger("structcrawl.articles.body")

#: a page whose serialized tree is longer is not read for its main text
MAX_HTML_CHARS = 4_000_000


def page_html(document: Any) -> str | None:
    """The page's parsed tree (``document.root``) serialized, what the main text is read from
    (it spares the extractor's own charset detection); None for a page larger than
    :data:`MAX_HTML_CHARS`, whose main text is not read."""
    try:
        html = etree.tostring(document.root, method="html", encoding="unicode")
    except Exception:  # pragma: no cover - a tree lxml cannot write
        logger.debug("%s could not be serialized", document.url, exc_info=True)
        return None
    return html if len(html) <= MAX_HTML_CHARS else None


def document_main_text(document: Any) -> str | None:
    """The main text of a parsed page (:func:`page_html`, :func:`html_main_text`)."""
    html = page_html(document)
    return html_main_text(html, document.url) if html is not None else None


def shape(text: str) -> str:
    """Plain text with one blank line between paragraphs (trafilatura's list markers and
    table rules dropped, table cells separated by spaces).

    >>> shape("Title\\n- one\\n| a | b |\\n|---|---|\\n| c | d |\\n\\n\\nEnd ")
    'Title\\n\\none\\n\\na b\\n\\nc d\\n\\nEnd'
    """
    out = []
    for line in text.split("\n"):
        line = " ".join(line.split())
        if line.startswith("|"):
            if not line.strip("|-: "):
                continue
            line = " ".join(c.strip() for c in line.strip("|").split("|") if c.strip())
        elif line.startswith("- "):
            line = line[2:]
        if line:
            out.append(line)
    return "\n\n".join(out)


def html_main_text(html: str, url: str | None) -> str | None:
    """The main text trafilatura reads from ``html`` (its ``fast`` mode: its own extraction
    without the readability/jusText fallbacks, no comments, tables kept), shaped
    (:func:`shape`); None when it finds none or fails (never raises)."""
    try:
        import trafilatura
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        text = trafilatura.extract(
            html,
            url=url,
            fast=True,
            include_comments=False,
            include_tables=True,
            include_images=False,
            include_links=False,
            deduplicate=False,
        )
    except Exception:  # a page the extractor cannot read has no main text
        logger.debug("main text of %s could not be read", url, exc_info=True)
        return None
    return shape(text) if text else None
