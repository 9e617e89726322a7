"""``DistributedAddon`` (in ``ADDONS``): with ``STRUCTCRAWL_REDIS_URL`` set, turns a crawl into
one worker of a distributed crawl; without it, changes nothing.

It sets, at add-on priority (your own settings win): ``SCHEDULER`` =
:class:`~structcrawl.distributed.scheduler.DistributedScheduler` (scrapy-redis's queue and
duplicate filter, persistent and non-blocking), ``SCHEDULER_PERSIST = True``,
``SCHEDULER_IDLE_BEFORE_CLOSE = 0``, ``DUPEFILTER_CLASS`` = scrapy-redis's and ``REDIS_URL``
(for any other scrapy-redis component); swaps the page ledger for
:class:`~structcrawl.distributed.ledger.DistributedPageLedger`, adds the
:class:`~structcrawl.distributed.coordination.Coordinator` extension, and points
``STRUCTCRAWL_CHANGE_STORE`` at the same Redis server unless you set it. The entity pipeline
finds the Redis entity store through :func:`~structcrawl.distributed.shared_entity_store`.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy.settings import SETTINGS_PRIORITIES

from structcrawl.crawl.config import DEFAULTS
from structcrawl.distributed.config import DistributedConfig

__all__ = ["DistributedAddon"]

logger = logging.getLogger(__name__)

_LEDGER = "structcrawl.ledger.extension.PageLedger"
_DISTRIBUTED_LEDGER = "structcrawl.distributed.ledger.DistributedPageLedger"
_COORDINATOR = "structcrawl.distributed.coordination.Coordinator"
_SCHEDULER = "structcrawl.distributed.scheduler.DistributedScheduler"


class DistributedAddon:
    """See the module documentation."""

    def update_settings(self, settings: Any) -> None:
        config = DistributedConfig.from_settings(settings)
        if not config.url:
            return
        for name, value in (
            ("SCHEDULER", _SCHEDULER),
            ("SCHEDULER_PERSIST", True),
            ("SCHEDULER_IDLE_BEFORE_CLOSE", 0),
            ("DUPEFILTER_CLASS", "scrapy_redis.dupefilter.RFPDupeFilter"),
            ("REDIS_URL", config.url),
        ):
            settings.set(name, value, priority="addon")
        extensions = settings["EXTENSIONS"]
        ledger = extensions.get(_LEDGER)
        if ledger is not None:
            extensions[_LEDGER] = None
            extensions[_DISTRIBUTED_LEDGER] = ledger
        extensions[_COORDINATOR] = 0
        store = "STRUCTCRAWL_CHANGE_STORE"
        if (
            settings.get(store) == DEFAULTS[store].default
            and settings.getpriority(store) <= SETTINGS_PRIORITIES["project"]
        ):
            settings.set(store, config.url, priority="project")
        if settings.get("JOBDIR"):
            logger.warning(
                "JOBDIR is not used by a distributed crawl: its queue and state live in Redis"
            )
