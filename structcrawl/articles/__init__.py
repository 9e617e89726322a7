"""Articles with their text: the body, authors, publisher and dates of a page's Article items
as a reader sees them (pure; no Scrapy imports).

:func:`complete_articles` completes the items :mod:`structcrawl.typed` builds (the one call
``typed.page.build_items`` makes); the pieces are :mod:`~structcrawl.articles.body` (markup
``articleBody`` checked against the page, else the main text by trafilatura),
:mod:`~structcrawl.articles.people` (graph references followed to names, bylines cleaned),
:mod:`~structcrawl.articles.meta` (``<meta>`` fallbacks) and the shingle measure
(:mod:`~structcrawl.articles._shingles`) that both the body check and ``bench/bench_articles.py``
use.
"""

from __future__ import annotations

from structcrawl.articles.complete import complete_articles, is_empty

__all__ = ["complete_articles", "is_empty"]
