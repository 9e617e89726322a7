"""One log line for a crawl's feeds (structcrawl.crawl.feedlog): Scrapy's ``Stored … feed``
line per feed left out for this crawl's spider only, each feed named with the lines it wrote,
a feed that was not stored said so."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.utils.test import get_crawler

from structcrawl.crawl.feedlog import FeedLog

SCRAPY = logging.getLogger("scrapy.extensions.feedexport")


def _slot(uri: str, fmt: str, lines: int) -> SimpleNamespace:
    return SimpleNamespace(
        uri=uri, format=fmt, itemcount=999, exporter=SimpleNamespace(lines=lines)
    )


def test_one_line_for_the_feeds_with_the_lines_each_wrote(caplog, tmp_path):
    crawler = get_crawler(
        settings_dict={"FEEDS": {str(tmp_path / "pages.jsonl"): {"format": "pages"}}}
    )
    crawler.spider = SimpleNamespace(name="site")
    other_spider = SimpleNamespace(name="other")
    feedlog = FeedLog.from_crawler(crawler)
    pages, entities = str(tmp_path / "pages.jsonl"), str(tmp_path / "entities.jsonl")
    with caplog.at_level(logging.INFO):
        SCRAPY.info(
            "Stored %s", f"pages feed (999 items) in: {pages}", extra={"spider": crawler.spider}
        )
        feedlog.feed_slot_closed(_slot(pages, "pages", 110))
        SCRAPY.error("Error storing %s", f"entities feed (999 items) in: {entities}")
        feedlog.feed_slot_closed(_slot(entities, "entities", 515))
        SCRAPY.info("Stored %s", "x feed (1 items) in: /y", extra={"spider": other_spider})
        feedlog.feed_exporter_closed()
    said = [r.getMessage() for r in caplog.records]
    assert "Stored x feed (1 items) in: /y" in said  # another crawl's line is not ours to drop
    assert not any(m.startswith("Stored pages feed") for m in said)
    assert "Error storing entities feed (999 items) in: " + entities in said
    [line] = [r.getMessage() for r in caplog.records if r.name == "structcrawl.crawl.feedlog"]
    assert line == (
        f"Stored 1 of 2 feeds in {tmp_path}/: pages.jsonl (pages, 110 lines), "
        "entities.jsonl (entities, 515 lines: NOT STORED)"
    )
    assert feedlog.filter not in SCRAPY.filters  # removed when the feeds are done


def test_without_feeds_it_is_not_configured():
    with pytest.raises(NotConfigured):
        FeedLog.from_crawler(get_crawler(settings_dict={"FEEDS": {}}))
