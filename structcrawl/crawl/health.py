"""Whether a finished crawl succeeded, read from its stats (pure).

A crawl fails when any component recorded a failure (a stats key under
``structcrawl/failure/``, e.g. the browser could not start or a quality threshold was
missed), when a feed could not be stored (``feedexport/failed_count/*``), when errors were
logged (a callback or pipeline raised, so something may be lost), or when it did not finish
(``finish_reason`` other than ``finished`` or a deliberate ``closespider_*`` limit).
Scrapy itself exits 0 in all these cases; ``scrapy crawl`` in this project does not (see
:mod:`structcrawl.commandline.scrapy_commands.crawl`).

>>> crawl_failures({"finish_reason": "finished"})
[]
>>> crawl_failures({"finish_reason": "finished", "structcrawl/failure/browser-launch": 3})
['structcrawl/failure/browser-launch: 3']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["FAILURE_PREFIX", "crawl_failures", "failed_feeds"]

FAILURE_PREFIX = "structcrawl/failure/"
_FEED_FAILED = "feedexport/failed_count/"
_OK_FINISH = ("finished", "closespider_itemcount", "closespider_pagecount", "closespider_timeout")


def crawl_failures(stats: Mapping[str, Any]) -> list[str]:
    """Human-readable reasons why the crawl must not look like a success (empty if none)."""
    reasons = [
        f"{key}: {value}"
        for key, value in sorted(stats.items())
        if (key.startswith(FAILURE_PREFIX) or key.startswith(_FEED_FAILED)) and value
    ]
    errors = stats.get("log_count/ERROR", 0)
    if errors:
        reasons.append(f"log_count/ERROR: {errors} (errors were logged; see the crawl log)")
    finish = stats.get("finish_reason")
    if finish is not None and finish not in _OK_FINISH:
        reasons.append(f"finish_reason: {finish}")
    return reasons


def failed_feeds(stats: Mapping[str, Any]) -> list[str]:
    """The stats keys of feeds that could not be stored (``feedexport/failed_count/<uri>``).

    >>> failed_feeds({"feedexport/failed_count/S3FeedStorage": 1, "finish_reason": "finished"})
    ['feedexport/failed_count/S3FeedStorage']
    """
    return [k for k, v in stats.items() if k.startswith(_FEED_FAILED) and v]
