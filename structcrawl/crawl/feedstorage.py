"""Feed storages that lose nothing unseen (``FEED_STORAGES`` for ``file``, plain paths and
``s3``, registered by :class:`structcrawl.Addon`).

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
* a remote feed (S3) is spooled into a named file in the rescue directory, deleted once the
  upload succeeded and kept when it failed, with the file named in the error
  (``structcrawl/failure/feed/upload``); the upload's outcome is recorded
  (:mod:`structcrawl.crawl.uploads`), so the ledger and the report, which finalize after the
  uploads, count the pages of a feed that was not stored as kept in that file. A resumed job
  re-delivers such a file (:func:`redeliverer`, :func:`structcrawl.crawl.uploads.carry`):
  the spool of this run's feed of the same URI starts with its lines, else it is uploaded
  alone to its URI. The upload's connect and read timeouts are
  ``STRUCTCRAWL_FEED_UPLOAD_TIMEOUT`` (:func:`bounded_s3_client`), so a hanging endpoint ends
  it too.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from scrapy.extensions.feedexport import FileFeedStorage, S3FeedStorage

from structcrawl.core.redact import REDACTED, redact_url
from structcrawl.crawl.uploads import (
    PAGE_FORMATS,
    Carried,
    Deliver,
    Upload,
    take_carried,
    upload_opened,
)

__all__ = [
    "GuardedFile",
    "GuardedFileFeedStorage",
    "GuardedS3FeedStorage",
    "PageKeeper",
    "add_page_keeper",
    "bounded_s3_client",
    "feed_failure",
    "feed_rescued",
    "keep_failed_page",
    "redeliverer",
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
    folder = Path(settings.get("STRUCTCRAWL_FEED_RESCUE_DIR") or tempfile.gettempdir())
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


def bounded_s3_client(storage: S3FeedStorage, settings: Any) -> None:
    """Give ``storage`` (Scrapy's S3 storage, built from the settings) a client whose connect
    and read timeouts are ``STRUCTCRAWL_FEED_UPLOAD_TIMEOUT``: botocore waits 60 s for each
    read, and an endpoint that accepts and never answers held the crawl's end that long per
    attempt."""
    import boto3.session
    from botocore.config import Config

    timeout = settings.getfloat("STRUCTCRAWL_FEED_UPLOAD_TIMEOUT", 60.0)
    options: dict[str, Any] = {"connect_timeout": timeout, "read_timeout": timeout}
    if storage.max_pool_connections is not None:
        options["max_pool_connections"] = storage.max_pool_connections
    storage.s3_client = boto3.session.Session().client(
        "s3",
        aws_access_key_id=storage.access_key,
        aws_secret_access_key=storage.secret_key,
        aws_session_token=storage.session_token,
        endpoint_url=storage.endpoint_url,
        region_name=storage.region_name,
        config=Config(**options),
    )


class GuardedS3FeedStorage(S3FeedStorage):
    """Scrapy's S3 storage spooling into a named local file, kept when the upload fails."""

    crawler: Any = None
    format = ""
    uri = ""
    spool: Path | None = None
    upload: Upload | None = None  # its outcome, for the ledger and the report

    @classmethod
    def from_crawler(
        cls, crawler: Any, uri: str, *, feed_options: dict[str, Any] | None = None
    ) -> GuardedS3FeedStorage:
        storage = super().from_crawler(crawler, uri, feed_options=feed_options)
        bounded_s3_client(storage, crawler.settings)
        storage.crawler = crawler
        storage.format = str((feed_options or {}).get("format") or "")
        storage.uri = uri
        return storage

    def open(self, spider: Any) -> IO[bytes]:
        self.spool = rescue_path(self.crawler.settings, self.uri, "spool")
        spooled = GuardedFile(self.crawler, self.uri, self.format, self.spool, "wb", False)
        self.upload = upload_opened(self.crawler, spooled.uri, self.format, str(self.spool))
        for carried in take_carried(self.crawler, self.upload):  # an earlier run's lines first
            with open(carried.spool, "rb") as kept:
                while chunk := kept.read(1 << 20):
                    spooled.write(chunk)
            logger.info("%s: re-delivering the lines kept in %s", spooled.uri, carried.spool)
        return spooled  # type: ignore[return-value]

    def _store_in_thread(self, file: IO[bytes]) -> None:
        file.close()  # the spool, flushed
        assert self.spool is not None
        try:
            with self.spool.open("rb") as spooled:
                super()._store_in_thread(spooled)
        except Exception as exc:
            self.crawler.stats.inc_value("structcrawl/failure/feed/upload")
            error = (
                f"{redact_url(self.uri)} was not stored ({type(exc).__name__}: {exc}); "
                f"its content is kept in {self.spool}"
            )
            if self.upload is not None:
                self.upload.failed(error)
            raise OSError(error) from exc
        if self.upload is not None:
            self.upload.stored()
        self.spool.unlink(missing_ok=True)


def _with_credentials(uri: str, feeds: Mapping[str, Any]) -> str:
    """``uri`` (redacted) with the credentials of the ``FEEDS`` entry of its bucket, or with
    none (boto3 then takes them from the settings or the environment).

    >>> _with_credentials("s3://[REDACTED]@b/old.jsonl", {"s3://k:s@b/%(time)s.jsonl": {}})
    's3://k:s@b/old.jsonl'
    >>> _with_credentials("s3://[REDACTED]@b/old.jsonl", {}), _with_credentials("s3://b/x", {})
    ('s3://b/old.jsonl', 's3://b/x')
    """
    if REDACTED not in uri:
        return uri
    scheme, _, rest = uri.partition("://")
    userinfo, _, rest = rest.partition("@")  # the redacted user information
    host = rest.split("/", 1)[0]
    for key in feeds:
        their_scheme, _, theirs = str(key).partition("://")
        netloc = theirs.split("/", 1)[0]
        if their_scheme == scheme and netloc.rpartition("@")[2] == host and "@" in netloc:
            return f"{scheme}://{netloc.rpartition('@')[0]}@{rest}"
    return f"{scheme}://{rest}"


def redeliverer(crawler: Any) -> Deliver:
    """What uploads a kept file of an earlier run alone to its URI (in a thread), as Scrapy's
    S3 storage would have, its outcome on the :class:`Upload`."""

    def deliver(carried: Carried, upload: Upload) -> None:
        uri = _with_credentials(carried.uri, crawler.settings.getdict("FEEDS"))
        options = {"format": carried.format, "overwrite": True}
        try:
            storage = S3FeedStorage.from_crawler(crawler, uri, feed_options=options)
            bounded_s3_client(storage, crawler.settings)
            with open(carried.spool, "rb") as kept:
                storage._store_in_thread(kept)
        except Exception as exc:
            crawler.stats.inc_value("structcrawl/failure/feed/upload")
            error = (
                f"{carried.uri} was not stored ({type(exc).__name__}: {exc}); "
                f"its content is kept in {carried.spool}"
            )
            logger.error("re-delivering an earlier run's feed: %s", error)
            upload.failed(error)
            return
        logger.info("%s: re-delivered the lines kept in %s", carried.uri, carried.spool)
        upload.stored()

    return deliver
