"""The settings of the feed storages and their uploads (:mod:`structcrawl.crawl.feedstorage`,
:mod:`structcrawl.crawl.s3feed`, :mod:`structcrawl.crawl.spools`) and their frozen config.

Gathered into :data:`structcrawl.crawl.config.DEFAULTS` with every other setting; no Scrapy
import.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from structcrawl.core.setting import Setting

__all__ = ["SETTINGS", "SPOOL_DIR", "FeedConfig"]

#: The feed storages' settings (gathered into :data:`structcrawl.crawl.config.DEFAULTS`).
SETTINGS: dict[str, Setting] = {
    "STRUCTCRAWL_FEED_RESCUE_DIR": Setting(
        None,
        "Where a feed's lines go when its file cannot be written (a full disk), and where "
        "S3 feeds are spooled and kept when the upload fails (None: the system's temporary "
        "directory, usually another file system); each file is named in the error. With "
        "JOBDIR, S3 feeds are spooled in <JOBDIR>/structcrawl-spool instead; each spool has a "
        "label beside it (.feed.json) naming its feed, so one a killed run left is found.",
    ),
    "STRUCTCRAWL_FEED_UPLOAD_TIMEOUT": Setting(
        60.0,
        "Seconds an S3 feed upload may wait to connect, and for each answer of the endpoint, "
        "before that attempt fails (botocore's connect and read timeouts; its retries, "
        "AWS_MAX_ATTEMPTS and AWS_RETRY_MODE in the environment, still apply): a hanging "
        "endpoint ends the upload, its content kept in the named spool file.",
    ),
}

#: The folder of a job's spool files, inside ``JOBDIR``.
SPOOL_DIR = "structcrawl-spool"


@dataclass(frozen=True, slots=True)
class FeedConfig:
    """Where the feed storages keep what they could not write or upload, and how long an
    upload may wait.

    >>> from scrapy.settings import Settings
    >>> config = FeedConfig.from_settings(Settings({"STRUCTCRAWL_FEED_RESCUE_DIR": "/r"}))
    >>> config.rescue_dir, config.spool_dir, config.upload_timeout
    (PosixPath('/r'), PosixPath('/r'), 60.0)
    >>> FeedConfig.from_settings(Settings({"JOBDIR": "/job"})).spool_dir
    PosixPath('/job/structcrawl-spool')
    """

    rescue_dir: Path  # STRUCTCRAWL_FEED_RESCUE_DIR, else the system's temporary directory
    upload_timeout: float  # STRUCTCRAWL_FEED_UPLOAD_TIMEOUT
    jobdir: Path | None = None  # JOBDIR: the S3 feeds' spools are the job's

    @property
    def spool_dir(self) -> Path:
        """Where S3 feeds are spooled: ``<JOBDIR>/structcrawl-spool`` with ``JOBDIR``, else
        the rescue directory."""
        return self.jobdir / SPOOL_DIR if self.jobdir is not None else self.rescue_dir

    @classmethod
    def from_settings(cls, settings: Any) -> FeedConfig:
        rescue = settings.get("STRUCTCRAWL_FEED_RESCUE_DIR") or tempfile.gettempdir()
        timeout = settings.get(
            "STRUCTCRAWL_FEED_UPLOAD_TIMEOUT", SETTINGS["STRUCTCRAWL_FEED_UPLOAD_TIMEOUT"].default
        )
        jobdir = settings.get("JOBDIR")
        return cls(
            rescue_dir=Path(rescue),
            upload_timeout=float(timeout),
            jobdir=Path(jobdir) if jobdir else None,
        )
