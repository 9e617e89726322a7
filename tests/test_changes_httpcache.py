"""HTTP revalidation for incremental crawls: the cache policy, the add-on, page cache states."""

from __future__ import annotations

from email.utils import formatdate

import pytest
from scrapy.exceptions import NotConfigured
from scrapy.http import HtmlResponse, Request
from scrapy.settings import Settings
from scrapy.utils.test import get_crawler

from structcrawl.changes.httpcache import (
    HttpCacheStatusMiddleware,
    IncrementalAddon,
    RevalidatingCachePolicy,
    cache_status,
)
from structcrawl.crawl.items import EntityItem, PageItem

URL = "http://127.0.0.1:8765/p/1.html"
POLICY = "structcrawl.changes.httpcache.RevalidatingCachePolicy"


def cached(**headers):
    base = {
        "ETag": '"abc"',
        "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
        "Date": formatdate(usegmt=True),
        "Cache-Control": "max-age=86400",
    }
    return HtmlResponse(URL, body=b"<html></html>", headers={**base, **headers})


def policy(**settings):
    return RevalidatingCachePolicy(Settings(settings))


def test_cache_states():
    assert cache_status([]) == "miss"
    assert cache_status(["cached", "revalidated"]) == "revalidated"
    assert cache_status(["cached", "fresh"]) == "hit"
    assert cache_status(["cached", "stale"]) == cache_status(["cached"]) == "stale"
    assert cache_status(["modified"]) == "modified"


def test_every_cached_page_is_revalidated_with_its_validators():
    request = Request(URL)
    assert policy().is_cached_response_fresh(cached(), request) is False  # despite max-age
    assert request.headers[b"If-None-Match"] == b'"abc"'
    assert request.headers[b"If-Modified-Since"] == b"Mon, 01 Jan 2024 00:00:00 GMT"


def test_without_always_revalidate_fresh_pages_are_served_from_the_cache():
    response, request = cached(), Request(URL)
    lenient = policy(STRUCTCRAWL_INCREMENTAL_ALWAYS_REVALIDATE=False)
    assert lenient.is_cached_response_fresh(response, request) is True
    assert "fresh" in response.flags and b"If-None-Match" not in request.headers


def test_validation_outcomes_are_marked_on_the_response():
    p = policy()
    not_modified = cached()
    assert p.is_cached_response_valid(not_modified, HtmlResponse(URL, status=304), Request(URL))
    assert "revalidated" in not_modified.flags
    server_error = cached()
    assert p.is_cached_response_valid(server_error, HtmlResponse(URL, status=503), Request(URL))
    assert "stale" in server_error.flags
    new = HtmlResponse(URL, status=200, body=b"<html>new</html>")
    assert not p.is_cached_response_valid(cached(), new, Request(URL))
    assert "modified" in new.flags


def test_browser_rendered_responses_are_not_cached():
    p = policy()
    assert p.should_cache_response(cached(), Request(URL))
    assert not p.should_cache_response(cached(), Request(URL, meta={"playwright": True}))


def test_addon_switches_the_cache_on_beside_the_change_store(tmp_path):
    settings = Settings()
    settings.set("STRUCTCRAWL_INCREMENTAL", True, priority="cmdline")
    settings.set("STRUCTCRAWL_CHANGE_STORE", str(tmp_path / "st" / "changes.sqlite"), "cmdline")
    IncrementalAddon().update_settings(settings)
    assert settings.getbool("HTTPCACHE_ENABLED")
    assert settings["HTTPCACHE_POLICY"] == POLICY
    assert settings["HTTPCACHE_DIR"] == str(tmp_path / "st" / "httpcache")
    middlewares = settings.getwithbase("SPIDER_MIDDLEWARES")
    assert middlewares["structcrawl.changes.httpcache.HttpCacheStatusMiddleware"] == 800


def test_explicit_cache_settings_win_and_the_default_is_off():
    settings = Settings()
    settings.set("STRUCTCRAWL_INCREMENTAL", True, priority="cmdline")
    settings.set("HTTPCACHE_DIR", "/var/cache/crawl", priority="cmdline")
    IncrementalAddon().update_settings(settings)
    assert settings["HTTPCACHE_DIR"] == "/var/cache/crawl"
    plain = Settings()
    IncrementalAddon().update_settings(plain)
    assert not plain.getbool("HTTPCACHE_ENABLED") and not plain.getdict("SPIDER_MIDDLEWARES")


def test_page_items_get_their_cache_state():
    with pytest.raises(NotConfigured):
        HttpCacheStatusMiddleware.from_crawler(get_crawler())
    with pytest.raises(NotConfigured):  # the stock policy does not mark its decisions
        HttpCacheStatusMiddleware.from_crawler(
            get_crawler(
                settings_dict={
                    "HTTPCACHE_ENABLED": True,
                    "HTTPCACHE_POLICY": "scrapy.extensions.httpcache.RFC2616Policy",
                }
            )
        )
    crawler = get_crawler(settings_dict={"HTTPCACHE_ENABLED": True, "HTTPCACHE_POLICY": POLICY})
    mw = HttpCacheStatusMiddleware.from_crawler(crawler)
    response = HtmlResponse(URL, body=b"", flags=["cached", "revalidated"])
    item = mw.get_processed_item(PageItem(url=URL, final_url=URL), response)
    assert item.http_cache == "revalidated"
    other = mw.get_processed_item(PageItem(url="u", final_url="elsewhere"), response)
    assert other.http_cache is None
    entity = EntityItem(key="k")
    assert mw.get_processed_item(entity, response) is entity
    assert crawler.stats.get_value("structcrawl/incremental/http_cache/revalidated") == 1
