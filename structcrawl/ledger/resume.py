"""``JobJournal``: the page ledger's side of crash-safe resume (``JOBDIR``); the journal's
format and replay are in :mod:`structcrawl.ledger.journal`.

:class:`~structcrawl.ledger.extension.PageLedger` builds one when ``JOBDIR`` is set. When it is
built, before the engine opens the spider, it replays the journal; if the last run never
closed (it was killed), it

* cuts every local feed back to its size at the last committed page outcome (the lines of
  pages whose outcome was never committed, and a torn last line, go);
* removes Scrapy's disk queue (``<JOBDIR>/requests.queue``), whose index a killed run never
  wrote: what it held is rebuilt from the journal instead;
* gives the ledger the pending URLs (requested, no committed outcome) and, once the spider is
  open, schedules them again with their callback, errback, depth and priority
  (``dont_filter``: Scrapy's duplicate filter saw them already).

During every run of the job it journals each new request (and its refusal by the duplicate
filter), commits each outcome after flushing the local feeds (``acc`` with their sizes), and
refuses a new request whose fingerprint an earlier run requested (``IgnoreRequest`` from
``request_scheduled``, counted as ``structcrawl/ledger/filtered/journal``). Commits stop
recording feed sizes once entity items flow (entities are emitted at the end, all at once: if
that is interrupted, the resumed run cuts them and emits them all again).

Feeds covered: local files (``-o`` / ``FEEDS`` paths and ``file://`` URIs) without
post-processing, and the spool files of S3 feeds (:mod:`structcrawl.crawl.spools`), which a
killed run leaves in ``<JOBDIR>/structcrawl-spool/``: the resumed run cuts them back to their
last commit and re-delivers them (:mod:`structcrawl.ledger.redelivery`). Other remote feeds
(FTP) are uploaded when a run closes: a killed run uploads nothing.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from w3lib.url import file_uri_to_path

from structcrawl.ledger.journal import JOURNAL_FILE, Journal, JournalState, cut_feeds, read_journal

__all__ = ["JobJournal", "local_feed_paths"]

logger = logging.getLogger(__name__)


def local_feed_paths(feeds: dict[str, Any]) -> dict[str, bool]:
    """``{absolute path: overwrite}`` of the ``FEEDS`` entries that are plain local files.

    >>> local_feed_paths({"/out/p.jsonl": {"overwrite": True}, "s3://b/k": {},
    ...                   "file:///tmp/r.jsonl": {}, "/out/%(time)s.jsonl": {}})
    {'/out/p.jsonl': True, '/tmp/r.jsonl': False}
    """
    paths: dict[str, bool] = {}
    for uri, options in feeds.items():
        uri = str(uri)
        if "%(" in uri or (options or {}).get("postprocessing"):
            continue
        if uri.startswith("file:"):
            path = file_uri_to_path(uri)
        elif "://" in uri:
            continue
        else:
            path = uri
        paths[os.path.abspath(path)] = bool((options or {}).get("overwrite"))
    return paths


def _method_name(spider: Any, func: Any) -> str | None:
    if func is None or spider is None or getattr(func, "__self__", None) is not spider:
        return None
    return str(func.__name__)


class JobJournal:
    def __init__(self, crawler: Crawler, jobdir: str):
        self.crawler = crawler
        self.jobdir = Path(jobdir)
        path = self.jobdir / JOURNAL_FILE
        self.state: JournalState = read_journal(path)
        self.recovering = self.state.runs > 0 and self.state.crashed
        feeds = local_feed_paths(dict(crawler.settings.getdict("FEEDS")))
        if self.recovering:
            self._recover()
        for name, overwrite in feeds.items():
            if overwrite:
                logger.warning(
                    "JOBDIR is set but the feed %s is overwritten by each run (-O): a resumed "
                    "job loses what earlier runs wrote to it; use -o (append)",
                    name,
                )
        self.journal = Journal(path)
        baseline = {name: 0 if overwrite else _size(name) for name, overwrite in feeds.items()}
        self.journal.write({"run": self.state.runs + 1, "feeds": baseline})
        self._exporter: Any = None
        self._entities = False

    def _recover(self) -> None:
        state = self.state
        cut = cut_feeds(state.feeds)
        queue = self.jobdir / "requests.queue"
        if queue.exists():
            shutil.rmtree(queue, ignore_errors=True)
        stats = self.crawler.stats
        if stats is not None:
            stats.set_value("structcrawl/ledger/recovered/pending", state.pending_count())
            stats.set_value("structcrawl/ledger/recovered/feed_bytes_cut", sum(cut.values()))
        logger.warning(
            "resuming a job whose last run did not stop cleanly: %d URL(s) requested without "
            "a committed outcome are requested again; feeds cut back to their last commit: %s",
            state.pending_count(),
            {name: f"-{n} bytes" for name, n in cut.items()} or "nothing to cut",
        )

    # -- requests ------------------------------------------------------------------------------

    def _fingerprint(self, request: Request) -> str:
        fingerprinter = getattr(self.crawler, "request_fingerprinter", None)
        if fingerprinter is None:
            return ""
        return str(fingerprinter.fingerprint(request).hex())

    def known(self, request: Request) -> bool:
        """Whether an earlier run of the job requested this (a fresh request's) fingerprint."""
        if not self.state.known:
            return False
        return self.state.knows(self._fingerprint(request))

    def requested(self, request: Request) -> None:
        spider = getattr(self.crawler, "spider", None)
        line: dict[str, Any] = {
            "req": request.url,
            "fp": self._fingerprint(request)[:16],
            "cb": _method_name(spider, request.callback),
            "eb": _method_name(spider, request.errback),
            "depth": int(request.meta.get("depth", 0) or 0),
            "prio": request.priority,
        }
        if request.method != "GET":
            line["method"] = request.method
        if isinstance(request.meta.get("playwright"), bool):
            line["playwright"] = request.meta["playwright"]
        self.journal.write(line)

    def dropped(self, url: str) -> None:
        self.journal.write({"drop": url})

    def pending_requests(self, spider: Any, ledger_meta: str) -> list[Request]:
        """The requests to schedule again after a crash (each marked as its own origin in
        ``ledger_meta``, so the ledger takes them as continuations of the pending URLs)."""
        requests = []
        for url, specs in self.state.pending.items():
            for spec in specs:
                meta: dict[str, Any] = {ledger_meta: url, "depth": int(spec.get("depth") or 0)}
                if isinstance(spec.get("playwright"), bool):
                    meta["playwright"] = spec["playwright"]
                callback = getattr(spider, str(spec.get("cb") or ""), None)
                errback = getattr(spider, str(spec.get("eb") or ""), None)
                requests.append(
                    Request(
                        url,
                        callback=callback,
                        errback=errback,
                        method=str(spec.get("method") or "GET"),
                        priority=int(spec.get("prio") or 0),
                        meta=meta,
                        dont_filter=True,
                    )
                )
        return requests

    # -- commits -------------------------------------------------------------------------------

    def entities_started(self) -> None:
        self._entities = True

    def _feed_sizes(self) -> dict[str, int]:
        """Flush every local feed and return its size (what a commit records)."""
        from scrapy.extensions.feedexport import FeedExporter, FileFeedStorage

        if self._exporter is None:
            extensions = getattr(self.crawler, "extensions", None)
            found = [
                m for m in getattr(extensions, "middlewares", ()) if isinstance(m, FeedExporter)
            ]
            self._exporter = found[0] if found else False
        sizes: dict[str, int] = {}
        for slot in getattr(self._exporter, "slots", None) or ():
            handle = slot.file
            spool = getattr(slot.storage, "spool", None)  # a remote feed's spool file
            if isinstance(slot.storage, FileFeedStorage):
                path = str(slot.storage.path)
            elif spool is not None:
                path = str(spool)
            else:
                continue
            if handle is None:
                continue
            try:
                handle.flush()
                sizes[os.path.abspath(path)] = os.fstat(handle.fileno()).st_size
            except (OSError, ValueError, AttributeError):  # closed, or post-processed
                continue
        return sizes

    def accounted(self, url: str, *, commit: bool = True) -> None:
        """``url`` has its outcome. ``commit``: it is in the feeds now (their sizes are
        recorded), unless entity items are already being written."""
        line: dict[str, Any] = {"acc": url}
        if commit and not self._entities:
            line["feeds"] = self._feed_sizes()
        self.journal.write(line)

    def closed(self, reason: str) -> None:
        """The run stopped cleanly: what the feeds hold is flushed before it is said so."""
        self._feed_sizes()
        self.journal.write({"closed": reason})
        self.journal.close()


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
