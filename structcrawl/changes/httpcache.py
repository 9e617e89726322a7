"""Incremental re-crawls with HTTP validators, on Scrapy's own HTTP cache.

* :class:`IncrementalAddon` (in ``ADDONS``): with ``STRUCTCRAWL_INCREMENTAL`` on it turns on
  ``HTTPCACHE_ENABLED`` with :class:`RevalidatingCachePolicy` and puts ``HTTPCACHE_DIR`` beside
  the change store, at add-on priority (explicit ``HTTPCACHE_*`` settings win), and adds
  :class:`HttpCacheStatusMiddleware` to ``SPIDER_MIDDLEWARES``.
* :class:`RevalidatingCachePolicy`: Scrapy's RFC 2616 policy (``If-None-Match`` /
  ``If-Modified-Since`` from the cached ``ETag`` / ``Last-Modified``; a 304 reuses the cached
  response, whose body then goes through extraction as usual), plus:

  - with ``STRUCTCRAWL_INCREMENTAL_ALWAYS_REVALIDATE`` (default) every cached page is
    revalidated each run: heuristic freshness (10% of the time since ``Last-Modified``)
    would otherwise skip pages for days, unseen;
  - responses rendered by the browser are not cached (a rendered DOM is not what the
    server's validators describe);
  - it marks what it decided in ``response.flags``: ``fresh`` (served from the cache
    without a request), ``revalidated`` (304), ``stale`` (the server failed with a 5xx: the
    cached copy was used), ``modified`` (a conditional request got a new body).
* :class:`HttpCacheStatusMiddleware` (spider middleware) writes the outcome on each page
  item's ``http_cache`` (see :func:`cache_status`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from itemadapter import ItemAdapter
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.extensions.httpcache import RFC2616Policy
from scrapy.http import Request, Response
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware
from scrapy.utils.misc import load_object

from structcrawl.changes.config import ChangeConfig

__all__ = [
    "CACHE_STATES",
    "HttpCacheStatusMiddleware",
    "IncrementalAddon",
    "RevalidatingCachePolicy",
    "cache_status",
]

#: Values of ``PageItem.http_cache`` (``None``: the HTTP cache is off).
CACHE_STATES = ("miss", "hit", "revalidated", "modified", "stale")


def cache_status(flags: Iterable[str]) -> str:
    """A page's ``http_cache`` from its response flags (as marked by
    :class:`RevalidatingCachePolicy` and Scrapy's cache middleware).

    >>> cache_status([]), cache_status(["cached", "revalidated"]), cache_status(["modified"])
    ('miss', 'revalidated', 'modified')
    >>> cache_status(["cached", "fresh"]), cache_status(["cached"])
    ('hit', 'stale')
    """
    flags = set(flags)
    if "cached" in flags:
        if "revalidated" in flags:
            return "revalidated"
        if "fresh" in flags:
            return "hit"
        return "stale"  # a 5xx, or the server could not be reached (error recovery)
    return "modified" if "modified" in flags else "miss"


def _set_validators(request: Request, cached: Response) -> None:
    """The conditional headers RFC 2616 revalidation sends."""
    last_modified = cached.headers.get(b"Last-Modified")
    if last_modified:
        request.headers[b"If-Modified-Since"] = last_modified
    etag = cached.headers.get(b"ETag")
    if etag:
        request.headers[b"If-None-Match"] = etag


class RevalidatingCachePolicy(RFC2616Policy):
    """See the module documentation."""

    def __init__(self, settings: Any):
        super().__init__(settings)
        self.always_revalidate = ChangeConfig.from_settings(settings).always_revalidate

    def should_cache_response(self, response: Response, request: Request) -> bool:
        if request.meta.get("playwright"):
            return False
        return bool(super().should_cache_response(response, request))

    def is_cached_response_fresh(self, cachedresponse: Response, request: Request) -> bool:
        if self.always_revalidate:
            _set_validators(request, cachedresponse)
            return False
        fresh = bool(super().is_cached_response_fresh(cachedresponse, request))
        if fresh:
            cachedresponse.flags.append("fresh")
        return fresh

    def is_cached_response_valid(
        self, cachedresponse: Response, response: Response, request: Request
    ) -> bool:
        valid = bool(super().is_cached_response_valid(cachedresponse, response, request))
        if valid:
            cachedresponse.flags.append("revalidated" if response.status == 304 else "stale")
        else:
            response.flags.append("modified")
        return valid


class IncrementalAddon:
    """Switches the HTTP cache on for incremental crawls (``STRUCTCRAWL_INCREMENTAL``)."""

    def update_settings(self, settings: Any) -> None:
        config = ChangeConfig.from_settings(settings)
        if not config.incremental:
            return
        policy = f"{RevalidatingCachePolicy.__module__}.{RevalidatingCachePolicy.__name__}"
        settings.set("HTTPCACHE_ENABLED", True, priority="addon")
        settings.set("HTTPCACHE_POLICY", policy, priority="addon")
        settings.set("HTTPCACHE_DIR", config.httpcache_dir, priority="addon")
        middleware = f"{HttpCacheStatusMiddleware.__module__}.{HttpCacheStatusMiddleware.__name__}"
        settings["SPIDER_MIDDLEWARES"][middleware] = 800


class HttpCacheStatusMiddleware(BaseSpiderMiddleware):
    """Sets ``http_cache`` on page items from their response; counts
    ``structcrawl/incremental/http_cache/<state>``. Needs the HTTP cache with
    :class:`RevalidatingCachePolicy` (or a subclass)."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> HttpCacheStatusMiddleware:
        settings = crawler.settings
        if not settings.getbool("HTTPCACHE_ENABLED"):
            raise NotConfigured("HTTPCACHE_ENABLED is off")
        policy = load_object(settings["HTTPCACHE_POLICY"])
        if not (isinstance(policy, type) and issubclass(policy, RevalidatingCachePolicy)):
            raise NotConfigured("HTTPCACHE_POLICY is not structcrawl's RevalidatingCachePolicy")
        return cls(crawler)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        if response is None:
            return item
        adapter = ItemAdapter(item)
        if "http_cache" not in adapter.field_names():
            return item
        if adapter.get("final_url") != response.url:
            return item
        state = cache_status(response.flags)
        adapter["http_cache"] = state
        assert self.crawler.stats is not None
        self.crawler.stats.inc_value(f"structcrawl/incremental/http_cache/{state}")
        return item
