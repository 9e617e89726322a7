"""The C allocator tuned for a crawl of large pages (``STRUCTCRAWL_MMAP_THRESHOLD``,
docs/speed.md): large blocks (a page's body, its decoded text, the parser's buffers) served from
mappings of their own and given back when the page is done, instead of kept in the heap once a
large page has raised glibc's threshold (:mod:`structcrawl.core.allocator`). Set when the
crawler is built, for the rest of the process; the crawl's worker processes are started with the
same threshold (:mod:`structcrawl.crawl.pipelines.pagework`).
"""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.settings import BaseSettings

from structcrawl.core.allocator import set_mmap_threshold
from structcrawl.core.setting import setting_value
from structcrawl.crawl.config import DEFAULTS

__all__ = ["MallocTuning", "mmap_threshold"]


def mmap_threshold(settings: BaseSettings) -> int:
    """``STRUCTCRAWL_MMAP_THRESHOLD`` in bytes (0: the allocator's own policy)."""
    return max(int(setting_value(settings, DEFAULTS, "STRUCTCRAWL_MMAP_THRESHOLD") or 0), 0)


class MallocTuning:
    def __init__(self, threshold: int) -> None:
        self.threshold = threshold

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> MallocTuning:
        threshold = mmap_threshold(crawler.settings)
        if not threshold:
            raise NotConfigured("STRUCTCRAWL_MMAP_THRESHOLD is 0: the allocator's own policy")
        if not set_mmap_threshold(threshold):
            raise NotConfigured("the C library is no glibc: its allocator's policy stays")
        return cls(threshold)
