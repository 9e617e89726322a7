"""The site spider follows each link once, de-duplicating by URL (issue 15: by ``hash(url)``
before, where two URLs with one hash would have lost the second), from callbacks Scrapy
need not check on every response."""

from __future__ import annotations

from scrapy.utils.test import get_crawler

import structcrawl.spiders.site as site_module
from structcrawl.core.document import parse_html
from structcrawl.crawl.items import PageItem
from structcrawl.spiders.site import SiteSpider

BASE = "https://shop.example/"
HTML = b"""<html><body><a href="/a">A</a><a href="/b">B</a><a href="/a#x">A again</a>
<a href="/c">C</a></body></html>"""


def _spider() -> SiteSpider:
    crawler = get_crawler(SiteSpider)
    return SiteSpider.from_crawler(crawler, start_urls=BASE)


def _item() -> PageItem:
    return PageItem(url=BASE, final_url=BASE, document=parse_html(HTML, BASE))


def test_each_link_is_followed_once_across_pages():
    spider = _spider()
    first = [r.url for r in spider._link_requests(_item(), 0)]
    assert sorted(first) == [BASE + "a", BASE + "b", BASE + "c"]
    assert spider._link_requests(_item(), 0) == []  # the same links on another page


def test_urls_whose_hashes_collide_are_both_followed(monkeypatch):
    monkeypatch.setattr(site_module, "hash", lambda value: 0, raising=False)  # every URL collides
    spider = _spider()
    assert sorted(r.url for r in spider._link_requests(_item(), 0)) == [
        BASE + "a",
        BASE + "b",
        BASE + "c",
    ]


def test_no_callback_is_a_generator_that_returns_a_value():
    """Scrapy's check of each response's callback is off for this spider (it parsed the
    callback's source on every page: ~0.5 ms); it is made here instead, with Scrapy's own
    check, on every callback and errback the spider's requests name."""
    from scrapy.utils.misc import is_generator_with_return_value

    crawler = get_crawler(SiteSpider)
    assert crawler.settings.getbool("WARN_ON_GENERATOR_RETURN_VALUE") is False
    spider = _spider()
    for callback in (spider.parse, spider.parse_sitemap, spider.failed, spider._parse):
        assert not is_generator_with_return_value(callback), callback.__name__
