"""``PageLedger``: the crawl-time page ledger (:mod:`structcrawl.ledger.pages`) as an extension.

It follows every request through Scrapy's signals: ``request_scheduled`` (a request without
the ledger's meta key is new: its URL is requested, and the key, holding that URL, travels
with its retries and redirect hops), ``request_dropped`` (a new request the scheduler refused
is withdrawn; a refused redirect hop ends its URL as ``dropped:redirect-duplicate``),
``item_scraped`` (a page item: its outcome), ``item_dropped`` / ``item_error`` (the page
item never reached the feeds), ``spider_error`` (a callback raised), and its own
:data:`page_accounted` (a response handled without a page item, such as a sitemap).
Requests the offsite filter discards (it raises in ``request_scheduled``) are recognised with
its own policy.

Each outcome becomes a line of the ledger file (``STRUCTCRAWL_LEDGER_FILE``, default
``<STRUCTCRAWL_REPORT_DIR>/ledger.jsonl``) as it happens; when the spider closes, and its
remote feeds are stored (:func:`structcrawl.crawl.uploads.when_feeds_stored`), URLs still
without one are written as ``unaccounted`` (or ``unfinished:<reason>`` after a
``closespider_*`` stop), and the pages whose lines went to a remote feed (their line's
``upload``) that was not stored become ``kept`` (``unwritten:upload``,
:mod:`structcrawl.ledger.uploads`). With ``JOBDIR`` the pending URLs are kept in
``<JOBDIR>/structcrawl-ledger.json``: the resumed run counts them as requested (``resumed``)
and accounts for them. A run that never stopped (killed) is recovered from the job journal
(:mod:`structcrawl.ledger.resume`): its pending URLs are requested again, its feeds cut back
to their last committed outcome.

Stats: ``structcrawl/ledger/requested``, ``/accounted``, ``/outcome/<outcome>``, ``/redelivered``,
``/filtered/dupefilter``, ``/filtered/offsite``, ``/filtered/journal``, ``/resumed``,
``/recovered/pending``, ``/recovered/feed_bytes_cut``, ``/unaccounted``, ``/kept`` (fetched,
not in the feeds, kept in a local file the ledger line names),
``/duplicate``, ``/unrequested``; and ``structcrawl/failure/ledger/unaccounted``, ``/kept``,
``/duplicate``, ``/unrequested``, ``/http_errors`` (more than
``STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS`` of the fetched pages, half by default, ended in an HTTP
error: a sitemap whose URLs are gone is not a crawl that went well), which make
``scrapy crawl`` exit 1 (:mod:`structcrawl.crawl.health`).
The extension runs before the quality report (``EXTENSIONS`` order), which shows its figures.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import IO, Any

from itemadapter import ItemAdapter
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from scrapy.http import Response

from structcrawl.core.redact import redact_url
from structcrawl.crawl.config import DEFAULTS
from structcrawl.crawl.feedstorage import feed_failure, feed_rescued, keep_failed_page
from structcrawl.crawl.health import FAILURE_PREFIX
from structcrawl.crawl.meta import INTERNAL_META
from structcrawl.crawl.middlewares import offsite_filtered
from structcrawl.crawl.uploads import failed_uploads, uploads_taking, when_feeds_stored
from structcrawl.ledger.pages import Ledger, http_errors, ledger_only_line, page_line
from structcrawl.ledger.redelivery import Redelivery
from structcrawl.ledger.resume import JobJournal
from structcrawl.ledger.uploads import UNSTORED

__all__ = ["LEDGER_META", "LedgerConfig", "PageLedger", "page_accounted"]

logger = logging.getLogger(__name__)

#: Request meta key holding the URL a request (or its retry / redirect hop) accounts for.
LEDGER_META = "structcrawl_ledger"
_STATE_FILE = "structcrawl-ledger.json"

#: Signal a spider sends for a response it handles without a page item by design (a sitemap):
#: ``crawler.signals.send_catch_log(page_accounted, url=..., outcome="sitemap", message=...)``.
page_accounted = object()


@dataclass(frozen=True, slots=True)
class LedgerConfig:
    enabled: bool
    path: str
    jobdir: str | None
    max_http_errors: float = 0.5  # STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS

    @classmethod
    def from_settings(cls, settings: Any) -> LedgerConfig:
        path = settings.get("STRUCTCRAWL_LEDGER_FILE", DEFAULTS["STRUCTCRAWL_LEDGER_FILE"].default)
        if not path:
            report_dir = settings.get("STRUCTCRAWL_REPORT_DIR") or "output/report"
            path = str(Path(report_dir) / "ledger.jsonl")
        return cls(
            enabled=settings.getbool("STRUCTCRAWL_LEDGER_ENABLED", True),
            path=str(path),
            jobdir=settings.get("JOBDIR") or None,
            max_http_errors=float(
                settings.get(
                    "STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS",
                    DEFAULTS["STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS"].default,
                )
            ),
        )


def _origin(request: Request) -> str:
    return str(request.meta.get(LEDGER_META) or redact_url(request.url))


class PageLedger:
    def __init__(self, crawler: Crawler, config: LedgerConfig):
        self.crawler = crawler
        self.config = config
        self.ledger = Ledger()
        self._fresh: Request | None = None  # the request last seen new in request_scheduled
        self._file: IO[str] | None = None
        assert crawler.stats is not None
        self.stats = crawler.stats
        connect = crawler.signals.connect
        connect(self.spider_opened, signal=signals.spider_opened)
        connect(self.request_scheduled, signal=signals.request_scheduled)
        connect(self.request_dropped, signal=signals.request_dropped)
        connect(self.item_scraped, signal=signals.item_scraped)
        connect(self.item_dropped, signal=signals.item_dropped)
        connect(self.item_error, signal=signals.item_error)
        connect(self.spider_error, signal=signals.spider_error)
        connect(self.page_accounted, signal=page_accounted)
        connect(self.spider_closed, signal=signals.spider_closed)
        # JOBDIR: the job journal, which a killed run is resumed from (before the engine opens)
        self.journal = JobJournal(crawler, config.jobdir) if config.jobdir else None
        # remote page feeds an earlier run of the job could not store: re-delivered by this one
        committed = self.journal.state.feeds if self.journal and self.journal.recovering else None
        self.redelivery = Redelivery(crawler, config.jobdir, committed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PageLedger:
        config = LedgerConfig.from_settings(crawler.settings)
        if not config.enabled:
            raise NotConfigured("STRUCTCRAWL_LEDGER_ENABLED is off")
        return cls(crawler, config)

    # -- the file ----------------------------------------------------------------------------

    def _state_path(self) -> Path | None:
        return Path(self.config.jobdir) / _STATE_FILE if self.config.jobdir else None

    def spider_opened(self) -> None:
        path = Path(self.config.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        state = self._state_path()
        resumed = {}
        if self.journal is not None and self.journal.recovering:  # the last run was killed
            resumed = {url: len(specs) for url, specs in self.journal.state.pending.items()}
        elif state is not None and state.exists():
            resumed = json.loads(state.read_text(encoding="utf-8")).get("pending", {})
        self._file = path.open("w", encoding="utf-8")  # each run's ledger describes that run
        for url, count in resumed.items():
            for _ in range(int(count)):
                self.ledger.request(url)
            self.stats.inc_value("structcrawl/ledger/resumed", int(count))
        self._redeliver()
        if self.journal is not None and self.journal.recovering:
            spider = self.crawler.spider
            for request in self.journal.pending_requests(spider, LEDGER_META):
                self.crawler.engine.crawl(request)

    def _redeliver(self) -> None:
        """The pages an earlier run kept because their remote feed was not stored: their kept
        lines are re-delivered by this run, which accounts for them (not fetched again); they
        count as ``redelivered`` once the upload that carries them was stored (:meth:`_unstored`;
        a re-delivery that fails again moves them to ``kept``)."""
        for line, gone in self.redelivery.pages():
            url = str(line["url"])
            self.ledger.request(url)
            if gone:
                why = f"its feed lines were kept in {', '.join(gone)}, which is gone"
                self._unwritten(url, why, UNSTORED, kept=False)
                continue
            self._account(line)

    def _write(self, line: dict[str, Any]) -> None:
        if self._file is not None:
            self._file.write(json.dumps(line, ensure_ascii=False) + "\n")

    def _account(self, line: dict[str, Any]) -> None:
        line = self.ledger.account(line)
        if line["problem"] is None:
            self.stats.inc_value("structcrawl/ledger/accounted")
            self.stats.inc_value(f"structcrawl/ledger/outcome/{line['outcome']}")
            if self.journal is not None:  # the commit: the page's feed lines are flushed
                self.journal.accounted(str(line["url"]))
        else:
            self.stats.inc_value(f"structcrawl/ledger/{line['problem']}")
        self._write(line)

    # -- requests ----------------------------------------------------------------------------

    def request_scheduled(self, request: Request) -> None:
        meta = request.meta
        if meta.get(INTERNAL_META) or not request.url.startswith(("http://", "https://")):
            self._fresh = None  # not a page: the entity pipeline's end-of-crawl request
            return
        if LEDGER_META in meta:  # a retry or a redirect hop of a requested URL
            self._fresh = None
            if offsite_filtered(self.crawler, request):
                self._account(
                    ledger_only_line(
                        _origin(request),
                        "dropped:offsite",
                        f"{redact_url(request.url)} is off-site",
                    )
                )
            return
        if offsite_filtered(self.crawler, request):
            self.stats.inc_value("structcrawl/ledger/filtered/offsite")
            self._fresh = None
            return
        if self.journal is not None and self.journal.known(request):
            # an earlier run of the job requested it (Scrapy's requests.seen may have lost it)
            self._fresh = None
            self.stats.inc_value("structcrawl/ledger/filtered/journal")
            raise IgnoreRequest("requested by an earlier run of the job")
        meta[LEDGER_META] = url = redact_url(request.url)  # as the page item names it
        self._fresh = request
        self.ledger.request(url)
        self.stats.inc_value("structcrawl/ledger/requested")
        if self.journal is not None:
            self.journal.requested(request)

    def request_dropped(self, request: Request) -> None:
        if request is self._fresh:  # new, refused by the scheduler's duplicate filter
            self._fresh = None
            self.ledger.withdraw(redact_url(request.url))
            self.stats.inc_value("structcrawl/ledger/requested", -1)
            self.stats.inc_value("structcrawl/ledger/filtered/dupefilter")
            if self.journal is not None:
                self.journal.dropped(request.url)
            return
        if LEDGER_META not in request.meta:
            return
        redirected = bool(request.meta.get("redirect_urls"))
        outcome = "dropped:redirect-duplicate" if redirected else "dropped:scheduler"
        message = f"the scheduler refused {redact_url(request.url)}" + (
            " (already requested: it has its own outcome)" if redirected else ""
        )
        self._account(ledger_only_line(_origin(request), outcome, message))

    # -- outcomes ----------------------------------------------------------------------------

    def item_scraped(self, item: Any) -> None:
        adapter = ItemAdapter(item)
        uploads = uploads_taking(self.crawler)  # the remote feeds that took this item's lines
        if "records" in adapter.field_names():
            lost = feed_failure(self.crawler)  # the feeds ran before: is the page in them?
            if lost is not None:
                kept = feed_rescued(self.crawler)  # or lost with the rescue file
                self._unwritten(str(adapter["url"]), lost, kept=kept)
                return
            line = page_line(adapter)
            if uploads:  # in the feeds once uploaded (see _unstored)
                line["upload"] = uploads
            self._account(line)
        elif self.journal is not None:  # entity items: emitted at the end, all at once
            self.journal.entities_started()

    def _unwritten(
        self, url: str, why: str, outcome: str = "unwritten:feed", kept: bool = True
    ) -> None:
        """A fetched page that is not in the feeds: kept in the local file ``why`` names
        (``kept=False``: that file failed too, the page is lost)."""
        line = self.ledger.unwritten(url, why, outcome, kept)
        self.stats.inc_value(f"structcrawl/ledger/{line['problem']}")
        self._write(line)

    def page_accounted(self, url: str, outcome: str, message: str | None = None) -> None:
        self._account(ledger_only_line(url, outcome, message))

    def item_dropped(self, item: Any, exception: BaseException) -> None:
        adapter = ItemAdapter(item)
        if "records" in adapter.field_names():
            message = f"{type(exception).__name__}: {exception}"
            self._account(ledger_only_line(str(adapter["url"]), "dropped:item", message))

    def item_error(self, item: Any, failure: Any) -> None:
        adapter = ItemAdapter(item)
        if "records" in adapter.field_names():
            message = f"{getattr(failure, 'type', Exception).__name__}: {failure.value}"
            kept = keep_failed_page(self.crawler, item, failure)  # e.g. a Redis outage file
            if kept is not None:
                self._unwritten(str(adapter["url"]), f"{message}; {kept}", "unwritten:item-failed")
                return
            self._account(ledger_only_line(str(adapter["url"]), "error:item-failed", message))

    def spider_error(self, failure: Any, response: Any) -> None:
        request = response.request if isinstance(response, Response) else None
        request = request or getattr(response, "request", None)
        if request is None:
            return
        message = f"{failure.type.__name__}: {failure.value}"
        self.ledger.hint(ledger_only_line(_origin(request), "error:spider-error", message))

    # -- the end -----------------------------------------------------------------------------

    def _check_http_errors(self, outcomes: dict[str, int]) -> None:
        """A crawl whose pages are mostly HTTP errors (a sitemap of 404s) failed."""
        errors, pages = http_errors(outcomes)
        if pages and errors / pages > self.config.max_http_errors:
            self.stats.set_value(f"{FAILURE_PREFIX}ledger/http_errors", errors)
            logger.error(
                "%d of %d fetched pages ended in an HTTP error, more than "
                "STRUCTCRAWL_LEDGER_MAX_HTTP_ERRORS (%s): the crawl failed; see %s",
                errors,
                pages,
                self.config.max_http_errors,
                self.config.path,
            )

    def spider_closed(self, reason: str) -> None:
        """Finalize once the feeds are stored: a remote feed is uploaded as the spider
        closes, and the pages of one that was not stored are not in the feeds."""
        when_feeds_stored(self.crawler, partial(self._finish, reason))

    def _unstored(self) -> None:
        """The pages whose lines went to a remote feed that was not stored: kept in its spool
        file (named in the error), no longer accounted (the ledger file is rewritten); with
        ``JOBDIR`` the next run re-delivers them (:mod:`structcrawl.ledger.redelivery`). The
        pages of earlier runs whose re-delivery was stored are ``redelivered``."""
        moved, redelivered = self.redelivery.finish(self.ledger, Path(self.config.path))
        if redelivered:
            self.stats.inc_value("structcrawl/ledger/redelivered", redelivered)
        for outcome, count in moved.items():
            self.stats.inc_value("structcrawl/ledger/accounted", -count)
            self.stats.inc_value(f"structcrawl/ledger/outcome/{outcome}", -count)
            self.stats.inc_value("structcrawl/ledger/kept", count)
        if moved:
            logger.warning(
                "%d pages are not in the feeds: a remote feed was not stored (%s)%s",
                sum(moved.values()),
                "; ".join(failed_uploads(self.crawler).values()),
                "; the next run of the job (JOBDIR) re-delivers them" if self.config.jobdir else "",
            )

    def _finish(self, reason: str) -> None:
        pending = dict(self.ledger.pending)
        for line in self.ledger.close(reason):
            if line["problem"] is None:
                if line["outcome"].startswith("unfinished:"):
                    self.stats.inc_value("structcrawl/ledger/unfinished")
                else:
                    self.stats.inc_value("structcrawl/ledger/accounted")
                self.stats.inc_value(f"structcrawl/ledger/outcome/{line['outcome']}")
            else:
                self.stats.inc_value(f"structcrawl/ledger/{line['problem']}")
            self._write(line)
            if self.journal is not None and line["problem"] is None:
                if not line["outcome"].startswith("unfinished:"):
                    self.journal.accounted(str(line["url"]), commit=False)
        if self._file is not None:
            self._file.close()
            self._file = None
        self._unstored()
        state = self._state_path()
        if state is not None:
            kept = pending if reason != "finished" else {}
            state.parent.mkdir(parents=True, exist_ok=True)
            state.write_text(json.dumps({"pending": kept}), encoding="utf-8")
        if self.journal is not None:
            self.journal.closed(reason)
        summary = self.ledger.summary()
        for problem in ("unaccounted", "kept", "duplicate", "unrequested"):
            if summary[problem]:
                self.stats.set_value(f"{FAILURE_PREFIX}ledger/{problem}", summary[problem])
        self._check_http_errors(summary["by_outcome"])
        logger.info(
            "page ledger: requested %d, accounted %d, kept outside the feeds %d, "
            "unaccounted %d (%s)",
            summary["requested"],
            summary["accounted"],
            summary["kept"],
            summary["unaccounted"],
            self.config.path,
        )
        if summary["unaccounted"] or summary["duplicate"] or summary["unrequested"]:
            logger.warning(
                "page ledger mismatch: %d unaccounted, %d duplicate, %d unrequested outcomes; "
                "see %s (structcrawl ledger %s)",
                summary["unaccounted"],
                summary["duplicate"],
                summary["unrequested"],
                self.config.path,
                self.config.path,
            )
