"""A page's main text by trafilatura, from its HTML (pure; run in the crawl's process or in a
worker process: :mod:`structcrawl.workers.serve`, asked by
:mod:`structcrawl.crawl.pipelines.maintext`).

The one definition of how the main text is read (the extractor's options, the shape of its
text), used by :func:`structcrawl.articles.body.main_text` in process and by the crawl's
main-text worker, so both read the same text from the same HTML.
"""

from __future__ import annotations

import logging

__all__ = ["html_main_text", "shape"]

logger = logging.getLogger("structcrawl.articles.body")


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
