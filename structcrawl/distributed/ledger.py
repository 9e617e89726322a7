"""The page ledger of one worker of a distributed crawl.

A worker schedules requests that another worker may fetch, so "requested" cannot mean
"scheduled here" as it does in one process (:class:`~structcrawl.ledger.extension.PageLedger`):
every URL would be unaccounted on one worker and unrequested on another. Here a URL is
requested by the worker that takes it off the shared queue (the scheduler's
:data:`~structcrawl.distributed.coordination.request_claimed` signal); its retries and redirect
hops stay on that worker, which accounts for its outcome. A new request refused by the shared
duplicate filter was never requested by anyone here (``structcrawl/ledger/filtered/dupefilter``).
The ledgers (and pages feeds) of all workers together hold each requested URL exactly once.
"""

from __future__ import annotations

from scrapy import Request
from scrapy.crawler import Crawler

from structcrawl.crawl.meta import INTERNAL_META
from structcrawl.crawl.middlewares import offsite_filtered
from structcrawl.distributed.coordination import CLAIM_META, request_claimed
from structcrawl.ledger.extension import LEDGER_META, LedgerConfig, PageLedger

__all__ = ["DistributedPageLedger"]


def _new(request: Request) -> bool:
    """Not yet taken by a worker (and not the entity pipeline's internal request)."""
    meta = request.meta
    return CLAIM_META not in meta and not meta.get(INTERNAL_META)


class DistributedPageLedger(PageLedger):
    """``structcrawl.ledger.extension.PageLedger`` for distributed crawls (the add-on swaps it
    in)."""

    def __init__(self, crawler: Crawler, config: LedgerConfig):
        super().__init__(crawler, config)
        crawler.signals.connect(self.request_claimed, signal=request_claimed)

    def request_scheduled(self, request: Request) -> None:
        if not _new(request):
            super().request_scheduled(request)
            return
        self._fresh = None
        if not request.url.startswith(("http://", "https://")):
            return
        if offsite_filtered(self.crawler, request):
            self.stats.inc_value("structcrawl/ledger/filtered/offsite")
            return
        request.meta.setdefault(LEDGER_META, request.url)  # travels with the shared request

    def request_dropped(self, request: Request) -> None:
        if _new(request):
            if request.url.startswith(("http://", "https://")):
                self.stats.inc_value("structcrawl/ledger/filtered/dupefilter")
            return
        super().request_dropped(request)

    def request_claimed(self, request: Request) -> None:
        if not request.url.startswith(("http://", "https://")):
            return
        url = str(request.meta.get(LEDGER_META) or request.url)
        request.meta[LEDGER_META] = url
        self.ledger.request(url)
        self.stats.inc_value("structcrawl/ledger/requested")
