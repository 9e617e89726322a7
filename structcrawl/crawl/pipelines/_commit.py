"""When a run's change state is committed (entity change detection, item change tracking):
after the engine stopped, in a thread, and only for a crawl that finished with every feed
stored, so that the next run compares with the last finished one."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.threads import deferToThread

from structcrawl.crawl.health import failed_feeds

__all__ = ["in_thread", "may_commit"]

logger = logging.getLogger(__name__)


async def in_thread(work: Callable[[], None]) -> None:
    """``work()`` in a thread, awaited by an ``engine_stopped`` handler (a coroutine: Scrapy
    deprecates handlers that return a Deferred). A commit copies every fingerprint of the run
    (seconds for 100,000 entities); done in the reactor, it would block the download handlers
    closing on the same signal (Scrapy's HTTP handler bounds its close with a 1 s timer,
    which then fires after the close completed: ``AlreadyCalledError`` logged as CRITICAL)."""
    await maybe_deferred_to_future(deferToThread(work))


def may_commit(stats: Mapping[str, Any], what: str) -> bool:
    """Whether the run's ``what`` may be committed: the crawl finished (``finish_reason``
    ``finished``) and no feed failed to be stored; otherwise says why not, as a warning."""
    reason = stats.get("finish_reason")
    feeds = failed_feeds(stats)
    if reason == "finished" and not feeds:
        return True
    logger.warning(
        "%s: not committed (finish_reason %s, failed feeds %s); the next run compares with "
        "the last finished run",
        what,
        reason,
        feeds,
    )
    return False
