"""``Redelivery``: the page ledger's side of remote feeds that were not stored.

At the end of a run (once the feed exporter has stored its feeds) the pages whose lines went
to a remote page feed whose upload failed become ``kept`` (:func:`~structcrawl.ledger.uploads.
rewrite_ledger`). With ``JOBDIR``, what the run could not deliver is written to
``<JOBDIR>/structcrawl-undelivered.jsonl`` (:mod:`structcrawl.ledger.uploads`), and the next
run of the job re-delivers it instead of leaving it in the kept files: each kept file is
handed to the feed exporter's side (:func:`structcrawl.crawl.uploads.carry`: this run's feed
of the same URI uploads its lines with its own, else it is uploaded alone to its URI), and
its pages are accounted again in this run's ledger (their line's ``redelivered``: the kept
files; not fetched again), so a re-delivery that fails again keeps them, in a file it names,
once more (``redelivery_failed`` instead). Only the pages whose re-delivery was stored count
as ``redelivered`` (:attr:`Finished.redelivered`, ``structcrawl/ledger/redelivered``), once the
uploads have ended.
A kept file that is gone loses its pages: they are ``unaccounted``. Kept files whose lines
were stored (or moved into this run's own kept file) are deleted once the new undelivered
file is written.

A run killed before its uploads leaves its spools in ``<JOBDIR>/structcrawl-spool/``, each
labelled with its feed (:mod:`structcrawl.crawl.spools`): the resumed run cuts each back to
its last committed page (:mod:`structcrawl.ledger.orphans`), says which it found, and
re-delivers them as it does kept files, their committed pages accounted (``redelivered``);
a spool that began with a kept file's lines takes that file's place.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from structcrawl.crawl.s3feed import redeliverer
from structcrawl.crawl.spools import SPOOL_DIR, drop_spool, mark_adopted, orphan_spools
from structcrawl.crawl.uploads import (
    PAGE_FORMATS,
    carry,
    failed_page_feeds,
    settled_spools,
    stored_uploads,
)
from structcrawl.ledger.orphans import carriers, cut_orphan, orphan_lines
from structcrawl.ledger.pages import Ledger
from structcrawl.ledger.uploads import (
    UNDELIVERED_FILE,
    read_undelivered,
    redelivered_line,
    rewrite_ledger,
    undelivered_pages,
)

__all__ = ["Finished", "Redelivery"]

logger = logging.getLogger(__name__)


class Finished(NamedTuple):
    """The end of a run: the outcomes moved to ``kept`` (a remote page feed was not stored),
    by outcome, and the pages of earlier runs whose re-delivery was stored."""

    moved: Counter[str]
    redelivered: int


class Redelivery:
    def __init__(self, crawler: Any, jobdir: str | None, committed: dict[str, int] | None = None):
        """``committed``: the spools' sizes at the last commit when the last run was killed
        (the job journal's feed sizes), else None."""
        self.crawler = crawler
        self.path = Path(jobdir) / UNDELIVERED_FILE if jobdir else None
        self.feeds = read_undelivered(self.path) if self.path is not None else {}
        self.present: set[str] = set()
        #: the pages this run re-delivers, by the remote feeds (URIs) that must store them
        self.carrying: Counter[tuple[str, ...]] = Counter()
        #: the committed pages of a killed run's spools (URL -> the line to account)
        self.orphaned: dict[str, dict[str, Any]] = {}
        self.superseded: list[str] = []  # files whose lines a killed run's spool holds now
        deliver = redeliverer(crawler)
        alone = self._adopt(Path(jobdir) / SPOOL_DIR, committed) if jobdir else []
        for uri, feed in self.feeds.items():
            spool = str(feed.get("spool") or "")
            if spool and Path(spool).is_file():
                self.present.add(spool)
                carry(crawler, uri, str(feed.get("format") or ""), spool, deliver)
        for orphan in alone:
            carry(crawler, orphan["feed"], orphan["format"], orphan["spool"], deliver)
        if self.feeds:
            logger.warning(
                "re-delivering %d page feed(s) an earlier run of the job could not store, "
                "from their kept files: %s",
                len(self.feeds),
                "; ".join(
                    f"{uri} <- {feed.get('spool')}"
                    + ("" if feed.get("spool") in self.present else " (gone)")
                    for uri, feed in self.feeds.items()
                ),
            )

    def _adopt(self, folder: Path, committed: dict[str, int] | None) -> list[dict[str, Any]]:
        """The spools a killed run left (cut back to their last commit, their committed pages
        kept for :meth:`pages`); those that take the place of a kept file become that feed's
        file; returns those to re-deliver alone (to their own URI)."""
        known = {str(feed.get("spool")) for feed in self.feeds.values()}
        orphans = orphan_spools(folder, known)
        if not orphans:
            return []
        for orphan in orphans:  # cut once, by the run that finds it first
            orphan["cut"] = 0 if orphan["adopted"] else cut_orphan(orphan, committed)
            mark_adopted(Path(orphan["spool"]))
        holder = carriers(orphans)
        self.superseded = sorted(holder)
        for feed in self.feeds.values():
            feed["spool"] = holder.get(str(feed.get("spool")), feed.get("spool"))
        taken = {str(feed.get("spool")) for feed in self.feeds.values()}
        alone = []
        for orphan in orphans:
            spool = holder.get(orphan["spool"], orphan["spool"])
            for line in orphan_lines(orphan) if orphan["format"] in PAGE_FORMATS else ():
                page = self.orphaned.setdefault(str(line["url"]), {**line, "upload": []})
                if orphan["format"] == "pages":  # its page item: the whole line
                    page.update(line)  # (a records feed's line says less)
                page["upload"].append(orphan["feed"])
                page.setdefault("redelivered", []).append(spool)
            if spool == orphan["spool"] and spool not in taken:
                if Path(spool).stat().st_size or orphan.get("carries"):
                    alone.append(orphan)
                else:  # nothing committed in it
                    self.superseded.append(spool)
        logger.warning(
            "found %d spool file(s) of a run of the job that was killed before its uploads, "
            "re-delivering their committed lines (%d pages): %s",
            len(orphans),
            len(self.orphaned),
            "; ".join(f"{o['feed']} <- {o['spool']} (cut {o['cut']} bytes)" for o in orphans),
        )
        return alone

    def pages(self) -> Iterator[tuple[dict[str, Any], list[str]]]:
        """The pages an earlier run kept: the line to account for each in this run, and the
        kept files it needs that are gone."""
        if self.path is not None and self.feeds:
            for line in undelivered_pages(self.path):
                again, gone = redelivered_line(line, self.feeds, self.present)
                if not gone:
                    self.carrying[tuple(again["upload"])] += 1
                yield again, gone
        orphaned, self.orphaned = self.orphaned, {}
        for line in orphaned.values():
            self.carrying[tuple(line["upload"])] += 1
            yield line, []

    def finish(self, ledger: Ledger, ledger_path: Path) -> Finished:
        """The pages of this run's page feeds that were not stored become ``kept`` (the
        ledger file rewritten); with ``JOBDIR`` they and their kept files are written for the
        next run. Returns the outcomes moved to ``kept`` and the pages re-delivered."""
        failed = failed_page_feeds(self.crawler)
        errors = {upload.uri: str(upload.error) for upload in failed}
        stored = stored_uploads(self.crawler)  # not merely not failed: an upload may not end
        redelivered = sum(
            count
            for uris, count in self.carrying.items()
            if uris and all(uri in stored and uri not in errors for uri in uris)
        )
        moved: Counter[str] = Counter()
        if self.path is None:
            if errors and ledger_path.exists():
                moved = rewrite_ledger(ledger_path, ledger, errors)
            return Finished(moved, redelivered)
        partial = self.path.with_name(self.path.name + ".partial")
        with partial.open("w", encoding="utf-8") as keep:
            for upload in failed:
                feed = {"feed": upload.uri, "format": upload.format, "spool": upload.spool}
                keep.write(json.dumps({**feed, "error": upload.error}, ensure_ascii=False) + "\n")
            if errors and ledger_path.exists():
                moved = rewrite_ledger(ledger_path, ledger, errors, keep)
        if failed:
            partial.replace(self.path)
        else:
            partial.unlink()
            self.path.unlink(missing_ok=True)
        for spool in [*settled_spools(self.crawler), *self.superseded]:  # named no more
            drop_spool(spool)
        return Finished(moved, redelivered)
