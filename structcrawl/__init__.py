"""structcrawl: structured data from crawled pages, as records with provenance.

In a Scrapy project: ``ADDONS = {"structcrawl.Addon": 0}`` and ``yield
structcrawl.page_item(response)`` (both imported lazily: the pure core never imports Scrapy).
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Addon", "__version__", "page_item"]

_LAZY = {
    "Addon": "structcrawl.crawl.addon",
    "page_item": "structcrawl.crawl.pageitem",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'structcrawl' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
