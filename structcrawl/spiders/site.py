"""``site``: a generic crawl of one site, one page item per response.

    scrapy crawl site -a start_urls=https://example.com/ [-a allowed_domains=example.com]
        [-a sitemap=https://example.com/sitemap.xml] [-a follow='/products/,/articles/']
        [-a deny='\\?sort='] [-a depth=3]

Arguments are comma-separated lists; in ``start_urls`` and ``sitemap`` a comma separates two
URLs only where an absolute URL (``scheme://``) follows it (``?ids=1,2`` stays one URL), and ``-a
start_url=URL`` is exactly one URL, never split (``structcrawl check``). ``allowed_domains``
defaults to the start URLs' hosts; ``depth`` limits link depth (0 = start URLs only; default
unlimited). ``file://`` and other non-http(s) URLs are refused.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import scrapy
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.gz import gunzip, gzip_magic_number
from scrapy.utils.sitemap import Sitemap, sitemap_urls_from_robots
from twisted.python.failure import Failure

from structcrawl.core.links import LinkRules, page_links
from structcrawl.core.redact import redact_url, split_credentials
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.credentials import endpoint
from structcrawl.crawl.items import PageItem
from structcrawl.crawl.pageitem import page_item, requested_url, utc_now
from structcrawl.crawl.retry import fetch_error_code, fetch_error_message
from structcrawl.ledger.extension import page_accounted

logger = logging.getLogger(__name__)


def _csv(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


_URL_COMMA = re.compile(r",\s*(?=[a-z][a-z0-9+.-]*://)", re.IGNORECASE)


def _url_list(value: str | None) -> list[str]:
    """URLs of a comma-separated list, split only before another absolute URL.

    >>> _url_list("http://a/?ids=1,2, https://b/,ftp://c/")
    ['http://a/?ids=1,2', 'https://b/', 'ftp://c/']
    """
    return [v.strip() for v in _URL_COMMA.split(value or "") if v.strip()]


class SiteSpider(scrapy.Spider):
    name = "site"
    link_rules: LinkRules
    #: Scrapy checks that a callback which is a generator returns no value by parsing its
    #: source, on every response: its cache is keyed by the bound method a request holds,
    #: which goes with the request (~0.5 ms a page on the crawl's thread). This spider's
    #: callbacks are checked once, by the tests, with Scrapy's own check (a spider made from
    #: this one inherits the setting; one of a project's own keeps Scrapy's default).
    custom_settings = {"WARN_ON_GENERATOR_RETURN_VALUE": False}

    def __init__(
        self,
        start_urls: str | None = None,
        start_url: str | None = None,
        sitemap: str | None = None,
        allowed_domains: str | None = None,
        follow: str | None = None,
        deny: str | None = None,
        depth: str | int | None = None,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        #: ``host:port`` -> ``(user, password)`` of operator URLs that carried credentials:
        #: sent as basic authentication to that endpoint, never kept in a URL
        self.url_credentials: dict[str, tuple[str, str]] = {}
        self.start_urls = (
            [self._credentials(start_url)]
            if start_url
            else [self._credentials(u) for u in _url_list(start_urls)]
        )
        self.sitemap_urls = [self._credentials(u) for u in _url_list(sitemap)]
        if not self.start_urls and not self.sitemap_urls:
            raise ValueError("site spider needs -a start_urls=URL[,URL] or -a sitemap=URL")
        for url in self.start_urls + self.sitemap_urls:
            if urlsplit(url).scheme not in ("http", "https"):
                raise ValueError(f"refusing non-http(s) URL {url!r}")
        domains = _csv(allowed_domains) or sorted(
            {urlsplit(u).hostname or "" for u in self.start_urls + self.sitemap_urls}
        )
        self.allowed_domains = [d for d in domains if d]
        self.max_depth = int(depth) if depth not in (None, "") else None
        self._follow = _csv(follow)
        self._deny = _csv(deny)
        self._yielded: set[str] = set()  # URLs already yielded (never their hashes)

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> SiteSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        extensions = crawler.settings.get(
            "STRUCTCRAWL_FOLLOW_DENY_EXTENSIONS",
            DEFAULTS["STRUCTCRAWL_FOLLOW_DENY_EXTENSIONS"].default,
        )
        spider.link_rules = LinkRules(
            allowed_domains=spider.allowed_domains,
            allow=spider._follow,
            deny=spider._deny,
            deny_extensions=_csv(extensions) if isinstance(extensions, str) else extensions,
        )
        return spider

    async def start(self) -> Any:
        for url in self.sitemap_urls:
            yield scrapy.Request(url, callback=self.parse_sitemap, errback=self.failed)
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse, errback=self.failed)

    def _accounted(self, response: Response, outcome: str, message: str) -> None:
        """Tell the page ledger about a response that yields no page item by design."""
        self.crawler.signals.send_catch_log(
            page_accounted, url=requested_url(response), outcome=outcome, message=message
        )

    # A response's outcome comes after the requests it found (links, sitemap entries): the
    # requests are scheduled as they are yielded, so when the outcome reaches the page ledger
    # (and, with JOBDIR, the job journal) every URL the page led to is already requested. A
    # crawl killed in between asks for the page again; never for a page whose links are lost.

    def _sitemap_body(self, response: Response) -> bytes:
        """The sitemap's XML: a gzipped sitemap (``sitemap.xml.gz``, served as
        ``application/gzip`` or ``application/octet-stream``, so not decoded by Scrapy's
        HttpCompression middleware) is gunzipped, within ``DOWNLOAD_MAXSIZE``."""
        body = response.body
        if not gzip_magic_number(response):
            return body
        max_size = response.meta.get(
            "download_maxsize", self.crawler.settings.getint("DOWNLOAD_MAXSIZE")
        )
        try:
            return gunzip(body, max_size=max_size)
        except ValueError:  # scrapy's _DecompressionMaxSizeExceeded
            logger.warning("gzipped sitemap %s is larger than %s bytes", response.url, max_size)
        except (OSError, EOFError):
            logger.warning("gzipped sitemap %s could not be decompressed", response.url)
        return body

    def parse_sitemap(self, response: Response) -> Iterator[Any]:
        body = self._sitemap_body(response)
        if response.url.endswith("/robots.txt"):
            found = list(sitemap_urls_from_robots(response.text, base_url=response.url))
            for url in found:
                yield scrapy.Request(url, callback=self.parse_sitemap, errback=self.failed)
            self._accounted(response, "sitemap", f"robots.txt naming {len(found)} sitemap(s)")
            return
        try:
            sitemap = Sitemap(body)
        except Exception:  # not a sitemap: account for it as a page
            yield from self.parse(response)
            return
        for entry in sitemap:
            loc = entry.get("loc")
            if not loc or not self.link_rules.accepts(loc):
                continue
            if sitemap.type == "sitemapindex":
                yield scrapy.Request(loc, callback=self.parse_sitemap, errback=self.failed)
            else:  # the total the progress line's ETA is reckoned from
                self.crawler.stats.inc_value("structcrawl/site/sitemap_urls")
                yield scrapy.Request(loc, callback=self.parse, errback=self.failed)
        self._accounted(response, "sitemap", f"sitemap ({sitemap.type})")

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        try:
            item = self.page_item(response)
        except Exception as exc:  # a bug, but the page still ends as a record saying so
            logger.exception("could not read the page %s", response.url)
            yield self._error_item(
                response.request or scrapy.Request(response.url),
                "parse-failed",
                f"{type(exc).__name__}: {exc}",
                status=response.status,
            )
            return
        try:
            yield from self._link_requests(item, response.meta.get("depth", 0))
        except Exception:  # a bug: the page item is still yielded
            logger.exception("could not follow the links of %s", response.url)
        yield item  # after its links (see above)

    def _link_requests(self, item: PageItem, depth: int) -> list[scrapy.Request]:
        if item.document is None or (self.max_depth is not None and depth >= self.max_depth):
            return []
        if "nofollow" in item.robots:  # meta robots / X-Robots-Tag (docs/politeness.md)
            self.crawler.stats.inc_value("structcrawl/polite/nofollow_pages")
            return []
        requests = []
        for url in page_links(item.document, self.link_rules):
            if url in self._yielded:  # requests already yielded are not fingerprinted again
                continue
            self._yielded.add(url)
            requests.append(scrapy.Request(url, callback=self.parse, errback=self.failed))
        return requests

    def _credentials(self, url: str) -> str:
        url = url.strip()
        bare, account = split_credentials(url)
        if account is not None:
            self.url_credentials[endpoint(bare)] = account
        return bare

    def page_item(self, response: Response) -> PageItem:
        return page_item(response, self.crawler.stats)

    def failed(self, failure: Failure) -> Iterator[Any]:
        """A request that produced no usable response still ends as a page item."""
        request = failure.request  # type: ignore[attr-defined]
        if failure.check(HttpError):
            yield self.page_item(failure.value.response)
            return
        # a component may name the error (fetch_error_code: browser-launch-failed,
        # redirect-loop, too-large, ...); else structcrawl.crawl.retry names it (fetch-TimeoutError)
        exc = failure.value
        yield self._error_item(request, fetch_error_code(exc), fetch_error_message(exc))

    def _error_item(
        self, request: Any, code: str, message: str, status: int | None = None
    ) -> PageItem:
        return PageItem(
            url=redact_url(request.meta.get("redirect_urls", [request.url])[0]),
            final_url=redact_url(request.url),
            redirect_urls=[redact_url(u) for u in request.meta.get("redirect_urls", [])],
            status=status,
            retrieved_at=utc_now(),
            depth=request.meta.get("depth", 0),
            fetched_with="browser" if request.meta.get("playwright") else "http",
            fetch_reason=request.meta.get("structcrawl_render_reason"),
            fetch_error={"code": code, "message": message},
        )
