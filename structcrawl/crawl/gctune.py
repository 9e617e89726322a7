"""Garbage collector tuning for a crawl (``STRUCTCRAWL_GC_TUNING``, docs/speed.md).

A crawl allocates millions of short-lived objects (element proxies, records, requests); with
Python's defaults the collector runs every 700 net allocations and its full collections walk
every object built at start-up (Scrapy, Twisted, the vocabularies, the schemas), about a tenth
of a real-page crawl's time. When the spider opens, :class:`GcTuning` collects once, freezes
what exists (start-up objects are never collected again) and raises the young generation's
threshold; when the spider closes it restores both.

Measured on 327 real pages (docs/speed.md): collections took 1.0-1.1 s of an 8-9 s crawl with
the defaults, 0.5-0.8 s tuned. The threshold is :data:`structcrawl.core.collector.YOUNG_THRESHOLD`
(50,000: a page's objects are freed by their reference counts, so a crawl's collections find
little to free; its reasons are there).

What the collector costs while the spider runs (a sampling profiler does not see it: its
time falls on whatever Python line allocated last) is counted in the stats:
``structcrawl/gc/collections/<generation>`` and ``structcrawl/gc/ms/<generation>``
(milliseconds in collections of that generation).
"""

from __future__ import annotations

import gc
import time
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from structcrawl.core.collector import YOUNG_THRESHOLD, restore, tune

__all__ = ["YOUNG_THRESHOLD", "GcTuning"]


class GcTuning:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._saved: tuple[int, ...] | None = None
        self._started = 0.0
        self._counts = [0, 0, 0]
        self._seconds = [0.0, 0.0, 0.0]

    def _timed(self, phase: str, info: dict[str, int]) -> None:
        """A ``gc.callbacks`` entry: the time of each collection, by generation."""
        if phase == "start":
            self._started = time.perf_counter()
            return
        generation = min(int(info.get("generation", 2)), 2)
        self._counts[generation] += 1
        self._seconds[generation] += time.perf_counter() - self._started

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> GcTuning:
        if not crawler.settings.getbool("STRUCTCRAWL_GC_TUNING"):
            raise NotConfigured("STRUCTCRAWL_GC_TUNING is off")
        ext = cls(crawler)
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Any = None) -> None:
        if self._saved is not None:
            return
        self._saved = tune()
        gc.callbacks.append(self._timed)

    def spider_closed(self, spider: Any = None) -> None:
        if self._saved is None:
            return
        restore(self._saved)
        self._saved = None
        if self._timed in gc.callbacks:
            gc.callbacks.remove(self._timed)
        stats = self.crawler.stats
        if stats is not None:
            for generation in range(3):
                count = self._counts[generation]
                stats.set_value(f"structcrawl/gc/collections/{generation}", count)
                ms = round(self._seconds[generation] * 1000, 1)
                stats.set_value(f"structcrawl/gc/ms/{generation}", ms)
