"""The items' log formatter (``LOG_FORMATTER``): short lines, and none for each page where
``LOG_LEVEL`` drops them anyway."""

from __future__ import annotations

import logging

import pytest
from scrapy import Request, Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse
from scrapy.utils.test import get_crawler

from structcrawl.crawl.logformat import ShortItemLogFormatter, _level

URL = "https://shop.example/p/lamp"
ITEM = {"url": URL, "status": 200, "records": [{}, {}], "typed_items": [{}]}


def _formatter(level: object) -> ShortItemLogFormatter:
    return ShortItemLogFormatter.from_crawler(get_crawler(settings_dict={"LOG_LEVEL": level}))


def _page() -> tuple[Request, HtmlResponse]:
    request = Request(URL)
    return request, HtmlResponse(URL, body=b"<p>Lamp</p>", request=request)


def test_no_debug_line_for_each_page_above_debug():
    request, response = _page()
    quiet = _formatter("INFO")
    assert quiet.crawled(request, response, None) is None
    assert quiet.scraped(ITEM, response, None) is None
    crawler = get_crawler(settings_dict={"LOG_LEVEL": "INFO"})
    spider = Spider.from_crawler(crawler, name="site")
    dropped = quiet.dropped(ITEM, DropItem("duplicate"), response, spider)
    assert dropped is not None and dropped["args"]["item"].startswith("page ")  # still said


def test_the_debug_lines_at_debug_name_the_item_in_one_short_line():
    request, response = _page()
    loud = _formatter("DEBUG")
    crawled = loud.crawled(request, response, None)
    assert crawled is not None and crawled["level"] == logging.DEBUG
    scraped = loud.scraped(ITEM, response, None)
    assert scraped is not None and scraped["level"] == logging.DEBUG
    assert scraped["args"]["item"] == f"page {URL} status 200, 2 records, 1 items"


@pytest.mark.parametrize(
    ("value", "level"),
    [("INFO", 20), ("warning", 30), ("10", 10), (40, 40), ("NOT-A-LEVEL", logging.DEBUG)],
)
def test_the_log_level_is_read_as_scrapy_s_handler_takes_it(value, level):
    assert _level(value) == level
    assert _formatter(value).quiet == (level > logging.DEBUG)
