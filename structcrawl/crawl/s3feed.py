"""The S3 feed storage (``FEED_STORAGES["s3"]``, registered by :class:`structcrawl.Addon`):
Scrapy's, spooling into a named, labelled local file (:mod:`structcrawl.crawl.spools`) that is
kept when the upload fails, with bounded upload timeouts, and the re-delivery of an earlier
run's kept file alone to its URI (:func:`redeliverer`).

The spool is a :class:`~structcrawl.crawl.feedstorage.GuardedFile`; the upload's outcome is
recorded (:mod:`structcrawl.crawl.uploads`), so the ledger and the report count the pages of a
feed that was not stored as kept in that file. A resumed job re-delivers such a file
(:func:`redeliverer`, :func:`structcrawl.crawl.uploads.carry`): the spool of this run's feed
of the same URI starts with its lines (its label says so), else it is uploaded alone to its
URI. The upload's connect and read timeouts are ``STRUCTCRAWL_FEED_UPLOAD_TIMEOUT``
(:func:`bounded_s3_client`), so a hanging endpoint ends it too.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from scrapy.extensions.feedexport import S3FeedStorage

from structcrawl.core.redact import REDACTED, redact_url
from structcrawl.crawl.feedconfig import FeedConfig
from structcrawl.crawl.feedstorage import GuardedFile
from structcrawl.crawl.spools import drop_spool, label_carried, open_spool
from structcrawl.crawl.uploads import Carried, Deliver, Upload, take_carried, upload_opened

__all__ = ["GuardedS3FeedStorage", "bounded_s3_client", "redeliverer"]

logger = logging.getLogger(__name__)


def bounded_s3_client(storage: S3FeedStorage, timeout: float) -> None:
    """Give ``storage`` (Scrapy's S3 storage, built from the settings) a client whose connect
    and read timeouts are ``timeout`` (``STRUCTCRAWL_FEED_UPLOAD_TIMEOUT``): botocore waits
    60 s for each read, and an endpoint that accepts and never answers held the crawl's end
    that long per attempt."""
    import boto3.session
    from botocore.config import Config

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
    config: FeedConfig | None = None
    format = ""
    uri = ""
    spool: Path | None = None
    upload: Upload | None = None  # its outcome, for the ledger and the report

    @classmethod
    def from_crawler(
        cls, crawler: Any, uri: str, *, feed_options: dict[str, Any] | None = None
    ) -> GuardedS3FeedStorage:
        storage = super().from_crawler(crawler, uri, feed_options=feed_options)
        storage.config = FeedConfig.from_settings(crawler.settings)
        bounded_s3_client(storage, storage.config.upload_timeout)
        storage.crawler = crawler
        storage.format = str((feed_options or {}).get("format") or "")
        storage.uri = uri
        return storage

    def open(self, spider: Any) -> IO[bytes]:
        uri = redact_url(self.uri)
        assert self.config is not None
        self.spool = open_spool(self.config.spool_dir, uri, self.format)
        logger.info("%s: spooled in %s until it is uploaded", uri, self.spool)
        spooled = GuardedFile(self.crawler, self.uri, self.format, self.spool, "wb", False)
        self.upload = upload_opened(self.crawler, spooled.uri, self.format, str(self.spool))
        taken = take_carried(self.crawler, self.upload)
        for carried in taken:  # an earlier run's lines first
            with open(carried.spool, "rb") as kept:
                while chunk := kept.read(1 << 20):
                    spooled.write(chunk)
            logger.info("%s: re-delivering the lines kept in %s", spooled.uri, carried.spool)
        if taken:
            label_carried(self.spool, [c.spool for c in taken], self.spool.stat().st_size)
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
        drop_spool(self.spool)


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
    config = FeedConfig.from_settings(crawler.settings)

    def deliver(carried: Carried, upload: Upload) -> None:
        uri = _with_credentials(carried.uri, crawler.settings.getdict("FEEDS"))
        options = {"format": carried.format, "overwrite": True}
        try:
            storage = S3FeedStorage.from_crawler(crawler, uri, feed_options=options)
            bounded_s3_client(storage, config.upload_timeout)
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
