"""Remote feeds' outcomes: what each upload feed (S3) took and whether it was stored, and the
hook for what must wait for the uploads (:func:`when_feeds_stored`).

Scrapy uploads a remote feed when its slot closes: as the spider closes (or when a batch is
full), after the page ledger and the quality report have seen every page. So the storage
(:class:`structcrawl.crawl.s3feed.GuardedS3FeedStorage`) records its :class:`Upload`
here when it opens its spool file and says how the upload ended; the page ledger asks, for
each item, which remote ``pages`` or ``records`` feeds took lines of it
(:func:`uploads_taking`), and finalizes once the feed exporter has stored every feed
(Scrapy's ``feed_exporter_closed``, sent after every slot's storage was stored): a page whose
lines went to a feed whose upload failed is kept in that feed's spool file, which the error
names (:func:`failed_uploads`), and is not in the feeds. The quality report finalizes after
the ledger, through the same hook, so both say what the feeds really hold.

A resumed job (``JOBDIR``) re-delivers the page feeds an earlier run could not store: the page
ledger hands their kept files over (:func:`carry`); a remote feed of this run with the same URI
takes a kept file's lines first (:func:`take_carried`, when its storage opens) and uploads
them with its own, and a kept file no feed took is uploaded alone to its URI once the feed
exporter has stored its feeds (before the ledger finalizes). Either way its outcome is an
:class:`Upload` of this run, so a re-delivery that fails again keeps the lines, and says so.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scrapy import signals
from scrapy.extensions.feedexport import FeedExporter
from twisted.internet.threads import deferToThread

__all__ = [
    "Carried",
    "Upload",
    "carry",
    "failed_page_feeds",
    "failed_uploads",
    "settled_spools",
    "stored_uploads",
    "take_carried",
    "upload_opened",
    "uploads_taking",
    "when_feeds_stored",
]

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
class Carried:
    """A page feed an earlier run of the job could not store: its URI (redacted), format and
    kept file, and the :class:`Upload` of this run that carries its lines (None: not yet)."""

    uri: str
    format: str
    spool: str
    upload: Upload | None = None


#: Uploads a kept file alone to its URI (in a thread), saying how it ended on the upload.
Deliver = Callable[[Carried, Upload], None]


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
    carried: list[Carried] = field(default_factory=list)
    deliver: Deliver | None = None

    def pending(self) -> bool:
        """Whether an upload may still end (the feed exporter has not finished)."""
        if self.exporter_closed:
            return False
        return bool(self.carried) or any(not u.done for u in self.uploads)

    def feed_exporter_closed(self) -> Any:
        """The feeds are stored: upload the kept files no feed took (the spider's close
        waits for the Deferred), then finalize."""
        self.exporter_closed = True
        alone = [c for c in self.carried if c.upload is None]
        if not alone or self.deliver is None:
            self._run()
            return None
        for carried in alone:
            carried.upload = upload_opened(self.crawler, carried.uri, carried.format, carried.spool)
        done = deferToThread(self._deliver_alone, alone)
        done.addErrback(lambda failure: logger.error("re-delivery failed: %s", failure.value))
        done.addBoth(lambda _: self._run())
        return done

    def _deliver_alone(self, alone: list[Carried]) -> None:
        assert self.deliver is not None
        for carried in alone:
            assert carried.upload is not None
            try:
                self.deliver(carried, carried.upload)
            except Exception as exc:  # the deliverer says how it failed; a bug must not hang
                if not carried.upload.done:
                    carried.upload.failed(f"{carried.uri} was not stored ({exc}); its content "
                                          f"is kept in {carried.spool}")  # fmt: skip

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


def failed_page_feeds(crawler: Any) -> list[Upload]:
    """The remote page feeds whose upload failed (each names its kept file), a kept file of
    an earlier run that nothing re-delivered among them."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    if registry is None:
        return []
    failed = [u for u in registry.uploads if u.error is not None and u.format in PAGE_FORMATS]
    for carried in registry.carried:
        if carried.upload is None:  # the feed exporter never finished
            error = f"{carried.uri} was not re-delivered; its content is kept in {carried.spool}"
            failed.append(Upload(carried.uri, carried.format, carried.spool, True, error))
    return failed


def stored_uploads(crawler: Any) -> set[str]:
    """The remote feeds (URIs) with an upload that was stored and none that failed."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    uploads = registry.uploads if registry is not None else []
    failed = {u.uri for u in uploads if u.error is not None}
    return {u.uri for u in uploads if u.done and u.error is None and u.uri not in failed}


def failed_uploads(crawler: Any) -> dict[str, str]:
    """The remote page feeds whose upload failed: URI -> the error (naming the kept file)."""
    return {u.uri: str(u.error) for u in failed_page_feeds(crawler)}


def carry(crawler: Any, uri: str, fmt: str, spool: str, deliver: Deliver) -> Carried:
    """A page feed an earlier run could not store is re-delivered by this run (see the top);
    ``deliver`` uploads its kept file alone when no feed of this run takes it."""
    registry = _registry(crawler)
    carried = Carried(uri, fmt, spool)
    registry.carried.append(carried)
    registry.deliver = deliver
    return carried


def take_carried(crawler: Any, upload: Upload) -> list[Carried]:
    """The kept files of earlier runs that ``upload`` (a feed of this run opening its spool)
    carries: those of its URI and format that no other upload took."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    taken = []
    for carried in registry.carried if registry is not None else ():
        if carried.upload is None and (carried.uri, carried.format) == (upload.uri, upload.format):
            carried.upload = upload
            taken.append(carried)
    return taken


def settled_spools(crawler: Any) -> list[str]:
    """The kept files of earlier runs that are no longer needed: their lines were stored, or
    are kept in this run's own spool file now."""
    registry = getattr(crawler, "_structcrawl_uploads", None)
    settled = []
    for carried in registry.carried if registry is not None else ():
        upload = carried.upload
        if upload is None or not upload.done:
            continue
        if upload.error is None or upload.spool != carried.spool:
            settled.append(carried.spool)
    return settled


def when_feeds_stored(crawler: Any, callback: Callable[[], None]) -> None:
    """Call ``callback`` once every remote feed's upload has ended: now when none is pending
    (no remote feed, or the feed exporter has finished), else when the feed exporter has
    finished (``feed_exporter_closed``); callbacks run in the order they were given."""
    registry = _registry(crawler)
    if registry.pending() or registry.waiting:
        registry.waiting.append(callback)
    else:
        callback()
