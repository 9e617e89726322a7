"""Downloader middlewares: retries with backoff, and redirects that end with a reason.

* :class:`BackoffRetryMiddleware` replaces Scrapy's ``RetryMiddleware`` (the same settings:
  ``RETRY_ENABLED``, ``RETRY_TIMES``, ``RETRY_HTTP_CODES``, ``RETRY_EXCEPTIONS``, ...) and
  waits before each retry: the server's ``Retry-After`` (429, 503, any retried status) up to
  ``STRUCTCRAWL_RETRY_AFTER_MAX`` seconds, a longer one is not retried at all; otherwise
  exponential backoff from ``STRUCTCRAWL_RETRY_BACKOFF_BASE`` capped at
  ``STRUCTCRAWL_RETRY_BACKOFF_MAX`` (:mod:`structcrawl.crawl.retry`). Scrapy 2.19's own retry
  middleware re-schedules at once. A backoff holds the request (one of
  ``CONCURRENT_REQUESTS``); a ``Retry-After`` also pauses the request's whole download slot
  (:func:`structcrawl.crawl.polite.pause_slot`), so the site gets no other request
  meanwhile. A download cancelled for exceeding ``DOWNLOAD_MAXSIZE`` becomes
  :class:`ResponseTooLarge` (``too-large``), never retried.
* :class:`RedirectGuardMiddleware` sits in front of Scrapy's ``RedirectMiddleware`` and turns
  the redirects Scrapy would drop without a trace (a loop, whose next hop the duplicate filter
  discards; a target outside the allowed domains, which the offsite filter discards) or refuse
  with a bare ``IgnoreRequest`` (more than ``REDIRECT_MAX_TIMES``) into errors the spider's
  errback turns into error records: ``redirect-loop``, ``redirect-offsite``,
  ``redirect-too-many``.
* :class:`HeadMetaRefreshMiddleware` replaces Scrapy's ``MetaRefreshMiddleware`` (the same
  settings and redirects) and decodes only the head of a page to rule a refresh out: Scrapy's
  reads a ``<meta http-equiv="refresh">`` in the first 4,096 characters of the text, but
  decodes the whole body for them (1.5 ms of a 700 KB page). A page whose first 4,096
  characters do not hold the word ``refresh`` (which w3lib's reading needs) goes on at once;
  any other goes through Scrapy's middleware as before. A page that declares no encoding is
  searched as bytes (:func:`may_refresh`), not decoded whole to infer one.

Stats: ``structcrawl/retry/delayed``, ``structcrawl/retry/delay_ms`` (total wait),
``structcrawl/retry/retry_after/honoured``, ``structcrawl/retry/retry_after/too_long``,
``structcrawl/retry/slot_paused``,
``structcrawl/redirect/<code>`` (plus Scrapy's ``retry/*``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urldefrag, urljoin, urlsplit

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.offsite import OffsiteMiddleware
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware
from scrapy.downloadermiddlewares.retry import get_retry_request
from scrapy.exceptions import DownloadCancelledError, IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response
from scrapy.utils.asyncio import sleep
from scrapy.utils.misc import load_object
from scrapy.utils.response import response_status_message
from w3lib.encoding import html_to_unicode
from w3lib.url import safe_url_string

from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.polite import pause_slot
from structcrawl.crawl.retry import RetryPolicy, retry_after_seconds, retry_delay

__all__ = [
    "BackoffRetryMiddleware",
    "FetchRefused",
    "HeadMetaRefreshMiddleware",
    "RedirectGuardMiddleware",
    "RedirectLoop",
    "RedirectOffsite",
    "ResponseTooLarge",
    "TooManyRedirects",
    "head_text",
    "may_refresh",
    "offsite_filtered",
]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class FetchRefused(IgnoreRequest):
    """A request given up for a stated reason; the page ends with ``fetch_error_code``."""

    fetch_error_code = "ignored"


class RedirectLoop(FetchRefused):
    fetch_error_code = "redirect-loop"


class TooManyRedirects(FetchRefused):
    fetch_error_code = "redirect-too-many"


class RedirectOffsite(FetchRefused):
    fetch_error_code = "redirect-offsite"


class ResponseTooLarge(Exception):
    """The response was larger than ``DOWNLOAD_MAXSIZE`` (the download was cancelled)."""

    fetch_error_code = "too-large"


def offsite_filtered(crawler: Crawler, request: Request) -> bool:
    """Whether Scrapy's offsite filter (its ``should_follow``, so a subclass's policy too)
    will discard ``request`` when it is scheduled. False when the filter is not enabled."""
    if request.dont_filter or request.meta.get("allow_offsite") or crawler.spider is None:
        return False
    try:
        offsite = crawler.get_downloader_middleware(OffsiteMiddleware)
    except RuntimeError:  # no engine yet
        return False
    if offsite is None or not hasattr(offsite, "host_regex"):
        return False
    return not offsite.should_follow(request, crawler.spider)


def _policy(settings: Any) -> RetryPolicy:
    def get(name: str) -> float:
        return float(settings.get(name, DEFAULTS[name].default))

    return RetryPolicy(
        base=get("STRUCTCRAWL_RETRY_BACKOFF_BASE"),
        max=get("STRUCTCRAWL_RETRY_BACKOFF_MAX"),
        retry_after_max=get("STRUCTCRAWL_RETRY_AFTER_MAX"),
    )


class BackoffRetryMiddleware:
    """Scrapy's retry middleware, waiting before each retry (see the module docstring)."""

    def __init__(self, crawler: Crawler, policy: RetryPolicy):
        settings = crawler.settings
        if not settings.getbool("RETRY_ENABLED"):
            raise NotConfigured("RETRY_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats
        self.policy = policy
        self.max_retry_times = settings.getint("RETRY_TIMES")
        self.retry_http_codes = {int(x) for x in settings.getlist("RETRY_HTTP_CODES")}
        self.priority_adjust = settings.getint("RETRY_PRIORITY_ADJUST")
        self.give_up_log_level = settings.get("RETRY_GIVE_UP_LOG_LEVEL")
        self.exceptions_to_retry = tuple(
            load_object(x) if isinstance(x, str) else x
            for x in settings.getlist("RETRY_EXCEPTIONS")
        )
        self.maxsize = settings.getint("DOWNLOAD_MAXSIZE")
        # the slot is paused as the response arrives, before the downloader sends the next
        # request of the same site (it does so before this middleware sees the response)
        crawler.signals.connect(self._response_downloaded, signal=signals.response_downloaded)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BackoffRetryMiddleware:
        return cls(crawler, _policy(crawler.settings))

    async def process_response(self, request: Request, response: Response) -> Request | Response:
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return response
        after = retry_after_seconds(response.headers.get(b"Retry-After"))
        attempt = request.meta.get("retry_times", 0) + 1
        delay = retry_delay(attempt, after, self.policy)
        if delay is None:  # the server wants a longer pause than we wait: not retried
            self.stats.inc_value("structcrawl/retry/retry_after/too_long")
            return response
        retry = self._retry_request(request, response_status_message(response.status))
        if retry is None:
            return response
        if after is not None:
            self.stats.inc_value("structcrawl/retry/retry_after/honoured")
        await self._wait(delay)
        return retry

    def _response_downloaded(self, response: Response, request: Request, **kwargs: Any) -> None:
        """A ``Retry-After`` that will be honoured pauses the whole download slot: the server
        asked this client to wait, not only this request."""
        if request.meta.get("dont_retry", False) or response.status not in self.retry_http_codes:
            return
        after = retry_after_seconds(response.headers.get(b"Retry-After"))
        if after is None or request.meta.get("retry_times", 0) >= request.meta.get(
            "max_retry_times", self.max_retry_times
        ):
            return
        delay = retry_delay(request.meta.get("retry_times", 0) + 1, after, self.policy)
        if delay and pause_slot(self.crawler, request, delay):
            self.stats.inc_value("structcrawl/retry/slot_paused")

    async def process_exception(self, request: Request, exception: Exception) -> Request | None:
        if isinstance(exception, DownloadCancelledError):
            limit = request.meta.get("download_maxsize", self.maxsize)
            raise ResponseTooLarge(
                f"response larger than DOWNLOAD_MAXSIZE ({limit} bytes): {exception}".rstrip(": ")
            ) from exception
        if not isinstance(exception, self.exceptions_to_retry) or request.meta.get("dont_retry"):
            return None
        retry = self._retry_request(request, exception)
        if retry is None:
            return None
        attempt = retry.meta.get("retry_times", 1)
        await self._wait(retry_delay(attempt, None, self.policy) or 0.0)
        return retry

    def _retry_request(self, request: Request, reason: str | Exception) -> Request | None:
        assert self.crawler.spider is not None
        return get_retry_request(
            request,
            spider=self.crawler.spider,
            reason=reason,
            max_retry_times=request.meta.get("max_retry_times", self.max_retry_times),
            priority_adjust=request.meta.get("priority_adjust", self.priority_adjust),
            give_up_log_level=request.meta.get("give_up_log_level", self.give_up_log_level),
        )

    async def _wait(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self.stats.inc_value("structcrawl/retry/delayed")
        self.stats.inc_value("structcrawl/retry/delay_ms", round(seconds * 1000))
        await sleep(seconds)


def _same(url: str) -> str:
    return urldefrag(url)[0]


class RedirectGuardMiddleware:
    """Ends redirect loops, over-long chains and off-site redirects with a reason (see the
    module docstring). Place it just above ``RedirectMiddleware`` (600)."""

    def __init__(self, crawler: Crawler):
        settings = crawler.settings
        if not settings.getbool("REDIRECT_ENABLED"):
            raise NotConfigured("REDIRECT_ENABLED is off")
        self.crawler = crawler
        self.stats = crawler.stats
        self.max_times = settings.getint("REDIRECT_MAX_TIMES")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedirectGuardMiddleware:
        return cls(crawler)

    def _followed(self, request: Request, response: Response) -> bool:
        """Whether Scrapy's RedirectMiddleware would follow this response."""
        meta = request.meta
        handled = getattr(self.crawler.spider, "handle_httpstatus_list", ())
        return not (
            response.status not in _REDIRECTS
            or b"Location" not in response.headers
            or meta.get("dont_redirect", False)
            or response.status in handled
            or response.status in meta.get("handle_httpstatus_list", ())
            or meta.get("handle_httpstatus_all", False)
        )

    def process_response(self, request: Request, response: Response) -> Response:
        if not self._followed(request, response):
            return response
        raw = response.headers[b"Location"] or b""
        location = safe_url_string(raw)
        if raw.startswith(b"//"):
            location = f"{urlsplit(request.url).scheme}://{location.lstrip('/')}"
        target = urljoin(request.url, location)
        if urlsplit(target).scheme not in ("http", "https"):
            return response  # RedirectMiddleware keeps such a response as it is
        chain = [*request.meta.get("redirect_urls", []), request.url]
        error: FetchRefused | None = None
        if request.method in ("GET", "HEAD") and _same(target) in {_same(u) for u in chain}:
            error = RedirectLoop(f"redirect loop: {' -> '.join([*chain, target])}")
        elif request.meta.get("redirect_times", 0) + 1 > self.max_times or not request.meta.get(
            "redirect_ttl", self.max_times
        ):
            error = TooManyRedirects(
                f"more than REDIRECT_MAX_TIMES ({self.max_times}) redirects from {chain[0]}"
            )
        elif offsite_filtered(self.crawler, request.replace(url=target)):
            error = RedirectOffsite(f"redirect to {target} outside the allowed domains")
        if error is None:
            return response
        self.stats.inc_value(f"structcrawl/redirect/{error.fetch_error_code}")
        raise error


#: What Scrapy's meta refresh reads of a page's text (``response.text[0:4096]``).
_REFRESH_CHARS = 4096


def head_text(response: HtmlResponse, chars: int = _REFRESH_CHARS) -> str:
    """``response.text[:chars]``, decoding only the head of the body, with the response's
    encoding as ``response.text`` does: four bytes a character at most (UTF-8, UTF-16,
    UTF-32) and a few more. A decoder reads left to right, so the text of a prefix of the
    body is a prefix of the body's text but for its last character or two (one cut in two):
    a head that decodes to fewer than 16 characters more than asked is read whole instead.
    A page that declares no encoding (header, BOM, ``<meta>``) had its whole text decoded by
    Scrapy to infer one (and kept): that text is read."""
    declared = getattr(response, "_declared_encoding", None)  # Scrapy's TextResponse
    encoding = declared() if callable(declared) else None
    head = 4 * chars + 64
    if encoding and len(response.body) > head:
        text = html_to_unicode(f"charset={encoding}", response.body[:head])[1]
        if len(text) >= chars + 16:
            return text[:chars]
    return response.text[:chars]


def may_refresh(response: HtmlResponse, chars: int = _REFRESH_CHARS) -> bool:
    """Whether ``response.text[:chars]`` holds ``refresh`` in any case (:func:`head_text`).

    A page that declares no encoding (header, BOM, ``<meta>``) is searched as bytes first, in
    its first ``4 * chars``: Scrapy would decode it whole to infer an encoding, and the one it
    infers is ASCII, UTF-8 or cp1252, each of which writes an ASCII word as the same bytes (no
    byte of a multi-byte UTF-8 character is ASCII; a byte that decodes to nothing becomes
    U+FFFD), in at most four bytes a character; and no other character lowercases to the
    word's letters. Where the bytes hold no ``refresh``, the text cannot.

    >>> from scrapy.http import HtmlResponse
    >>> page = HtmlResponse("https://s.example/", body=b"<p>" + "\u00e9".encode() * 9000)
    >>> may_refresh(page), page._cached_ubody is None  # not decoded
    (False, True)
    """
    declared = getattr(response, "_declared_encoding", None)  # Scrapy's TextResponse
    if callable(declared) and declared() is None:
        if b"refresh" not in response.body[: 4 * chars].lower():
            return False
    return "refresh" in head_text(response, chars).lower()


class HeadMetaRefreshMiddleware(MetaRefreshMiddleware):
    """Scrapy's ``MetaRefreshMiddleware``, ruling a refresh out from the head of the page
    (see the module doc)."""

    # without Scrapy's deprecated ``spider`` argument, as the other middlewares here
    def process_response(  # type: ignore[override]
        self, request: Request, response: Response
    ) -> Request | Response:
        if isinstance(response, HtmlResponse) and not may_refresh(response):
            return response  # w3lib reads a refresh only from a tag whose attributes say so
        return super().process_response(request, response)
