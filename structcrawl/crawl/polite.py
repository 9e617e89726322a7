"""Polite crawling: robots.txt ``Crawl-delay`` honoured, a word about the user agent.

* :class:`CrawlDelayRobotsTxtMiddleware` is Scrapy's ``RobotsTxtMiddleware`` (same settings:
  ``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``, ``ROBOTSTXT_PARSER``) that also reads the
  ``Crawl-delay`` robots.txt gives our user agent and keeps the site's download slot at least
  that far apart (AutoThrottle may slow it further, never below; the slot's random jitter of
  ``RANDOMIZE_DOWNLOAD_DELAY`` is turned off, as it would go below). A delay longer than
  ``STRUCTCRAWL_CRAWL_DELAY_MAX`` seconds is capped there (and said so in the log).
* :class:`UserAgentCheck` (extension) warns, once, when ``USER_AGENT`` was left at a default
  (Scrapy's, or the add-on's): sites want to know who crawls them and how to reach them. It is
  a warning, never a refusal.

Stats: ``structcrawl/polite/crawl_delay/<host>`` (seconds, as read),
``structcrawl/polite/default_user_agent`` (1 when warned).
"""

from __future__ import annotations

import logging
from time import monotonic
from typing import Any
from weakref import WeakKeyDictionary

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware
from scrapy.settings import SETTINGS_PRIORITIES
from scrapy.utils.asyncio import call_later
from scrapy.utils.httpobj import urlparse_cached

from structcrawl.core.bounded import STATS_NAMES, CappedNames
from structcrawl.crawl.config import DEFAULTS

__all__ = [
    "CrawlDelayRobotsTxtMiddleware",
    "UserAgentCheck",
    "crawl_delay_read",
    "pause_slot",
    "slot_of",
]

logger = logging.getLogger(__name__)

#: Signal sent (``request=``, ``delay=`` seconds) when a site's robots.txt Crawl-delay is
#: first read: a distributed crawl shares it with every worker (structcrawl.distributed).
crawl_delay_read = object()


def slot_of(crawler: Crawler, request: Request) -> Any:
    """The download slot ``request`` goes through, or ``None`` when it does not exist yet."""
    try:
        engine = crawler.engine
    except RuntimeError:  # the crawl has not started
        return None
    downloader = getattr(engine, "downloader", None)
    if downloader is None:
        return None
    return downloader.slots.get(downloader.get_slot_key(request))


#: downloader -> slot key -> monotonic time its pause ends
_PAUSED: WeakKeyDictionary[Any, dict[str, float]] = WeakKeyDictionary()


def pause_slot(crawler: Crawler, request: Request, seconds: float) -> bool:
    """Hold every request of ``request``'s download slot (the site) for ``seconds``: nothing
    more is sent there until then (downloads already under way finish). A longer pause
    already in force stays. False when the slot cannot be found (no engine, no slot yet).

    The downloader sends nothing from a slot while its ``latercall`` (the wake-up of a
    download delay) is pending: the pause is such a wake-up, later than any delay would set.
    """
    slot = slot_of(crawler, request)
    if slot is None or seconds <= 0:
        return False
    downloader = crawler.engine.downloader  # type: ignore[union-attr]
    key = downloader.get_slot_key(request)
    paused = _PAUSED.setdefault(downloader, {})
    until = monotonic() + seconds
    if paused.get(key, 0.0) >= until:
        return True
    wake = getattr(downloader, "_latercall", None)
    if wake is None or not hasattr(slot, "latercall"):  # another Scrapy: slow the slot instead
        slot.delay = max(slot.delay, seconds)
        return True
    if slot.latercall is not None:
        slot.latercall.cancel()
    slot.latercall = call_later(seconds, wake, slot)
    paused[key] = until
    return True


class CrawlDelayRobotsTxtMiddleware(RobotsTxtMiddleware):
    """See the module documentation."""

    def __init__(self, crawler: Crawler):
        super().__init__(crawler)
        self.max_delay = float(
            crawler.settings.get(
                "STRUCTCRAWL_CRAWL_DELAY_MAX", DEFAULTS["STRUCTCRAWL_CRAWL_DELAY_MAX"].default
            )
        )
        self.delays: dict[str, float] = {}
        self.hosts = CappedNames(STATS_NAMES)

    def process_request_2(self, rp: Any, request: Request) -> None:
        super().process_request_2(rp, request)  # raises IgnoreRequest when disallowed
        if rp is None:
            return
        netloc = urlparse_cached(request).netloc
        if netloc not in self.delays:
            self.delays[netloc] = self._read_delay(rp, request, netloc)
            if self.delays[netloc]:
                self.crawler.signals.send_catch_log(
                    crawl_delay_read, request=request, delay=self.delays[netloc]
                )
        delay = self.delays[netloc]
        slot = slot_of(self.crawler, request) if delay else None
        if slot is None:
            return
        if slot.delay < delay:
            slot.delay = delay
        # RANDOMIZE_DOWNLOAD_DELAY would send some requests sooner than the site asked
        if getattr(slot, "jitter", 0):
            slot.jitter = 0.0

    def _read_delay(self, rp: Any, request: Request, netloc: str) -> float:
        useragent = self._robotstxt_useragent or request.headers.get(
            b"User-Agent", self._default_useragent
        )
        reader = getattr(rp, "crawl_delay", None)
        try:
            delay = reader(useragent) if reader is not None else None
        except Exception:  # an odd robots.txt never stops the crawl
            delay = None
        if not delay or delay <= 0:
            return 0.0
        host = self.hosts(netloc)  # the hosts are the pages' choice: a capped set of keys
        self.crawler.stats.set_value(f"structcrawl/polite/crawl_delay/{host}", float(delay))
        if delay > self.max_delay:
            logger.warning(
                "robots.txt of %s asks for Crawl-delay %ss; waiting %ss "
                "(STRUCTCRAWL_CRAWL_DELAY_MAX)",
                netloc,
                delay,
                self.max_delay,
            )
            return self.max_delay
        logger.info("robots.txt of %s: Crawl-delay %ss honoured", netloc, delay)
        return float(delay)


class UserAgentCheck:
    """See the module documentation."""

    def __init__(self, crawler: Crawler):
        settings = crawler.settings
        agent = str(settings.get("USER_AGENT") or "")
        priority = settings.getpriority("USER_AGENT") or 0
        if priority <= SETTINGS_PRIORITIES["addon"]:
            crawler.stats.set_value("structcrawl/polite/default_user_agent", 1)
            logger.warning(
                "USER_AGENT is left at its default (%r): set it to name your crawler and a way "
                "to reach you, e.g. USER_AGENT = 'mybot/1.0 (+https://example.org/bot)'",
                agent,
            )

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> UserAgentCheck:
        return cls(crawler)
