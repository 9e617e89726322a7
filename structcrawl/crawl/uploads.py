"""Remote feeds' outcomes: what each upload feed (S3) took and whether it was stored, and the
hook for what must wait for the uploads (:func:`when_feeds_stored`).

Scrapy uploads a remote feed when its slot closes: as the spider closes (or when a batch is
full), after the page ledger and the quality report have seen every page. So the storage
(:class:`structcrawl.crawl.feedstorage.GuardedS3FeedStorage`) records its :class:`Upload`
here when it opens its spool file and says how the upload ended; the page ledger asks, for
each item, which remote ``pages`` or ``records`` feeds took lines of it
(:func:`uploads_taking`), and finalizes once the feed exporter has stored every feed
(Scrapy's ``feed_exporter_closed``, sent after every slot's storage was stored): a page whose
lines went to a feed whose upload failed is kept in that feed's spool file, which the error
names (:func:`failed_uploads`), and is not in the feeds. The quality report finalizes after
the ledger, through the same hook, so both say what the feeds really hold.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scrapy import signals
from scrapy.extensions.feedexport import FeedExporter

__all__ = ["Upload", "failed_uploads", "upload_opened", "uploads_taking", "when_feeds_stored"]

logger = logging.getLogger(__name__)

#: Feed formats that hold the pages the ledger accounts for.
PAGE_FORMATS = frozenset({"pages", "records"})


@dataclass
class Upload:
    """One remote feed (one batch of it): its URI (credentials redacted), format, spool file
    and outcome (``done``; ``error`` names the kept spool file when it failed)."""

    uri: str
    format: str
    spool: str
    done: bool = False
    error: str | None = None

    def stored(self) -> None:
        self.done = True

    def failed(self, error: str) -> None:
        self.error, self.done = error, True


@dataclass
class _Registry:
    """The crawl's uploads (one per crawler, :func:`_registry`)."""

    crawler: Any
    uploads: list[Upload] = field(default_factory=list)
    #: id(slot) -> (the feed slot, its upload, lines it held when last asked)
    slots: dict[int, tuple[Any, Upload, int]] = field(default_factory=dict)
    exporter: Any = None
    exporter_closed: bool = False
    waiting: list[Callable[[], None]] = field(default_factory=list)

    def pending(self) -> bool:
        """Whether an upload may still end (the feed exporter has not finished)."""
        return not self.exporter_closed and any(not u.done for u in self.uploads)

    def feed_exporter_closed(self) -> None:
        self.exporter_closed = True
        self._run()

    def engine_stopped(self) -> None:
        if self.waiting:  # the feed exporter never said it finished
            logger.warning("the feed exporter did not finish its uploads: finalizing without")
            self._run()

    def _run(self) -> None:
        waiting, self.waiting = self.waiting, []
        for callback in waiting:
            try:
                callback()
            except Exception:
                logger.exception("finalizing after the feeds were stored failed")

    def feed_exporter(self) -> Any:
        if self.exporter is None:
            extensions = getattr(getattr(self.crawler, "extensions", None), "middlewares", ())
            found = [ext for ext in extensions if isinstance(ext, FeedExporter)]
            self.exporter = found[0] if found else False
        return self.exporter or None


def _registry(crawler: Any) -> _Registry:
    registry = getattr(crawler, "_structcrawl_uploads", None)
    if registry is None:
        registry = _Registry(crawler)
        crawler._structcrawl_uploads = registry
        connect = crawler.signals.connect  # bound methods of an object the crawler holds
        connect(registry.feed_exporter_closed, signal=signals.feed_exporter_closed)
        connect(registry.engine_stopped, signal=signals.engine_stopped)
    return registry


def upload_opened(crawler: Any, uri: str, fmt: str, spool: str) -> Upload:
    """A remote feed opened its spool file: its upload is pending until it says otherwise."""
    upload = Upload(uri, fmt, spool)
    _registry(crawler).uploads.append(upload)
    return upload


def _lines(slot: Any) -> int:
    """The lines a feed slot holds (structcrawl's exporters count them), else its items."""
    lines = getattr(slot.exporter, "lines", None)
    return lines if isinstance(lines, int) else int(slot.itemcount)


def uploads_taking(crawler: Any) -> list[str]:
    """The remote page feeds (URIs) that took lines since the last call: asked once per
    scraped item, right after the feed exporter wrote it, they are those holding that item's
    lines. A feed slot is followed from its first item (when its storage opens) until its
    upload ends, through the batch that replaces it."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    if registry is None or not registry.uploads:
        return []
    exporter = registry.feed_exporter()
    for slot in getattr(exporter, "slots", ()):
        upload = getattr(slot.storage, "upload", None)
        if isinstance(upload, Upload) and upload.format in PAGE_FORMATS:
            registry.slots.setdefault(id(slot), (slot, upload, 0))
    taking = []
    for key, (slot, upload, seen) in list(registry.slots.items()):
        now = _lines(slot)
        if now > seen:
            taking.append(upload.uri)
            registry.slots[key] = (slot, upload, now)
        if upload.done:
            del registry.slots[key]
    return taking


def failed_uploads(crawler: Any) -> dict[str, str]:
    """The remote page feeds whose upload failed: URI -> the error (naming the kept file)."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    uploads = registry.uploads if registry is not None else []
    return {u.uri: u.error for u in uploads if u.error is not None and u.format in PAGE_FORMATS}


def when_feeds_stored(crawler: Any, callback: Callable[[], None]) -> None:
    """Call ``callback`` once every remote feed's upload has ended: now when none is pending
    (no remote feed, or the feed exporter has finished), else when the feed exporter has
    finished (``feed_exporter_closed``); callbacks run in the order they were given."""
    registry = _registry(crawler)
    if registry.pending() or registry.waiting:
        registry.waiting.append(callback)
    else:
        callback()
