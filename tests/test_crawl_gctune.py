"""GcTuning: the collector's thresholds and frozen start-up objects, set and restored."""

from __future__ import annotations

import gc

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.gctune import YOUNG_THRESHOLD, GcTuning


def test_tuned_while_the_spider_runs_and_restored_after():
    before = gc.get_threshold()
    ext = GcTuning.from_crawler(get_crawler(settings_dict={"STRUCTCRAWL_GC_TUNING": True}))
    ext.spider_opened()
    try:
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        assert gc.get_freeze_count() > 0
    finally:
        ext.spider_closed()
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_off_raises_not_configured():
    with pytest.raises(NotConfigured, match="STRUCTCRAWL_GC_TUNING"):
        GcTuning.from_crawler(get_crawler(settings_dict={"STRUCTCRAWL_GC_TUNING": False}))


def test_collections_are_counted_and_timed_in_the_stats():
    crawler = get_crawler(settings_dict={"STRUCTCRAWL_GC_TUNING": True})
    ext = GcTuning.from_crawler(crawler)
    ext.spider_opened()
    try:
        for _ in range(3):
            gc.collect(2)
    finally:
        ext.spider_closed()
    assert ext._timed not in gc.callbacks
    stats = crawler.stats.get_stats()
    assert stats["structcrawl/gc/collections/2"] >= 3
    assert stats["structcrawl/gc/ms/2"] >= 0 and "structcrawl/gc/ms/0" in stats
