"""Feed storages that lose nothing unseen (``FEED_STORAGES`` for ``file``, plain paths and
``s3``, registered by :class:`structcrawl.Addon`; the S3 one is in
:mod:`structcrawl.crawl.s3feed`).

Scrapy's storages drop what they cannot write: a full disk leaves a feed cut in the middle of
a line while every later item is silently skipped, and a failed S3 upload deletes the only
copy of the feed (its temporary file). Here every feed file is a :class:`GuardedFile`:

* lines are handed to the operating system as the exporter writes them (a line, or a page's
  lines, at once), unbuffered, so the feed's length after each is known (and is what the
  job journal commits, :mod:`structcrawl.ledger.resume`); when a write fails (``ENOSPC``,
  ``EFBIG``, ``EIO``), the feed is cut back to its last whole write, that write and every
  later one go to a **rescue file** named
  in the error (``STRUCTCRAWL_FEED_RESCUE_DIR``, default the system's temporary directory,
  usually another file system than the output), and the crawl fails
  (``structcrawl/failure/feed/write``). When the rescue file cannot be written either, its
  lines are counted as lost (``structcrawl/feed/lost_bytes``) and said so in the log;
* a remote feed (S3) is spooled into a named file, labelled with its feed from the start
  (:mod:`structcrawl.crawl.spools`: in ``<JOBDIR>/structcrawl-spool/`` with ``JOBDIR``, else
  in the rescue directory), deleted once the upload succeeded and kept when it failed (or
  when the run was killed before it), with the file named in the error
  (``structcrawl/failure/feed/upload``): :mod:`structcrawl.crawl.s3feed`.

:func:`feed_failure` tells the page ledger whether the pages feeds still hold what is written
to them: once a ``pages`` or ``records`` feed failed, the pages that follow are not in it, and
the ledger counts them as kept outside the feeds (with the rescue file in its message), so the
ledger and the report say what the feeds really hold. :func:`keep_failed_page` does the same
for a page item whose processing failed (``item_error``): the keepers a component added
(:func:`add_page_keeper`; a distributed worker that lost Redis keeps the page in its outage
file) keep it once, and say where.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage

from structcrawl.core.redact import redact_url
from structcrawl.crawl.feedconfig import FeedConfig
from structcrawl.crawl.uploads import PAGE_FORMATS

__all__ = [
    "GuardedFile",
    "GuardedFileFeedStorage",
    "PageKeeper",
    "add_page_keeper",
    "feed_failure",
    "feed_rescued",
    "keep_failed_page",
    "rescue_path",
]

logger = logging.getLogger(__name__)

#: ``(item, failure) -> where`` for a page item whose processing failed: a sentence naming the
#: local file the keeper wrote the page item to, or None when it did not keep it.
PageKeeper = Callable[[Any, Any], "str | None"]


@dataclass
class _Losses:
    """The crawl's feed failures and page keepers (one per crawler, :func:`_losses`)."""

    failures: list[str] = field(default_factory=list)
    failed: list[GuardedFile] = field(default_factory=list)  # the page feeds' files
    keepers: list[PageKeeper] = field(default_factory=list)
    #: id(item) -> (a weak reference to the item, where it is kept): forgotten with the item
    kept: dict[int, tuple[weakref.ref[Any], str | None]] = field(default_factory=dict)


def _losses(crawler: Any) -> _Losses:
    losses = getattr(crawler, "_structcrawl_feed_losses", None)
    if losses is None:
        losses = _Losses()
        crawler._structcrawl_feed_losses = losses
    return losses


def feed_failure(crawler: Any) -> str | None:
    """Why the page feeds no longer hold the pages written to them (None: they do)."""
    failures = _losses(crawler).failures
    return failures[0] if failures else None


def feed_rescued(crawler: Any) -> bool:
    """Whether what the failed page feeds no longer take still goes to their rescue files."""
    return all(guarded.rescuing for guarded in _losses(crawler).failed)


def add_page_keeper(crawler: Any, keeper: PageKeeper) -> None:
    """Ask ``keeper`` to keep the page items whose processing fails in this crawl."""
    _losses(crawler).keepers.append(keeper)


def keep_failed_page(crawler: Any, item: Any, failure: Any) -> str | None:
    """Where a page item whose processing failed is kept (the first keeper's answer), None
    when no keeper kept it. The keepers see each item once, whoever asks first (the page
    ledger, the component that added them), so its outcome does not depend on the order of
    the ``item_error`` handlers; an item that cannot be weakly referenced (a plain dict) is
    offered to the keepers at each call."""
    losses = _losses(crawler)
    seen = losses.kept.get(id(item))
    if seen is not None and seen[0]() is item:
        return seen[1]
    where = None
    for keeper in losses.keepers:
        where = keeper(item, failure)
        if where is not None:
            break
    marker, kept = id(item), losses.kept

    def forget(_: weakref.ref[Any]) -> None:
        kept.pop(marker, None)

    try:
        ref = weakref.ref(item, forget)
    except TypeError:  # not weakly referenceable
        return where
    kept[marker] = (ref, where)
    return where


