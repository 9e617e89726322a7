"""GcTuning: the collector's thresholds and frozen start-up objects, set and restored."""

from __future__ import annotations

import asyncio
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


@pytest.mark.timeout(60)
@pytest.mark.parametrize("tuning", [True, False])
def test_the_page_workers_tune_their_collector_as_the_crawl_is_told(tuning):
    from structcrawl.crawl.pageworkers import PageWorkers

    settings = {"STRUCTCRAWL_GC_TUNING": tuning, "STRUCTCRAWL_PAGE_WORKERS": 1}
    workers = PageWorkers.of(get_crawler(settings_dict=settings))
    assert workers is not None

    async def ask() -> list[int]:
        try:  # the pool PageWorkers starts, with the environment it gives its children
            return await workers._workers().ask("tests._gcprobe:collector", [], b"")
        finally:
            workers._workers().close()

    threshold, frozen = asyncio.run(ask())
    if tuning:  # tuned at start, and what importing the probe built frozen too
        assert threshold == YOUNG_THRESHOLD and frozen > 0
    else:  # Python's own
        assert threshold != YOUNG_THRESHOLD and frozen == 0