def rescue_path(settings: Any, uri: str, kind: str) -> Path:
    """A new file in ``STRUCTCRAWL_FEED_RESCUE_DIR`` named after the feed's file name."""
    folder = FeedConfig.from_settings(settings).rescue_dir
    folder.mkdir(parents=True, exist_ok=True)
    name = Path(uri.rsplit("/", 1)[-1] or "feed").name
    fd, path = tempfile.mkstemp(prefix=f"structcrawl-{kind}-{os.getpid()}-", suffix=f"-{name}",
                                dir=folder)  # fmt: skip
    os.close(fd)
    return Path(path)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class GuardedFile(io.RawIOBase):
    """A feed's file: whole units of lines, cut back and rescued when a write fails."""

    def __init__(self, crawler: Any, uri: str, fmt: str, path: Path, mode: str, rescue: bool):
        super().__init__()
        self.crawler, self.uri, self.format, self.path = crawler, redact_url(uri), fmt, path
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in mode else os.O_TRUNC)
        self._fd = os.open(path, flags, 0o644)
        self._good = os.lseek(self._fd, 0, os.SEEK_END)
        self._can_rescue = rescue
        self._rescue_fd: int | None = None
        self.rescue: Path | None = None
        self.failed: str | None = None
        self.lost_bytes = 0

    def writable(self) -> bool:
        return True

    @property
    def rescuing(self) -> bool:
        """Whether the lines the feed does not take go to the rescue file (none lost)."""
        return self._rescue_fd is not None

    def fileno(self) -> int:
        return self._fd

    def write(self, data: Any) -> int:
        """Hand ``data`` (whole lines: an exporter writes a line, or a page's lines, at once)
        to the operating system now, so the file's size is what a commit records."""
        if self.closed:
            raise ValueError("write to a closed feed file")
        chunk = bytes(data)
        if self.failed is None:
            try:
                _write_all(self._fd, chunk)
                self._good += len(chunk)
                return len(chunk)
            except OSError as exc:
                self._fail(exc)
        self._to_rescue(chunk)
        return len(chunk)

    def flush(self) -> None:
        """Nothing is held back: every write reached the operating system already."""

    def _fail(self, exc: OSError) -> None:
        try:
            os.ftruncate(self._fd, self._good)  # whole lines only
        except OSError:
            pass
        stats = self.crawler.stats
        stats.inc_value("structcrawl/failure/feed/write")
        if self._can_rescue:
            try:
                self.rescue = rescue_path(self.crawler.settings, self.uri, "rescue")
                self._rescue_fd = os.open(self.rescue, os.O_WRONLY | os.O_APPEND)
            except OSError as rescue_exc:
                self.rescue = None
                logger.error("feed %s: no rescue file could be made: %s", self.uri, rescue_exc)
        where = f"its lines from here on are in {self.rescue}" if self.rescue else "no rescue file"
        self.failed = f"the {self.format} feed {self.uri} could not be written ({exc}): {where}"
        logger.error("%s", self.failed)
        if self.format in PAGE_FORMATS:
            _losses(self.crawler).failures.append(self.failed)
            _losses(self.crawler).failed.append(self)

    def _to_rescue(self, chunk: bytes) -> None:
        if self._rescue_fd is not None:
            try:
                _write_all(self._rescue_fd, chunk)
                return
            except OSError as exc:
                logger.error("feed %s: the rescue file %s failed: %s", self.uri, self.rescue, exc)
                os.close(self._rescue_fd)
                self._rescue_fd = None
        self.lost_bytes += len(chunk)
        self.crawler.stats.inc_value("structcrawl/feed/lost_bytes", len(chunk))

    def close(self) -> None:
        if self.closed:
            return
        os.close(self._fd)
        if self._rescue_fd is not None:
            os.close(self._rescue_fd)
        if self.lost_bytes:
            logger.error("feed %s: %d bytes of lines were lost", self.uri, self.lost_bytes)
        super().close()


class GuardedFileFeedStorage(FileFeedStorage):
    """Scrapy's file storage writing through a :class:`GuardedFile`."""

    def __init__(
        self, uri: str, *, feed_options: dict[str, Any] | None = None, crawler: Any = None
    ):
        super().__init__(uri, feed_options=feed_options)
        self.crawler = crawler
        self.format = str((feed_options or {}).get("format") or "")

    @classmethod
    def from_crawler(
        cls, crawler: Any, uri: str, *, feed_options: dict[str, Any] | None = None
    ) -> GuardedFileFeedStorage:
        return cls(uri, feed_options=feed_options, crawler=crawler)

    def open(self, spider: Any) -> IO[bytes]:
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        guarded = GuardedFile(self.crawler, self.path, self.format, path, self.write_mode, True)
        return guarded  # type: ignore[return-value]
